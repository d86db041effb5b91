//! What a metric is and what metrics share: the [`Metric`] trait each metric's file
//! implements, the [`EvalInput`] it reads, its [`Column`]s and their [`Kind`], and the
//! helpers several metrics use (ratios, contingency tables, predicted clusters). The registry
//! ([`super::METRICS`]) names the metrics; they name only this module.

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
    /// Every document's representative when the clusters were anchored on one (an
    /// experiment's `clusters` query key); `None`: the clusters are the connected components
    /// of `predicted`.
    pub representative: Option<&'a [u32]>,
    /// With anchored clusters, the documents removed below the threshold from their
    /// representative.
    pub removed_below_threshold: Option<usize>,
    /// Scores of a pair sample, when the algorithm can score pairs.
    pub scored: Option<&'a ScoredSample>,
    /// Build + query seconds.
    pub seconds: f64,
    /// Peak heap bytes above the baseline during build + query.
    pub peak_bytes: Option<u64>,
}

/// Scores of a sample of pairs: those of true near-duplicates and those of other pairs (see
/// `eval::auc_sample`). Stored with each cell, so ranking metrics need no rerun.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScoredSample {
    /// Scores of positive pairs.
    pub positive: Vec<f64>,
    /// Scores of negative pairs.
    pub negative: Vec<f64>,
}

impl ScoredSample {
    /// (is positive, score) observations.
    pub fn observations(&self) -> Vec<(bool, f64)> {
        self.positive
            .iter()
            .map(|&s| (true, s))
            .chain(self.negative.iter().map(|&s| (false, s)))
            .collect()
    }
}

/// What a column measures, which decides where it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// How good the reported pairs or scores are (`results.csv`).
    Quality,
    /// A count (`results.csv`, written as an integer).
    Count,
    /// Time or memory (`timing.csv`: it changes from run to run).
    Cost,
}

/// One output column of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// Name in CSV and JSON.
    pub name: &'static str,
    /// Header in report tables.
    pub title: &'static str,
    /// Where it is written.
    pub kind: Kind,
    /// Whether the report's summary tables show it (quality: the best-configuration table;
    /// count: the table of unlabelled corpora; cost: the timing table).
    pub headline: bool,
}

impl Column {
    /// A column.
    pub const fn new(name: &'static str, title: &'static str, kind: Kind, headline: bool) -> Self {
        Column {
            name,
            title,
            kind,
            headline,
        }
    }
}

/// A metric: columns and how to compute them (`None` = does not apply).
pub trait Metric: Sync {
    /// The columns it produces.
    fn columns(&self) -> &'static [Column];
    /// One value per column.
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>>;
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

/// Predicted cluster labels: the anchored clusters when there are, else the connected
/// components of the reported pairs.
pub(crate) fn predicted_clusters(input: &EvalInput) -> Vec<u32> {
    match input.representative {
        Some(representative) => neardup::cluster::anchored::labels_of(representative),
        None => neardup::cluster::connected_components(
            input.docs,
            input.predicted.iter().map(|p| (p.a, p.b)),
        ),
    }
}
