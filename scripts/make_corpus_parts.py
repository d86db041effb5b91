#!/usr/bin/env python3
"""A corpus of more documents than the peers kit's make_corpus.py can hold in memory: it
builds the whole corpus as Python lists (5M documents passed 20 GB on this 24 GB machine), so
this generates parts of --part documents with seeds SEED, SEED + 1, … (part 0 is exactly
`make_corpus.py --docs PART --seed SEED`), then concatenates them, renumbering ids
(`d` + the global index, zero-padded, so lexicographic order is still document order) and
the planted pairs. Planted pairs stay within a part; the parts' statistics are the kit's.

    python3 scripts/make_corpus_parts.py --peers bench/peers --docs 5000000 \\
        --out work/corpus-5000000.jsonl [--part 1000000] [--seed 42] [--jobs 2]

Writes the corpus and `<out without .jsonl>.truth.csv`; part files are kept in the output's
directory as `<out>.partK.jsonl` (reused when present) and removed at the end.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peers", required=True, help="the peers kit (holds make_corpus.py)")
    ap.add_argument("--docs", type=int, required=True)
    ap.add_argument("--part", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--jobs", type=int, default=2, help="parts generated at once (about 5 GB each)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.docs < 1 or args.part < 1 or args.docs % args.part:
        ap.error("--docs must be a positive multiple of --part")
    parts = args.docs // args.part
    stem = args.out[:-len(".jsonl")] if args.out.endswith(".jsonl") else args.out
    names = [f"{args.out}.part{k}.jsonl" for k in range(parts)]

    def generate(k):
        if os.path.exists(names[k]) and os.path.exists(truth_of(names[k])):
            return
        cmd = [sys.executable, os.path.join(args.peers, "make_corpus.py"), "--docs", str(args.part),
               "--edit-rate", "0.02", "--seed", str(args.seed + k), "--out", names[k] + ".tmp",
               "--truth", truth_of(names[k])]
        subprocess.run(cmd, check=True, stdout=sys.stderr)
        os.replace(names[k] + ".tmp", names[k])

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(generate, range(parts)))

    width = max(6, len(str(args.docs - 1)))
    renumber = lambda k, old: f"d{k * args.part + int(old[1:]):0{width}d}"  # noqa: E731
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as out:
        for k, name in enumerate(names):
            with open(name, encoding="utf-8") as f:
                for line in f:
                    record = json.loads(line)
                    record["id"] = renumber(k, record["id"])
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
    with open(stem + ".truth.csv.tmp", "w", encoding="utf-8", newline="\n") as out:
        out.write("id_a,id_b\n")
        for k, name in enumerate(names):
            with open(truth_of(name), encoding="utf-8") as f:
                next(f)
                for line in f:
                    a, b = line.strip().split(",")
                    out.write(f"{renumber(k, a)},{renumber(k, b)}\n")
    os.replace(tmp, args.out)
    os.replace(stem + ".truth.csv.tmp", stem + ".truth.csv")
    for name in names:
        os.remove(name)
        os.remove(truth_of(name))
    print(f"corpus  {args.out}: {args.docs} documents in {parts} parts (seeds {args.seed}…"
          f"{args.seed + parts - 1})", file=sys.stderr)
    return 0


def truth_of(name):
    return name[:-len(".jsonl")] + ".truth.csv"


if __name__ == "__main__":
    sys.exit(main())
