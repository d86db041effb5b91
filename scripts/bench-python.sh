#!/usr/bin/env bash
# The Python package's minhash against `neardup bench` and rensa / gaoya (bench/peers) on
# the same generated corpus in the same run; writes reports/python/README.md.
#   bash scripts/bench-python.sh [DOCS]        (default 200000: 280 MB)
# Uses the virtualenv at $NEARDUP_PYTHON_VENV (default ~/.cache/neardup-python-venv) and
# installs ./python into it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/python-bench-setup.sh "${1:-200000}" bench-python "./python"
bash "$peers/run.sh" --corpus "$corpus" --tools rensa,gaoya > "$work/peers.jsonl" 2> "$work/peers.header"
"$venv/bin/python" scripts/bench_python.py "$corpus" "$bin" "$work/peers.jsonl"
# The report's page (and the index) follow its new README.
"$bin" site reports
