#!/usr/bin/env python3
"""Chinese as reposted on the web: how many planted copies each algorithm finds at its
defaults, per punctuation edit (the table of the Chinese-web issue, regenerated).

    python3 scripts/chinese_web_check.py [--data-dir ../shared/datasets] [--bin target/release/neardup]

The ChiUn chapters of bible-zh (traditional characters, 1,188 chapters); `neardup edit`
plants one copy of a seeded 5 % of them per edit model, then `neardup eval` runs every
algorithm at its defaults on sources + copies. Prints a Markdown table: copies found / planted
per algorithm and edit, and the lowest precision of the row.
"""

import argparse
import csv
import gzip
import io
import json
import os
import subprocess
import tempfile

# (label, neardup edit model, then a text rewrite applied to the copies only, or None)
EDITS = [
    ("full-width ↔ half-width forms only", "width=1", None),
    ("。 → `.` only", "substitute=0", lambda t: t.replace("。", ".")),
    ("ideographic punctuation → ASCII", "ascii-punct=1", None),
    ("3 % of Han characters changed + that punctuation", "typo=0.03,ascii-punct=1", None),
]


def chapters(data_dir: str, path: str) -> None:
    with gzip.open(os.path.join(data_dir, "bible-zh.jsonl.gz"), "rt", encoding="utf-8") as f, \
            open(path, "w", encoding="utf-8") as out:
        for line in f:
            if json.loads(line)["id"].startswith("ChiUn/"):
                out.write(line)


def plant(binary: str, sources: str, model: str, rewrite, out: str) -> None:
    subprocess.run([binary, "edit", sources, "--edits", model, "--fraction", "0.05",
                    "--seed", "1", "--output", out], check=True, capture_output=True)
    if rewrite is None:
        return
    rows = [json.loads(line) for line in open(out, encoding="utf-8")]
    with open(out, "w", encoding="utf-8") as f:
        for r in rows:
            if "~" in r["id"]:
                r["text"] = rewrite(r["text"])
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def evaluate(binary: str, corpus: str) -> list:
    done = subprocess.run([binary, "eval", "--corpus", corpus], check=False,
                          capture_output=True, text=True)
    return list(csv.DictReader(io.StringIO(done.stdout)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", default="../shared/datasets")
    ap.add_argument("--bin", default="target/release/neardup")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="neardup-chinese-web-") as tmp:
        sources = os.path.join(tmp, "chiun.jsonl")
        chapters(args.data_dir, sources)
        table = []
        for label, model, rewrite in EDITS:
            corpus = os.path.join(tmp, "corpus.jsonl")
            plant(args.bin, sources, model, rewrite, corpus)
            table.append((label, evaluate(args.bin, corpus)))
    names = [r["algorithm"] for r in table[0][1]]
    print("| edit | " + " | ".join(names) + " | lowest precision |")
    print("|---|" + "---:|" * (len(names) + 1))
    for label, rows in table:
        cells = [f"{r['tp']}/{r['true_pairs']}" for r in rows]
        precision = min((float(r["precision"]) for r in rows if r["precision"]), default=1.0)
        print(f"| {label} | " + " | ".join(cells) + f" | {precision:.2f} |")


if __name__ == "__main__":
    main()
