//! What deduplicating with a configuration would do to the corpus's documents: pair F1 hides
//! it (a threshold with good pair precision and recall can still chain half a corpus into a
//! few clusters). For each configuration at its chosen setting, the pairs it reports over the
//! whole corpus are clustered as `neardup dedup` clusters them — verified clusters when the
//! algorithm compares any pair, else connected components — and counted: documents removed,
//! the largest cluster, documents removed below the threshold, and, on a cluster-labelled
//! corpus, B-cubed precision, recall and F1 and ARI against the labels.

use neardup::detector::{ParamMap, ScoredPair};

use crate::experiment::clustering::{self, Mode};
use crate::metrics::{EvalInput, compute_all};
use crate::truth::Truth;

/// The clusters one configuration would make of the corpus.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ClusterEffects {
    /// Verified clusters (else connected components: the algorithm cannot compare any pair).
    pub(crate) verified: bool,
    /// Documents a deduplication removes (all but one per cluster).
    pub(crate) removed: f64,
    /// The largest cluster.
    pub(crate) largest: f64,
    /// What connected components would remove.
    pub(crate) connected_removed: f64,
    /// How many of those are below the threshold from the kept document (`None` when the
    /// algorithm cannot compare any pair).
    pub(crate) connected_below_threshold: Option<f64>,
    /// B-cubed precision, recall and F1 against the corpus's cluster labels (`None` without
    /// them).
    pub(crate) bcubed: Option<(f64, f64, f64)>,
    /// ARI against the cluster labels.
    pub(crate) ari: Option<f64>,
}

impl ClusterEffects {
    /// What ranking by clusters sorts by: B-cubed F1.
    pub(crate) fn objective(&self) -> Option<f64> {
        self.bcubed.map(|b| b.2)
    }
}

/// One metric's value among `compute_all`'s.
fn value(values: &[(&str, Option<f64>)], name: &str) -> Option<f64> {
    values
        .iter()
        .find(|(c, _)| *c == name)
        .and_then(|(_, v)| *v)
}

/// Builds `algorithm` with `params` (its chosen setting) over `texts`, reports its pairs and
/// clusters them. `truth` holds the cluster labels when the corpus has them.
pub(crate) fn effects(
    algorithm: &str,
    params: &ParamMap,
    texts: &[&str],
    truth: Option<&Truth>,
) -> anyhow::Result<ClusterEffects> {
    let detector = neardup::registry::detector(algorithm, params)?;
    let index = detector.build(texts)?;
    let pairs: Vec<ScoredPair> = index.query(&ParamMap::new())?;
    let ab: Vec<(u32, u32)> = pairs.iter().map(|p| (p.a, p.b)).collect();
    let compares = clustering::compares_any_pair(detector.as_ref());
    let no_labels = Truth::from_labels(&vec![None; texts.len()]);
    let mut table = None;
    let mut measure = |mode: Option<Mode>| {
        let anchored = mode.map(|m| {
            clustering::anchor(m, detector.as_ref(), index.as_ref(), &mut table, texts, &ab)
        });
        compute_all(&EvalInput {
            docs: texts.len(),
            text_bytes: 0,
            truth: truth.unwrap_or(&no_labels),
            predicted: &pairs,
            representative: anchored.as_ref().map(|a| &a.representative[..]),
            removed_below_threshold: anchored.as_ref().map(|a| a.below_threshold.len()),
            scored: None,
            seconds: 0.0,
            peak_bytes: None,
        })
    };
    let connected = measure(compares.then_some(Mode::Connected));
    let chosen = if compares {
        measure(Some(Mode::Verified))
    } else {
        connected.clone()
    };
    let bcubed = truth.and_then(|_| {
        let p = value(&chosen, "bcubed_precision")?;
        let r = value(&chosen, "bcubed_recall")?;
        Some((
            p,
            r,
            if p + r > 0.0 {
                2.0 * p * r / (p + r)
            } else {
                0.0
            },
        ))
    });
    Ok(ClusterEffects {
        verified: compares,
        removed: value(&chosen, "docs_removed").unwrap_or(0.0),
        largest: value(&chosen, "largest_cluster").unwrap_or(0.0),
        connected_removed: value(&connected, "docs_removed").unwrap_or(0.0),
        connected_below_threshold: value(&connected, "removed_below_threshold"),
        bcubed,
        ari: truth.and_then(|_| value(&chosen, "ari")),
    })
}
