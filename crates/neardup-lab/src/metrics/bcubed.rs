//! B-cubed precision and recall (Bagga & Baldwin 1998; Amigó et al. 2009): for each document
//! e, precision(e) = |C(e) ∩ L(e)| / |C(e)| and recall(e) = |C(e) ∩ L(e)| / |L(e)|, where C is
//! its predicted cluster and L its true one (unlabelled = singleton); both averaged over
//! documents. From the contingency table: P = Σᵢⱼ nᵢⱼ² / |Cᵢ| / n, R = Σᵢⱼ nᵢⱼ² / |Lⱼ| / n.

use super::{EvalInput, Metric, predicted_clusters};
use crate::truth::Truth;

/// B-cubed precision and recall.
#[derive(Debug)]
pub struct BCubed;

/// (precision, recall) of two labelings.
pub fn bcubed(predicted: &[u32], truth: &[Option<u32>]) -> (f64, f64) {
    use std::collections::HashMap;
    let n = predicted.len();
    let mut next = truth.iter().flatten().max().map_or(0, |m| m + 1);
    let t: Vec<u32> = truth
        .iter()
        .map(|l| {
            l.unwrap_or_else(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    let mut cell: HashMap<(u32, u32), f64> = HashMap::new();
    let mut csize: HashMap<u32, f64> = HashMap::new();
    let mut lsize: HashMap<u32, f64> = HashMap::new();
    for (&p, &l) in predicted.iter().zip(&t) {
        *cell.entry((p, l)).or_default() += 1.0;
        *csize.entry(p).or_default() += 1.0;
        *lsize.entry(l).or_default() += 1.0;
    }
    let (mut p, mut r) = (0.0, 0.0);
    // Sum in a fixed order so the floating-point result is reproducible.
    let mut cells: Vec<_> = cell.into_iter().collect();
    cells.sort_unstable_by_key(|(k, _)| *k);
    for ((c, l), nij) in cells {
        p += nij * nij / csize[&c];
        r += nij * nij / lsize[&l];
    }
    (p / n as f64, r / n as f64)
}

impl Metric for BCubed {
    fn columns(&self) -> &'static [&'static str] {
        &["bcubed_precision", "bcubed_recall"]
    }
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>> {
        match input.truth {
            Truth::Clusters { labels, .. } if input.docs > 0 => {
                let (p, r) = bcubed(&predicted_clusters(input.docs, input.predicted), labels);
                vec![Some(p), Some(r)]
            }
            _ => vec![None, None],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed: truth {0,1,2},{3}; predicted {0,1},{2,3}.
    /// Precision per item: 0:2/2 1:2/2 2:1/2 3:1/2 → 3/4. Recall: 0:2/3 1:2/3 2:1/3 3:1/1 → 2/3.
    #[test]
    fn hand_computed() {
        let (p, r) = bcubed(&[0, 0, 1, 1], &[Some(0), Some(0), Some(0), Some(1)]);
        assert!(
            (p - 0.75).abs() < 1e-12 && (r - 2.0 / 3.0).abs() < 1e-12,
            "{p} {r}"
        );
        let (p, r) = bcubed(&[0, 1, 2], &[None, None, None]);
        assert_eq!((p, r), (1.0, 1.0));
    }
}
