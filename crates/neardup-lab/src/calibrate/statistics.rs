//! Calibration on labelled pairs: the threshold that maximizes F1 (or reaches a precision),
//! bootstrap intervals, holdout splits, and the labelled pairs a cluster-labelled corpus
//! implies. `neardup calibrate` (commands/calibrate.rs) runs this per configuration.
//!
//! A labelled pair is an observation `(positive, score)`; a threshold `t` predicts positive
//! every pair with `score ≥ t`. Only scores above 0 are candidate thresholds: "everything is a
//! duplicate" is never a useful detector.
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
use neardup::pairs::pack;

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
fn ascending(obs: &[(bool, f64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..obs.len()).collect();
    order.sort_by(|&x, &y| obs[x].1.total_cmp(&obs[y].1));
    order
}

/// [`weighted_auc`] with the ascending order given, so the bootstrap sorts once, not once per
/// resample (on 2 million labelled pairs the sort was most of a resample's time).
fn auc_in_order(obs: &[(bool, f64)], order: &[usize], weights: Option<&[f64]>) -> Option<f64> {
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

/// Most positive pairs a cluster-labelled corpus contributes (evenly spaced beyond).
pub const MAX_CLUSTER_POSITIVES: usize = 200_000;

/// Random non-duplicates drawn per duplicate (see [`cluster_pairs`]).
pub const RANDOM_NEGATIVES_PER_DUPLICATE: u64 = 10;
/// Fewest random non-duplicates drawn (when the corpus has that many).
pub const MIN_RANDOM_NEGATIVES: u64 = 10_000;

/// A labelled pair: packed ids, duplicate or not, and its weight — how many pairs of the
/// corpus it stands for.
pub type Weighted = (u64, bool, f64);

/// Labelled pairs from cluster labels, as a stratified sample of *all* pairs of the corpus,
/// weighted so that counts estimate the corpus's own (Horvitz–Thompson): precision measured
/// on them is the precision a detector would have on the whole corpus, not on a balanced
/// sample.
/// * duplicates: every pair inside a cluster (weight 1), or a uniform random sample of
///   [`MAX_CLUSTER_POSITIVES`] of them (weight total / taken);
/// * hard non-duplicates: the cross-cluster pairs in `hard` (every pair above a similarity,
///   from an exact join), all of them, or a uniform random sample of as many as duplicates
///   (weight |hard| / taken). Uniform, because a weight is an inverse inclusion probability:
///   keeping the most similar first and weighting them as a uniform sample overstated the
///   false positives of every threshold (on licenses, calibrate reported precision 0.39 where
///   the corpus's is 0.75);
/// * other non-duplicates: [`RANDOM_NEGATIVES_PER_DUPLICATE`] × as many uniformly random
///   cross-cluster pairs outside `hard` as duplicates (at least [`MIN_RANDOM_NEGATIVES`]),
///   drawn with `seed` (weight = the pairs of that stratum / drawn). False-positive rates of
///   good detectors are small, so this stratum needs many pairs for a usable estimate.
pub fn cluster_pairs(
    positives: &[u64],
    hard: &[(u64, f64)],
    docs: usize,
    seed: u64,
) -> Vec<Weighted> {
    let mut rng = SplitMix64::new(seed);
    let take = positives.len().min(MAX_CLUSTER_POSITIVES);
    let step = positives.len() as f64 / take.max(1) as f64;
    let mut out: Vec<Weighted> = uniform_sample(positives.to_vec(), take, &mut rng)
        .into_iter()
        .map(|p| (p, true, step))
        .collect();
    let is_positive = |p: u64| positives.binary_search(&p).is_ok();
    let hard: Vec<u64> = hard
        .iter()
        .map(|&(p, _)| p)
        .filter(|&p| !is_positive(p))
        .collect();
    let hard_all: std::collections::HashSet<u64> = hard.iter().copied().collect();
    let hard_taken = hard.len().min(take.max(1));
    let hard_weight = hard.len() as f64 / hard_taken.max(1) as f64;
    out.extend(
        uniform_sample(hard, hard_taken, &mut rng)
            .into_iter()
            .map(|p| (p, false, hard_weight)),
    );
    let total = docs as u64 * (docs as u64).saturating_sub(1) / 2;
    let stratum = total - positives.len() as u64 - hard_all.len() as u64;
    let want = (RANDOM_NEGATIVES_PER_DUPLICATE * take as u64)
        .max(MIN_RANDOM_NEGATIVES)
        .min(stratum);
    let drawn = random_pairs(
        docs,
        want,
        |p| is_positive(p) || hard_all.contains(&p),
        &mut rng,
    );
    let random_weight = stratum as f64 / drawn.len().max(1) as f64;
    out.extend(drawn.into_iter().map(|p| (p, false, random_weight)));
    out.sort_unstable_by_key(|w| w.0);
    out
}

/// `k` of `items` drawn uniformly without replacement (a partial Fisher–Yates shuffle; all
/// of them, in their order, when `k` covers them), sorted.
fn uniform_sample(items: Vec<u64>, k: usize, rng: &mut SplitMix64) -> Vec<u64> {
    if k >= items.len() {
        return items;
    }
    let mut drawn = draw(items, k, rng);
    drawn.sort_unstable();
    drawn
}

/// `k` of `items` drawn uniformly without replacement, in the order drawn (a partial
/// Fisher–Yates shuffle; all of them, shuffled, when `k` covers them).
pub(crate) fn draw<T>(mut items: Vec<T>, k: usize, rng: &mut SplitMix64) -> Vec<T> {
    let k = k.min(items.len());
    for i in 0..k {
        let j = i + rng.below((items.len() - i) as u64) as usize;
        items.swap(i, j);
    }
    items.truncate(k);
    items
}

/// Up to `want` distinct uniformly random pairs (packed) of `docs` documents that `excluded`
/// does not hold, drawn by rejection (at most 100 × `want` + 1,000 tries).
pub(crate) fn random_pairs(
    docs: usize,
    want: u64,
    excluded: impl Fn(u64) -> bool,
    rng: &mut SplitMix64,
) -> std::collections::BTreeSet<u64> {
    let mut drawn = std::collections::BTreeSet::new();
    let mut attempts = 0u64;
    while (drawn.len() as u64) < want && attempts < 100 * want + 1000 {
        attempts += 1;
        let a = rng.below(docs as u64) as u32;
        let b = rng.below(docs as u64) as u32;
        if a == b {
            continue;
        }
        let p = pack(a.min(b), a.max(b));
        if !excluded(p) {
            drawn.insert(p);
        }
    }
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(seed: u64, n: usize) -> Vec<(bool, f64)> {
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

    /// Oracle: the chosen threshold is the best of a brute-force scan of every threshold.
    #[test]
    fn choice_matches_brute_force() {
        const SEED: u64 = 11;
        println!("choice_matches_brute_force: seed {SEED}");
        for n in [1usize, 7, 300] {
            let obs = sample(SEED + n as u64, n);
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
        let obs = sample(5, 200);
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
        let obs = sample(SEED, 4000);
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

    /// The rounded threshold classifies every pair as the exact one does.
    #[test]
    fn rounded_threshold_keeps_the_decision() {
        let obs = sample(8, 500);
        for c in sweep(&obs, None) {
            let r = round_threshold(&obs, c.threshold);
            assert_eq!(at(&obs, None, r), AtThreshold { threshold: r, ..c });
            assert!(format!("{r}").len() <= 8, "{r}");
        }
        let obs = [(true, 1.0 / 13.0), (false, 0.05)];
        assert_eq!(round_threshold(&obs, 1.0 / 13.0), 0.07);
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

    #[test]
    fn cluster_pairs_are_a_weighted_sample_of_all_pairs() {
        // Clusters {0,1,2} and {3,4}; 10 documents: 45 pairs, 4 duplicates, 41 not.
        let positives = vec![pack(0, 1), pack(0, 2), pack(1, 2), pack(3, 4)];
        let hard = vec![(pack(2, 3), 0.9), (pack(0, 1), 0.95), (pack(5, 6), 0.4)];
        let pairs = cluster_pairs(&positives, &hard, 10, 3);
        let pos: Vec<u64> = pairs.iter().filter(|p| p.1).map(|p| p.0).collect();
        assert_eq!(pos, positives);
        let neg: Vec<&Weighted> = pairs.iter().filter(|p| !p.1).collect();
        // Both hard negatives (the positive in `hard` is not one), weight 1, and the other 39
        // non-duplicates (fewer than MIN_RANDOM_NEGATIVES: all of them, weight 1).
        assert!(neg.iter().any(|p| p.0 == pack(2, 3) && p.2 == 1.0));
        assert!(neg.iter().any(|p| p.0 == pack(5, 6) && p.2 == 1.0));
        assert_eq!(neg.len(), 2 + 39);
        assert!(neg.iter().all(|p| !positives.contains(&p.0)));
        // The weights add up to the corpus's pairs.
        let total: f64 = pairs.iter().map(|p| p.2).sum();
        assert!((total - 45.0).abs() < 1e-9, "{total}");
    }

    /// Theory: on a corpus where a detector's corpus-wide precision is known, the weighted
    /// sample estimates it (within 3 standard errors), while the unweighted sample does not.
    #[test]
    fn weighted_sample_estimates_corpus_precision() {
        const SEED: u64 = 31;
        println!("weighted_sample_estimates_corpus_precision: seed {SEED}");
        // 2,000 documents in clusters of 2; the detector reports every duplicate and every
        // cross-cluster pair (a, b) with (a · 7 + b) % 500 == 0 (a 0.2 % false-positive rate).
        let docs = 2000u32;
        let positives: Vec<u64> = (0..docs / 2).map(|c| pack(2 * c, 2 * c + 1)).collect();
        let reports = |p: u64| {
            let (a, b) = neardup::pairs::unpack(p);
            positives.binary_search(&p).is_ok() || (a as u64 * 7 + b as u64).is_multiple_of(500)
        };
        let mut fp_all = 0u64;
        for a in 0..docs {
            for b in a + 1..docs {
                let p = pack(a, b);
                if positives.binary_search(&p).is_err() && reports(p) {
                    fp_all += 1;
                }
            }
        }
        let truth = positives.len() as f64 / (positives.len() as f64 + fp_all as f64);
        let pairs = cluster_pairs(&positives, &[], docs as usize, SEED);
        let obs: Vec<(bool, f64)> = pairs
            .iter()
            .map(|p| (p.1, if reports(p.0) { 1.0 } else { 0.0 }))
            .collect();
        let w: Vec<f64> = pairs.iter().map(|p| p.2).collect();
        let weighted = at(&obs, Some(&w), 1.0).precision();
        let unweighted = at(&obs, None, 1.0).precision();
        // Standard error of the false-positive count: the random stratum is binomial.
        let n = pairs.iter().filter(|p| !p.1).count() as f64;
        let rate = fp_all as f64 / (docs as f64 * (docs as f64 - 1.0) / 2.0 - 1000.0);
        let fp_se = w.iter().copied().fold(0.0, f64::max) * (n * rate * (1.0 - rate)).sqrt();
        let p_se = truth * truth / positives.len() as f64 * fp_se;
        println!(
            "corpus precision {truth:.4}; weighted {weighted:.4} (± {p_se:.4}); unweighted {unweighted:.4}"
        );
        assert!(
            (weighted - truth).abs() < 3.0 * p_se + 1e-9,
            "{weighted} vs {truth}"
        );
        assert!(unweighted > truth + 0.1);
    }

    /// Regression: a hard stratum larger than the cap is sampled uniformly, so the weighted
    /// count of hard pairs above any similarity estimates the exact count. (Keeping the most
    /// similar first, as it once did, puts every sampled pair above 0.98 and estimates all
    /// 5,000 of them above 0.9, where 500 are.)
    #[test]
    fn a_capped_hard_stratum_is_a_uniform_sample() {
        const SEED: u64 = 77;
        println!("a_capped_hard_stratum_is_a_uniform_sample: seed {SEED}");
        let mut rng = SplitMix64::new(SEED);
        let docs = 4000u32;
        // 100 duplicates, so the hard stratum is capped at 100 of its 5,000 pairs.
        let positives: Vec<u64> = (0..100).map(|c| pack(2 * c, 2 * c + 1)).collect();
        let hard: Vec<(u64, f64)> = (0..5000u32)
            .map(|i| {
                (
                    pack(200 + i % 1900, 2100 + i / 1900 * 7 + i % 7),
                    0.3 + 0.7 * rng.next_f64(),
                )
            })
            .collect();
        let mut hard_unique = hard.clone();
        hard_unique.sort_by_key(|h| h.0);
        hard_unique.dedup_by_key(|h| h.0);
        let similarity: std::collections::HashMap<u64, f64> = hard_unique.iter().copied().collect();
        let pairs = cluster_pairs(&positives, &hard_unique, docs as usize, SEED);
        for cut in [0.5, 0.9] {
            let exact = hard_unique.iter().filter(|h| h.1 >= cut).count() as f64;
            let estimated: f64 = pairs
                .iter()
                .filter(|p| !p.1 && similarity.get(&p.0).is_some_and(|&s| s >= cut))
                .map(|p| p.2)
                .sum();
            // Binomial standard error of the estimate from 100 draws.
            let n = hard_unique.len() as f64;
            let q = exact / n;
            let se = n * (q * (1.0 - q) / 100.0).sqrt();
            println!("hard pairs ≥ {cut}: exact {exact}, estimated {estimated:.0} (± {se:.0})");
            assert!(
                (estimated - exact).abs() <= 4.0 * se,
                "{estimated} vs {exact}"
            );
        }
    }
}
