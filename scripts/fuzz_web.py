#!/usr/bin/env python3
"""Fuzzes the web readers (WARC, ARC, HTML files and their extraction) through `neardup
extract` (issue 56: "fuzz the WARC/HTML readers").

Seeds: the real WARC/ARC files of `../shared/datasets/web/warc/` and pages of
`web-pages.jsonl.gz` written as `.html`. Each round damages one seed: random byte flips, runs
of 0xff (lengths, counts), a truncation, a record header's Content-Length changed, deep
nesting or a flood of tags spliced into a page — on the decompressed bytes, recompressed
when the seed is gzip, so the damage reaches the parsers. The contract: exit 0 or 1 with an
error naming the file; never a signal (abort, stack overflow), a panic (101) or a time
out. Failing inputs are kept in `--keep-dir`.

    python3 scripts/fuzz_web.py --bin target/release/neardup --minutes 10
"""

import argparse
import gzip
import json
import os
import random
import re
import subprocess
import tempfile
import time


def seeds(shared):
    found = []
    warc = os.path.join(shared, "datasets/web/warc")
    for name in sorted(os.listdir(warc)):
        if re.search(r"\.(warc|arc)(\.gz)?$", name):
            with open(os.path.join(warc, name), "rb") as f:
                found.append((name, f.read()))
    with gzip.open(os.path.join(shared, "datasets/web/web-pages.jsonl.gz"), "rt") as f:
        for i, line in enumerate(f):
            if i % 10 == 0:
                found.append((f"page{i}.html", json.loads(line)["html"].encode()))
    return found


def damage(data, rng):
    data = bytearray(data)
    kind = rng.choice(["flip", "ff", "truncate", "length", "nest", "tags"])
    if kind == "flip" and data:
        for _ in range(rng.randint(1, 16)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "ff" and data:
        at = rng.randrange(len(data))
        data[at:at + 8] = b"\xff" * len(data[at:at + 8])
    elif kind == "truncate" and data:
        del data[rng.randrange(len(data)):]
    elif kind == "length":
        text = bytes(data)
        spots = [m.start(1) for m in re.finditer(rb"Content-Length: *(\d+)", text)]
        if spots:
            at = rng.choice(spots)
            end = at + len(re.match(rb"\d+", text[at:]).group(0))
            data[at:end] = str(rng.choice([0, 1, 2**31, 2**63, 10**30])).encode()
    elif kind == "nest":
        at = rng.randrange(len(data) + 1)
        data[at:at] = rng.choice([b"<div>", b"<table><tr><td>", b"<b><i>"]) * rng.randint(1000, 50000)
    else:
        at = rng.randrange(len(data) + 1)
        data[at:at] = b"".join(rng.choice([b"<p>", b"</p>", b"<script>", b"<!--", b"<meta charset=gbk>",
                                           b"&#x110000;", b"\x00", b"<svg><foreignObject>"])
                               for _ in range(rng.randint(10, 5000)))
    return bytes(data), kind


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/neardup")
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep-dir", default="/tmp/fuzz-web-failures")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    print(f"fuzz_web seed {args.seed}")
    pool = seeds(args.shared)
    print(f"{len(pool)} seeds")
    work = tempfile.mkdtemp(prefix="fuzz-web-")
    deadline = time.time() + args.minutes * 60
    counts = {"ok": 0, "error": 0, "bad": 0}
    kinds = {}
    while time.time() < deadline:
        name, data = rng.choice(pool)
        zipped = name.endswith(".gz")
        raw = gzip.decompress(data) if zipped else data
        if zipped and rng.random() < 0.2:
            damaged, kind = damage(data, rng)  # the gzip stream itself
        else:
            damaged, kind = damage(raw, rng)
            damaged = gzip.compress(damaged, compresslevel=1) if zipped else damaged
        path = os.path.join(work, name)
        with open(path, "wb") as f:
            f.write(damaged)
        out = os.path.join(work, "out.jsonl")
        try:
            run = subprocess.run([args.bin, "extract", path, "-o", out], capture_output=True,
                                 text=True, errors="replace", timeout=120)
            rc, said = run.returncode, run.stderr
        except subprocess.TimeoutExpired:
            rc, said = "timeout", ""
        kinds[kind] = kinds.get(kind, 0) + 1
        if rc == 0:
            counts["ok"] += 1
        elif rc == 1 and name in said:
            counts["error"] += 1
        else:
            counts["bad"] += 1
            os.makedirs(args.keep_dir, exist_ok=True)
            with open(os.path.join(args.keep_dir, f"{counts['bad']:03}-{kind}-{name}"), "wb") as f:
                f.write(damaged)
            print(f"FAIL rc={rc} {kind} {name}: {said.strip().splitlines()[-1:]}")
        os.remove(path)
    print(f"{sum(counts.values())} rounds ({kinds}): {counts['ok']} read, {counts['error']} "
          f"errors naming the file, {counts['bad']} failures (kept in {args.keep_dir})")
    return 1 if counts["bad"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
