//! # neardup-dedup — deduplicate a real corpus
//!
//! The product around the `neardup` algorithm library: `neardup dedup` (the CLI), and
//! `neardup.dedup` / `neardup.ray.dedup` (Python) all run this crate's pipeline, and every
//! command that reads a corpus reads it through this crate's [`input`] layer.
//!
//! ## Concepts
//!
//! - **Input file** ([`input::InputFile`]): one JSONL, CSV or Parquet file, plain, gzip or
//!   zstd. Files, directories and globs expand into a sorted list of them.
//! - **Record and document number**: records are numbered by input file, then by position in
//!   the file, whatever the thread count or sharding; that number is the document's identity
//!   inside a run, its `id` field its identity for the user.
//! - **Read position** ([`input::ReadPosition`]): a place between two records where an
//!   interrupted read resumes.
//! - **Signature**: a document's fixed-size sketch (`neardup::streaming`), the only thing the
//!   join stages hold per document; memory is bounded by signatures, never by texts.
//! - **Shard**: the signatures of one input file, written as Parquet pieces under
//!   `OUT/stages/sketch/`; `--shard i/n` lets n processes share the sketch stage.
//! - **Stage** ([`Stage`]): sketch → candidates → verify → components → outputs. Each stage
//!   writes its files under `OUT/stages/NAME/` and then a **marker** (`done.json`) carrying the
//!   key of everything it depends on; a rerun skips a stage whose marker carries the key it
//!   would compute, so a killed run resumes and a new threshold reuses the signatures.
//! - **Spilled join** ([`pipeline::spilled_join`]): candidates and verification over the
//!   shards on disk when the signatures do not fit `--memory`.
//! - **Index, segment, manifest** ([`index`]): `--index DIR` keeps every batch's signatures as
//!   a checksummed **segment**; the **manifest** lists the segments, so a new batch joins
//!   against every earlier one and is added once.
//!
//! ## Layout
//!
//! - [`input`] — the one input layer: formats, compression, blocks of records, read positions,
//!   JSONL field decoding, Parquet through arrow-rs, checksummed reading for the lab's loaders.
//! - [`pipeline`] — the run and its stages.
//! - [`index`] — the incremental index.
//! - [`live`] — the live index behind `neardup serve`: one document checked or added at a
//!   time, durably (a write-ahead log), in the index's folder and format.
//! - [`fsutil`] — atomic, regular-file-only outputs and `O_DIRECT` writing; [`progress`] —
//!   progress bars; [`machine`] — physical memory and peak RSS; [`error`] — one error type
//!   naming the file and line.
//!
//! No command-line parsing, plotting or report rendering here: those are the `neardup-lab`
//! binary's.

pub mod error;
pub mod fault_injection;
pub mod fsutil;
pub mod index;
pub mod input;
pub mod live;
pub mod machine;
pub mod pipeline;
pub mod progress;
pub mod temp_files;
#[cfg(test)]
mod test_dir;
pub mod version;
pub mod web;

pub use error::{Error, Result};
pub use pipeline::{DedupOptions, Keep, Stage, run};

pub use version::{REVISION, VERSION};
