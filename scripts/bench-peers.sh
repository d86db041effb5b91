#!/usr/bin/env bash
# Measures neardup and the peers (bench/peers) on the same generated corpus in the same
# run, and prints every JSON line plus neardup/peer ratios.
#   bash scripts/bench-peers.sh [DOCS]
# The report goes to reports/performance for the default 20,000 documents and to
# reports/performance-DOCS for another size, so that one size does not replace the other.
# Environment: NEARDUP_PEERS_REPEAT (default 3) sets the peers' best-of repeats (at 200,000
# documents datasketch takes minutes a run); NEARDUP_PEERS_TOOLS (default: every peer of the
# kit) is passed to the kit's --tools; NEARDUP_BENCH_DIR sets the work directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
docs="${1:-20000}"
peers="${NEARDUP_PEERS_DIR:-bench/peers}"
work="${NEARDUP_BENCH_DIR:-target/bench-peers}/$docs"
report=reports/performance
[ "$docs" = 20000 ] || report="reports/performance-$docs"
kit_options=(--repeat "${NEARDUP_PEERS_REPEAT:-3}")
[ -z "${NEARDUP_PEERS_TOOLS:-}" ] || kit_options+=(--tools "$NEARDUP_PEERS_TOOLS")
mkdir -p "$work"
cargo build --release -p neardup-lab --bin neardup >&2
bin="${CARGO_TARGET_DIR:-target}/release/neardup"
python3 "$peers/make_corpus.py" --docs "$docs" --edit-rate 0.02 --seed 42 --out "$work/corpus.jsonl" >&2
out="$work/results.jsonl"
: > "$out"
bash "$peers/run.sh" --corpus "$work/corpus.jsonl" --truth "$work/corpus.truth.csv" "${kit_options[@]}" \
    >> "$out" 2> "$work/peers.header"
tasks="shingle_word5 minhash128_sketch minhash128_end_to_end minhash128_oph_end_to_end lsh_insert_query minhash_lsh_end_to_end simhash64_end_to_end"
# Every registered algorithm, by name (the JSON listing: the text one has notes after the table).
tasks="$tasks $("$bin" algorithms --format json | python3 -c 'import json, sys; print(" ".join(a["name"] for a in json.load(sys.stdin)))')"
for task in $tasks; do
    "$bin" bench --corpus "$work/corpus.jsonl" --truth "$work/corpus.truth.csv" --task "$task" >> "$out"
done
"$bin" bench --task hamming_all_pairs --fingerprints 1000000 >> "$out"
cat "$out"
"$bin" bench-report "$out" --peers-header "$work/peers.header" --out "$report"
"$bin" site reports
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ours = {r["task"]: r for r in rows if r["tool"] == "neardup"}
for r in rows:
    if r["tool"] != "neardup" and r["task"] in ours:
        print(f'neardup / {r["tool"]:10s} {r["task"]:24s} {ours[r["task"]]["docs_per_s"] / r["docs_per_s"]:8.2f}x')
if "minhash128_end_to_end" in ours:
    for r in rows:
        if r["tool"] == "rensa" and r["task"] == "minhash128_sketch":
            print(f'neardup end-to-end / rensa pre-shingled sketch   {ours["minhash128_end_to_end"]["docs_per_s"] / r["docs_per_s"]:8.2f}x')
PY
