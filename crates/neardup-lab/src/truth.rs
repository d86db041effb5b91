//! Ground truth: which pairs are near-duplicates, and their exact similarities.
//!
//! * Cluster labels give the positive pairs (every pair inside a labelled cluster).
//! * A labelled-pairs file gives positives and negatives directly.
//! * Exact Jaccard similarities of shingle sets: for given pairs, and for *all* pairs above a
//!   floor via the exact similarity join of `neardup::join`, so charts can plot detection
//!   probability against true similarity.

use std::collections::HashMap;

use neardup::features::similarity::jaccard;
use neardup::pairs::pack;
use rayon::prelude::*;

use crate::corpus::pairs::LabelledPair;

/// The ground truth an evaluation scores against.
#[derive(Debug, Clone)]
pub enum Truth {
    /// Cluster labels (`None` = unlabelled, never positive) and the positive pairs they imply.
    Clusters {
        /// Per-document label.
        labels: Vec<Option<u32>>,
        /// Packed positive pairs, sorted.
        positives: Vec<u64>,
    },
    /// Only these pairs are scored.
    Pairs(Vec<LabelledPair>),
}

impl Truth {
    /// Truth from cluster labels.
    pub fn from_labels(labels: &[Option<u32>]) -> Truth {
        Truth::Clusters {
            labels: labels.to_vec(),
            positives: positive_pairs(labels),
        }
    }

    /// Number of positive pairs.
    pub fn positives(&self) -> usize {
        match self {
            Truth::Clusters { positives, .. } => positives.len(),
            Truth::Pairs(p) => p.iter().filter(|p| p.positive()).count(),
        }
    }
}

/// Every pair of documents sharing a label, packed and sorted.
pub fn positive_pairs(labels: &[Option<u32>]) -> Vec<u64> {
    let mut members: HashMap<u32, Vec<u32>> = HashMap::new();
    for (i, l) in labels.iter().enumerate() {
        if let Some(l) = l {
            members.entry(*l).or_default().push(i as u32);
        }
    }
    let mut out = Vec::new();
    for docs in members.values() {
        for (k, &a) in docs.iter().enumerate() {
            for &b in &docs[k + 1..] {
                out.push(pack(a, b));
            }
        }
    }
    out.sort_unstable();
    out
}

/// Exact Jaccard of each packed pair.
pub fn jaccard_of(sets: &[Vec<u64>], pairs: &[u64]) -> Vec<f64> {
    pairs
        .par_iter()
        .map(|&p| {
            let (a, b) = neardup::pairs::unpack(p);
            jaccard(&sets[a as usize], &sets[b as usize])
        })
        .collect()
}

/// Every pair with exact Jaccard ≥ `floor` (in (0, 1]), as (packed pair, Jaccard), sorted:
/// the library's exact similarity join (prefix and length filtering, tested against brute
/// force there).
pub fn similar_pairs(sets: &[Vec<u64>], floor: f64) -> Vec<(u64, f64)> {
    neardup::join::jaccard_join(sets, floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positives_from_labels() {
        let labels = [Some(0), Some(1), Some(0), None, Some(0), None];
        assert_eq!(
            positive_pairs(&labels),
            vec![pack(0, 2), pack(0, 4), pack(2, 4)]
        );
    }
}
