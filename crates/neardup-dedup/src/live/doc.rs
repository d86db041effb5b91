//! What the live index takes and answers: its configuration, documents, matches, outcomes
//! and counts.

use std::path::PathBuf;

use neardup::detector::ParamMap;
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// How a live index is opened: the algorithm and parameters of its signatures (as
/// `dedup --index` takes them) and when the recent part is folded into a segment.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    pub algorithm: String,
    pub params: ParamMap,
    pub min_words: usize,
    /// Recent documents that make a fold due.
    pub fold_after: usize,
}

impl Default for LiveConfig {
    fn default() -> Self {
        LiveConfig {
            algorithm: "minhash-lsh".into(),
            params: ParamMap::new(),
            min_words: 0,
            fold_after: 200_000,
        }
    }
}

/// A document's URL and when it was added (milliseconds since the Unix epoch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocMeta {
    pub url: Option<String>,
    pub added_ms: u64,
}

/// A document's signature, ready to check or add.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub row: Vec<u32>,
    /// No feature (an empty text): never anyone's duplicate.
    pub empty: bool,
}

/// An indexed document a probe is a near-duplicate of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    pub id: String,
    pub similarity: f64,
}

/// Whether an add first checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddMode {
    /// Added only when it is no near-duplicate of an indexed document.
    IfNew,
    /// Added whatever it matches (a re-crawl that must be recorded); the matches are said.
    Always,
}

/// A document to add.
#[derive(Debug, Clone)]
pub struct NewDoc {
    pub id: String,
    pub url: Option<String>,
    pub probe: Probe,
}

/// What an add did. `matches` are in document order: the first is the one `dedup --index`
/// would keep for it.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Added {
        matches: Vec<Match>,
    },
    Duplicate {
        matches: Vec<Match>,
    },
    /// The id is indexed already with this very signature: nothing to add.
    AlreadyIndexed,
}

/// Why a change was refused.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The request contradicts the index (an id that names another document).
    #[error("{0}")]
    Conflict(String),
    /// The change could not be made durable (a full disk, a failed sync): nothing was added.
    #[error("{0}")]
    Storage(#[from] Error),
}

/// A document as `GET /v1/docs/{id}` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocInfo {
    pub id: String,
    pub number: u32,
    pub url: Option<String>,
    pub host: Option<String>,
    pub added_ms: Option<u64>,
    /// `log` (added since the last fold) or the segment file holding it.
    pub stored_in: String,
}

/// Counts `stats` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub algorithm: String,
    pub sketch_key: String,
    pub documents: u64,
    pub segments: usize,
    pub recent_documents: usize,
    pub removed_pending: usize,
    pub log_bytes: u64,
    pub memory_bytes: u64,
}

/// What opening found in the log.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    pub records: usize,
    pub seconds: f64,
    /// Bytes of a damaged tail, and where they were kept.
    pub damaged: Option<(u64, PathBuf)>,
    /// The log had been folded before a crash (its records are in a segment).
    pub already_folded: bool,
}
