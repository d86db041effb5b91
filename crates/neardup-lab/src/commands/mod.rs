//! One file per subcommand of the `neardup` binary.

pub mod algorithms;
pub mod bench;
pub mod bench_dedup;
pub mod bench_report;
pub mod bench_tasks;
pub mod datasets;
pub mod dedup;
pub mod dedup_index;
pub mod edit;
pub mod eval;
pub mod hamming;
pub mod idf;
pub mod lsh;
pub mod man;
pub mod run;
pub mod similarity;
