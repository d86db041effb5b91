//! How much the metrics of a chosen setting move with the sample: bootstrap intervals and the
//! grouped holdout split of `neardup calibrate --holdout`.
//!
//! Intervals are percentile bootstrap intervals (Efron & Tibshirani 1993, §13.3) with the
//! threshold held at its chosen value: they say how much the metrics of *that* setting move
//! with the sample. Pairs are not independent — every pair of a 531-document license cluster
//! shares documents and text with 530 others — so [`bootstrap`] can resample the independent
//! units instead (clusters, or documents for a pairs file; Davison & Hinkley 1997, §3.8): a
//! pair's weight in a resample is the product of its two units' counts. Resampling pairs gave
//! intervals far too narrow on licenses (F1 0.492 [0.490, 0.494] with a held-out F1 of 0.498).
//! The optimism of choosing the threshold on the same pairs is what `--holdout` measures.

use neardup::hash::SplitMix64;

use super::statistics::{AtThreshold, ascending, auc_in_order};

/// 95 % percentile interval.
pub type Interval = (f64, f64);

/// Bootstrap intervals of a fixed decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intervals {
    /// ROC-AUC (None when a resample or the sample lacks a class or scores).
    pub roc_auc: Option<Interval>,
    /// F1.
    pub f1: Interval,
    /// Precision.
    pub precision: Interval,
    /// Recall.
    pub recall: Interval,
}

/// The independent units the bootstrap resamples: the two units of each observation's
/// documents, and how many units there are.
#[derive(Debug, Clone, Copy)]
pub struct Units<'a> {
    /// (unit of document a, unit of document b), aligned with the observations.
    pub of_pair: &'a [(u32, u32)],
    /// Number of units (every id in `of_pair` is below it).
    pub count: usize,
}

/// Percentile bootstrap over `replicates` resamples (from `seed`): of the observations
/// themselves when `units` is `None`, else of the units, each observation weighted by its
/// units' counts (one count when both documents share a unit). Weights are multiplied by
/// `base`; `decide(weights)` gives the counts of the fixed decision under the weights.
pub fn bootstrap(
    obs: &[(bool, f64)],
    base: Option<&[f64]>,
    units: Option<Units>,
    with_auc: bool,
    replicates: usize,
    seed: u64,
    decide: impl Fn(&[f64]) -> AtThreshold + Sync,
) -> Intervals {
    use rayon::prelude::*;
    let n = obs.len();
    let order = if with_auc { ascending(obs) } else { Vec::new() };
    // Each resample draws from its own generator (seed, resample index), so the intervals are
    // the same for any number of threads.
    let resamples: Vec<(AtThreshold, Option<f64>)> = (0..replicates as u64)
        .into_par_iter()
        .map(|r| {
            let mut rng = SplitMix64::new(seed ^ r.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut weights = vec![0.0; n];
            match units {
                None => {
                    for _ in 0..n {
                        weights[rng.below(n as u64) as usize] += 1.0;
                    }
                }
                Some(u) => {
                    let mut drawn = vec![0.0f64; u.count];
                    for _ in 0..u.count {
                        drawn[rng.below(u.count as u64) as usize] += 1.0;
                    }
                    for (w, &(a, b)) in weights.iter_mut().zip(u.of_pair) {
                        // A pair inside a unit comes with the unit; a pair across two units
                        // once per combination of their copies.
                        *w = if a == b {
                            drawn[a as usize]
                        } else {
                            drawn[a as usize] * drawn[b as usize]
                        };
                    }
                }
            }
            if let Some(base) = base {
                weights.iter_mut().zip(base).for_each(|(w, b)| *w *= b);
            }
            let auc = if with_auc {
                auc_in_order(obs, &order, Some(&weights))
            } else {
                None
            };
            (decide(&weights), auc)
        })
        .collect();
    let mut aucs: Vec<f64> = resamples.iter().filter_map(|r| r.1).collect();
    let mut f1s: Vec<f64> = resamples.iter().map(|r| r.0.f1()).collect();
    let mut ps: Vec<f64> = resamples.iter().map(|r| r.0.precision()).collect();
    let mut rs: Vec<f64> = resamples.iter().map(|r| r.0.recall()).collect();
    Intervals {
        roc_auc: (with_auc && !aucs.is_empty()).then(|| percentiles(&mut aucs)),
        f1: percentiles(&mut f1s),
        precision: percentiles(&mut ps),
        recall: percentiles(&mut rs),
    }
}

/// (2.5 %, 97.5 %) percentiles (nearest rank).
fn percentiles(v: &mut [f64]) -> Interval {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_by(f64::total_cmp);
    let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    (rank(0.025), rank(0.975))
}

/// A holdout split by groups: each group (a cluster, or a connected component of labelled
/// pairs) goes to the holdout with probability `fraction` (seeded, per group), so held-out
/// pairs share no group — and no document — with the pairs the choice is made on. A pair is
/// held out when both its groups are, chosen on when neither is, and left out otherwise.
/// Its weight is divided by its probability of landing where it did (`f` or `f²` held out,
/// `1 − f` or `(1 − f)²` chosen on, as it spans one group or two), so each side still
/// estimates the whole corpus's counts (Horvitz–Thompson).
#[derive(Debug, Clone, PartialEq)]
pub struct HoldoutSplit {
    /// Indices of the pairs the choice is made on, sorted.
    pub choose: Vec<usize>,
    /// Their weights.
    pub choose_weights: Vec<f64>,
    /// Indices of the held-out pairs, sorted.
    pub hold: Vec<usize>,
    /// Their weights.
    pub hold_weights: Vec<f64>,
}

/// Splits pairs whose groups are `pair_groups` and weights `weights` (see [`HoldoutSplit`]).
pub fn grouped_holdout(
    pair_groups: &[(u32, u32)],
    weights: &[f64],
    fraction: f64,
    seed: u64,
) -> HoldoutSplit {
    let held = |g: u32| {
        SplitMix64::new(neardup::hash::mix64(
            seed ^ (g as u64).wrapping_mul(0x9e37_79b9),
        ))
        .next_f64()
            < fraction
    };
    let mut split = HoldoutSplit {
        choose: Vec::new(),
        choose_weights: Vec::new(),
        hold: Vec::new(),
        hold_weights: Vec::new(),
    };
    for (i, (&(a, b), &w)) in pair_groups.iter().zip(weights).enumerate() {
        let spans = if a == b { 1 } else { 2 };
        match (held(a), held(b)) {
            (true, true) => {
                split.hold.push(i);
                split.hold_weights.push(w / fraction.powi(spans));
            }
            (false, false) => {
                split.choose.push(i);
                split.choose_weights.push(w / (1.0 - fraction).powi(spans));
            }
            _ => {}
        }
    }
    split
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::statistics::{at, scored_sample, weighted_auc};

    /// Pairs that share a unit move together: 20 clusters of 100 pairs, each cluster all found
    /// or all missed. Resampling pairs pretends 2,000 independent outcomes; resampling the 20
    /// clusters gives the honest, much wider interval (about ±0.22 for recall 0.5 on 20 units).
    #[test]
    fn unit_bootstrap_widens_intervals_for_correlated_pairs() {
        const SEED: u64 = 5;
        println!("unit_bootstrap_widens_intervals_for_correlated_pairs: seed {SEED}");
        let mut obs = Vec::new();
        let mut units = Vec::new();
        for c in 0..20u32 {
            for _ in 0..100 {
                obs.push((true, if c % 2 == 0 { 0.9 } else { 0.1 }));
                units.push((c, c));
            }
        }
        // Negatives across clusters, all below the threshold.
        for c in 0..20u32 {
            obs.push((false, 0.05));
            units.push((c, (c + 1) % 20));
        }
        let decide = |w: &[f64]| at(&obs, Some(w), 0.5);
        let pairs = bootstrap(&obs, None, None, false, 400, SEED, decide);
        let clustered = bootstrap(
            &obs,
            None,
            Some(Units {
                of_pair: &units,
                count: 20,
            }),
            false,
            400,
            SEED,
            decide,
        );
        let width = |i: Interval| i.1 - i.0;
        println!(
            "recall: pairs {:?}, clusters {:?}",
            pairs.recall, clustered.recall
        );
        assert!(width(pairs.recall) < 0.06, "{:?}", pairs.recall);
        assert!(width(clustered.recall) > 0.3, "{:?}", clustered.recall);
    }

    /// Theory: the bootstrap interval of precision at a fixed threshold has about the width
    /// of the binomial normal interval, 2 · 1.96 · sqrt(p(1 − p)/m) over m predicted pairs.
    #[test]
    fn bootstrap_width_follows_the_binomial() {
        const SEED: u64 = 2024;
        println!("bootstrap_width_follows_the_binomial: seed {SEED}");
        let obs = scored_sample(SEED, 4000);
        let t = 0.6;
        let point = at(&obs, None, t);
        let iv = bootstrap(&obs, None, None, true, 1000, SEED, |w| at(&obs, Some(w), t));
        let m = point.tp + point.fp;
        let p = point.precision();
        let width = 2.0 * 1.96 * (p * (1.0 - p) / m).sqrt();
        let got = iv.precision.1 - iv.precision.0;
        println!("precision {p:.4} over {m} predicted: width {got:.4}, binomial {width:.4}");
        assert!((got / width - 1.0).abs() < 0.2, "{got} vs {width}");
        assert!(iv.precision.0 <= p && p <= iv.precision.1);
        let auc = weighted_auc(&obs, None).unwrap();
        let (lo, hi) = iv.roc_auc.unwrap();
        assert!(lo <= auc && auc <= hi);
        // Same seed, same intervals.
        assert_eq!(
            iv,
            bootstrap(&obs, None, None, true, 1000, SEED, |w| at(&obs, Some(w), t))
        );
    }

    /// Held-out and chosen-on pairs never share a group, and each side's weights still
    /// estimate the corpus's counts: over many seeds, the mean weighted count of duplicates
    /// and of non-duplicates on either side is the full one (within 5 %).
    #[test]
    fn a_grouped_holdout_shares_no_group_and_keeps_the_counts() {
        // 40 groups; a duplicate inside each group (weight 3) and a non-duplicate between
        // neighbours (weight 10).
        let mut groups = Vec::new();
        let mut weights = Vec::new();
        let mut labels = Vec::new();
        for g in 0..40u32 {
            groups.push((g, g));
            weights.push(3.0);
            labels.push(true);
            groups.push((g, (g + 1) % 40));
            weights.push(10.0);
            labels.push(false);
        }
        let count = |idx: &[usize], w: &[f64], positive: bool| -> f64 {
            idx.iter()
                .zip(w)
                .filter(|(i, _)| labels[**i] == positive)
                .map(|(_, w)| w)
                .sum()
        };
        let (mut sums, seeds) = ([0.0f64; 4], 2000u64);
        for seed in 0..seeds {
            let s = grouped_holdout(&groups, &weights, 0.3, seed);
            let held: std::collections::HashSet<u32> = s
                .hold
                .iter()
                .flat_map(|&i| [groups[i].0, groups[i].1])
                .collect();
            assert!(
                s.choose
                    .iter()
                    .all(|&i| !held.contains(&groups[i].0) && !held.contains(&groups[i].1))
            );
            sums[0] += count(&s.hold, &s.hold_weights, true);
            sums[1] += count(&s.hold, &s.hold_weights, false);
            sums[2] += count(&s.choose, &s.choose_weights, true);
            sums[3] += count(&s.choose, &s.choose_weights, false);
        }
        let want = [120.0, 400.0, 120.0, 400.0];
        for (sum, want) in sums.iter().zip(want) {
            let mean = sum / seeds as f64;
            assert!((mean - want).abs() < 0.05 * want, "{mean} vs {want}");
        }
    }
}
