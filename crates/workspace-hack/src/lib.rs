//! No code. See `Cargo.toml`: this crate pins the features of shared dependencies so that
//! `cargo run`, `cargo test --workspace` and `pip install ./python` build them once.
