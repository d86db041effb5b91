#!/usr/bin/env python3
"""A crawl deduplicated end to end, same WARC, same run: `neardup dedup x.warc.gz` against
datatrove's FineWeb recipe (WarcReader -> Trafilatura(favour_precision) -> JsonlWriter, then
its four MinHash dedup stages on the extracted text).

    python3 scripts/bench_crawl.py [--data-dir ../shared/datasets] [--copies 3] [--repeat 3]
        [--neardup BIN] [--datatrove-python PY]

The WARC is built from web-pages.jsonl.gz's ScrapingHub pages (`--set`; 181 distinct real
articles: readability's test pages are near-duplicates of each other by nature, Lorem-ipsum
fixtures and two captures of one article), every page under its own URL, then `--copies - 1`
copies of it under other hosts' URLs, the odd copies with 2 % of the words of their text
nodes replaced (seed 42), a gzip member per record. Truth: the copies of a page are one story.
Quality per tool: `removed`, the recall of the removals the truth calls for (each story keeps
one record), `stories lost` (every record of a story removed: a wrong removal) and `records
dropped` (in neither the kept nor the removed output: datatrove drops a page its extractor
returns nothing for; neardup keeps it). Needs pyarrow in the Python that runs this script. Times
are whole runs (best of --repeat, the tools alternating); quote the ratio. datatrove shards by
input file, so it extracts a one-file crawl in one process: the one-thread neardup row is the
per-core comparison.

datatrove needs `pip install datatrove==0.10.1 orjson xxhash tokenizers spacy warcio
faust-cchardet python-magic lxml_html_clean "trafilatura>=1.8,<1.12"` in --datatrove-python
(the peers kit's pins plus its WARC reader's and extractor's); its words are split on
whitespace by the peers kit's `SplitTokenizer` (bench/peers beside the data directory).
"""

import argparse
import glob
import gzip
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

TEXT_NODE = re.compile(r">([^<]+)<")


def edited(html, rng, rate=0.02):
    """`html` with `rate` of the words of its text nodes replaced (markup untouched)."""
    def edit(match):
        words = match.group(1).split(" ")
        for i, w in enumerate(words):
            if w.isalpha() and rng.random() < rate:
                words[i] = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(len(w)))
        return ">" + " ".join(words) + "<"
    return TEXT_NODE.sub(edit, html)


def record(rid, url, html):
    body = html.encode()
    http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: {rid}\r\n"
            f"WARC-Date: 2026-11-28T00:00:00Z\r\nWARC-Target-URI: {url}\r\n"
            f"Content-Type: application/http; msgtype=response\r\n"
            # As Common Crawl writes it: datatrove's WarcReader keeps pages by this header.
            f"WARC-Identified-Payload-Type: text/html\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode()
    return head + http + b"\r\n\r\n"


def build_warc(pages, copies, path, seed=42):
    rng = random.Random(seed)
    story = {}
    with open(path, "wb") as out:
        for n, page in enumerate(pages):
            for c in range(copies):
                rid = f"<urn:uuid:{n:08d}-0000-4000-8000-{c:012d}>"
                url = page["url"] or f"https://readability.example/{page['id']}"
                html = page["html"]
                if c > 0:
                    url = f"https://mirror{c}.example/{n}/{c}"
                    html = edited(html, rng) if c % 2 == 1 else html
                out.write(gzip.compress(record(rid, url, html), compresslevel=6))
                story[rid] = n
    return story


def quality(story, removed, present):
    groups = {}
    for rid, s in story.items():
        groups.setdefault(s, []).append(rid)
    expected = sum(len(g) - 1 for g in groups.values())
    found = lost = 0
    for members in groups.values():
        gone = sum(1 for m in members if m in removed)
        found += min(gone, len(members) - 1)
        lost += gone == len(members)
    dropped = sum(1 for rid in story if rid not in present)
    return {"removed": len(removed), "recall": found / expected, "stories_lost": lost,
            "dropped": dropped}


def run_neardup(binary, warc, work, extract, threads=None):
    out = os.path.join(work, f"neardup-{extract}-{threads}")
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    threads = ["--threads", str(threads)] if threads else []
    subprocess.run([binary, *threads, "dedup", warc, "-o", out, "--extract", extract], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    with open(os.path.join(out, "removed.txt")) as f:
        removed = {line.strip() for line in f if line.strip()}
    # Every record is in the output, kept or removed (a page without text is kept).
    import pyarrow.parquet as pq
    present = set(pq.read_table(os.path.join(out, "clusters.parquet"), columns=["id"])
                  .column("id").to_pylist())
    return seconds, removed, present


DATATROVE_CHILD = r'''
import os, sys
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import WarcReader, JsonlReader
from datatrove.pipeline.extractors import Trafilatura
from datatrove.pipeline.writers import JsonlWriter
from datatrove.pipeline.dedup import (MinhashDedupSignature, MinhashDedupBuckets,
                                      MinhashDedupCluster, MinhashDedupFilter)
from datatrove.pipeline.dedup.minhash import MinhashConfig
from datatrove.utils.hashing import HashConfig

warc_dir, w, workers, peers = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
# The peers kit's word tokenizer for datatrove: str.split, as every tool of the kit shingles.
sys.path.insert(0, peers)
import peers_datatrove
language = peers_datatrove.SplitTokenizer()
d = {k: os.path.join(w, k) for k in ("texts", "sigs", "buckets", "remove_ids", "logs")}
config = MinhashConfig(n_grams=5, num_buckets=9, hashes_per_bucket=13,
                       hash_config=HashConfig(precision=64, hash_fc="xxhash"))
stages = [
    LocalPipelineExecutor(pipeline=[WarcReader(warc_dir, glob_pattern="*.warc.gz"),
                                    Trafilatura(favour_precision=True, timeout=1.0),
                                    JsonlWriter(d["texts"], compression=None)],
                          tasks=1, workers=1, logging_dir=os.path.join(d["logs"], "0_extract")),
    LocalPipelineExecutor(pipeline=[JsonlReader(d["texts"]),
                                    MinhashDedupSignature(output_folder=d["sigs"], config=config,
                                                          language=language)],
                          tasks=1, workers=1, logging_dir=os.path.join(d["logs"], "1_signatures")),
    LocalPipelineExecutor(pipeline=[MinhashDedupBuckets(input_folder=d["sigs"],
                                                        output_folder=d["buckets"], config=config)],
                          tasks=config.num_buckets, workers=workers,
                          logging_dir=os.path.join(d["logs"], "2_buckets")),
    LocalPipelineExecutor(pipeline=[MinhashDedupCluster(input_folder=d["buckets"],
                                                        output_folder=d["remove_ids"], config=config)],
                          tasks=1, workers=1, logging_dir=os.path.join(d["logs"], "3_clusters")),
    LocalPipelineExecutor(pipeline=[JsonlReader(d["texts"]),
                                    MinhashDedupFilter(input_folder=d["remove_ids"],
                                                       exclusion_writer=JsonlWriter(os.path.join(w, "removed"), compression=None)),
                                    JsonlWriter(os.path.join(w, "kept"), compression=None)],
                          tasks=1, workers=1, logging_dir=os.path.join(d["logs"], "4_filter")),
]
for stage in stages:
    stage.run()
'''


def run_datatrove(python, warc, work, workers, peers):
    w = os.path.join(work, "datatrove")
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    start = time.perf_counter()
    subprocess.run([python, "-c", DATATROVE_CHILD, os.path.dirname(warc), w, str(workers), peers],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    removed, present = set(), set()
    for folder in ("removed", "kept"):
        for path in glob.glob(os.path.join(w, folder, "*.jsonl")):
            with open(path) as f:
                ids = {json.loads(line)["id"] for line in f}
            present |= ids
            if folder == "removed":
                removed |= ids
    return seconds, removed, present


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="../shared/datasets")
    ap.add_argument("--neardup", default=os.environ.get("NEARDUP_BIN", "target/release/neardup"))
    ap.add_argument("--datatrove-python", default=None)
    ap.add_argument("--copies", type=int, default=3)
    ap.add_argument("--set", default="scrapinghub", help="scrapinghub, readability or all")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    args = ap.parse_args()

    with gzip.open(os.path.join(args.data_dir, "web", "web-pages.jsonl.gz"), "rt") as f:
        pages = [p for p in map(json.loads, f) if args.set in ("all", p["set"])]
    work = tempfile.mkdtemp(prefix="bench-crawl-")
    warc_dir = os.path.join(work, "warc")
    os.makedirs(warc_dir)
    warc = os.path.join(warc_dir, "crawl.warc.gz")
    story = build_warc(pages, args.copies, warc)
    size = os.path.getsize(warc) / 1e6
    tools = {
        "neardup dedup (--extract main)": lambda: run_neardup(args.neardup, warc, work, "main"),
        "neardup --threads 1 dedup (--extract main)":
            lambda: run_neardup(args.neardup, warc, work, "main", threads=1),
        "neardup dedup --extract none (markup as text)": lambda: run_neardup(args.neardup, warc, work, "none"),
    }
    if args.datatrove_python:
        tools["datatrove 0.10.1: WarcReader → Trafilatura(favour_precision) → MinHash 9×13"] = \
            lambda: run_datatrove(args.datatrove_python, warc, work, args.workers,
                                  os.path.join(os.path.dirname(args.data_dir.rstrip("/")), "peers"))
    best, removed, present = {}, {}, {}
    for _ in range(args.repeat):
        for name, run in tools.items():
            seconds, removed[name], present[name] = run()
            best[name] = min(best.get(name, seconds), seconds)
    print(f"{len(story)} records ({len(pages)} {args.set} pages × {args.copies}: copies under other hosts, "
          f"every other one with 2 % of its text's words replaced), {size:.1f} MB gzip WARC; "
          f"best of {args.repeat}; {args.workers} workers\n")
    print("| pipeline | wall s | records/s | removed | recall of the copies | stories lost "
          "| records dropped (no text) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in tools:
        q = quality(story, removed[name], present[name])
        print(f"| {name} | {best[name]:.2f} | {len(story) / best[name]:.0f} | {q['removed']} | "
              f"{q['recall']:.3f} | {q['stories_lost']} | {q['dropped']} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
