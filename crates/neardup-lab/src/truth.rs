//! Ground truth: which pairs are near-duplicates, and their exact similarities.
//!
//! * Cluster labels give the positive pairs (every pair inside a labelled cluster).
//! * A labelled-pairs file gives positives and negatives directly.
//! * Exact Jaccard similarities of shingle sets: for given pairs, and for *all* pairs above a
//!   floor via an exact similarity join (prefix filtering, Bayardo, Ma, Srikant, WWW 2007
//!   "Scaling up all pairs similarity search", §4), so charts can plot detection probability
//!   against true similarity. Tested against a brute-force all-pairs oracle.

use std::collections::HashMap;

use neardup::features::similarity::jaccard;
use neardup::minhash::lsh::pack;
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
            let (a, b) = neardup::minhash::lsh::unpack(p);
            jaccard(&sets[a as usize], &sets[b as usize])
        })
        .collect()
}

/// Every pair with exact Jaccard ≥ `floor` (in (0, 1]), as (packed pair, Jaccard), sorted.
///
/// Prefix filtering: order each set's features by global document frequency, rarest first.
/// Two sets with J(x, y) ≥ t share a feature among the first |x| − ⌈t·|x|⌉ + 1 of x and the
/// first |y| − ⌈t·|y|⌉ + 1 of y, so only prefixes are indexed and probed; the size filter
/// t·|x| ≤ |y| ≤ |x|/t prunes further; survivors are verified exactly.
pub fn similar_pairs(sets: &[Vec<u64>], floor: f64) -> Vec<(u64, f64)> {
    assert!(floor > 0.0 && floor <= 1.0, "floor must be in (0, 1]");
    let mut df: HashMap<u64, u32> = HashMap::new();
    for s in sets {
        for &f in s {
            *df.entry(f).or_default() += 1;
        }
    }
    let prefix_len = |n: usize| n - (floor * n as f64 - 1e-9).ceil() as usize + 1;
    let ordered: Vec<Vec<u64>> = sets
        .par_iter()
        .map(|s| {
            let mut v = s.clone();
            v.sort_unstable_by_key(|f| (df[f], *f));
            v.truncate(prefix_len(v.len()).min(v.len()));
            v
        })
        .collect();
    let mut index: HashMap<u64, Vec<u32>> = HashMap::new();
    for (i, pre) in ordered.iter().enumerate() {
        for &f in pre {
            index.entry(f).or_default().push(i as u32);
        }
    }
    let mut out: Vec<(u64, f64)> = (0..sets.len())
        .into_par_iter()
        .flat_map_iter(|x| {
            let nx = sets[x].len() as f64;
            let mut cands: Vec<u32> = ordered[x]
                .iter()
                .flat_map(|f| index[f].iter().copied())
                .filter(|&y| (y as usize) > x)
                .collect();
            cands.sort_unstable();
            cands.dedup();
            cands
                .into_iter()
                .filter_map(|y| {
                    let ny = sets[y as usize].len() as f64;
                    if ny < floor * nx - 1e-9 || nx < floor * ny - 1e-9 {
                        return None;
                    }
                    let j = jaccard(&sets[x], &sets[y as usize]);
                    (j >= floor).then_some((pack(x as u32, y), j))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort_unstable_by_key(|p| p.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn positives_from_labels() {
        let labels = [Some(0), Some(1), Some(0), None, Some(0), None];
        assert_eq!(
            positive_pairs(&labels),
            vec![pack(0, 2), pack(0, 4), pack(2, 4)]
        );
    }

    proptest! {
        // Oracle: brute-force all-pairs Jaccard.
        #[test]
        fn join_equals_brute_force(
            raw in prop::collection::vec(prop::collection::btree_set(0u64..12, 0..8), 0..25),
            floor in 0.05f64..1.0,
        ) {
            let sets: Vec<Vec<u64>> = raw.into_iter().map(|s| s.into_iter().collect()).collect();
            let mut oracle = Vec::new();
            for a in 0..sets.len() {
                for b in a + 1..sets.len() {
                    let j = jaccard(&sets[a], &sets[b]);
                    if j >= floor {
                        oracle.push((pack(a as u32, b as u32), j));
                    }
                }
            }
            prop_assert_eq!(similar_pairs(&sets, floor), oracle);
        }
    }
}
