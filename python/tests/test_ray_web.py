"""neardup.ray.dedup on a crawl: WARC files, each extracted and sketched in one task, give the
clusters, kept WARC records, kept text and page counts `neardup dedup` gives on one machine."""

import gzip
import json
import subprocess

import pyarrow.parquet as pq
import pytest

from conftest import make_corpus, require_ray

ray = require_ray()

import neardup.ray as nray  # noqa: E402
from test_ray import canonical  # noqa: E402
from test_web import page, record  # noqa: E402

SITES = ("a.example", "b.example", "c.example")
CRAWL_SEED = 20261129


def write_crawl(root, files, n_sources, seed=CRAWL_SEED):
    """Stories (``make_corpus``'s sources and their edited and exact copies) as pages in three
    sites' templates over ``files`` WARC files, page i on site i % 3 in file i % files: a
    story's copies are on other sites and in other files. Between the pages, records a crawl
    also holds and extraction skips (a request, a redirect, an image)."""
    texts = [t for t in make_corpus(n_sources=n_sources, seed=seed) if t]
    root.mkdir(parents=True, exist_ok=True)
    paths = [root / f"crawl-{f:02d}.warc.gz" for f in range(files)]
    outs = [open(p, "wb") for p in paths]
    try:
        for i, text in enumerate(texts):
            site = SITES[i % len(SITES)]
            out = outs[i % files]
            out.write(gzip.compress(record(i, f"https://{site}/story/{i}",
                                           page(site, f"Story {i}", text))))
            if i % 7 == 0:
                out.write(gzip.compress(other_record(i, site)))
    finally:
        for out in outs:
            out.close()
    return [str(p) for p in paths]


def other_record(i, site):
    """A redirect response: a record of the crawl that is not a page."""
    http = (f"HTTP/1.1 301 Moved Permanently\r\nLocation: https://{site}/new/{i}\r\n"
            "Content-Length: 0\r\n\r\n").encode()
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:r{i}>\r\n"
            f"WARC-Date: 2026-11-29T00:00:00Z\r\nWARC-Target-URI: https://{site}/old/{i}\r\n"
            "Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode()
    return head + http + b"\r\n\r\n"


def cli_dedup(cli, paths, out):
    done = subprocess.run([cli, "dedup", *paths, "--output", str(out), "--write-text",
                           "--param", "threshold=0.7"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def assert_crawl_same_as_cli(expected, output, summary):
    """Clusters row for row, each input's kept WARC records byte for byte, the kept text
    (Ray's per-input files in input order = the CLI's one file) and the page counts."""
    want = pq.read_table(expected / "clusters.parquet")
    removed = want.column("kept").to_pylist().count(False)
    assert removed > 10, "the crawl has duplicates to remove"
    assert canonical(nray.read_clusters(output)).equals(canonical(want))
    cli_summary = json.loads((expected / "summary.json").read_text())
    assert summary["removed"] == removed
    assert summary["extract"] == cli_summary["extract"] == "main"
    assert summary["pages"] == cli_summary["pages"]
    assert summary["pages"]["skipped: redirect (HTTP 3xx)"] > 0
    cli_files = sorted((expected / "deduplicated").iterdir())
    assert [f.name for f in cli_files] == [n.split("/")[-1] for n in summary["deduplicated"]]
    for a, name in zip(cli_files, summary["deduplicated"]):
        assert a.read_bytes() == (output / name).read_bytes(), name
    ray_text = b"".join((output / "kept-text" / f"{n.split('/')[-1][:-len('.warc.gz')]}.jsonl")
                        .read_bytes() for n in summary["deduplicated"])
    assert ray_text == (expected / "kept-text.jsonl").read_bytes()
    kept = [json.loads(line) for line in ray_text.splitlines()]
    assert len(kept) == summary["kept"] and all(k["url"].startswith("https://") for k in kept)


@pytest.mark.usefixtures("local_ray")
def test_a_crawl_on_ray_equals_one_machine(cli, tmp_path):
    paths = write_crawl(tmp_path / "crawl", files=3, n_sources=40)
    expected = cli_dedup(cli, paths, tmp_path / "cli")
    output = tmp_path / "ray"
    summary = nray.dedup(paths, output=str(output), threshold=0.7, write_text=True)
    assert_crawl_same_as_cli(expected, output, summary)


@pytest.mark.usefixtures("local_ray")
def test_web_options_are_checked_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="extract must be one of main, visible, none"):
        nray.dedup(str(tmp_path / "none.warc.gz"), output=str(tmp_path / "o"), extract="article")
    blocks = ray.data.from_items([{"text": "a b c"}])
    with pytest.raises(ValueError, match="write_text and html_column read input files again"):
        nray.dedup(blocks, output=str(tmp_path / "o"), write_text=True)
    assert not (tmp_path / "o").exists()
