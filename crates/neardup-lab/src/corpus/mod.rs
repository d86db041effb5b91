//! Corpora: documents with ids, texts and optional near-duplicate cluster labels.
//!
//! Loaders stream their input (JSONL and CSV line by line, gzip-decompressed on the fly, the
//! file's SHA-256 computed on the raw bytes as they pass) and append texts to one arena string,
//! so a multi-GB corpus is held once, without per-document allocations. Every error names the
//! file and line; `skip_invalid` skips malformed records and counts them instead.
//!
//! Labels: documents with the same non-null label are near-duplicates of each other; a null
//! or missing label means "unlabelled" (never a positive pair). Labelled pairs can also come
//! from a separate CSV ([`pairs`]).

pub mod csv_file;
pub mod fetch;
pub mod jsonl;
mod load;
pub mod manifest;
pub mod model;
pub mod pages;
pub mod pairs;
pub mod parquet;
pub mod synthetic;
pub mod txt_dir;

pub use load::load;
pub use model::{
    Corpus, CorpusBuilder, Fields, Format, LoadOptions, id_string, label_string, stem,
};
