#!/usr/bin/env python3
"""datasketch 2.0's MinHashLSH with its Redis storage, as its users run it, on a corpus.

    python3 datasketch_redis.py --corpus corpus.jsonl --truth corpus.truth.csv \
        --port 6399 --index-docs 20000 --query-docs 2000

Protocol (the same as `serve_neardup.py`, so the two rows compare): the first
`--index-docs` documents are inserted, then the next `--query-docs` are queried. Insert and
query rates are timed apart from MinHash sketching (the sketches are computed first, as a
fair peer would batch them), inserts once one by one (`lsh.insert`, what its users report)
and once in an `insertion_session` (its batching). Recall: of the planted (copy, source)
pairs with the source indexed and the copy queried, the share whose query names the source.
Redis memory: `used_memory` after the inserts less before, per indexed document.
Prints one JSON line. Redis must be on a loopback port.
"""
from __future__ import annotations

import argparse
import json
import time

import redis
from datasketch import MinHash, MinHashLSH

from protocol import load, truth_pairs

NUM_PERM = 128
SEED = 1
SHINGLE_K = 5


def shingles(text: str) -> list[bytes]:
    words = text.split()
    return list({" ".join(words[i:i + SHINGLE_K]).encode() for i in range(max(1, len(words) - SHINGLE_K + 1))})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--port", type=int, default=6379)
    ap.add_argument("--index-docs", type=int, default=20000)
    ap.add_argument("--query-docs", type=int, default=2000)
    ap.add_argument("--threshold", type=float, default=0.8)
    args = ap.parse_args()
    docs = load(args.corpus, args.index_docs + args.query_docs)
    indexed, queried = docs[: args.index_docs], docs[args.index_docs:]
    t = time.perf_counter()
    sketches = MinHash.bulk((shingles(text) for _, text in docs), num_perm=NUM_PERM, seed=SEED)
    sketch_s = time.perf_counter() - t
    client = redis.Redis(host="127.0.0.1", port=args.port)
    client.flushall()
    before = client.info("memory")["used_memory"]
    config = {"type": "redis", "basename": b"bench", "redis": {"host": "127.0.0.1", "port": args.port}}
    # One by one, as users report it, on a share of the documents (it is slow).
    one_by_one = min(2000, len(indexed))
    lsh1 = MinHashLSH(threshold=args.threshold, num_perm=NUM_PERM, storage_config={**config, "basename": b"one"})
    t = time.perf_counter()
    for (doc_id, _), m in zip(indexed[:one_by_one], sketches):
        lsh1.insert(doc_id, m)
    insert_one_s = time.perf_counter() - t
    client.flushall()
    before = client.info("memory")["used_memory"]
    lsh = MinHashLSH(threshold=args.threshold, num_perm=NUM_PERM, storage_config=config)
    t = time.perf_counter()
    with lsh.insertion_session(buffer_size=50_000) as session:
        for (doc_id, _), m in zip(indexed, sketches):
            session.insert(doc_id, m)
    insert_s = time.perf_counter() - t
    after = client.info("memory")["used_memory"]
    t = time.perf_counter()
    answers = {doc_id: set(lsh.query(m)) for (doc_id, _), m in zip(queried, sketches[len(indexed):])}
    query_s = time.perf_counter() - t
    pairs = truth_pairs(args.truth, {i for i, _ in indexed}, {i for i, _ in queried})
    found = sum(1 for copy, source in pairs if source in answers[copy])
    import datasketch
    print(json.dumps({
        "tool": "datasketch+redis", "version": datasketch.__version__,
        "redis": client.info("server")["redis_version"],
        "indexed": len(indexed), "queried": len(queried),
        "bands": lsh.b, "rows": lsh.r, "sketch_s": sketch_s,
        "inserts_per_s_one_by_one": one_by_one / insert_one_s,
        "inserts_per_s": len(indexed) / insert_s,
        "queries_per_s": len(queried) / query_s,
        "query_ms": 1e3 * query_s / len(queried),
        "recall": found / len(pairs) if pairs else None, "pairs": len(pairs),
        "redis_bytes_per_doc": (after - before) / len(indexed),
    }))
    client.flushall()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
