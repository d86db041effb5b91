//! What a run says of itself in `summary.json` ([`Summary`]): inputs, algorithm, counts, the
//! cluster sizes and the largest clusters, time per stage, peak memory.

use serde::{Deserialize, Serialize};

use super::options::{ClusterMode, Keep, StageReport};

/// What `summary.json` holds.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// neardup version and revision.
    pub version: String,
    /// Input files, in document order.
    pub inputs: Vec<String>,
    /// The field holding the text, and the one holding the id (a record without an id is
    /// named by its document number): how `neardup inspect` reads the inputs again.
    pub text_field: String,
    /// See `text_field`.
    pub id_field: String,
    /// The field holding pages' HTML (`--html-field`), if one was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html_field: Option<String>,
    /// Which text of web pages was compared (`main`, `visible`, `none`), when the inputs held
    /// pages (WARC, HTML, an HTML field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extract: Option<String>,
    /// What happened to web pages in this run's sketch: records skipped by reason, and each
    /// extraction outcome.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub pages: std::collections::BTreeMap<String, u64>,
    /// Algorithm name.
    pub algorithm: String,
    /// Its build and query parameters as they ran: defaults filled in and resolved (the
    /// threshold, bands and rows a minhash-lsh default tunes).
    pub params: neardup::detector::ParamMap,
    /// Whether it streamed (texts never all in memory).
    pub streamed: bool,
    /// Whether the join spilled to disk (the signatures did not fit `--memory`).
    pub spilled: bool,
    /// Which member of a cluster is kept.
    pub keep: Keep,
    /// With `--keep max:FIELD` / `min:FIELD`: documents without a value in the field (kept
    /// only where no member of their cluster has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub without_keep_value: Option<u64>,
    /// How verified pairs became clusters.
    pub cluster_mode: ClusterMode,
    /// Documents read.
    pub documents: u64,
    /// Documents of the index joined against (`--index`; 0 without).
    pub indexed_documents: u64,
    /// Documents removed because their cluster holds an indexed document.
    pub duplicates_of_index: u64,
    /// Text bytes read.
    pub text_bytes: u64,
    /// `--min-words` (0: every document took part).
    pub min_words: usize,
    /// Documents shorter than `min_words`: left out of near-duplicate detection, matched by
    /// their exact text only.
    pub short_documents: u64,
    /// Malformed records skipped (`--skip-invalid`; copied to the deduplicated output as they
    /// are).
    pub invalid_records: u64,
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Documents in those clusters.
    pub documents_in_clusters: u64,
    /// Documents removed (in a cluster and not its kept member).
    pub removed: u64,
    /// Removed documents whose similarity to the document kept in their place is below the
    /// threshold (0 with `--clusters verified`; what chaining costs with `connected`). `None`
    /// when the algorithm cannot judge an arbitrary pair (its similarities are then null).
    pub removed_below_threshold: Option<u64>,
    /// Documents kept.
    pub kept: u64,
    /// Verified pairs.
    pub pairs: u64,
    /// Clusters of two or more documents by size: sizes 2, 3–4, 5–8, … up to the largest.
    pub cluster_sizes: Vec<SizeBucket>,
    /// The largest clusters (at most ten), largest first.
    pub largest_clusters: Vec<LargeCluster>,
    /// Time and rows per stage (this run).
    pub stages: Vec<StageReport>,
    /// Wall seconds of this run.
    pub seconds: f64,
    /// Peak resident memory of this process (VmHWM), bytes.
    pub peak_rss_bytes: Option<u64>,
    /// Worker threads.
    pub threads: usize,
    /// The audit tables, relative to the output directory.
    pub tables: Vec<String>,
    /// The deduplicated corpus, relative to the output directory.
    pub deduplicated: Vec<String>,
    /// What ran the stages.
    pub engine: Engine,
}

/// What ran a deduplication: one process (`neardup dedup`, `neardup.dedup`) or Ray
/// (`neardup.ray.dedup`, whose outputs `external_outputs` publishes in the same layout).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Engine {
    /// `"process"` or `"ray"`.
    pub name: String,
    /// Ray: partitions of each shuffle (null in one process).
    pub partitions: Option<u64>,
    /// Ray: large-star / small-star rounds the components took (null in one process).
    pub component_rounds: Option<u64>,
    /// Ray: the candidate documents (those of a candidate pair), when their numbers were
    /// broadcast so that only their ids travel to the pairs table (null: too many to
    /// broadcast, or one process).
    pub broadcast_candidate_documents: Option<u64>,
}

impl Engine {
    /// One process.
    pub fn process() -> Self {
        Engine {
            name: "process".to_string(),
            partitions: None,
            component_rounds: None,
            broadcast_candidate_documents: None,
        }
    }
}

/// Clusters whose size is in `min..=max`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeBucket {
    /// Smallest size counted.
    pub min: u32,
    /// Largest size counted.
    pub max: u32,
    /// Clusters of these sizes.
    pub clusters: u64,
    /// Documents in them.
    pub documents: u64,
}

/// Clusters of two or more documents by size, in buckets 2, 3–4, 5–8, … up to the largest;
/// `sizes` holds each cluster's size (sizes below 2 are not clusters and are left out).
pub fn size_buckets(sizes: &[u32]) -> Vec<SizeBucket> {
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let mut buckets = Vec::new();
    let (mut min, mut max) = (2u32, 2u32);
    while min <= largest {
        let inside = sizes.iter().filter(|&&s| s >= min && s <= max);
        buckets.push(SizeBucket {
            min,
            max,
            clusters: inside.clone().count() as u64,
            documents: inside.map(|&s| s as u64).sum(),
        });
        (min, max) = (max + 1, max.saturating_mul(2));
    }
    buckets
}

/// One of the largest clusters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LargeCluster {
    /// Its number in `clusters.*`.
    pub cluster: u32,
    /// Members (with `--index`: indexed members included).
    pub size: u32,
    /// The id of the document kept for it.
    pub representative: String,
}
