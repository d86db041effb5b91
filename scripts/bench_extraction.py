#!/usr/bin/env python3
"""Main-content extraction, same pages, same run: `neardup extract` (one thread) against
Python trafilatura (one process), scored against the gold articles of web-pages.jsonl.gz.

    python3 scripts/bench_extraction.py [--data-dir ../shared/datasets] [--neardup BIN] [--repeat 3]

Needs `pip install trafilatura lxml_html_clean` in the Python that runs it (the venv of
scripts/python-bench-setup.sh, or any). Prints a Markdown table: pages, word precision /
recall / F1 (mean per page, F1 of the means, as tests/web_pages.rs computes it) and pages/s
(best of --repeat runs; ratios within one run are the result, absolute times vary by VM).
"""

import argparse
import collections
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time

WORD = re.compile(r"\w+", re.UNICODE)


def words(text):
    return collections.Counter(w.lower() for w in WORD.findall(text or ""))


def scores(got, gold):
    """Mean word precision and recall over pages, and the F1 of the means."""
    p_sum = r_sum = 0.0
    for page_id, article in gold.items():
        g, a = words(got.get(page_id, "")), words(article)
        common = sum((g & a).values())
        p_sum += common / max(1, sum(g.values()))
        r_sum += common / max(1, sum(a.values()))
    p, r = p_sum / len(gold), r_sum / len(gold)
    return p, r, 2 * p * r / (p + r)


def neardup_run(binary, pages_file, out, mode):
    start = time.perf_counter()
    subprocess.run(
        [binary, "--threads", "1", "extract", pages_file, "--html-field", "html",
         "--extract", mode, "-o", out],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - start
    with open(out) as f:
        texts = {row["id"]: row["text"] for row in map(json.loads, f)}
    return texts, seconds


def trafilatura_run(pages, **options):
    import trafilatura

    start = time.perf_counter()
    texts = {p["id"]: trafilatura.extract(p["html"], **options) or "" for p in pages}
    return texts, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="../shared/datasets")
    ap.add_argument("--neardup", default=os.environ.get("NEARDUP_BIN", "target/release/neardup"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--set", default="scrapinghub", help="scrapinghub, readability or all")
    args = ap.parse_args()

    source = os.path.join(args.data_dir, "web", "web-pages.jsonl.gz")
    with gzip.open(source, "rt") as f:
        pages = [p for p in map(json.loads, f) if args.set in ("all", p["set"])]
    gold = {p["id"]: p["article"] for p in pages}
    tmp = tempfile.mkdtemp(prefix="bench-extraction-")
    pages_file = os.path.join(tmp, "pages.jsonl")
    with open(pages_file, "w") as f:
        for p in pages:
            f.write(json.dumps({"id": p["id"], "url": p["url"], "html": p["html"]}) + "\n")
    mb = sum(len(p["html"].encode()) for p in pages) / 1e6

    runs = {
        "neardup extract (main: `trafilatura` crate 0.6.0), 1 thread":
            lambda: neardup_run(args.neardup, pages_file, os.path.join(tmp, "m.jsonl"), "main"),
        "neardup extract --extract visible, 1 thread":
            lambda: neardup_run(args.neardup, pages_file, os.path.join(tmp, "v.jsonl"), "visible"),
        "Python trafilatura (default), 1 process": lambda: trafilatura_run(pages),
        "Python trafilatura (favor_precision), 1 process":
            lambda: trafilatura_run(pages, favor_precision=True),
    }
    best = {name: None for name in runs}
    texts = {}
    # Alternate the tools so that a noisy machine slows them alike.
    for _ in range(args.repeat):
        for name, run in runs.items():
            got, seconds = run()
            texts[name] = got
            best[name] = seconds if best[name] is None else min(best[name], seconds)

    import trafilatura

    print(f"{len(pages)} pages ({args.set}), {mb:.1f} MB of HTML; best of {args.repeat} runs; "
          f"Python trafilatura {trafilatura.__version__}\n")
    print("| extractor | word P | word R | word F1 | pages/s | vs Python trafilatura |")
    print("|---|---:|---:|---:|---:|---:|")
    reference = len(pages) / best["Python trafilatura (default), 1 process"]
    for name in runs:
        p, r, f1 = scores(texts[name], gold)
        rate = len(pages) / best[name]
        print(f"| {name} | {p:.3f} | {r:.3f} | {f1:.3f} | {rate:.1f} | {rate / reference:.2f}× |")
    print("\n(neardup's time is the whole process: start, reading the gzip-free JSONL, writing "
          "the output; Python's is the extraction calls alone.)")


if __name__ == "__main__":
    sys.exit(main())
