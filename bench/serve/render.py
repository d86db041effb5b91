#!/usr/bin/env python3
"""reports/serve/README.md from one run's results.jsonl (bench/serve/run.sh writes both).

Every number in the page is read from the results; every ratio is computed here, from rows of
the same run."""
from __future__ import annotations

import json
import sys


def main() -> int:
    path, docs, revision = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rows = [json.loads(line) for line in open(path) if line.strip()]
    ds = next(r for r in rows if r.get("tool") == "datasketch+redis")
    nd = next(r for r in rows if r.get("tool") == "neardup serve")
    by_route = {r["route"]: r for r in rows if "route" in r}
    restart = by_route["restart"]
    ds_insert_e2e = ds["indexed"] / (ds["indexed"] / ds["inserts_per_s"] + ds["sketch_s"] * ds["indexed"] / (ds["indexed"] + ds["queried"]))
    ds_query_e2e = ds["queried"] / (ds["queried"] / ds["queries_per_s"] + ds["sketch_s"] * ds["queried"] / (ds["indexed"] + ds["queried"]))
    out = []
    w = out.append
    w("# The lookup service: neardup serve against datasketch + Redis, and under load\n")
    w(f"Measured by `bash bench/serve/run.sh {docs}` at {revision}, in one run on one 2-core VM, "
      "every client and server on loopback. Ratios are the result; absolute rates depend on the machine. "
      "The corpus is the peers' (`bench/peers/make_corpus.py --docs "
      f"{docs} --edit-rate 0.02 --seed 42`, ~1.4 KB of text a document, planted copies at word-5-shingle Jaccard ~0.83).\n")
    w("## Side by side: same corpus, same protocol, same Redis run\n")
    w(f"The first {ds['indexed']:,} documents indexed, the next {ds['queried']:,} queried "
      "(`bench/serve/protocol.py`); recall: of the planted (copy, source) pairs with the source indexed and the copy "
      f"queried ({nd['pairs']}), the share whose answer names the source. Threshold 0.8, 128 permutations for both. "
      "datasketch's rates exclude MinHash sketching (done first, in bulk) unless said; neardup's include it (the "
      "server sketches the text) and come from one Python client with batches of 1,000 adds and 100 checks.\n")
    w("| | inserts/s | queries/s | recall | memory per document |")
    w("|---|---:|---:|---:|---|")
    w(f"| datasketch {ds['version']} `MinHashLSH`, Redis {ds['redis']} storage, `insert` one by one | {ds['inserts_per_s_one_by_one']:,.0f} | | | |")
    w(f"| the same, `insertion_session` (its batching) | {ds['inserts_per_s']:,.0f} | {ds['queries_per_s']:,.0f} | {ds['recall']:.3f} | {ds['redis_bytes_per_doc']:,.0f} B in Redis |")
    w(f"| the same, sketching included | {ds_insert_e2e:,.0f} | {ds_query_e2e:,.0f} | | |")
    w(f"| `neardup serve` (minhash-lsh defaults), durable adds | {nd['inserts_per_s']:,.0f} | {nd['queries_per_s']:,.0f} | {nd['recall']:.3f} | "
      f"{nd['heap_bytes_per_doc']:,.0f} B heap before a fold, {nd['log_bytes_per_doc']:,.0f} B of log |")
    w("")
    w(f"Ratios (neardup / datasketch batched, sketching excluded for datasketch only): inserts **{nd['inserts_per_s'] / ds['inserts_per_s']:.0f}×**, "
      f"queries **{nd['queries_per_s'] / ds['queries_per_s']:.0f}×**; against one-by-one inserts "
      f"{nd['inserts_per_s'] / ds['inserts_per_s_one_by_one']:.0f}×; with datasketch's sketching counted, "
      f"{nd['inserts_per_s'] / ds_insert_e2e:.0f}× and {nd['queries_per_s'] / ds_query_e2e:.0f}×. "
      "datasketch's Redis storage keeps no log of its own beyond Redis's settings (here none: `--save '' --appendonly no`), "
      "neardup answers an add once its log record is synced.\n")
    w(f"## Under load: an index of {restart['documents']:,} documents\n")
    w("The whole corpus added in batches of 1,000 (`?mode=if_new`: near-duplicates are answered, not added), "
      "then checks and single adds from many clients (`cargo run --release -p neardup-serve --example serve_load`). "
      "The load generator runs on the same two cores as the server.\n")
    w("| what | clients | records/s | p50 ms | p99 ms |")
    w("|---|---:|---:|---:|---:|")
    names = {
        "batch-add": "durable adds, batches of 1,000 (the corpus)",
        "check": "checks, one text a request",
        "batch-check": "checks, batches of 100",
        "add": "durable adds, one a request (new texts)",
        "check-folded": "checks, one a request, after a restart (folded: signatures memory-mapped)",
    }
    for route, name in names.items():
        r = by_route[route]
        w(f"| {name} | {r['clients']} | {r['records_per_s']:,.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} |")
    w("")
    w("## Restart and memory\n")
    w(f"- After `kill -9` with {restart['documents']:,} documents only in the log ({restart['log_bytes'] / 1e6:.0f} MB): "
      f"answering again after **{restart['answering_after_kill9_s']:.2f} s** (the log replayed).")
    w(f"- After a clean stop (SIGTERM folds the log into a segment): answering after {restart['answering_after_clean_stop_s']:.2f} s.")
    w(f"- Heap per document: {restart['heap_recent_bytes'] / restart['documents']:,.0f} B while documents are in the "
      f"recent part (hash tables), {restart['heap_folded_bytes'] / restart['documents']:,.0f} B folded (sorted key tables "
      f"and ids; signatures memory-mapped from {restart['segment_bytes'] / restart['documents']:,.0f} B a document of segment files). "
      f"Process RSS: {restart['rss_recent_kb'] / 1024:,.0f} MiB before the kill, {restart['rss_folded_kb'] / 1024:,.0f} MiB folded.")
    w("")
    w("## Not measured here yet\n")
    w("- 10^6 and 10^7 indexed documents, and an index larger than memory (the segments are memory-mapped; latency "
      "then depends on the page cache).")
    w("- SimHash 64-bit fingerprints at 10^8 in process, and the Python `neardup.Index` / `Client`.")
    w("- datasketch over a 3-master Redis Cluster (issue: the lookup service on Redis Cluster).")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
