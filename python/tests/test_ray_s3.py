"""neardup.ray.dedup with its inputs and its output on S3: an S3-compatible server started by
the test (moto's server mode, on 127.0.0.1; never the internet) holds a crawl's WARC files,
and the run reads them through a ``pyarrow.fs.S3FileSystem`` and writes its set back there.
What it writes equals what `neardup dedup` writes for local copies of the same files."""

import json
import os
import socket
import subprocess

import pyarrow.parquet as pq
import pytest

from conftest import require_ray

ray = require_ray()
pytestmark = pytest.mark.usefixtures("local_ray")

import neardup.ray as nray  # noqa: E402
from test_ray_web import assert_crawl_same_as_cli, cli_dedup, write_crawl  # noqa: E402

BUCKET = "crawl-bucket"


def require_moto():
    """moto's server. CI installs it (python[test]), so there a missing moto fails."""
    if os.environ.get("CI"):
        import moto.server

        return moto.server
    return pytest.importorskip("moto.server")


@pytest.fixture(scope="module")
def s3():
    """A local S3 server and a filesystem on it with one bucket."""
    from pyarrow.fs import S3FileSystem

    server_module = require_moto()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    fs = S3FileSystem(access_key="testing", secret_key="testing", region="us-east-1",
                      endpoint_override=f"127.0.0.1:{port}", scheme="http",
                      allow_bucket_creation=True)
    fs.create_dir(BUCKET)
    yield fs
    server.stop()


def put(fs, local, key):
    with open(local, "rb") as src, fs.open_output_stream(f"{BUCKET}/{key}") as dst:
        dst.write(src.read())


def get_tree(fs, prefix, root):
    """Every object under ``prefix`` copied under ``root`` (the same relative paths)."""
    from pyarrow.fs import FileSelector, FileType

    for info in fs.get_file_info(FileSelector(f"{BUCKET}/{prefix}", recursive=True)):
        if info.type == FileType.File:
            local = root / info.path[len(f"{BUCKET}/{prefix}/"):]
            local.parent.mkdir(parents=True, exist_ok=True)
            with fs.open_input_stream(info.path) as src:
                local.write_bytes(src.read())


def test_a_crawl_on_s3_equals_one_machine(s3, cli, tmp_path):
    paths = write_crawl(tmp_path / "crawl", files=3, n_sources=40)
    for p in paths:
        put(s3, p, f"crawl/{os.path.basename(p)}")
    put(s3, paths[0], "crawl/notes.txt")  # not matched by the glob
    expected = cli_dedup(cli, paths, tmp_path / "cli")
    summary = nray.dedup(f"s3://{BUCKET}/crawl/*.warc.gz", output=f"s3://{BUCKET}/out",
                         filesystem=s3, threshold=0.7, write_text=True)
    assert summary["inputs"] == [f"s3://{BUCKET}/crawl/{os.path.basename(p)}" for p in paths]
    local = tmp_path / "fetched"
    get_tree(s3, "out", local)
    assert (local / "summary.json").is_file() and (local / "stages" / "ray").is_dir()
    assert_crawl_same_as_cli(expected, local, summary)
    readme = (local / "README.md").read_text()
    assert f"neardup inspect s3://{BUCKET}/out" in readme and "neardup-ray-publish" not in readme
    # A second run over the set replaces it whole.
    again = nray.dedup(f"s3://{BUCKET}/crawl", output=f"s3://{BUCKET}/out", filesystem=s3,
                       threshold=0.7, write_text=True)
    assert again["removed"] == summary["removed"]


def test_a_missing_input_on_s3_is_named(s3, tmp_path):
    with pytest.raises(FileNotFoundError, match=f"s3://{BUCKET}/nothing/\\*.warc.gz: matches no"):
        nray.dedup(f"s3://{BUCKET}/nothing/*.warc.gz", output=str(tmp_path / "o"), filesystem=s3)
    with pytest.raises(ValueError, match="not both"):
        nray.dedup([f"s3://{BUCKET}/crawl", str(tmp_path)], output=str(tmp_path / "o"),
                   filesystem=s3)
    assert not (tmp_path / "o").exists()


def test_html_files_on_s3_are_known_by_their_uris(s3, cli, tmp_path):
    """An HTML file is one page whose id is the file as given: on S3 its URI, never the path
    of the node's temporary copy; the clusters are the CLI's on local copies, id for id."""
    story = "".join(f"<p>Paragraph {i} of the story about the river and the town council "
                    "meeting on tuesday evening, told with many more words.</p>"
                    for i in range(8))
    other = story.replace("river", "mountain").replace("council", "orchestra")
    other = other.replace("town", "city").replace("tuesday", "friday").replace("evening", "dawn")
    pages = {"a.html": f"<html><body><nav>Home</nav><article>{story}</article></body></html>",
             "b.html": f"<html><body><nav>Start</nav><article>{story}</article></body></html>",
             "c.html": f"<html><body><nav>Home</nav><article>{other}</article></body></html>"}
    local = tmp_path / "pages"
    local.mkdir()
    for name, html in pages.items():
        (local / name).write_text(html)
        put(s3, local / name, f"pages/{name}")
    summary = nray.dedup(f"s3://{BUCKET}/pages/*.html", output=str(tmp_path / "ray"),
                         filesystem=s3, write_text=True)
    got = nray.read_clusters(str(tmp_path / "ray")).sort_by("id").to_pylist()
    done = subprocess.run([cli, "dedup", *sorted(str(p) for p in local.iterdir()), "--output",
                           str(tmp_path / "cli"), "--write-text"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = pq.read_table(tmp_path / "cli" / "clusters.parquet").sort_by("id").to_pylist()
    as_uri = {str(local / n): f"s3://{BUCKET}/pages/{n}" for n in pages}
    for row in want:
        row["id"], row["representative"] = as_uri[row["id"]], as_uri[row["representative"]]
    assert [r["id"] for r in got] == [f"s3://{BUCKET}/pages/{n}" for n in sorted(pages)]
    assert [r["kept"] for r in got] == [True, False, True]
    assert got == want
    # The kept text and the removed ids name the pages alike.
    def with_uris(data):
        for path, uri in as_uri.items():
            data = data.replace(json.dumps(path).encode(), json.dumps(uri).encode())
            data = data.replace(f"{path}\n".encode(), f"{uri}\n".encode())
        return data

    kept_text = tmp_path / "ray" / "kept-text"
    ray_text = b"".join((kept_text / n).read_bytes() for n in sorted(os.listdir(kept_text)))
    assert ray_text == with_uris((tmp_path / "cli" / "kept-text.jsonl").read_bytes())
    assert b"neardup-ray-input" not in ray_text and len(ray_text.splitlines()) == 2
    removed = (tmp_path / "ray" / "removed.txt").read_bytes()
    assert removed == with_uris((tmp_path / "cli" / "removed.txt").read_bytes()) != b""
    assert summary["removed"] == 1
