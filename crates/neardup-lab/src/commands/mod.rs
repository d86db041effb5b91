//! One file per subcommand of the `neardup` binary: its arguments (a clap `Args` struct whose
//! doc comment is its `--help`) and what it does (`Run`). `cli.rs` lists each once.
//! `args.rs` holds the arguments several share, `invocation.rs` what they run with.

pub mod algorithms;
pub mod args;
pub mod bench;
pub mod bench_dedup;
pub mod bench_report;
pub mod bench_tasks;
pub mod calibrate;
pub mod check;
pub mod completions;
pub mod datasets;
pub mod dedup;
pub mod edit;
pub mod eval;
pub mod extract;
pub mod hamming;
pub mod idf;
pub mod index;
pub mod inspect;
pub mod invocation;
pub mod label;
pub mod lsh;
pub mod man;
pub mod reproduce;
pub mod run;
pub mod serve;
pub mod similarity;
pub mod site;
