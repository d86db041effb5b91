//! Metrics, one file each, computed from an [`EvalInput`] (stored results only, so a new
//! metric never needs a rerun). Definitions:
//!
//! * `pairs` — pair-level TP, FP, FN, precision, recall, F1 over unordered document pairs (not
//!   text-dedup's per-document macro precision). With cluster labels the positives are all
//!   pairs inside a cluster; with a labelled-pairs file only listed pairs count.
//! * `ari` — adjusted Rand index (Hubert & Arabie 1985) between the predicted clustering
//!   (connected components of reported pairs, or the anchored clusters when the experiment
//!   asks for a clustering mode) and the labels (unlabelled = singleton).
//! * `bcubed` — B-cubed precision and recall (Bagga & Baldwin 1998) of the same clusterings.
//! * `auc` — ROC-AUC (Mann–Whitney, ties count ½) and PR-AUC (average precision) of the
//!   algorithm's scores over a scored sample of positive and negative pairs.
//! * `clusters` — what was reported, in counts: pairs, clusters (of two or more documents),
//!   the largest cluster and documents a deduplication would remove; the figures an
//!   unlabelled corpus can have.
//! * `wrongful` — documents removed below the threshold from the document kept for them
//!   (anchored clusters only: what transitive closure costs).
//! * `cost` — seconds, documents and megabytes (10⁶ bytes of text) per second, peak heap.
//!
//! Each column declares its [`Kind`] — quality, count or cost — and whether it is a headline
//! figure of the reports. `results.csv` (quality and counts), `timing.csv` (cost), `neardup
//! eval`'s columns and the report tables are derived from [`METRICS`]; no other list of
//! columns exists. Adding a metric = one file implementing [`Metric`] + one line in
//! [`METRICS`].

pub mod ari;
pub mod auc;
pub mod bcubed;
pub mod clusters;
pub mod cost;
pub mod metric;
pub mod pairs;
pub mod wrongful;

pub use metric::{Column, EvalInput, Kind, Metric, ScoredSample};

/// The registered metrics, in column order.
pub const METRICS: &[&dyn Metric] = &[
    &clusters::Reported,
    &wrongful::WrongfulRemovals,
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
        .flat_map(|m| m.columns().iter().map(|c| c.name).zip(m.compute(input)))
        .collect()
}

/// Every column, in order.
pub fn columns() -> impl Iterator<Item = &'static Column> {
    METRICS.iter().flat_map(|m| m.columns().iter())
}

/// The columns of one kind, in order.
pub fn columns_of(kind: Kind) -> impl Iterator<Item = &'static Column> {
    columns().filter(move |c| c.kind == kind)
}

/// The column called `name`.
pub fn column(name: &str) -> Option<&'static Column> {
    columns().find(|c| c.name == name)
}
