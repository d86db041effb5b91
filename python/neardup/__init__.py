"""neardup: near-duplicate text detection with a Rust core.

The same algorithms, parameters and results as the ``neardup`` command line, from Python:

>>> import neardup
>>> docs = ["the quick brown fox jumps over the lazy dog by the river bank today",
...         "the quick brown fox jumps over the lazy dog by the river bank tonight",
...         "an entirely different sentence about something else altogether, friend"]
>>> sigs = neardup.minhash(docs, num_perm=128, k=3)
>>> sigs.shape, sigs.dtype.name
((3, 128), 'uint32')
>>> [(a, b) for a, b, _ in neardup.detect(docs, "minhash-lsh", threshold=0.5, k=3)]
[(0, 1)]

Texts are any sequence of ``str`` or a pyarrow string ``Array`` / ``ChunkedArray`` (read in
place through the Arrow C data interface, without copying). Every function releases the GIL
while Rust works and uses all cores (``RAYON_NUM_THREADS`` limits them); results are
identical for any number of threads. Parameters are the CLI's ``--param k=v`` names and are
validated by the same code, so errors carry the same messages (``ValueError``; ``OSError`` for
files).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import _inputs, _native
from .client import Client, ServiceError
from .ensemble import MinHashLSHEnsemble
from .forest import MinHashLSHForest
from .lsh import MinHashLSH
from .sketches import LeanMinHash, MinHash, bulk
from .outputs import DedupResult, read_output, read_summary

__version__: str = _native.__version__

__all__ = [
    "Client",
    "DedupResult",
    "LeanMinHash",
    "MinHash",
    "MinHashLSH",
    "MinHashLSHEnsemble",
    "MinHashLSHForest",
    "algorithms",
    "band_keys",
    "bulk",
    "dedup",
    "detect",
    "hamming_designs",
    "lsh_tune",
    "minhash",
    "read_output",
    "read_summary",
    "ServiceError",
    "simhash",
]



def __dir__() -> list:
    """The public names only (``__all__``), not the modules this one imports."""
    return sorted(__all__ + ["__version__"])


Texts = Union[Sequence[str], Any]  # or a pyarrow Array / ChunkedArray of strings
PathLike = Union[str, "os.PathLike[str]"]


def _params(params: dict) -> str:
    return json.dumps(params)


def minhash(
    texts: Texts,
    num_perm: int = 128,
    shingle: str = "word",
    k: int = 5,
    seed: int = 42,
    **params: Any,
) -> np.ndarray:
    """MinHash signatures, one row of ``num_perm`` uint32 values per text.

    ``shingle`` is ``"word"`` or ``"char"`` k-shingles; other ``minhash-lsh`` sketch
    parameters (``tokenizer``, ``lowercase``, ``unicode``, ``sketch="oph"``, …) pass through.
    The rows are exactly the signatures ``neardup dedup`` stores and compares. A text without
    any shingle gets a row that is never a candidate in ``detect``/``dedup``.

    >>> s = minhash(["a b c d e f g", "a b c d e f h"], num_perm=64, k=2)
    >>> s.shape
    (2, 64)
    >>> 0.5 < float((s[0] == s[1]).mean()) < 1.0
    True
    """
    return _native.minhash(
        texts, _params(dict(num_perm=num_perm, shingle=shingle, k=k, seed=seed, **params))
    )


def simhash(texts: Texts, bits: int = 64, seed: int = 42, **params: Any) -> np.ndarray:
    """SimHash fingerprints, one row of ``bits // 64`` uint64 words per text.

    Parameters are ``simhash``'s (``weighting="tfidf"`` by default, with document
    frequencies from ``texts`` themselves unless ``idf_from`` names a table). Hamming distance
    of two rows: ``sum(bin(x ^ y).count("1") for x, y in zip(a, b))``.

    >>> f = simhash(["one two three four five six", "one two three four five seven"])
    >>> f.shape, f.dtype.name
    ((2, 1), 'uint64')
    """
    return _native.simhash(texts, _params(dict(bits=bits, seed=seed, **params)))


def band_keys(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """LSH band keys (n × bands, uint64) of MinHash ``signatures`` (n × num_perm, uint32).

    Two documents are LSH candidates exactly when they share a key in some column.

    >>> s = minhash(["a b c d e f g h", "a b c d e f g h"], num_perm=16, k=2)
    >>> keys = band_keys(s, bands=4, rows=4)
    >>> keys.shape, bool((keys[0] == keys[1]).all())
    ((2, 4), True)
    """
    sigs = np.asarray(signatures)
    if sigs.ndim != 2:
        raise ValueError(f"signatures must be a 2-d array, not {sigs.ndim}-d")
    if sigs.dtype != np.uint32:
        raise TypeError(f"signatures must be uint32 (as minhash returns), not {sigs.dtype}")
    return _native.band_keys(sigs, bands, rows)


def detect(texts: Any, algorithm: str = "minhash-lsh", text_column: str = "text",
           **params: Any) -> list:
    """Near-duplicate pairs ``(a, b, score)``, ``a < b`` indexing ``texts``, for any
    registered algorithm (see :func:`algorithms`) with its build and query parameters.

    ``texts``: a sequence of ``str``, a pyarrow string array, or a table-like object — a
    pyarrow ``Table`` / ``RecordBatchReader``, a pandas or polars DataFrame, a list of dicts
    — whose ``text_column`` holds the texts (rows are numbered in order).

    >>> docs = ["x y z w v u t s r q", "x y z w v u t s r q", "a b c d e f g h i j"]
    >>> detect(docs, "exact")
    [(0, 1, 1.0)]
    """
    return _native.detect(_inputs.texts_of(texts, text_column), algorithm, _params(params))


def algorithms() -> list:
    """The registered algorithms: ``name``, ``summary``, ``build_defaults``,
    ``query_defaults`` and ``streamed`` (whether ``dedup`` streams it or needs the corpus in
    memory)."""
    return json.loads(_native.algorithms())


def lsh_tune(threshold: float, num_perm: int = 128, false_positive_weight: float = 0.5,
             objective: str = "recall-at-threshold", min_probability: float = 0.95) -> dict:
    """The (bands, rows) banding for a Jaccard ``threshold`` within ``num_perm`` hashes:
    ``neardup lsh tune --format json``'s document (the S-curve around the threshold, the
    false-positive/negative areas, unused permutations). The default,
    ``objective="recall-at-threshold"``, is the banding ``dedup`` runs (it verifies every
    candidate): P(candidate | J = threshold) ≥ ``min_probability`` with the fewest false
    candidates; ``"balanced"`` is datasketch's (least weighted false-positive plus
    false-negative area, ``false_positive_weight``), which finds 40 % of the pairs at 0.8.

    >>> t = lsh_tune(0.8, 128)
    >>> (t["bands"], t["rows"])
    (13, 7)
    >>> lsh_tune(0.8, 128, objective="balanced")["bands"]
    9
    """
    return json.loads(_native.lsh_tune(threshold, num_perm, false_positive_weight, objective,
                                       min_probability))


def hamming_designs(
    bits: int = 64,
    distance: int = 3,
    fingerprints: float = 2.0**34,
    memory: Optional[int] = None,
) -> dict:
    """Manku et al.'s permuted-table designs for ``fingerprints`` fingerprints within Hamming
    ``distance``: memory, fingerprints examined per query, the cheapest design within
    ``memory`` bytes (``recommended``) and the number of random pairs within the distance:
    ``neardup hamming tune --format json``'s document.

    >>> d = hamming_designs(64, 3, 2**34)
    >>> d["recommended"]["tables"] >= 1
    True
    """
    return json.loads(_native.hamming_designs(bits, distance, float(fingerprints), memory))


def dedup(
    data: Union[PathLike, Sequence[PathLike], Any],
    text_column: str = "text",
    id_column: str = "id",
    algorithm: str = "minhash-lsh",
    output: Optional[PathLike] = None,
    keep: str = "first",
    memory: Optional[int] = None,
    index: Optional[PathLike] = None,
    inflated_copy: bool = True,
    clusters: Optional[str] = None,
    progress: bool = False,
    max_pairs: Optional[int] = None,
    html_column: Optional[str] = None,
    extract: str = "main",
    boilerplate_lines: Optional[int] = None,
    write_text: bool = False,
    min_words: int = 0,
    skip_invalid: bool = False,
    text_field: Optional[str] = None,
    id_field: Optional[str] = None,
    **params: Any,
) -> DedupResult:
    """Deduplicates files or in-memory rows with ``neardup dedup``'s pipeline.

    Returns a :class:`DedupResult`: ``clusters`` (pyarrow: ``id``, ``cluster``,
    ``cluster_size``, ``kept``, ``representative``, ``similarity_to_representative``),
    ``pairs`` (the pairs that put documents in clusters), ``summary`` (``summary.json``),
    ``output`` (``None`` when no ``output`` was given) and, for an in-memory input,
    ``deduplicated``: its kept rows, in order, in the kind of object given (a list, a pandas
    or polars DataFrame with its index, a pyarrow Table or RecordBatchReader). ``clusters``: ``"verified"`` (a document is removed only
    in the name of a kept one within the threshold; the default when the algorithm can
    compare any two documents) or ``"connected"`` (connected components). ``keep``: which
    member of a cluster is kept — ``"first"``, ``"longest"``, or ``"max:FIELD"`` /
    ``"min:FIELD"`` (the largest or smallest number or ISO 8601 date in that field:
    ``"max:date"`` keeps the newest), as ``neardup dedup --keep``.

    ``data``: JSONL (.jsonl/.json/.ndjson, optionally .gz/.zst), CSV or Parquet files, WARC
    or WET files (.warc, .warc.gz, .warc.zst), HTML files (.html/.htm), directories or globs;
    or in memory: a list of ``str`` (the texts; ids are row numbers), a list of dicts, a
    pandas or polars DataFrame, a pyarrow ``Table`` or ``RecordBatchReader``. A list of
    ``str`` is read as paths when each names an existing file or a matching glob, as texts
    when none does; a string that is neither a path nor a glob is refused.
    ``text_field`` / ``id_field`` are the CLI's names for ``text_column`` / ``id_column``. Web pages are compared by the text ``extract`` takes of them
    (``"main"``: the article or main content, the default; ``"visible"``: all visible text;
    ``"none"``: the markup as it is); ``html_column`` names a column holding pages' HTML (its
    record's ``url``, ``host`` and ``date`` travel with it); ``boilerplate_lines=K`` drops the
    lines found on K or more pages of one host (site templates); ``write_text`` also writes
    ``kept-text.jsonl``, the kept records' text as compared (``neardup dedup --write-text``). ``output``: the directory that receives
    ``neardup dedup``'s layout (``neardup.outputs``: the tables, ``removed.txt``, the
    deduplicated corpus, ``summary.json``, ``README.md`` and the resumable ``stages/``); a
    temporary directory, removed afterwards, when omitted. Ids come from ``id_column`` when
    present, else row numbers. ``index``: a persistent index directory (``neardup dedup
    --index``): documents duplicating an indexed one are not kept, and the inputs are then
    added to it (files once, however often they are run; a ``pyarrow.Table`` is written to a
    new temporary file each call, so each call adds it again). ``inflated_copy``: keep
    compressed JSONL inputs inflated under ``output`` between the sketch and outputs stages
    (as much disk as the inflated text, until the outputs are written), so they are not
    inflated twice; ``False`` is ``neardup dedup --no-inflated-copy``. ``progress``: show
    ``neardup dedup``'s progress on stderr (off by default; warnings are shown either way;
    the setting is process-wide while the call runs). ``max_pairs``: the pair limit of the
    joins (``neardup dedup --max-pairs``; default ``$NEARDUP_MAX_PAIRS`` or 20 million), which
    stops only a join that would really be quadratic — a heavy cluster (thousands of copies of
    one page) is joined in linear time. ``min_words=N``: documents of fewer words are left
    out of near-duplicate detection, their exact copies still found (``neardup dedup
    --min-words``; ``summary["short_documents"]`` counts them). ``skip_invalid``: malformed
    JSON Lines records are counted (``summary["invalid_records"]``), not compared, and copied to
    the deduplicated output as they are, instead of stopping the run. Other keyword arguments are the
    algorithm's parameters (``threshold=0.8``, ``bands``, ``rows``, ``k``, …).
    """
    import pyarrow.parquet as pq

    text_column = _inputs.cli_alias(text_column, text_field)
    id_column = _inputs.cli_alias(id_column, id_field)
    given = _inputs.paths_or_memory(data, text_column)
    with tempfile.TemporaryDirectory(prefix="neardup-") as scratch:
        memory_input = given if isinstance(given, _inputs.InMemory) else None
        if memory_input is not None:
            if html_column is None:
                memory_input.require(text_column)
            # Named for what it holds: the progress lines name the file the run reads.
            path = os.path.join(scratch, memory_input.kind.replace(" ", "-") + ".parquet")
            pq.write_table(memory_input.table, path)
            inputs = [path]
            if progress:
                print(f"neardup: reading a {memory_input.describe()} (through a temporary "
                      "Parquet file)", file=sys.stderr)
        else:
            inputs = given
        out = os.fspath(output) if output is not None else os.path.join(scratch, "out")
        _native.dedup(inputs, out, algorithm, _params(params), text_column, id_column, keep,
                      memory, None if index is None else os.fspath(index),
                      bool(inflated_copy), clusters, progress=bool(progress),
                      max_pairs=max_pairs, html_field=html_column, extract=extract,
                      boilerplate_lines=boilerplate_lines, write_text=bool(write_text),
                      min_words=int(min_words), skip_invalid=bool(skip_invalid))
        if memory_input is not None:
            # The temporary file is not an input the user can find again: say what it was.
            _rename_table_input(out, memory_input.kind)
        # Read fully before a temporary directory goes away.
        result = read_output(out)
        if memory_input is not None:
            mask = result.clusters.column("kept").to_numpy(zero_copy_only=False)
            result.deduplicated = memory_input.kept(np.asarray(mask, dtype=bool))
        if output is None:
            result.output = None
        return result


def extract(
    data: Union[PathLike, Sequence[PathLike]],
    output: Optional[PathLike] = None,
    extract: str = "main",
    html_column: Optional[str] = None,
    text_column: str = "text",
    id_column: str = "id",
    boilerplate_lines: Optional[int] = None,
) -> Any:
    """The text of web pages, one row per page, as ``neardup extract`` writes it.

    ``data``: WARC/WET files (.warc, .warc.gz, .warc.zst), HTML files, directories or globs,
    or JSONL/CSV/Parquet files with the pages' HTML in ``html_column``. ``extract``:
    ``"main"`` (the article or main content), ``"visible"`` (all text a reader sees) or
    ``"none"``. ``boilerplate_lines=K`` drops the lines found on K or more pages of one host.
    Returns a ``pyarrow.Table`` with ``id`` (``WARC-Record-ID``, the file's path, or the
    record's id), ``url``, ``host``, ``date``, ``charset``, ``title`` and ``text``; with
    ``output`` (``.parquet``, or ``.jsonl`` optionally ``.gz``/``.zst``), the file is written
    (atomically) and read back. What happened to every record is in the table's schema
    metadata, ``b"neardup"``: JSON with ``pages``, ``seconds`` and ``counts`` by reason.
    """
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    inputs = [os.fspath(data)] if isinstance(data, (str, os.PathLike)) else [os.fspath(p) for p in data]
    with tempfile.TemporaryDirectory(prefix="neardup-") as scratch:
        out = os.fspath(output) if output is not None else os.path.join(scratch, "pages.parquet")
        done = _native.extract(inputs, out, extract, html_column, text_column, id_column,
                               boilerplate_lines)
        if out.endswith(".parquet"):
            table = pq.read_table(out)
        else:
            import pyarrow as pa

            columns = ["id", "url", "host", "date", "charset", "title", "text"]
            schema = pa.schema([(c, pa.string()) for c in columns])
            with pa.input_stream(out, compression="detect") as stream:
                table = pj.read_json(stream, parse_options=pj.ParseOptions(explicit_schema=schema))
        return table.replace_schema_metadata({b"neardup": done.encode()})


def _rename_table_input(output: str, kind: str) -> None:
    """Names an in-memory input by its kind (``pyarrow.Table``, ``list of str``, ...) in
    ``summary.json`` instead of the temporary file it was written to (rewritten atomically)."""
    path = os.path.join(output, "summary.json")
    with open(path, encoding="utf-8") as f:
        summary = json.load(f)
    summary["inputs"] = [kind]
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(summary, indent=2))
    os.replace(tmp, path)
