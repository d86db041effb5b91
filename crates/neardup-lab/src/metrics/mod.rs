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

/// Contingency counts between two labelings of the same items: (cell sizes, row sizes,
/// column sizes). Unlabelled truth items become singletons.
pub(crate) fn contingency(
    predicted: &[u32],
    truth: &[Option<u32>],
) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    use std::collections::HashMap;
    let mut next_single = truth.iter().flatten().max().map_or(0, |m| m + 1);
    let truth: Vec<u32> = truth
        .iter()
        .map(|l| {
            l.unwrap_or_else(|| {
                next_single += 1;
                next_single - 1
            })
        })
        .collect();
    let mut cells: HashMap<(u32, u32), u64> = HashMap::new();
    let mut rows: HashMap<u32, u64> = HashMap::new();
    let mut cols: HashMap<u32, u64> = HashMap::new();
    for (&p, &t) in predicted.iter().zip(&truth) {
        *cells.entry((p, t)).or_default() += 1;
        *rows.entry(p).or_default() += 1;
        *cols.entry(t).or_default() += 1;
    }
    let mut c: Vec<_> = cells.into_iter().collect();
    c.sort_unstable();
    let mut r: Vec<_> = rows.into_iter().collect();
    r.sort_unstable();
    let mut k: Vec<_> = cols.into_iter().collect();
    k.sort_unstable();
    (
        c.into_iter().map(|x| x.1).collect(),
        r.into_iter().map(|x| x.1).collect(),
        k.into_iter().map(|x| x.1).collect(),
    )
}

/// Predicted cluster labels: connected components of the reported pairs.
pub(crate) fn predicted_clusters(docs: usize, predicted: &[ScoredPair]) -> Vec<u32> {
    neardup::cluster::connected_components(docs, predicted.iter().map(|p| (p.a, p.b)))
}
