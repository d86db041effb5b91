//! ROC-AUC and PR-AUC of the algorithm's scores.
//!
//! ROC-AUC = P(score of a random positive > score of a random negative) + ½ P(tie)
//! (Mann–Whitney U with average ranks). PR-AUC is the average precision
//! Σₖ (Rₖ − Rₖ₋₁) · Pₖ over distinct score thresholds, from the highest down (scikit-learn's
//! `average_precision_score`). Both need positives and negatives in the sample.

use super::metric::{Column, EvalInput, Kind, Metric};

/// ROC-AUC and PR-AUC.
#[derive(Debug)]
pub struct Auc;

/// ROC-AUC of (positive, score) observations; `None` without both classes.
pub fn roc_auc(obs: &[(bool, f64)]) -> Option<f64> {
    let pos = obs.iter().filter(|o| o.0).count();
    let neg = obs.len() - pos;
    if pos == 0 || neg == 0 {
        return None;
    }
    let mut sorted: Vec<(f64, bool)> = obs.iter().map(|&(p, s)| (s, p)).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j < sorted.len() && sorted[j].0 == sorted[i].0 {
            j += 1;
        }
        let avg_rank = (i + 1 + j) as f64 / 2.0; // ranks i+1 ..= j
        rank_sum += avg_rank * sorted[i..j].iter().filter(|x| x.1).count() as f64;
        i = j;
    }
    let u = rank_sum - (pos * (pos + 1)) as f64 / 2.0;
    Some(u / (pos as f64 * neg as f64))
}

/// Average precision of (positive, score) observations; `None` without positives.
pub fn average_precision(obs: &[(bool, f64)]) -> Option<f64> {
    let pos = obs.iter().filter(|o| o.0).count();
    if pos == 0 {
        return None;
    }
    let mut sorted: Vec<(f64, bool)> = obs.iter().map(|&(p, s)| (s, p)).collect();
    sorted.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut tp, mut seen, mut ap, mut prev_recall) = (0usize, 0usize, 0.0, 0.0);
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j < sorted.len() && sorted[j].0 == sorted[i].0 {
            tp += sorted[j].1 as usize;
            seen += 1;
            j += 1;
        }
        let recall = tp as f64 / pos as f64;
        ap += (recall - prev_recall) * (tp as f64 / seen as f64);
        prev_recall = recall;
        i = j;
    }
    Some(ap)
}

/// The columns this metric produces.
const COLUMNS: &[Column] = &[
    Column::new("roc_auc", "ROC-AUC", Kind::Quality, true),
    Column::new("pr_auc", "PR-AUC", Kind::Quality, false),
];

impl Metric for Auc {
    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>> {
        match input.scored {
            Some(sample) => {
                let obs = sample.observations();
                vec![roc_auc(&obs), average_precision(&obs)]
            }
            None => vec![None, None],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scikit-learn's documented example: y = [0, 0, 1, 1], scores [0.1, 0.4, 0.35, 0.8]:
    /// roc_auc_score = 0.75, average_precision_score = 0.8333….
    #[test]
    fn published_example() {
        let obs = [(false, 0.1), (false, 0.4), (true, 0.35), (true, 0.8)];
        assert!((roc_auc(&obs).unwrap() - 0.75).abs() < 1e-12);
        assert!((average_precision(&obs).unwrap() - 0.833_333_333_333_333_4).abs() < 1e-12);
    }

    #[test]
    fn ties_and_degenerate_cases() {
        assert_eq!(roc_auc(&[(true, 0.5), (false, 0.5)]), Some(0.5));
        assert_eq!(roc_auc(&[(true, 0.5)]), None);
        assert_eq!(average_precision(&[(false, 0.5)]), None);
        assert_eq!(roc_auc(&[(true, 0.9), (false, 0.1)]), Some(1.0));
    }
}
