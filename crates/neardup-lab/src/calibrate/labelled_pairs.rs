//! The labelled pairs a cluster-labelled corpus implies, as a weighted sample of all its pairs
//! (so that precision measured on them is the corpus's), and the uniform draws `neardup label`
//! shares.

use neardup::hash::SplitMix64;
use neardup::pairs::pack;

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
    use crate::calibrate::statistics::at;

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
