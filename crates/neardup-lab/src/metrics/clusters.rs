//! What was reported, counted: pairs, clusters of two or more documents (connected
//! components of the reported pairs, or the anchored clusters), the largest one, and the
//! documents a deduplication keeping one per cluster would remove. These need no ground truth, so they are what an unlabelled corpus reports.

use super::metric::{Column, EvalInput, Kind, Metric, predicted_clusters};

/// Reported pairs, clusters and removable documents.
#[derive(Debug)]
pub struct Reported;

/// The columns this metric produces.
const COLUMNS: &[Column] = &[
    Column::new("reported_pairs", "pairs", Kind::Count, true),
    Column::new("clusters", "clusters", Kind::Count, true),
    Column::new("largest_cluster", "largest cluster", Kind::Count, false),
    Column::new("docs_removed", "documents removed", Kind::Count, true),
];

impl Metric for Reported {
    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>> {
        let labels = predicted_clusters(input);
        let mut sizes = vec![0u32; input.docs];
        for &l in &labels {
            sizes[l as usize] += 1;
        }
        let clusters = sizes.iter().filter(|&&n| n >= 2).count();
        let in_clusters: u64 = sizes.iter().filter(|&&n| n >= 2).map(|&n| n as u64).sum();
        vec![
            Some(input.predicted.len() as f64),
            Some(clusters as f64),
            Some(sizes.iter().copied().max().unwrap_or(0) as f64),
            Some((in_clusters - clusters as u64) as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::truth::Truth;
    use neardup::detector::ScoredPair;

    #[test]
    fn counts_pairs_clusters_and_removals() {
        let sp = |a, b| ScoredPair { a, b, score: 1.0 };
        // {0,1,2} by two pairs, {4,5}; 3 and 6 alone.
        let predicted = [sp(0, 1), sp(1, 2), sp(4, 5)];
        let truth = Truth::from_labels(&[None; 7]);
        let input = EvalInput {
            docs: 7,
            text_bytes: 0,
            truth: &truth,
            predicted: &predicted,
            representative: None,
            removed_below_threshold: None,
            scored: None,
            seconds: 1.0,
            peak_bytes: None,
        };
        assert_eq!(
            Reported.compute(&input),
            [Some(3.0), Some(2.0), Some(3.0), Some(3.0)]
        );
    }
}
