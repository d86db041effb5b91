//! Pair-level counts: TP, FP, FN, precision, recall, F1 (and the number of true pairs).
//!
//! F1 = 2·TP / (2·TP + FP + FN), which is 0 (not undefined) when nothing is reported.
//! Precision is undefined (empty) when nothing is reported; recall when nothing is positive.
//! A truth without any positive pair (an unlabelled corpus) leaves precision, recall and F1
//! undefined: every reported pair would count as a false positive, and "precision 0" would
//! say the algorithm is wrong when nobody knows.

use neardup::pairs::pack;

use super::metric::{Column, EvalInput, Kind, Metric, ratio};
use crate::truth::Truth;

/// TP/FP/FN and the derived rates.
#[derive(Debug)]
pub struct PairCounts;

/// (TP, FP, FN) of reported pairs against the truth.
pub fn confusion(input: &EvalInput) -> (u64, u64, u64) {
    match input.truth {
        Truth::Clusters { positives, .. } => {
            let (mut tp, mut i) = (0u64, 0usize);
            for p in input.predicted {
                let key = pack(p.a, p.b);
                while i < positives.len() && positives[i] < key {
                    i += 1;
                }
                if i < positives.len() && positives[i] == key {
                    tp += 1;
                }
            }
            (
                tp,
                input.predicted.len() as u64 - tp,
                positives.len() as u64 - tp,
            )
        }
        Truth::Pairs(listed) => {
            let (mut tp, mut fp, mut fn_) = (0, 0, 0);
            for l in listed {
                let reported = input
                    .predicted
                    .binary_search_by(|p| (p.a, p.b).cmp(&(l.a, l.b)))
                    .is_ok();
                match (l.positive(), reported) {
                    (true, true) => tp += 1,
                    (true, false) => fn_ += 1,
                    (false, true) => fp += 1,
                    (false, false) => {}
                }
            }
            (tp, fp, fn_)
        }
    }
}

/// The columns this metric produces.
const COLUMNS: &[Column] = &[
    Column::new("true_pairs", "true pairs", Kind::Count, false),
    Column::new("tp", "TP", Kind::Count, false),
    Column::new("fp", "FP", Kind::Count, false),
    Column::new("fn", "FN", Kind::Count, false),
    Column::new("precision", "precision", Kind::Quality, true),
    Column::new("recall", "recall", Kind::Quality, true),
    Column::new("f1", "F1", Kind::Quality, true),
];

impl Metric for PairCounts {
    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>> {
        let (tp, fp, fn_) = confusion(input);
        let (tpf, fpf, fnf) = (tp as f64, fp as f64, fn_ as f64);
        let positives = input.truth.positives();
        let labelled = positives > 0;
        vec![
            Some(positives as f64),
            Some(tpf),
            Some(fpf),
            Some(fnf),
            ratio(tpf, tpf + fpf).filter(|_| labelled),
            ratio(tpf, tpf + fnf),
            ratio(2.0 * tpf, 2.0 * tpf + fpf + fnf).filter(|_| labelled),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::pairs::LabelledPair;
    use neardup::detector::ScoredPair;

    fn sp(a: u32, b: u32) -> ScoredPair {
        ScoredPair { a, b, score: 1.0 }
    }

    fn input<'a>(truth: &'a Truth, predicted: &'a [ScoredPair]) -> EvalInput<'a> {
        EvalInput {
            docs: 6,
            text_bytes: 0,
            truth,
            predicted,
            representative: None,
            removed_below_threshold: None,
            scored: None,
            seconds: 1.0,
            peak_bytes: None,
        }
    }

    /// Hand-computed: clusters {0,1,2}, {3,4}, 5 unlabelled → positives 01 02 12 34.
    /// Reported 01, 12, 35 → TP 2, FP 1, FN 2; P = 2/3, R = 1/2, F1 = 4/7.
    #[test]
    fn clusters_hand_computed() {
        let truth = Truth::from_labels(&[Some(0), Some(0), Some(0), Some(1), Some(1), None]);
        let predicted = [sp(0, 1), sp(1, 2), sp(3, 5)];
        let v = PairCounts.compute(&input(&truth, &predicted));
        assert_eq!(v[..4], [Some(4.0), Some(2.0), Some(1.0), Some(2.0)]);
        assert!((v[4].unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert!((v[5].unwrap() - 0.5).abs() < 1e-12);
        assert!((v[6].unwrap() - 4.0 / 7.0).abs() < 1e-12);
        let none = PairCounts.compute(&input(&truth, &[]));
        assert_eq!((none[4], none[6]), (None, Some(0.0)));
    }

    #[test]
    fn listed_pairs_only() {
        let truth = Truth::Pairs(vec![
            LabelledPair {
                a: 0,
                b: 1,
                grade: 1,
            },
            LabelledPair {
                a: 0,
                b: 2,
                grade: 0,
            },
            LabelledPair {
                a: 1,
                b: 2,
                grade: 3,
            },
        ]);
        // 4-5 is not listed: ignored.
        let predicted = [sp(0, 1), sp(0, 2), sp(4, 5)];
        let v = PairCounts.compute(&input(&truth, &predicted));
        assert_eq!(v[..4], [Some(2.0), Some(1.0), Some(1.0), Some(1.0)]);
    }

    /// Regression (issue 12): an unlabelled corpus reported precision 0 for every pair.
    #[test]
    fn unlabelled_truth_leaves_precision_undefined() {
        let truth = Truth::from_labels(&[None, None, None]);
        let v = PairCounts.compute(&input(&truth, &[sp(0, 1)]));
        assert_eq!((v[2], v[4], v[5], v[6]), (Some(1.0), None, None, None));
    }
}
