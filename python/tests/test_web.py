"""Web pages from Python: ``neardup.extract`` and ``neardup.dedup`` read WARC files and HTML
columns as ``neardup extract`` / ``neardup dedup`` do, and give the CLI's text."""

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import neardup

ARTICLE = (
    "The council voted on Tuesday to extend the library's opening hours into the evening, after a "
    "year in which visits rose by a third and the reading rooms were full by noon. Residents had "
    "petitioned for the change since the spring, and the cost, about forty thousand a year, will "
    "be met from the culture budget without cuts elsewhere."
)
OTHER = (
    "A storm closed the coastal road for most of Sunday, and engineers spent the night clearing "
    "fallen trees and checking the sea wall, which held although waves reached the promenade "
    "cafes. The road reopened at dawn; the ferry timetable returns to normal on Wednesday."
)


def page(site, title, article):
    nav = "".join(f'<li><a href="/{s}">{s}</a></li>' for s in ("news", "sport", "weather", "jobs"))
    return (
        f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>"
        f"<nav><ul>{nav}</ul></nav><article><h1>{title}</h1><p>{article}</p></article>"
        f"<footer>&copy; 2026 {site}. All rights reserved.</footer></body></html>"
    )


def record(n, url, html):
    body = html.encode()
    http = (f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{n}>\r\n"
            f"WARC-Date: 2026-11-28T00:00:00Z\r\nWARC-Target-URI: {url}\r\n"
            f"Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode()
    return head + http + b"\r\n\r\n"


@pytest.fixture
def crawl(tmp_path):
    """Three pages: one story on two sites, and another story on the first site."""
    path = tmp_path / "crawl.warc.gz"
    with open(path, "wb") as f:
        for n, (url, site, title, text) in enumerate([
            ("https://a.example/1", "A", "Library hours", ARTICLE),
            ("https://b.example/x", "B", "Library hours extended", ARTICLE),
            ("https://a.example/2", "A", "Storm", OTHER),
        ]):
            f.write(gzip.compress(record(n, url, page(site, title, text))))
    return path


def test_extract_reads_a_warc_as_the_cli_does(crawl, tmp_path, cli):
    table = neardup.extract(crawl)
    assert table.column_names == ["id", "url", "host", "date", "charset", "title", "text"]
    rows = table.to_pylist()
    assert [r["id"] for r in rows] == ["<urn:uuid:0>", "<urn:uuid:1>", "<urn:uuid:2>"]
    assert [r["host"] for r in rows] == ["a.example", "b.example", "a.example"]
    assert "opening hours" in rows[0]["text"] and "All rights reserved" not in rows[0]["text"]
    done = json.loads(table.schema.metadata[b"neardup"])
    assert done["pages"] == 3 and done["counts"]["pages: extracted"] == 3
    # The CLI's output, row for row.
    import subprocess

    out = tmp_path / "cli.jsonl"
    subprocess.run([cli, "extract", str(crawl), "-o", str(out)], check=True, capture_output=True)
    cli_rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["text"] for r in cli_rows] == [r["text"] for r in rows]
    # JSONL output, read back with the same columns.
    again = neardup.extract([crawl], output=tmp_path / "t.jsonl.gz", extract="visible")
    assert "All rights reserved" in again.column("text")[0].as_py()
    with pytest.raises(ValueError, match="extract must be one of"):
        neardup.extract(crawl, extract="article")


def test_dedup_of_a_warc_and_of_an_html_column(crawl, tmp_path):
    result = neardup.dedup(crawl, output=tmp_path / "out", write_text=True)
    assert result.summary["removed"] == 1
    removed = result.clusters.filter(pa.compute.invert(result.clusters.column("kept")))
    assert removed.column("id").to_pylist() == ["<urn:uuid:1>"]
    kept = [json.loads(line) for line in (tmp_path / "out" / "kept-text.jsonl").read_text().splitlines()]
    assert [k["url"] for k in kept] == ["https://a.example/1", "https://a.example/2"]
    assert (tmp_path / "out" / "deduplicated.warc.gz").is_file()
    # The same pages as an HTML column of a Parquet file.
    pages = neardup.extract(crawl, extract="none")
    table = pa.table({"id": pages.column("id"), "url": pages.column("url"),
                      "html": pages.column("text")})
    pq.write_table(table, tmp_path / "pages.parquet")
    by_column = neardup.dedup(tmp_path / "pages.parquet", html_column="html")
    assert by_column.summary["removed"] == 1
    # The run says what it compared.
    assert result.summary["extract"] == "main"
    assert neardup.dedup(crawl, extract="none").summary["extract"] == "none"
