//! Experiments: a TOML grid ([`config`]) becomes corpora ([`corpora`]) and cached cells
//! ([`cells`], [`runner`]; clusters per [`clustering`]); stored cells become the results table ([`results`]). Charts and
//! reports are drawn from those by `commands/run.rs` (`neardup run` does one experiment,
//! `neardup reproduce` the standard set, `experiments/*.toml`, embedded in the binary), so
//! nothing here imports a presentation module.

pub mod cells;
pub mod clustering;
pub mod config;
pub mod corpora;
pub mod results;
pub mod runner;

pub use runner::RunOptions;

include!(concat!(env!("OUT_DIR"), "/experiments.rs"));
