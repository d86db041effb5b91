//! # neardup-lab — the workbench around the `neardup` algorithm library
//!
//! Everything that is not an algorithm: the command line, corpora and their manifests,
//! controlled edit injection with exact ground truth, metrics, experiment grids, results
//! tables, charts and reports. The algorithms themselves live in the `neardup` crate and are
//! reached only through its registry, so nothing here changes when an algorithm is added.

pub mod calibration;
pub mod charts;
pub mod cli;
pub mod commands;
pub mod corpus;
pub mod dedup;
pub mod edits;
pub mod error;
pub mod eval;
pub mod experiment;
pub mod fsutil;
pub mod harness;
pub mod memory;
pub mod metrics;
pub mod params;
pub mod progress;
pub mod report;
pub mod truth;

/// The version with the revision it was built from (stamped by `build.rs`: `git` of the
/// checkout at build time; `unknown` when built outside one).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("NEARDUP_REVISION"),
    ")"
);

/// The revision the binary was built from.
pub const REVISION: &str = env!("NEARDUP_REVISION");
