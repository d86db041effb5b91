//! Adjusted Rand index (Hubert & Arabie 1985):
//! ARI = (Σᵢⱼ C(nᵢⱼ,2) − E) / (½(Σᵢ C(aᵢ,2) + Σⱼ C(bⱼ,2)) − E),
//! E = Σᵢ C(aᵢ,2) · Σⱼ C(bⱼ,2) / C(n,2). When the denominator is 0 (both clusterings all
//! singletons, or both one cluster) the clusterings are identical and ARI = 1, as scikit-learn
//! defines it.

use super::metric::{Column, EvalInput, Kind, Metric, contingency, predicted_clusters};
use crate::truth::Truth;

/// Adjusted Rand index.
#[derive(Debug)]
pub struct AdjustedRand;

fn choose2(n: u64) -> f64 {
    n as f64 * (n as f64 - 1.0) / 2.0
}

/// ARI of two labelings (unlabelled truth items are singletons).
pub fn adjusted_rand_index(predicted: &[u32], truth: &[Option<u32>]) -> f64 {
    let c = contingency(predicted, truth);
    let index: f64 = c.cells.iter().map(|&(_, _, n)| choose2(n)).sum();
    let a: f64 = c.rows.values().map(|&n| choose2(n)).sum();
    let b: f64 = c.cols.values().map(|&n| choose2(n)).sum();
    let total = choose2(predicted.len() as u64);
    let expected = if total > 0.0 { a * b / total } else { 0.0 };
    let max = 0.5 * (a + b);
    if (max - expected).abs() < 1e-12 {
        1.0
    } else {
        (index - expected) / (max - expected)
    }
}

/// The columns this metric produces.
const COLUMNS: &[Column] = &[Column::new("ari", "ARI", Kind::Quality, true)];

impl Metric for AdjustedRand {
    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>> {
        match input.truth {
            Truth::Clusters { labels, .. } => {
                vec![Some(adjusted_rand_index(
                    &predicted_clusters(input),
                    labels,
                ))]
            }
            Truth::Pairs(_) => vec![None],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ari(p: &[u32], t: &[u32]) -> f64 {
        adjusted_rand_index(p, &t.iter().map(|&x| Some(x)).collect::<Vec<_>>())
    }

    /// Published examples (scikit-learn's adjusted_rand_score documentation).
    #[test]
    fn published_examples() {
        assert!((ari(&[0, 0, 1, 1], &[0, 0, 1, 1]) - 1.0).abs() < 1e-12);
        assert!((ari(&[1, 1, 0, 0], &[0, 0, 1, 1]) - 1.0).abs() < 1e-12);
        assert!((ari(&[0, 0, 1, 2], &[0, 0, 1, 1]) - 0.571_428_571_428_571_5).abs() < 1e-12);
        assert!((ari(&[0, 0, 1, 1], &[0, 0, 1, 2]) - 0.571_428_571_428_571_5).abs() < 1e-12);
        assert!((ari(&[0, 1, 2, 3], &[0, 0, 0, 0]) - 0.0).abs() < 1e-12);
        assert!(
            (ari(&[0, 0, 1, 1, 2, 2], &[0, 0, 0, 1, 1, 1]) - 0.242_424_242_424_242_4).abs() < 1e-12
        );
        // Discordant: ARI can be negative.
        assert!((ari(&[0, 1, 0, 1], &[0, 0, 1, 1]) - (-0.5)).abs() < 1e-12);
    }

    #[test]
    fn unlabelled_are_singletons() {
        // truth: {0,1} and two unlabelled → same as labels 0,0,1,2
        let t = [Some(0), Some(0), None, None];
        assert!((adjusted_rand_index(&[0, 0, 1, 2], &t) - 1.0).abs() < 1e-12);
        assert!((adjusted_rand_index(&[0, 0, 1, 1], &t) - 0.571_428_571_428_571_5).abs() < 1e-12);
    }
}
