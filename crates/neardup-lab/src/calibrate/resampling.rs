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
//!
//! A percentile bootstrap cannot bound a proportion no failure was observed in: 47 labelled
//! duplicates all above the threshold resample to precision 1.000 [1.000, 1.000]. Precision
//! and recall therefore take the Wilson score interval (Wilson 1927; Agresti & Coull 1998)
//! on the weighted counts, with Kish's effective sample size (Σw)² / Σw² (Kish 1965, §11.7)
//! standing for the number of pairs, and keep the bootstrap's ends where they are wider
//! (pairs sharing a cluster move together, which the binomial does not see): 47 of 47 gives
//! [0.924, 1.000].
//!
//! F1 had the same blind spot (1.000 [1.000, 1.000] on 20news's 105 labels). F1 = 2PR/(P+R)
//! grows with both P and R, so where P and R lie in their intervals F1 lies between the F1 of
//! their lower ends and of their upper ends; with each of the two Wilson intervals at 97.5 %,
//! both hold at once at least 95 % of the time (Bonferroni). The F1 interval is that one,
//! widened to the bootstrap's where the bootstrap's is wider.

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
    let (precision, recall) = wilson_intervals(n, base, &decide, Z95);
    let (p_joint, r_joint) = wilson_intervals(n, base, &decide, Z975);
    Intervals {
        roc_auc: (with_auc && !aucs.is_empty())
            .then(|| hull(percentiles(&mut aucs), auc_bound_interval(obs, base))),
        f1: hull(percentiles(&mut f1s), f1_between(p_joint, r_joint)),
        precision: hull(percentiles(&mut ps), precision),
        recall: hull(percentiles(&mut rs), recall),
    }
}

/// The smallest interval holding both (a NaN end defers to the other).
fn hull(a: Interval, b: Interval) -> Interval {
    (a.0.min(b.0), a.1.max(b.1))
}

/// 97.5 % quantile of the standard normal.
const Z95: f64 = 1.959_963_984_540_054;
/// 98.75 % quantile of the standard normal: two-sided 97.5 % intervals, two of which hold
/// together at least 95 % of the time.
const Z975: f64 = 2.241_402_727_604_947;

/// The F1 of the lower ends and of the upper ends of precision's and recall's intervals (F1
/// grows with both); NaN ends where either interval is undefined.
fn f1_between(precision: Interval, recall: Interval) -> Interval {
    let f1 = |p: f64, r: f64| {
        if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        }
    };
    (f1(precision.0, recall.0), f1(precision.1, recall.1))
}

/// Wilson score interval of a proportion `p` observed over `n` trials (95 %); `n` may be an
/// effective, fractional count. (NaN, NaN) when `n` is not positive.
pub fn wilson(p: f64, n: f64) -> Interval {
    wilson_at(p, n, Z95)
}

/// [`wilson`] at the level of the normal quantile `z`.
fn wilson_at(p: f64, n: f64, z: f64) -> Interval {
    if n.is_nan() || n <= 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Kish's effective number of observations behind a weighted total: (Σw)² / Σw².
pub fn effective_size(sum: f64, sum_of_squares: f64) -> f64 {
    if sum_of_squares > 0.0 {
        sum * sum / sum_of_squares
    } else {
        0.0
    }
}

/// Wilson intervals (at the normal quantile `z`) of the decision's precision (over the pairs
/// it predicts) and recall (over the labelled duplicates), on the effective number of pairs
/// behind each: `decide` under the weights gives the weighted counts, under the squared
/// weights their sums of squares.
fn wilson_intervals(
    n: usize,
    base: Option<&[f64]>,
    decide: &impl Fn(&[f64]) -> AtThreshold,
    z: f64,
) -> (Interval, Interval) {
    let weights: Vec<f64> = base.map_or_else(|| vec![1.0; n], <[f64]>::to_vec);
    let squares: Vec<f64> = weights.iter().map(|w| w * w).collect();
    let (c, c2) = (decide(&weights), decide(&squares));
    let precision = wilson_at(c.precision(), effective_size(c.tp + c.fp, c2.tp + c2.fp), z);
    let recall = wilson_at(c.recall(), effective_size(c.tp + c.fn_, c2.tp + c2.fn_), z);
    (precision, recall)
}

/// An interval of the ROC AUC that a perfect separation does not shrink to a point (the
/// percentile bootstrap gave [1.000, 1.000] whenever every labelled duplicate outscored every
/// other pair): the Mann–Whitney estimate's variance is at most θ(1 − θ) / min(m, n) for m
/// positives and n negatives (Birnbaum and Klose, Ann. Math. Statist. 28(4), 1957), so the
/// Wilson interval over min(m, n) — Kish's effective numbers under weights — holds θ at least
/// as often as its level. Cortes and Mohri (NIPS 2004, §3) use the same bound.
fn auc_bound_interval(obs: &[(bool, f64)], base: Option<&[f64]>) -> Interval {
    let Some(auc) = super::statistics::weighted_auc(obs, base) else {
        return (f64::NAN, f64::NAN);
    };
    let class_size = |positive: bool| {
        let weights = obs
            .iter()
            .enumerate()
            .filter(|(_, o)| o.0 == positive)
            .map(|(i, _)| base.map_or(1.0, |b| b[i]));
        let (sum, squares) = weights.fold((0.0, 0.0), |(s, q), w| (s + w, q + w * w));
        effective_size(sum, squares)
    };
    wilson(auc, class_size(true).min(class_size(false)))
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

    /// 47 labelled duplicates, all above the threshold, and 200 non-duplicates below it: every
    /// resample gives precision 1, yet 47 successes bound it only to [0.924, 1] (Wilson's lower
    /// end n / (n + z²) when all succeed).
    #[test]
    fn no_failure_observed_still_bounds_precision_below_one() {
        let mut obs = vec![(true, 0.9); 47];
        obs.extend(vec![(false, 0.1); 200]);
        let iv = bootstrap(&obs, None, None, false, 500, 3, |w| at(&obs, Some(w), 0.5));
        let lower = 47.0 / (47.0 + Z95 * Z95);
        println!(
            "precision interval {:?}, Wilson's lower end {lower:.4}",
            iv.precision
        );
        assert!((iv.precision.0 - lower).abs() < 1e-9, "{:?}", iv.precision);
        assert_eq!(iv.precision.1, 1.0);
    }

    /// The same sample bounds F1 below one too: every resample gives F1 1, yet precision and
    /// recall are each 47 of 47, so F1's lower end is the F1 of their 97.5 % Wilson lower ends,
    /// 47 / (47 + z²) with z the 98.75 % normal quantile.
    #[test]
    fn no_error_observed_still_bounds_f1_below_one() {
        let mut obs = vec![(true, 0.9); 47];
        obs.extend(vec![(false, 0.1); 200]);
        let iv = bootstrap(&obs, None, None, false, 500, 3, |w| at(&obs, Some(w), 0.5));
        let lower = 47.0 / (47.0 + Z975 * Z975);
        println!("F1 interval {:?}, bound's lower end {lower:.4}", iv.f1);
        assert!((iv.f1.0 - lower).abs() < 1e-9, "{:?}", iv.f1);
        assert_eq!(iv.f1.1, 1.0);
    }

    /// The F1 interval holds the population's F1 at least 95 % of the time: a population of
    /// 30 % duplicates, scored so the threshold 0.5 keeps 96 % of them and lets 3 % of the
    /// others through (precision 0.9320, recall 0.96, F1 0.945813), sampled 80 pairs at a time.
    #[test]
    fn f1_interval_covers_the_population_f1() {
        const SEED: u64 = 20_261_129;
        println!("f1_interval_covers_the_population_f1: seed {SEED}");
        let (tp, fp) = (0.3 * 0.96, 0.7 * 0.03);
        let truth = 2.0 * tp / (2.0 * tp + fp + 0.3 * 0.04);
        let mut rng = SplitMix64::new(SEED);
        let (trials, mut covered) = (300u64, 0usize);
        for t in 0..trials {
            let obs: Vec<(bool, f64)> = (0..80)
                .map(|_| {
                    let dup = rng.next_f64() < 0.3;
                    let above = rng.next_f64() < if dup { 0.96 } else { 0.03 };
                    (dup, if above { 0.9 } else { 0.1 })
                })
                .collect();
            let iv = bootstrap(&obs, None, None, false, 200, SEED + t, |w| {
                at(&obs, Some(w), 0.5)
            });
            covered += usize::from(iv.f1.0 <= truth && truth <= iv.f1.1);
        }
        let coverage = covered as f64 / trials as f64;
        println!("F1 {truth:.6}: coverage {coverage:.3} over {trials} samples");
        assert!(coverage >= 0.95, "coverage {coverage}");
    }

    /// The ROC AUC interval holds the population's AUC at least 93 % of the time (nominal
    /// 95 %) for scores N(4, 1) against N(0, 1) — AUC Φ(4/√2) = 0.997661 — with 25 pairs of
    /// each class, where many samples separate perfectly: the percentile bootstrap alone gives
    /// [1, 1] for those, which misses the AUC.
    #[test]
    fn auc_interval_covers_a_nearly_perfect_auc() {
        const SEED: u64 = 20_261_128;
        println!("auc_interval_covers_a_nearly_perfect_auc: seed {SEED}");
        let mut rng = SplitMix64::new(SEED);
        let mut normal = move || {
            let (u, v) = (rng.next_f64().max(1e-300), rng.next_f64());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        };
        let (trials, mut covered, mut separated) = (400u64, 0usize, 0usize);
        for t in 0..trials {
            let obs: Vec<(bool, f64)> = (0..50)
                .map(|i| (i < 25, normal() + if i < 25 { 4.0 } else { 0.0 }))
                .collect();
            let iv = bootstrap(&obs, None, None, true, 200, SEED + t, |w| {
                at(&obs, Some(w), 0.5)
            });
            let (lo, hi) = iv.roc_auc.unwrap();
            covered += usize::from(lo <= 0.997_661 && 0.997_661 <= hi);
            separated += usize::from(weighted_auc(&obs, None) == Some(1.0));
        }
        let coverage = covered as f64 / trials as f64;
        println!("coverage {coverage:.3} over {trials} samples, {separated} perfectly separated");
        assert!(
            separated as u64 > trials / 4,
            "the case the interval guards is common here"
        );
        assert!(coverage >= 0.93, "coverage {coverage}");
    }

    /// Perfectly separated labels give a lower bound below 1: 47 of each class, Wilson over
    /// 47 (the closed form below).
    #[test]
    fn a_perfect_separation_still_has_a_lower_bound() {
        let obs: Vec<(bool, f64)> = (0..94)
            .map(|i| (i < 47, if i < 47 { 1.0 } else { 0.0 }))
            .collect();
        let iv = bootstrap(&obs, None, None, true, 200, 7, |w| at(&obs, Some(w), 0.5));
        let (lo, hi) = iv.roc_auc.unwrap();
        assert!((lo - 0.924_44).abs() < 1e-4 && hi == 1.0, "{lo} {hi}");
    }

    /// Wilson's interval against values computed by hand (statsmodels'
    /// `proportion_confint(count, n, method="wilson")` gives the same): 47/47, 30/60, 3/10.
    #[test]
    fn wilson_matches_its_closed_form() {
        let close = |a: Interval, b: Interval| (a.0 - b.0).abs() < 5e-5 && (a.1 - b.1).abs() < 5e-5;
        assert!(
            close(wilson(1.0, 47.0), (0.92444, 1.0)),
            "{:?}",
            wilson(1.0, 47.0)
        );
        assert!(
            close(wilson(0.5, 60.0), (0.37733, 0.62267)),
            "{:?}",
            wilson(0.5, 60.0)
        );
        assert!(
            close(wilson(0.3, 10.0), (0.10779, 0.60322)),
            "{:?}",
            wilson(0.3, 10.0)
        );
        assert!(wilson(0.5, 0.0).0.is_nan());
    }

    /// Theory: on weighted samples the Wilson interval on Kish's effective size covers the
    /// true precision about 95 % of the time. 2,000 samples of 80 predicted pairs, each a
    /// duplicate with probability 0.9, weighted 1 or 10 (the weighted precision's expectation
    /// stays 0.9): the coverage lies in [0.92, 0.99] (seed printed).
    #[test]
    fn wilson_on_the_effective_size_covers_weighted_precision() {
        const SEED: u64 = 77;
        println!("wilson_on_the_effective_size_covers_weighted_precision: seed {SEED}");
        let mut rng = SplitMix64::new(SEED);
        let trials = 2000;
        let mut covered = 0;
        for _ in 0..trials {
            let (mut sum, mut squares, mut hits) = (0.0, 0.0, 0.0);
            for i in 0..80 {
                let w = if i % 4 == 0 { 10.0 } else { 1.0 };
                let duplicate = rng.next_f64() < 0.9;
                sum += w;
                squares += w * w;
                hits += if duplicate { w } else { 0.0 };
            }
            let (lo, hi) = wilson(hits / sum, effective_size(sum, squares));
            covered += usize::from((lo..=hi).contains(&0.9));
        }
        let coverage = covered as f64 / trials as f64;
        println!("coverage {coverage:.3}");
        assert!((0.92..=0.99).contains(&coverage), "{coverage}");
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
