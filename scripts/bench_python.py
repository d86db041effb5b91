"""The Python binding against the CLI and the Rust-backed peers, same corpus, same run.

    python scripts/bench_python.py CORPUS.jsonl NEARDUP_BIN PEERS_RESULTS.jsonl [--out DIR]

Times ``neardup.minhash`` (texts as a list of str and as a pyarrow array; loading them is not
timed, as in the peers' in-memory tasks) with the peers' shingles (lower-cased, split on
whitespace, word 5-shingles, 128 permutations), beside ``neardup bench --task
minhash128_end_to_end`` on the same file and the rensa / gaoya lines that ``run.sh`` wrote to
PEERS_RESULTS. Prints and writes ``DIR/README.md`` (default reports/python) and the JSON lines.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa

import neardup

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bar_chart import write_bars  # noqa: E402

CHART = "mb-per-s.svg"


def draw_rates(out_dir, rows):
    """The table's MB/s as bars beside it: neardup's (CLI and Python) in colour, the peers' grey."""
    write_bars(os.path.join(out_dir, CHART),
               "MB of text per second, same corpus, same run (longer is faster)", "MB/s",
               [(short_label(r), r["mb_per_s"], r["tool"].startswith("neardup")) for r in rows])


def short_label(row):
    """A row's label without the API it called (the table gives it): labels fit the chart."""
    if row["tool"].startswith("neardup"):
        return row["label"].split(": ")[0]
    return f'{row["tool"]} {row["task"]}'


PEER_SHINGLES = dict(
    num_perm=128, shingle="word", k=5, tokenizer="whitespace", language="en",
    cjk_unit="char", lowercase=True, unicode="none", collapse_whitespace=False,
    fold_width=False,
)


def best_of(repeat, f):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        c0 = time.process_time()
        f()
        times.append((time.perf_counter() - t0, time.process_time() - c0))
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("neardup_bin")
    ap.add_argument("peers_results")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="reports/python")
    args = ap.parse_args()

    texts = [json.loads(line)["text"] for line in open(args.corpus, encoding="utf-8")]
    mb = sum(len(t.encode()) for t in texts) / 1e6
    docs = len(texts)
    rows = []
    cli = json.loads(subprocess.run(
        [args.neardup_bin, "bench", "--corpus", args.corpus, "--task", "minhash128_end_to_end",
         "--repeat", str(args.repeat)],
        check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    cli["label"] = "neardup CLI bench (Rust, texts in memory)"
    rows.append(cli)

    arrow = pa.array(texts, type=pa.large_string())
    for label, data in [("neardup.minhash(list of str)", texts),
                        ("neardup.minhash(pyarrow array)", arrow)]:
        sigs = neardup.minhash(data, **PEER_SHINGLES)  # warm-up, and a shape check
        assert sigs.shape == (docs, 128)
        seconds, cpu = best_of(args.repeat, lambda: neardup.minhash(data, **PEER_SHINGLES))
        rows.append({
            "tool": "neardup-python", "task": "minhash128_end_to_end", "label": label,
            "docs": docs, "mb": round(mb, 3), "seconds": round(seconds, 4),
            "docs_per_s": round(docs / seconds, 1), "mb_per_s": round(mb / seconds, 3),
            "cpu_s": round(cpu, 4), "version": neardup.__version__,
        })

    # Text → verified pairs, the task gaoya's minhash_lsh_end_to_end times (9 × 13 bands).
    seconds, cpu = best_of(args.repeat, lambda: neardup.detect(
        arrow, "minhash-lsh", bands=9, rows=13, threshold=0.8, **PEER_SHINGLES))
    rows.append({
        "tool": "neardup-python", "task": "minhash_lsh_end_to_end",
        "label": "neardup.detect(pyarrow array, minhash-lsh 9×13): text → pairs",
        "docs": docs, "mb": round(mb, 3), "seconds": round(seconds, 4),
        "docs_per_s": round(docs / seconds, 1), "mb_per_s": round(mb / seconds, 3),
        "cpu_s": round(cpu, 4), "version": neardup.__version__,
    })

    for line in open(args.peers_results):
        if not line.strip():
            continue
        r = json.loads(line)
        if r.get("tool") in ("rensa", "gaoya") and "error" not in r and r["task"] in (
            "minhash128_end_to_end", "minhash_lsh_end_to_end", "minhash128_sketch"
        ):
            r["label"] = f'{r["tool"]} {r["task"]}' + (f' ({r.get("api")})' if r.get("api") else "")
            rows.append(r)

    cli_rate = cli["mb_per_s"]
    lines = [
        "# The Python package against the CLI and the Rust-backed peers",
        "",
        "Regenerate: `just bench-python` (`bash scripts/bench-python.sh`). Corpus: the peers'",
        f"`make_corpus.py` output, {docs:,} documents, {mb:.1f} MB of text; best of "
        f"{args.repeat}; {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, pyarrow {pa.__version__}; neardup {neardup.__version__}.",
        "Shingles as the peers define them (lower-cased, split on whitespace, word 5-shingles),",
        "128 permutations. rensa's and gaoya's lines come from `bench/peers/run.sh` on the same",
        "file in the same run; gaoya's task also inserts and queries its LSH index, rensa's",
        "`minhash128_sketch` starts from shingle sets built beforehand.",
        "",
        "`Python / this` divides the best Python minhash rate by the row's rate; for the",
        "text → pairs rows compare `neardup.detect` with gaoya's and rensa's LSH end to end.",
        "",
        f"![MB of text per second per row of the table]({CHART})",
        "",
        "| what | s | MB/s | cpu s | vs CLI | Python / this |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    py_rate = max(r["mb_per_s"] for r in rows if r["tool"] == "neardup-python")
    for r in rows:
        vs_cli = f'{r["mb_per_s"] / cli_rate:.2f}'
        ratio = f'{py_rate / r["mb_per_s"]:.1f}×'
        lines.append(f'| {r["label"]} | {r["seconds"]:.3f} | {r["mb_per_s"]:.1f} | '
                     f'{r.get("cpu_s", float("nan")):.2f} | {vs_cli} | {ratio} |')
    os.makedirs(args.out, exist_ok=True)
    draw_rates(args.out, rows)
    readme = os.path.join(args.out, "README.md")
    # The section bench_minhash_objects.py writes (run after this one) is carried over.
    kept = ""
    if os.path.exists(readme):
        old = open(readme, encoding="utf-8").read()
        begin = old.find("<!-- minhash-objects:")
        if begin >= 0:
            kept = "\n" + old[begin:].rstrip("\n") + "\n"
    with open(readme, "w") as f:
        f.write("\n".join(lines) + "\n" + kept)
    with open(os.path.join(args.out, "results.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
