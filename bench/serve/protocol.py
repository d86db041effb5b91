"""The benchmark protocol both services run: the corpus's first documents indexed, the next
queried, recall over the planted pairs that straddle the two (standard library only)."""
from __future__ import annotations

import json


def load(path: str, n: int) -> list[tuple[str, str]]:
    out = []
    with open(path) as f:
        for line in f:
            if len(out) == n:
                break
            d = json.loads(line)
            out.append((d["id"], d["text"]))
    return out


def truth_pairs(path: str, indexed: set[str], queried: set[str]) -> set[tuple[str, str]]:
    pairs = set()
    with open(path) as f:
        next(f)
        for line in f:
            a, b = line.strip().split(",")
            for source, copy in ((a, b), (b, a)):
                if source in indexed and copy in queried:
                    pairs.add((copy, source))
    return pairs
