//! Inspecting a corpus under a configuration, without a dedup run: the index is built, its
//! pairs reported down to `below` under the threshold (the near misses verification rejects,
//! which a dedup output does not keep), and the pairs at or above it clustered as `neardup
//! dedup` clusters them (verified when the algorithm compares any pair, else connected).

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use neardup::cluster::anchored::{Assignment, anchor_all, labels_of};
use neardup::detector::{ParamMap, ScoredPair};
use serde_json::json;

use super::tables::{ClusterRow, PairRow};
use super::{Found, Inspection, Sampling, assemble, threshold_of};
use crate::corpus::{LoadOptions, load};
use crate::experiment::clustering::comparer;
use neardup_dedup::pipeline::size_buckets;

/// What a configuration finds in a corpus file.
#[derive(Debug, Clone)]
pub struct Configuration<'a> {
    pub algorithm: &'a str,
    pub params: &'a ParamMap,
    /// How far under the threshold rejected pairs are shown (where the cutoff is a query
    /// parameter: minhash-lsh's `min_similarity`).
    pub below: f64,
}

/// Inspects `path` under `config`.
pub fn inspect_corpus(
    path: &Path,
    options: &LoadOptions,
    config: &Configuration,
    sampling: Sampling,
) -> Result<Inspection> {
    let corpus = load(path, options)?;
    let texts = corpus.texts();
    let detector = neardup::registry::detector(config.algorithm, config.params)?;
    let params = detector.resolved_params();
    let threshold = threshold_of(config.algorithm, &params);
    let index = detector.build(&texts)?;
    let mut overrides = ParamMap::new();
    if let Some(t) = threshold.filter(|_| detector.query_params().contains_key("min_similarity")) {
        overrides.insert("min_similarity".into(), json!((t - config.below).max(1e-6)));
    }
    let reported: Vec<ScoredPair> = index.query(&overrides)?;
    let decided = |p: &ScoredPair| threshold.is_none_or(|t| p.score >= t);
    let kept: Vec<(u32, u32)> = reported
        .iter()
        .filter(|p| decided(p))
        .map(|p| (p.a, p.b))
        .collect();
    let mut table = None;
    let compare = comparer(detector.as_ref(), index.as_ref(), &mut table, &texts);
    let verified = compare.is_some();
    let assignments = match compare {
        Some(compare) => anchor_all(texts.len(), &kept, |d| d, compare, true),
        // Connected components, without similarities to the representative.
        None => anchor_all(texts.len(), &kept, |d| d, |_, _| (f64::NAN, true), false),
    };
    let id = |d: u32| corpus.id(d as usize).to_string();
    let clusters = cluster_rows(&assignments, &id);
    let pairs: Vec<PairRow> = reported
        .iter()
        .map(|p| PairRow {
            id_a: id(p.a),
            id_b: id(p.b),
            similarity: Some(p.score),
            stage: if decided(p) { "verify" } else { "rejected" }.into(),
        })
        .collect();
    let removed = clusters.iter().filter(|c| !c.kept).count() as u64;
    let found = Found {
        source: path.display().to_string(),
        from_run: false,
        algorithm: config.algorithm.to_string(),
        params,
        cluster_mode: if verified { "verified" } else { "connected" }.into(),
        documents: texts.len() as u64,
        removed,
        removed_below_threshold: verified.then_some(0),
        cluster_sizes: serde_json::to_value(size_buckets(&cluster_sizes(&clusters)))?,
        pairs,
        clusters,
    };
    let by_id: HashMap<&str, usize> = (0..corpus.len()).map(|i| (corpus.id(i), i)).collect();
    assemble(found, sampling, |wanted| {
        Ok(wanted
            .iter()
            .filter_map(|w| by_id.get(w).map(|&i| (w.to_string(), texts[i].to_string())))
            .collect())
    })
}

/// Every document's row of `clusters.*`, as dedup writes it.
fn cluster_rows(assignments: &[Assignment], id: &dyn Fn(u32) -> String) -> Vec<ClusterRow> {
    let representative: Vec<u32> = assignments.iter().map(|a| a.representative).collect();
    let labels = labels_of(&representative);
    let mut size = vec![0u32; assignments.len()];
    for &l in &labels {
        size[l as usize] += 1;
    }
    assignments
        .iter()
        .map(|a| ClusterRow {
            id: id(a.document),
            cluster: labels[a.document as usize],
            cluster_size: size[labels[a.document as usize] as usize],
            kept: a.representative == a.document,
            representative: id(a.representative),
            similarity: Some(a.similarity).filter(|s| s.is_finite()),
        })
        .collect()
}

/// Each cluster's size, once per cluster.
fn cluster_sizes(rows: &[ClusterRow]) -> Vec<u32> {
    rows.iter()
        .filter(|r| r.kept)
        .map(|r| r.cluster_size)
        .collect()
}
