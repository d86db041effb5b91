# Shared setup of bench-python.sh and bench-ray.sh, sourced (not run) from the repository root:
#   source scripts/python-bench-setup.sh DOCS NAME PACKAGE
# builds the CLI, installs PACKAGE (./python or "./python[ray]") into the virtualenv at
# $NEARDUP_PYTHON_VENV (default ~/.cache/neardup-python-venv), and generates the peers' corpus
# of DOCS documents in $NEARDUP_BENCH_DIR (default target/NAME). Sets docs, peers, work, venv,
# bin and corpus.
docs="$1"
peers="${NEARDUP_PEERS_DIR:-bench/peers}"
work="${NEARDUP_BENCH_DIR:-target/$2}"
venv="${NEARDUP_PYTHON_VENV:-$HOME/.cache/neardup-python-venv}"
mkdir -p "$work"
cargo build --release -p neardup-lab --bin neardup >&2
bin="${CARGO_TARGET_DIR:-target}/release/neardup"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q "$3" >&2
corpus="$work/corpus-$docs.jsonl"
[ -s "$corpus" ] || python3 "$peers/make_corpus.py" --docs "$docs" --edit-rate 0.02 --seed 42 --out "$corpus" >&2
