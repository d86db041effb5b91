#!/usr/bin/env bash
# The Python package's minhash against `neardup bench` and rensa / gaoya (../shared/peers) on
# the same generated corpus in the same run; writes reports/python/README.md.
#   bash scripts/bench-python.sh [DOCS]        (default 200000: 280 MB)
# Uses the virtualenv at $NEARDUP_PYTHON_VENV (default ~/.cache/neardup-python-venv) and
# installs ./python into it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
docs="${1:-200000}"
peers="${NEARDUP_PEERS_DIR:-../shared/peers}"
work="${NEARDUP_BENCH_DIR:-target/bench-python}"
venv="${NEARDUP_PYTHON_VENV:-$HOME/.cache/neardup-python-venv}"
mkdir -p "$work"
cargo build --release -p neardup-lab --bin neardup >&2
bin="${CARGO_TARGET_DIR:-target}/release/neardup"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q ./python >&2
corpus="$work/corpus-$docs.jsonl"
[ -s "$corpus" ] || python3 "$peers/make_corpus.py" --docs "$docs" --edit-rate 0.02 --seed 42 --out "$corpus" >&2
bash "$peers/run.sh" --corpus "$corpus" --tools rensa,gaoya > "$work/peers.jsonl" 2> "$work/peers.header"
"$venv/bin/python" scripts/bench_python.py "$corpus" "$bin" "$work/peers.jsonl"
