//! Metrics, one file each, computed from an [`EvalInput`] (stored results only, so a new
//! metric never needs a rerun). Definitions:
//!
//! * `pairs` — pair-level TP, FP, FN, precision, recall, F1 over unordered document pairs (not
//!   text-dedup's per-document macro precision). With cluster labels the positives are all
//!   pairs inside a cluster; with a labelled-pairs file only listed pairs count.
//! * `ari` — adjusted Rand index (Hubert & Arabie 1985) between the predicted clustering
//!   (connected components of reported pairs) and the labels (unlabelled = singleton).
//! * `bcubed` — B-cubed precision and recall (Bagga & Baldwin 1998) of the same clusterings.
//! * `auc` — ROC-AUC (Mann–Whitney, ties count ½) and PR-AUC (average precision) of the
//!   algorithm's scores over a scored sample of positive and negative pairs.
//! * `cost` — seconds, documents and megabytes (10⁶ bytes of text) per second, peak heap.
//!
//! Adding a metric = one file implementing [`Metric`] + one line in [`METRICS`].

pub mod ari;
pub mod auc;
pub mod bcubed;
pub mod cost;
pub mod pairs;

use neardup::detector::ScoredPair;

use crate::truth::Truth;

/// Everything a metric may look at.
#[derive(Debug, Clone, Copy)]
pub struct EvalInput<'a> {
    /// Number of documents.
    pub docs: usize,
    /// Bytes of text.
    pub text_bytes: usize,
    /// Ground truth.
    pub truth: &'a Truth,
    /// Reported pairs, sorted by (a, b), unique.
    pub predicted: &'a [ScoredPair],
    /// (is positive, score) of a pair sample, when the algorithm can score pairs.
    pub scored: Option<&'a [(bool, f64)]>,
    /// Build + query seconds.
    pub seconds: f64,
    /// Peak heap bytes above the baseline during build + query.
    pub peak_bytes: Option<u64>,
}

/// A metric: named columns and how to compute them (`None` = does not apply).
pub trait Metric: Sync {
    /// Column names it produces.
    fn columns(&self) -> &'static [&'static str];
    /// One value per column.
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>>;
}

/// The registered metrics, in column order.
pub const METRICS: &[&dyn Metric] = &[
    &pairs::PairCounts,
    &ari::AdjustedRand,
    &bcubed::BCubed,
    &auc::Auc,
    &cost::Cost,
];

/// Every metric's columns and values, in order.
pub fn compute_all(input: &EvalInput) -> Vec<(&'static str, Option<f64>)> {
    METRICS
        .iter()
        .flat_map(|m| m.columns().iter().copied().zip(m.compute(input)))
        .collect()
}

/// All metric column names, in order.
pub fn all_columns() -> Vec<&'static str> {
    METRICS
        .iter()
        .flat_map(|m| m.columns().iter().copied())
        .collect()
}

/// `num / den`, or `None` when `den` is 0.
pub(crate) fn ratio(num: f64, den: f64) -> Option<f64> {
    (den != 0.0).then(|| num / den)
}

/// Contingency table of two labelings of the same items (unlabelled truth items become
/// singletons), in key order so that floating-point sums over it are reproducible.
pub(crate) struct Contingency {
    /// (predicted cluster, true cluster, items), sorted.
    pub cells: Vec<(u32, u32, u64)>,
    /// Items per predicted cluster.
    pub rows: std::collections::BTreeMap<u32, u64>,
    /// Items per true cluster.
    pub cols: std::collections::BTreeMap<u32, u64>,
}

/// Builds the contingency table of `predicted` against `truth`.
pub(crate) fn contingency(predicted: &[u32], truth: &[Option<u32>]) -> Contingency {
    use std::collections::BTreeMap;
    let mut next_single = truth.iter().flatten().max().map_or(0, |m| m + 1);
    let mut cells: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    let mut rows: BTreeMap<u32, u64> = BTreeMap::new();
    let mut cols: BTreeMap<u32, u64> = BTreeMap::new();
    for (&p, t) in predicted.iter().zip(truth) {
        let t = t.unwrap_or_else(|| {
            next_single += 1;
            next_single - 1
        });
        *cells.entry((p, t)).or_default() += 1;
        *rows.entry(p).or_default() += 1;
        *cols.entry(t).or_default() += 1;
    }
    Contingency {
        cells: cells.into_iter().map(|((p, t), n)| (p, t, n)).collect(),
        rows,
        cols,
    }
}

/// Predicted cluster labels: connected components of the reported pairs.
pub(crate) fn predicted_clusters(docs: usize, predicted: &[ScoredPair]) -> Vec<u32> {
    neardup::cluster::connected_components(docs, predicted.iter().map(|p| (p.a, p.b)))
}
