//! Cells and their cache.
//!
//! A cell is one (corpus, algorithm, build-parameter point): the index is built once and every
//! query point of the grid is swept over it. Its raw result — reported pairs with scores and
//! exact Jaccard, timings, memory, AUC — is written atomically to `<cache>/cells/<key>.json`,
//! where the key hashes everything the result depends on (corpus checksum, full build and query
//! parameters with defaults filled in, seed, cache format version, and a fingerprint of the code
//! that computes cells, so a changed algorithm never reuses stale results). A finished cell is never
//! recomputed unless `--force`; a killed run resumes where it stopped.

use std::path::{Path, PathBuf};

use neardup::detector::ParamMap;
use serde::{Deserialize, Serialize};
use sha2::Digest;

use super::config::TruthSpec;
use super::corpora::CorpusTruth;
use crate::error::{LabError, Result};
use neardup_dedup::fsutil::write_bytes;

/// Bump when the meaning of stored results changes.
pub const CACHE_VERSION: u32 = 2;

include!(concat!(env!("OUT_DIR"), "/code_fingerprint.rs"));

/// Reported pairs of one query, column-wise.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PairColumns {
    /// Smaller document index.
    pub a: Vec<u32>,
    /// Larger document index.
    pub b: Vec<u32>,
    /// Algorithm's score.
    pub score: Vec<f64>,
    /// Exact Jaccard of the truth features.
    pub jaccard: Vec<f64>,
}

impl PairColumns {
    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }
}

/// The result of one query point.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryResult {
    /// Query parameters as given in the grid.
    pub given: ParamMap,
    /// All query parameters.
    pub params: ParamMap,
    /// Wall seconds.
    pub seconds: f64,
    /// Peak heap bytes above the baseline.
    pub peak_bytes: u64,
    /// Reported pairs.
    pub pairs: PairColumns,
    /// The pairs' clusters anchored on representatives, when the query point asks for a
    /// clustering mode (see `clustering`); otherwise the clusters are the connected
    /// components of `pairs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clusters: Option<super::clustering::Anchored>,
}

impl QueryResult {
    /// The lowest score this query point reports: where its cut lies (exact for an
    /// algorithm whose query is a score threshold, where its reports begin otherwise).
    pub fn lowest_score(&self) -> Option<f64> {
        let lowest = self
            .pairs
            .score
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        lowest.is_finite().then_some(lowest)
    }
}

/// The raw result of one cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellResult {
    /// Cache key.
    pub key: String,
    /// Algorithm name.
    pub algorithm: String,
    /// Build parameters as given in the grid.
    pub given: ParamMap,
    /// All build parameters.
    pub params: ParamMap,
    /// Corpus checksum.
    pub corpus_sha256: String,
    /// Wall seconds of the build.
    pub build_seconds: f64,
    /// Peak heap bytes of the build.
    pub build_peak_bytes: u64,
    /// Heap bytes the index holds.
    pub index_bytes: u64,
    /// The index's scores of a sample of pairs (see `eval::auc_sample`), if it scores pairs:
    /// ranking metrics are computed from it afterwards, like every other metric.
    #[serde(default)]
    pub scored: Option<crate::metrics::ScoredSample>,
    /// Counts the algorithm reports about its index (documents without a signature…).
    #[serde(default)]
    pub stats: ParamMap,
    /// One result per query point, in grid order.
    pub queries: Vec<QueryResult>,
    /// Set when the algorithm failed; the rest is then empty.
    pub error: Option<String>,
    /// The limits a failed cell ran under: a later run retries it when they changed (a cell
    /// is never stored as a result of a limit it no longer has).
    #[serde(default)]
    pub limits: Option<Limits>,
    /// The index's warnings (statistics from few documents…).
    #[serde(default)]
    pub warnings: Vec<String>,
}

impl CellResult {
    /// The query point that reports the most pairs: a sweep's loosest setting.
    pub fn loosest(&self) -> Option<&QueryResult> {
        self.queries.iter().max_by_key(|q| q.pairs.len())
    }
}

/// The resource limits a cell ran under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// The pair limit.
    pub max_pairs: u64,
    /// The memory limit in bytes, if any.
    pub max_memory: Option<u64>,
}

impl Limits {
    /// The limits of this process.
    pub fn current() -> neardup::Result<Limits> {
        Ok(Limits {
            max_pairs: neardup::pairs::limit()?,
            max_memory: neardup::resources::memory_limit()?,
        })
    }
}

/// What a cell's key is made of.
#[derive(Serialize)]
struct KeyParts<'a> {
    version: u32,
    code: u64,
    corpus: &'a str,
    truth: &'a TruthSpec,
    algorithm: &'a str,
    build: &'a ParamMap,
    queries: &'a [ParamMap],
    seed: u64,
}

fn digest(json: &str) -> String {
    neardup_dedup::input::checksummed::hex(&sha2::Sha256::digest(json.as_bytes()))[..32].to_string()
}

/// The cache key of a cell.
pub fn key(
    corpus: &str,
    truth: &TruthSpec,
    algorithm: &str,
    build: &ParamMap,
    queries: &[ParamMap],
    seed: u64,
) -> String {
    let parts = KeyParts {
        version: CACHE_VERSION,
        code: CODE_FINGERPRINT,
        corpus,
        truth,
        algorithm,
        build,
        queries,
        seed,
    };
    digest(&serde_json::to_string(&parts).expect("key parts serialize"))
}

/// The cache key of a corpus's truth (the corpus and the truth features).
fn corpus_key(sha: &str, truth: &TruthSpec) -> String {
    digest(
        &serde_json::to_string(&(CACHE_VERSION, CODE_FINGERPRINT, sha, truth)).expect("serializes"),
    )
}

/// The cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// A cache rooted at `root` (created on first write).
    pub fn new(root: &Path) -> Self {
        Cache {
            root: root.to_path_buf(),
        }
    }

    fn cell_path(&self, key: &str) -> PathBuf {
        self.root.join("cells").join(format!("{key}.json"))
    }

    fn corpus_path(&self, sha: &str, truth: &TruthSpec) -> PathBuf {
        self.root
            .join("corpora")
            .join(format!("{}.json", corpus_key(sha, truth)))
    }

    /// A stored cell, if present and readable (a corrupt file counts as absent).
    pub fn cell(&self, key: &str) -> Option<CellResult> {
        let bytes = std::fs::read(self.cell_path(key)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Stores a cell atomically.
    pub fn put_cell(&self, cell: &CellResult) -> Result<()> {
        let path = self.cell_path(&cell.key);
        let json = serde_json::to_vec(cell).map_err(|e| LabError::file(&path, e.to_string()))?;
        write_bytes(&path, &json)
    }

    /// A stored corpus truth.
    pub fn corpus(&self, sha: &str, truth: &TruthSpec) -> Option<CorpusTruth> {
        let bytes = std::fs::read(self.corpus_path(sha, truth)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Stores a corpus truth atomically.
    pub fn put_corpus(&self, truth: &CorpusTruth) -> Result<()> {
        let path = self.corpus_path(&truth.sha256, &truth.truth);
        let json = serde_json::to_vec(truth).map_err(|e| LabError::file(&path, e.to_string()))?;
        write_bytes(&path, &json)
    }
}
