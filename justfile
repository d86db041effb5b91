# neardup tasks. `just --list` shows them.

set shell := ["bash", "-euo", "pipefail", "-c"]

data := env_var_or_default("NEARDUP_DATA_DIR", "../shared/datasets")

# Run the tests (the README's test command).
test:
    cargo test --release --workspace

# Format check and clippy with warnings as errors.
lint:
    cargo fmt --all -- --check
    cargo clippy --release --workspace --all-targets -- -D warnings

# Regenerate reports/ (real corpora from the data directory when present).
reproduce:
    cargo run --release -p neardup-lab -- reproduce --data-dir {{data}}

# Criterion benches of the algorithm crate.
bench:
    cargo bench -p neardup

# Same corpus, same run: datasketch and rensa (../shared/peers) against neardup bench.
bench-peers docs="20000":
    bash scripts/bench-peers.sh {{docs}}

# What CI runs.
ci:
    bash .ci/run
