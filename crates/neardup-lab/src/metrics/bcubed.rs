//! B-cubed precision and recall (Bagga & Baldwin 1998; Amigó et al. 2009): for each document
//! e, precision(e) = |C(e) ∩ L(e)| / |C(e)| and recall(e) = |C(e) ∩ L(e)| / |L(e)|, where C is
//! its predicted cluster and L its true one (unlabelled = singleton); both averaged over
//! documents. From the contingency table: P = Σᵢⱼ nᵢⱼ² / |Cᵢ| / n, R = Σᵢⱼ nᵢⱼ² / |Lⱼ| / n.

use super::metric::{Column, EvalInput, Kind, Metric, contingency, predicted_clusters};
use crate::truth::Truth;

/// B-cubed precision and recall.
#[derive(Debug)]
pub struct BCubed;

/// (precision, recall) of two labelings.
pub fn bcubed(predicted: &[u32], truth: &[Option<u32>]) -> (f64, f64) {
    let c = contingency(predicted, truth);
    let n = predicted.len() as f64;
    let (mut p, mut r) = (0.0, 0.0);
    for &(row, col, cell) in &c.cells {
        let nij = cell as f64;
        p += nij * nij / c.rows[&row] as f64;
        r += nij * nij / c.cols[&col] as f64;
    }
    (p / n, r / n)
}

/// The columns this metric produces.
const COLUMNS: &[Column] = &[
    Column::new("bcubed_precision", "B³ precision", Kind::Quality, true),
    Column::new("bcubed_recall", "B³ recall", Kind::Quality, false),
];

impl Metric for BCubed {
    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>> {
        match input.truth {
            Truth::Clusters { labels, .. } if input.docs > 0 => {
                let (p, r) = bcubed(&predicted_clusters(input), labels);
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
