#!/usr/bin/env bash
# The Python package's minhash against `neardup bench` and rensa / gaoya (bench/peers) on
# the same generated corpus in the same run, and its datasketch-compatible MinHash against
# datasketch, rensa and fastsketchlsh; writes reports/python/README.md.
#   bash scripts/bench-python.sh [DOCS]        (default 200000: 280 MB)
# Uses the virtualenv at $NEARDUP_PYTHON_VENV (default ~/.cache/neardup-python-venv) and
# installs ./python into it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/python-bench-setup.sh "${1:-200000}" bench-python "./python"
bash "$peers/run.sh" --corpus "$corpus" --tools rensa,gaoya > "$work/peers.jsonl" 2> "$work/peers.header"
"$venv/bin/python" scripts/bench_python.py "$corpus" "$bin" "$work/peers.jsonl"
# datasketch's MinHash swapped for neardup's, beside rensa's and fastsketchlsh's, on 5,000
# 20news posts (the peers' corpus when the datasets are not there), same process, same run.
"$venv/bin/pip" install -q datasketch==2.0.0 rensa==0.5.0 fastsketchlsh==1.0.1 >&2 \
    || echo "bench-python: a peer did not install; its row says so" >&2
news="${NEARDUP_DATA_DIR:-../shared/datasets}/20news.jsonl.gz"
[ -s "$news" ] || news="$corpus"
"$venv/bin/python" scripts/bench_minhash_objects.py "$news"
# The report's page (and the index) follow its new README.
"$bin" site reports
