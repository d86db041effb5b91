#!/usr/bin/env bash
# neardup.ray.dedup on a local Ray against neardup dedup, same files, same run; writes
# reports/ray/README.md.
#   bash scripts/bench-ray.sh [DOCS]        (default 1000000: 1.4 GB of text)
# Uses the virtualenv at $NEARDUP_PYTHON_VENV (default ~/.cache/neardup-python-venv) and
# installs ./python[ray] into it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
docs="${1:-1000000}"
peers="${NEARDUP_PEERS_DIR:-../shared/peers}"
work="${NEARDUP_BENCH_DIR:-target/bench-ray}"
venv="${NEARDUP_PYTHON_VENV:-$HOME/.cache/neardup-python-venv}"
mkdir -p "$work"
cargo build --release -p neardup-lab --bin neardup >&2
bin="${CARGO_TARGET_DIR:-target}/release/neardup"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q "./python[ray]" >&2
corpus="$work/corpus-$docs.jsonl"
[ -s "$corpus" ] || python3 "$peers/make_corpus.py" --docs "$docs" --edit-rate 0.02 --seed 42 --out "$corpus" >&2
"$venv/bin/python" scripts/bench_ray.py "$corpus" "$bin" --work "$work"
