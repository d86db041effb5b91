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

# Criterion benches: MinHash, LSH, SimHash, Hamming search (algorithm crate); every algorithm
# and SpotSigs pruning vs brute force on `licenses` (lab crate).
bench:
    cargo bench -p neardup
    NEARDUP_DATA_DIR="$(realpath {{data}})" cargo bench -p neardup-lab

# Whole dedup pipelines, same corpus, same run: neardup dedup against datatrove and text-dedup
# (../shared/peers) per corpus size; writes reports/dedup/README.md.
bench-dedup *docs="200000":
    bash scripts/bench-dedup.sh {{docs}}

# Same corpus, same run: datasketch and rensa (../shared/peers) against neardup bench.
bench-peers docs="20000":
    bash scripts/bench-peers.sh {{docs}}

# The Python package's minhash against `neardup bench`, rensa and gaoya; writes reports/python/.
bench-python docs="200000":
    bash scripts/bench-python.sh {{docs}}

# neardup.ray.dedup on a local Ray against neardup dedup (1M documents); writes reports/ray/.
bench-ray docs="1000000":
    bash scripts/bench-ray.sh {{docs}}

# Install the Python package into the active virtualenv and run its tests.
test-python:
    pip install './python[ray,test]'
    NEARDUP_BIN="${CARGO_TARGET_DIR:-target}/release/neardup" pytest python/tests

# What CI runs.
ci:
    bash .ci/run

# Fuzz every target for `seconds` each (cargo install cargo-fuzz; stable Rust with
# RUSTC_BOOTSTRAP=1 for the sanitizer flags). Crashes land in fuzz/artifacts/<target>/.
fuzz seconds="600":
    cd fuzz && for t in $(RUSTC_BOOTSTRAP=1 cargo fuzz list); do \
        RUSTC_BOOTSTRAP=1 cargo fuzz run -O "$t" -- -max_total_time={{seconds}} -rss_limit_mb=4096; \
    done

# Install the CLI (with shell completions and manual pages) like a real tool.
install root="$HOME/.local":
    cargo install --path crates/neardup-lab --root {{root}} --locked
    mkdir -p {{root}}/share/man/man1 {{root}}/share/bash-completion/completions
    {{root}}/bin/neardup man --output {{root}}/share/man/man1
    {{root}}/bin/neardup completions bash > {{root}}/share/bash-completion/completions/neardup

# Cost against corpus size (10k, 100k, 1M documents): reports/scaling/.
bench-scaling:
    cargo run --release -p neardup-lab -- run experiments/extra/scaling.toml --out reports/scaling --data-dir {{data}}
