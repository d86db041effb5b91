//! Calibration on labelled pairs: the threshold that maximizes F1 (or reaches a precision),
//! its counts under weights, and the weighted ROC-AUC. The intervals and the holdout split are in
//! `resampling`, the labelled pairs a cluster-labelled corpus implies in `labelled_pairs`.
//! `neardup calibrate` (commands/calibrate.rs) runs them per configuration.
//!
//! A labelled pair is an observation `(positive, score)`; a threshold `t` predicts positive
//! every pair with `score ≥ t`. Only scores above 0 are candidate thresholds: "everything is a
//! duplicate" is never a useful detector.

/// Counts and rates of a threshold on a set of observations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AtThreshold {
    /// The threshold: pairs scoring ≥ it are predicted duplicates.
    pub threshold: f64,
    /// Predicted and labelled duplicates.
    pub tp: f64,
    /// Predicted duplicates labelled not duplicates.
    pub fp: f64,
    /// Labelled duplicates not predicted.
    pub fn_: f64,
}

impl AtThreshold {
    /// tp / (tp + fp); 1 when nothing is predicted (no false positive was made).
    pub fn precision(&self) -> f64 {
        if self.tp + self.fp == 0.0 {
            1.0
        } else {
            self.tp / (self.tp + self.fp)
        }
    }
    /// tp / (tp + fn); 0 without labelled duplicates.
    pub fn recall(&self) -> f64 {
        if self.tp + self.fn_ == 0.0 {
            0.0
        } else {
            self.tp / (self.tp + self.fn_)
        }
    }
    /// 2tp / (2tp + fp + fn).
    pub fn f1(&self) -> f64 {
        let d = 2.0 * self.tp + self.fp + self.fn_;
        if d == 0.0 { 0.0 } else { 2.0 * self.tp / d }
    }
}

/// What the threshold is chosen for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Objective {
    /// The highest F1 (ties: the higher threshold, fewer reported pairs).
    F1,
    /// The highest recall among thresholds whose precision is at least this.
    Precision(f64),
}

/// Every candidate threshold with its counts, from the highest score down (weights per
/// observation; 1 each when `weights` is `None`).
pub fn sweep(obs: &[(bool, f64)], weights: Option<&[f64]>) -> Vec<AtThreshold> {
    let mut order: Vec<usize> = (0..obs.len()).collect();
    order.sort_by(|&x, &y| obs[y].1.total_cmp(&obs[x].1));
    let w = |i: usize| weights.map_or(1.0, |w| w[i]);
    let positives: f64 = (0..obs.len()).filter(|&i| obs[i].0).map(w).sum();
    let (mut tp, mut fp) = (0.0, 0.0);
    let mut out = Vec::new();
    let mut k = 0;
    while k < order.len() {
        let s = obs[order[k]].1;
        if s <= 0.0 || s.is_nan() {
            break;
        }
        while k < order.len() && obs[order[k]].1 == s {
            let i = order[k];
            if obs[i].0 {
                tp += w(i);
            } else {
                fp += w(i);
            }
            k += 1;
        }
        out.push(AtThreshold {
            threshold: s,
            tp,
            fp,
            fn_: positives - tp,
        });
    }
    out
}

/// The threshold best for `objective`, or `None` when no threshold qualifies (no score above
/// 0, or no threshold reaches the target precision).
pub fn choose(
    obs: &[(bool, f64)],
    weights: Option<&[f64]>,
    objective: Objective,
) -> Option<AtThreshold> {
    let all = sweep(obs, weights);
    match objective {
        // `sweep` goes from high thresholds down: a strict `>` keeps the highest of ties.
        Objective::F1 => all
            .into_iter()
            .fold(None, |best: Option<AtThreshold>, t| match best {
                Some(b) if b.f1() >= t.f1() => Some(b),
                _ => Some(t),
            }),
        Objective::Precision(p) => all.into_iter().filter(|t| t.precision() >= p).fold(
            None,
            |best: Option<AtThreshold>, t| match best {
                Some(b) if b.recall() >= t.recall() => Some(b),
                _ => Some(t),
            },
        ),
    }
}

/// The threshold to recommend for a choice: the shortest decimal (up to 6 digits) in
/// (`next lower score`, `chosen`], which classifies every labelled pair exactly as `chosen`
/// does. 0.0769 reads better than 0.07692307692307693 and means the same here.
pub fn round_threshold(obs: &[(bool, f64)], chosen: f64) -> f64 {
    let below = obs
        .iter()
        .map(|o| o.1)
        .filter(|&s| s < chosen)
        .fold(0.0f64, f64::max);
    for digits in 1..=6 {
        let scale = 10f64.powi(digits);
        let d = (chosen * scale).floor() / scale;
        if d > below && d <= chosen {
            return d;
        }
    }
    chosen
}

/// Counts of the fixed `threshold` on `obs` (weighted).
pub fn at(obs: &[(bool, f64)], weights: Option<&[f64]>, threshold: f64) -> AtThreshold {
    let mut r = AtThreshold {
        threshold,
        tp: 0.0,
        fp: 0.0,
        fn_: 0.0,
    };
    for (i, &(positive, score)) in obs.iter().enumerate() {
        let w = weights.map_or(1.0, |w| w[i]);
        match (positive, score >= threshold) {
            (true, true) => r.tp += w,
            (false, true) => r.fp += w,
            (true, false) => r.fn_ += w,
            (false, false) => {}
        }
    }
    r
}

/// Counts of a decision made elsewhere (`reported[i]`: the algorithm reported pair i).
pub fn decided(obs: &[(bool, f64)], reported: &[bool], weights: Option<&[f64]>) -> AtThreshold {
    let as_scores: Vec<(bool, f64)> = obs
        .iter()
        .zip(reported)
        .map(|(&(p, _), &r)| (p, if r { 1.0 } else { 0.0 }))
        .collect();
    at(&as_scores, weights, 1.0)
}

/// ROC-AUC with weights: P(score of a duplicate > score of a non-duplicate), ties counted
/// half. `None` without both kinds.
pub fn weighted_auc(obs: &[(bool, f64)], weights: Option<&[f64]>) -> Option<f64> {
    auc_in_order(obs, &ascending(obs), weights)
}

/// Indices of `obs` by ascending score.
pub(super) fn ascending(obs: &[(bool, f64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..obs.len()).collect();
    order.sort_by(|&x, &y| obs[x].1.total_cmp(&obs[y].1));
    order
}

/// [`weighted_auc`] with the ascending order given, so the bootstrap sorts once, not once per
/// resample (on 2 million labelled pairs the sort was most of a resample's time).
pub(super) fn auc_in_order(
    obs: &[(bool, f64)],
    order: &[usize],
    weights: Option<&[f64]>,
) -> Option<f64> {
    let w = |i: usize| weights.map_or(1.0, |w| w[i]);
    let (mut below_neg, mut area, mut pos, mut neg) = (0.0, 0.0, 0.0, 0.0);
    let mut k = 0;
    while k < order.len() {
        let s = obs[order[k]].1;
        let (mut gp, mut gn) = (0.0, 0.0);
        while k < order.len() && obs[order[k]].1.total_cmp(&s).is_eq() {
            let i = order[k];
            if obs[i].0 {
                gp += w(i);
            } else {
                gn += w(i);
            }
            k += 1;
        }
        area += gp * (below_neg + gn / 2.0);
        below_neg += gn;
        pos += gp;
        neg += gn;
    }
    (pos > 0.0 && neg > 0.0).then(|| area / (pos * neg))
}

/// Observations for tests: a third duplicates, scoring higher on average, on a grid of
/// scores so that ties occur.
#[cfg(test)]
pub(crate) fn scored_sample(seed: u64, n: usize) -> Vec<(bool, f64)> {
    use neardup::hash::SplitMix64;
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let positive = rng.below(3) == 0;
            // Duplicates score higher on average; scores on a grid so ties occur.
            let base = if positive { 0.5 } else { 0.2 };
            let s = ((base + rng.below(50) as f64 / 100.0) * 20.0).round() / 20.0;
            (positive, s)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::hash::SplitMix64;

    /// Oracle: the chosen threshold is the best of a brute-force scan of every threshold.
    #[test]
    fn choice_matches_brute_force() {
        const SEED: u64 = 11;
        println!("choice_matches_brute_force: seed {SEED}");
        for n in [1usize, 7, 300] {
            let obs = scored_sample(SEED + n as u64, n);
            let mut thresholds: Vec<f64> = obs.iter().map(|o| o.1).filter(|&s| s > 0.0).collect();
            thresholds.sort_by(f64::total_cmp);
            thresholds.dedup();
            let brute = |t: f64| at(&obs, None, t);
            if let Some(best) = choose(&obs, None, Objective::F1) {
                let top = thresholds
                    .iter()
                    .map(|&t| brute(t).f1())
                    .fold(0.0, f64::max);
                assert_eq!(best.f1(), top);
                assert_eq!(best, brute(best.threshold));
                // Ties: no higher threshold reaches the same F1.
                assert!(
                    thresholds
                        .iter()
                        .all(|&t| t <= best.threshold || brute(t).f1() < top)
                );
            }
            for p in [0.6, 0.9, 1.0] {
                let chosen = choose(&obs, None, Objective::Precision(p));
                let qualifying: Vec<f64> = thresholds
                    .iter()
                    .copied()
                    .filter(|&t| brute(t).precision() >= p)
                    .collect();
                match chosen {
                    None => assert!(qualifying.is_empty()),
                    Some(c) => {
                        assert!(c.precision() >= p);
                        let top = qualifying
                            .iter()
                            .map(|&t| brute(t).recall())
                            .fold(0.0, f64::max);
                        assert_eq!(c.recall(), top);
                    }
                }
            }
        }
    }

    /// Oracle: integer weights equal repeating observations, and the AUC equals the
    /// lab's unweighted ROC-AUC on the expanded sample.
    #[test]
    fn weighted_auc_equals_expanded_sample() {
        let obs = scored_sample(5, 200);
        let mut rng = SplitMix64::new(6);
        let weights: Vec<f64> = (0..obs.len()).map(|_| rng.below(4) as f64).collect();
        let expanded: Vec<(bool, f64)> = obs
            .iter()
            .zip(&weights)
            .flat_map(|(o, &w)| std::iter::repeat_n(*o, w as usize))
            .collect();
        let want = crate::metrics::auc::roc_auc(&expanded).unwrap();
        let got = weighted_auc(&obs, Some(&weights)).unwrap();
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        assert_eq!(
            at(&obs, Some(&weights), 0.5),
            at(&expanded, None, 0.5),
            "weighted counts"
        );
        assert!(weighted_auc(&[(true, 0.3)], None).is_none());
    }

    /// The rounded threshold classifies every pair as the exact one does.
    #[test]
    fn rounded_threshold_keeps_the_decision() {
        let obs = scored_sample(8, 500);
        for c in sweep(&obs, None) {
            let r = round_threshold(&obs, c.threshold);
            assert_eq!(at(&obs, None, r), AtThreshold { threshold: r, ..c });
            assert!(format!("{r}").len() <= 8, "{r}");
        }
        let obs = [(true, 1.0 / 13.0), (false, 0.05)];
        assert_eq!(round_threshold(&obs, 1.0 / 13.0), 0.07);
    }
}
