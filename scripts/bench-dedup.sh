#!/usr/bin/env bash
# Whole dedup pipelines side by side: `neardup dedup` and the peers' dedup_end_to_end
# (datatrove, text-dedup: bench/peers) on the same generated corpus in the same run, per
# corpus size; writes reports/dedup/README.md from the JSON lines.
#   bash scripts/bench-dedup.sh [DOCS...]          (default: 200000)
# Environment: NEARDUP_DEDUP_PEERS=0 skips the peers (neardup only) for sizes where they would
# take hours; NEARDUP_DEDUP_MEMORY=1GiB adds a row of `neardup dedup --memory 1GiB` (the spilled
# join); NEARDUP_DEDUP_REPEAT (default 3) sets neardup's repeats; NEARDUP_BENCH_APPEND=1 keeps
# the rows of earlier runs in reports/dedup/results.jsonl (add a size without rerunning the
# others); NEARDUP_BENCH_DIR sets the work directory (corpora are large: 1.4 KB a document);
# NEARDUP_DEDUP_BASELINE=BIN adds a row of an earlier build's `neardup dedup` (label
# `baseline`, its revision in `version`), measured in the same run for an A/B.
# NEARDUP_DEDUP_HEAVY=1 adds the heavy-cluster corpus of each size: the corpus plus DOCS/10
# exact and DOCS/10 near copies of four pages (scripts/make_heavy_corpus.py), a crawl's 404
# pages and wire stories; neardup (label `heavy-clusters`) and the peers run on it too.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sizes=("${@:-200000}")
peers="${NEARDUP_PEERS_DIR:-bench/peers}"
work="${NEARDUP_BENCH_DIR:-target/bench-dedup}"
mkdir -p "$work" reports/dedup
cargo build --release -p neardup-lab --bin neardup >&2
bin="${CARGO_TARGET_DIR:-target}/release/neardup"
out="reports/dedup/results.jsonl"
[ "${NEARDUP_BENCH_APPEND:-0}" = 1 ] || : > "$out"
repeat="${NEARDUP_DEDUP_REPEAT:-3}"
# The peers' shingles (lower-cased, whitespace words, 5-shingles), banding (9 x 13, every
# candidate kept) and clustering (connected components), as datatrove and text-dedup do, to
# compare machinery at equal settings.
peer_setting=(--param tokenizer=whitespace --param unicode=none --param fold_width=false
              --param bands=9 --param rows=13 --param verify=none --dedup-clusters connected)
for docs in "${sizes[@]}"; do
    corpus="$work/corpus-$docs.jsonl"
    if [ ! -f "$corpus" ] && [ "$docs" -gt 1000000 ]; then
        # make_corpus.py holds the whole corpus in memory (5M documents: past 20 GB).
        python3 scripts/make_corpus_parts.py --peers "$peers" --docs "$docs" --out "$corpus" >&2
    elif [ ! -f "$corpus" ]; then
        python3 "$peers/make_corpus.py" --docs "$docs" --edit-rate 0.02 --seed 42 --out "$corpus" >&2
    fi
    truth="$work/corpus-$docs.truth.csv"
    if [ "${NEARDUP_DEDUP_PEERS:-1}" != 0 ]; then
        bash "$peers/run.sh" --corpus "$corpus" --truth "$truth" --tools datatrove,text-dedup \
            --repeat 1 >> "$out" 2> "$work/peers-$docs.header"
    fi
    "$bin" bench --task dedup_end_to_end --corpus "$corpus" --truth "$truth" --repeat "$repeat" >> "$out"
    if [ -n "${NEARDUP_DEDUP_BASELINE:-}" ]; then
        "$NEARDUP_DEDUP_BASELINE" bench --task dedup_end_to_end --corpus "$corpus" --truth "$truth" \
            --repeat "$repeat" --label baseline >> "$out"
    fi
    "$bin" bench --task dedup_end_to_end --corpus "$corpus" --truth "$truth" --repeat "$repeat" \
        --label peers-setting "${peer_setting[@]}" >> "$out"
    if [ -n "${NEARDUP_DEDUP_MEMORY:-}" ]; then
        "$bin" bench --task dedup_end_to_end --corpus "$corpus" --truth "$truth" --repeat 1 \
            --label "memory-$NEARDUP_DEDUP_MEMORY" --dedup-memory "$NEARDUP_DEDUP_MEMORY" >> "$out"
    fi
    if [ "${NEARDUP_DEDUP_HEAVY:-0}" = 1 ]; then
        heavy="$work/heavy-$docs.jsonl"
        [ -f "$heavy" ] || python3 scripts/make_heavy_corpus.py --corpus "$corpus" --truth "$truth" \
            --exact $((docs / 10)) --near $((docs / 10)) --out "$heavy" --truth-out "$work/heavy-$docs.truth.csv" >&2
        if [ "${NEARDUP_DEDUP_PEERS:-1}" != 0 ]; then
            bash "$peers/run.sh" --corpus "$heavy" --truth "$work/heavy-$docs.truth.csv" \
                --tools datatrove,text-dedup --repeat 1 >> "$out" 2> "$work/peers-heavy-$docs.header"
        fi
        "$bin" bench --task dedup_end_to_end --corpus "$heavy" --truth "$work/heavy-$docs.truth.csv" \
            --repeat "$repeat" --label heavy-clusters >> "$out"
    fi
    gzip -1 -c "$corpus" > "$corpus.gz"
    "$bin" bench --task dedup_end_to_end --corpus "$corpus.gz" --truth "$truth" --repeat 1 \
        --label gzip-input >> "$out"
    rm -f "$corpus.gz"
    # The same corpus zstd-compressed (level 3, one frame: what `zstd file` writes), when the
    # zstd command is there to write it.
    if command -v zstd > /dev/null; then
        zstd -q -f -T0 -c "$corpus" > "$corpus.zst"
        "$bin" bench --task dedup_end_to_end --corpus "$corpus.zst" --truth "$truth" --repeat 1 \
            --label zstd-input >> "$out"
        rm -f "$corpus.zst"
    else
        echo "no zstd command: the zstd-input row is left out" >&2
    fi
done
cat "$out"
python3 scripts/dedup_report.py "$out" reports/dedup/README.md
# The report's page (and the index) follow its new README.
"$bin" site reports
