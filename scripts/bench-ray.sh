#!/usr/bin/env bash
# neardup.ray.dedup on a local Ray against neardup dedup, same files, same run; writes
# reports/ray/README.md.
#   bash scripts/bench-ray.sh [DOCS]        (default 1000000: 1.4 GB of text)
# Uses the virtualenv at $NEARDUP_PYTHON_VENV (default ~/.cache/neardup-python-venv) and
# installs ./python[ray] into it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/python-bench-setup.sh "${1:-1000000}" bench-ray "./python[ray]"
"$venv/bin/python" scripts/bench_ray.py "$corpus" "$bin" --work "$work"
# The report's page (and the index) follow its new README.
"$bin" site reports
