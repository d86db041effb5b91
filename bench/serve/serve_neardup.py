#!/usr/bin/env python3
"""`neardup serve` under the protocol of `datasketch_redis.py` (standard library only).

    python3 serve_neardup.py --address 127.0.0.1:8411 --corpus corpus.jsonl \
        --truth corpus.truth.csv --index-docs 20000 --query-docs 2000

The first `--index-docs` documents are added (`POST /v1/batch/add?mode=always`, batches of
1,000: every document indexed, as datasketch's inserts index every one), then the next
`--query-docs` are checked (`POST /v1/batch/check`, batches of 100). Recall as there: of the
planted (copy, source) pairs with the source indexed and the copy checked, the share whose
answer names the source. Rates include sketching (neardup sketches the text server-side);
one client, so they are a lower bound of what concurrent clients get (serve_load measures
that). Prints one JSON line.
"""
from __future__ import annotations

import argparse
import json
import time
import urllib.request

from protocol import load, truth_pairs


def post(address: str, path: str, lines: list[str]) -> list[dict]:
    req = urllib.request.Request(
        f"http://{address}{path}", data=("\n".join(lines) + "\n").encode(),
        headers={"Content-Type": "application/x-ndjson"}, method="POST")
    with urllib.request.urlopen(req, timeout=300) as r:
        return [json.loads(line) for line in r.read().decode().splitlines()]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--index-docs", type=int, default=20000)
    ap.add_argument("--query-docs", type=int, default=2000)
    args = ap.parse_args()
    docs = load(args.corpus, args.index_docs + args.query_docs)
    indexed, queried = docs[: args.index_docs], docs[args.index_docs:]
    t = time.perf_counter()
    for i in range(0, len(indexed), 1000):
        lines = [json.dumps({"id": d, "text": text}) for d, text in indexed[i:i + 1000]]
        post(args.address, "/v1/batch/add?mode=always", lines)
    add_s = time.perf_counter() - t
    answers = {}
    t = time.perf_counter()
    for i in range(0, len(queried), 100):
        chunk = queried[i:i + 100]
        out = post(args.address, "/v1/batch/check", [json.dumps({"id": d, "text": text}) for d, text in chunk])
        for (doc_id, _), a in zip(chunk, out):
            answers[doc_id] = {m["id"] for m in a["matches"]}
    check_s = time.perf_counter() - t
    pairs = truth_pairs(args.truth, {i for i, _ in indexed}, {i for i, _ in queried})
    found = sum(1 for copy, source in pairs if source in answers[copy])
    with urllib.request.urlopen(f"http://{args.address}/v1/stats") as r:
        stats = json.loads(r.read())
    print(json.dumps({
        "tool": "neardup serve", "indexed": len(indexed), "queried": len(queried),
        "inserts_per_s": len(indexed) / add_s, "queries_per_s": len(queried) / check_s,
        "recall": found / len(pairs) if pairs else None, "pairs": len(pairs),
        "heap_bytes_per_doc": stats["memory_bytes"] / max(1, stats["documents"]),
        "log_bytes_per_doc": stats["log_bytes"] / max(1, stats["documents"]),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
