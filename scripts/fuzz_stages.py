#!/usr/bin/env python3
"""Fuzzes the readers of `neardup dedup`'s stage files (issue 56 item 9).

One run makes a set of stage files; then, for `--minutes`, each round copies that set,
damages one Parquet stage file (random byte flips, a run of bytes overwritten with 0xff —
sizes and counts a reader would allocate — or a truncation), and reruns with `--keep
longest`, which reuses the sketch and verify stages and so reads their files. The contract:
exit 0 (the damage did not matter) or 1 with an error naming the damaged file; never a signal
(an abort, a stack overflow) nor a panic (exit 101). Failing inputs are kept in `--keep-dir`.

    python3 scripts/fuzz_stages.py --bin target/release/neardup --minutes 10
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import tempfile
import time


def corpus(path, n=400, seed=3):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for i in range(n):
            words = [f"w{rng.randrange(3000)}" for _ in range(60)]
            if i % 4 == 3:
                words[rng.randrange(60)] = "x"
            f.write(json.dumps({"id": f"d{i}", "text": " ".join(words)}) + "\n")
            if i % 5 == 0:
                f.write(json.dumps({"id": f"d{i}-copy", "text": " ".join(words)}) + "\n")


def damage(data, rng):
    data = bytearray(data)
    kind = rng.choice(["flip", "ff", "truncate"])
    if kind == "flip":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "ff":
        at = rng.randrange(len(data))
        data[at:at + 4] = b"\xff" * len(data[at:at + 4])
    else:
        del data[rng.randrange(1, len(data)):]
    return bytes(data), kind


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/neardup")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep-dir", default="/tmp/fuzz-stages-failures")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    print(f"fuzz_stages seed {args.seed}")
    work = tempfile.mkdtemp(prefix="fuzz-stages-")
    src = os.path.join(work, "in.jsonl")
    corpus(src)
    pristine = os.path.join(work, "pristine")
    subprocess.run([args.bin, "dedup", src, "-o", pristine, "--memory", "150MB"], check=True,
                   capture_output=True, env=dict(os.environ, NEARDUP_TEST_MEMORY_OVERHEAD="0"))
    files = []
    for root, _, names in os.walk(os.path.join(pristine, "stages")):
        files += [os.path.join(root, n) for n in names if n.endswith(".parquet")]
    files = [f for f in files if "/outputs/" not in f]
    print(f"{len(files)} stage files: {', '.join(os.path.relpath(f, pristine) for f in files)}")
    deadline = time.time() + args.minutes * 60
    counts = {"ok": 0, "error": 0, "bad": 0}
    while time.time() < deadline:
        out = os.path.join(work, "run")
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(pristine, out)
        victim = rng.choice(files)
        target = os.path.join(out, os.path.relpath(victim, pristine))
        with open(victim, "rb") as f:
            data, kind = damage(f.read(), rng)
        with open(target, "wb") as f:
            f.write(data)
        run = subprocess.run([args.bin, "dedup", src, "-o", out, "--keep", "longest"],
                             capture_output=True, text=True)
        name = os.path.basename(target)
        if run.returncode == 0:
            counts["ok"] += 1
        elif run.returncode == 1 and name in run.stderr:
            counts["error"] += 1
        else:
            counts["bad"] += 1
            os.makedirs(args.keep_dir, exist_ok=True)
            keep = os.path.join(args.keep_dir, f"{counts['bad']:03}-{kind}-{name}")
            with open(keep, "wb") as f:
                f.write(data)
            print(f"FAIL rc={run.returncode} {kind} {os.path.relpath(target, out)}: "
                  f"{run.stderr.strip().splitlines()[-1:] }")
    print(f"{sum(counts.values())} rounds: {counts['ok']} read fine, {counts['error']} errors "
          f"naming the file, {counts['bad']} failures (kept in {args.keep_dir})")
    shutil.rmtree(work, ignore_errors=True)
    return 1 if counts["bad"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
