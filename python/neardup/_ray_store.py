"""Inputs and outputs of ``neardup.ray`` on object stores (``s3://``, ``gs://``, any
filesystem pyarrow knows by its URI, or the ``pyarrow.fs.FileSystem`` the caller gives, as
Ray Data's readers take one).

The Rust readers and writers work on local files, so a task copies a remote input to its
node's temporary directory for as long as it reads it (the sketch task, then the task writing
that input's outputs: two reads of each input, as one process reads it twice) and writes an
output locally before uploading it. The driver lists the inputs and publishes the set: it
fetches the shards, runs ``neardup dedup``'s publish step in a local directory, and uploads
the tables and ``removed.txt``, then ``README.md``, then ``summary.json`` last (removed first:
until it is back the set is incomplete, as on a local disk).
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import tempfile
from contextlib import contextmanager
from typing import Any, Iterator, List, Sequence, Tuple

# The corpus files a directory listing keeps (``neardup dedup``'s own list:
# crates/neardup-dedup/src/input/files.rs, ``detect``), before an optional .gz / .zst.
_CORPUS_SUFFIXES = (".jsonl", ".json", ".ndjson", ".csv", ".warc", ".wet", ".html", ".htm",
                    ".xhtml")


def is_remote(path: Any) -> bool:
    """A URI of another filesystem than the local one (``s3://bucket/key``)."""
    return isinstance(path, str) and "://" in path and not path.startswith("file://")


def resolve(uri: str, filesystem=None) -> Tuple[Any, str]:
    """(The filesystem, the path in it) of ``uri``: ``filesystem`` with the URI's scheme
    dropped, or pyarrow's filesystem for the URI (credentials and endpoint from the
    environment or the URI's query, as pyarrow reads them)."""
    if filesystem is not None:
        return filesystem, uri.split("://", 1)[1].split("?", 1)[0]
    from pyarrow.fs import FileSystem

    return FileSystem.from_uri(uri)


def join(uri: str, name: str) -> str:
    return uri.rstrip("/") + "/" + name


def _scheme(uri: str) -> str:
    return uri.split("://", 1)[0] + "://"


def is_corpus_file(name: str) -> bool:
    base = os.path.basename(name)
    if base.startswith("."):
        return False
    stem = base[:-3] if base.endswith(".gz") else base[:-4] if base.endswith(".zst") else base
    return stem.endswith(_CORPUS_SUFFIXES) or (stem == base and base.endswith(".parquet"))


def expand(uris: Sequence[str], filesystem=None) -> List[str]:
    """Remote inputs as ``neardup dedup`` expands local ones: a file as it is, a directory
    as the corpus files under it, a glob (``*``, ``?``, ``[``) in the last part as the
    matching files; sorted, each once. Nothing found is an error naming the URI."""
    from pyarrow.fs import FileSelector, FileType

    found = set()
    for uri in uris:
        fs, path = resolve(uri, filesystem)
        scheme = _scheme(uri)
        head, pattern = path.rsplit("/", 1) if "/" in path else ("", path)
        if any(c in pattern for c in "*?["):
            infos = fs.get_file_info(FileSelector(head, allow_not_found=True))
            hits = [i.path for i in infos
                    if i.type == FileType.File and fnmatch.fnmatchcase(i.base_name, pattern)]
        else:
            info = fs.get_file_info(path)
            if info.type == FileType.File:
                hits = [path]
            elif info.type == FileType.Directory:
                hits = [i.path for i in fs.get_file_info(FileSelector(path, recursive=True))
                        if i.type == FileType.File and is_corpus_file(i.path)]
            else:
                raise FileNotFoundError(f"{uri}: no such file or directory")
        if not hits:
            raise FileNotFoundError(f"{uri}: matches no corpus file (.jsonl, .json, .csv, "
                                    ".parquet, .warc, .html, optionally .gz / .zst)")
        found.update(scheme + h for h in hits)
    return sorted(found)


@contextmanager
def local_copy(uri: str, filesystem=None) -> Iterator[str]:
    """A local copy of a remote file, under its own name (its format is told by it), for as
    long as the block runs; a local path as it is."""
    if not is_remote(uri):
        yield uri
        return
    tmp = tempfile.mkdtemp(prefix="neardup-ray-input-")
    try:
        local = os.path.join(tmp, os.path.basename(resolve(uri, filesystem)[1]))
        download(uri, local, filesystem)
        yield local
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def upload(local: str, uri: str, filesystem=None) -> None:
    fs, path = resolve(uri, filesystem)
    parent = path.rsplit("/", 1)[0]
    if parent and parent != path:
        fs.create_dir(parent, recursive=True)
    with open(local, "rb") as src, fs.open_output_stream(path) as dst:
        shutil.copyfileobj(src, dst, 8 << 20)


def download(uri: str, local: str, filesystem=None) -> None:
    fs, path = resolve(uri, filesystem)
    os.makedirs(os.path.dirname(local), exist_ok=True)
    with fs.open_input_stream(path) as src, open(local, "wb") as dst:
        shutil.copyfileobj(src, dst, 8 << 20)


def delete(uri: str, filesystem=None) -> None:
    """Removes a remote file if it is there."""
    from pyarrow.fs import FileType

    fs, path = resolve(uri, filesystem)
    if fs.get_file_info(path).type == FileType.File:
        fs.delete_file(path)


@contextmanager
def written(target: str, filesystem=None) -> Iterator[str]:
    """A local path to write ``target`` at: ``target`` itself when it is local, else a
    temporary file uploaded to it when the block ends without an error."""
    if not is_remote(target):
        yield target
        return
    tmp = tempfile.mkdtemp(prefix="neardup-ray-output-")
    try:
        local = os.path.join(tmp, os.path.basename(target.split("://", 1)[1]))
        yield local
        upload(local, target, filesystem)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def local_names(uris: Sequence[str]) -> Tuple[str, List[str]]:
    """(A temporary directory, an empty local file per URI under its own name, in the
    URIs' order): what ``neardup dedup``'s naming of outputs reads (names and formats)."""
    tmp = tempfile.mkdtemp(prefix="neardup-ray-names-")
    paths = []
    for i, uri in enumerate(uris):
        d = os.path.join(tmp, f"{i:08d}")
        os.makedirs(d)
        path = os.path.join(d, os.path.basename(uri.split("://", 1)[1]))
        open(path, "wb").close()
        paths.append(path)
    return tmp, paths
