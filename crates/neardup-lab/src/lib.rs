//! # neardup-lab — the workbench around the `neardup` algorithm library
//!
//! Everything that is not an algorithm: the command line, corpora and their manifests,
//! controlled edit injection with exact ground truth, metrics, experiment grids, results
//! tables, charts and reports. The algorithms themselves live in the `neardup` crate and are
//! reached only through its registry, so nothing here changes when an algorithm is added.

pub mod calibrate;
pub mod charts;
pub mod cli;
pub mod commands;
pub mod config_file;
pub mod corpus;
pub mod edits;
pub mod error;
pub mod eval;
pub mod eval_table;
pub mod experiment;
pub mod guide;
pub mod harness;
pub mod inspect;
pub mod label;
pub mod memory;
pub mod metrics;
pub mod output_format;
pub mod params;
pub mod report;
pub mod truth;

/// The version with the revision it was built from (stamped by `neardup-dedup`'s build script).
pub use neardup_dedup::{REVISION, VERSION};

/// Unit tests measure heap peaks as the binary does (`main.rs` installs the same allocator).
#[cfg(test)]
#[global_allocator]
static GLOBAL: memory::CountingAlloc = memory::CountingAlloc;
