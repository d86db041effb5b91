//! LSH Ensemble (Zhu, Nargesian, Pu and Miller, "LSH Ensemble: Internet-Scale Domain Search",
//! VLDB 2016): containment search over MinHash by partitioning the indexed sets by size and
//! choosing, per partition and query, the banding whose S-curve best separates containment
//! above the threshold from containment below it.
//!
//! - §5.1: for a query of size q and an indexed set of size x, containment c = |Q∩X|/|Q|
//!   is Jaccard s = c / (x/q + 1 − c); the false-positive and false-negative areas of a (b, r)
//!   banding are taken over containment (as datasketch 2.0's `lshensemble.py` computes them).
//! - §4: the size partitions minimizing the expected number of false positives, by dynamic
//!   programming over the distinct sizes (datasketch's `lshensemble_partition.py`, "real"
//!   counts).

use super::banding::integrate;

/// P(candidate) at containment `t` for a size ratio `xq` = x/q with b bands of r rows.
fn candidate_probability(t: f64, bands: usize, rows: usize, xq: f64) -> f64 {
    let jaccard = t / (1.0 + xq - t);
    1.0 - (1.0 - jaccard.powf(rows as f64)).powf(bands as f64)
}

/// The false-positive area: containment below the threshold (and possible: at most x/q).
pub fn false_positive_area(threshold: f64, bands: usize, rows: usize, xq: f64) -> f64 {
    let upper = if xq >= threshold { threshold } else { xq };
    integrate(&|t| candidate_probability(t, bands, rows, xq), 0.0, upper)
}

/// The false-negative area: containment from the threshold up to its largest possible value.
pub fn false_negative_area(threshold: f64, bands: usize, rows: usize, xq: f64) -> f64 {
    let miss = |t| 1.0 - candidate_probability(t, bands, rows, xq);
    if xq >= 1.0 {
        integrate(&miss, threshold, 1.0)
    } else if xq >= threshold {
        integrate(&miss, threshold, xq)
    } else {
        0.0
    }
}

/// The (b, r), r ≤ `max_rows`, b·r ≤ `num_perm`, of least weighted error at size ratio `xq`
/// (the first in (b, r) order among equals).
pub fn optimal_banding(
    threshold: f64,
    num_perm: usize,
    max_rows: usize,
    xq: f64,
    (false_positive_weight, false_negative_weight): (f64, f64),
) -> (usize, usize) {
    let mut best = (f64::INFINITY, (0, 0));
    for bands in 1..=num_perm {
        for rows in 1..=max_rows.min(num_perm / bands) {
            let error = false_positive_area(threshold, bands, rows, xq) * false_positive_weight
                + false_negative_area(threshold, bands, rows, xq) * false_negative_weight;
            if error < best.0 {
                best = (error, (bands, rows));
            }
        }
    }
    best.1
}

/// Expected false positives of one partition holding distinct sizes `l..=u` (`sizes`
/// ascending, `counts[i]` sets of size `sizes[i]`): Σ (x_u − x_i)/x_u · n_i, by the brute sum
/// (the oracle of [`PartitionCosts`]).
#[cfg(test)]
fn partition_false_positives(sizes: &[f64], counts: &[f64], l: usize, u: usize) -> f64 {
    (l..=u)
        .map(|i| (sizes[u] - sizes[i]) / sizes[u] * counts[i])
        .sum()
}

/// The same expected false positives in O(1) per partition from prefix sums of the counts
/// and of size × count: Σ (x_u − x_i)/x_u · n_i = (x_u · N − S)/x_u over `l..=u`, so the
/// dynamic programme costs O(parts · n²), not O(parts · n³).
struct PartitionCosts {
    sizes: Vec<f64>,
    /// `counts[..i]` summed, and `sizes[..i] · counts[..i]` summed.
    count_prefix: Vec<f64>,
    mass_prefix: Vec<f64>,
}

impl PartitionCosts {
    fn new(sizes: &[u64], counts: &[u64]) -> Self {
        let mut count_prefix = vec![0.0];
        let mut mass_prefix = vec![0.0];
        for (&x, &n) in sizes.iter().zip(counts) {
            count_prefix.push(count_prefix.last().copied().unwrap_or(0.0) + n as f64);
            mass_prefix.push(mass_prefix.last().copied().unwrap_or(0.0) + x as f64 * n as f64);
        }
        PartitionCosts {
            sizes: sizes.iter().map(|&s| s as f64).collect(),
            count_prefix,
            mass_prefix,
        }
    }

    fn of(&self, l: usize, u: usize) -> f64 {
        let n = self.count_prefix[u + 1] - self.count_prefix[l];
        let mass = self.mass_prefix[u + 1] - self.mass_prefix[l];
        (self.sizes[u] * n - mass) / self.sizes[u]
    }
}

/// The `parts` size partitions (inclusive (lower, upper) sizes, ascending) that minimize the
/// total expected false positives; every partition holds at least one distinct size.
/// With `parts` < 2, one partition; with at least as many parts as sizes, one per size.
pub fn optimal_partitions(sizes: &[u64], counts: &[u64], parts: usize) -> Vec<(u64, u64)> {
    let n = sizes.len();
    if n == 0 {
        return Vec::new();
    }
    if parts < 2 {
        return vec![(sizes[0], sizes[n - 1])];
    }
    if parts >= n {
        return sizes.iter().map(|&s| (s, s)).collect();
    }
    let costs = PartitionCosts::new(sizes, counts);
    // cost[p][u]: the least false positives of sizes 0..=u in p + 1 partitions; cut[p][u]:
    // the last size of its first p partitions.
    let mut cost = vec![vec![f64::INFINITY; n]; parts];
    let mut cut = vec![vec![0usize; n]; parts];
    for (u, slot) in cost[0].iter_mut().enumerate() {
        *slot = costs.of(0, u);
    }
    for p in 1..parts {
        for u in p..n {
            // The first among equals, as a min over (cost, u1) pairs picks.
            for u1 in (p - 1)..u {
                let total = cost[p - 1][u1] + costs.of(u1 + 1, u);
                if total < cost[p][u] {
                    (cost[p][u], cut[p][u]) = (total, u1);
                }
            }
        }
    }
    let mut bounds = Vec::with_capacity(parts);
    let mut u = n - 1;
    for p in (1..parts).rev() {
        let u1 = cut[p][u];
        bounds.push((sizes[u1 + 1], sizes[u]));
        u = u1;
    }
    bounds.push((sizes[0], sizes[u]));
    bounds.reverse();
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The partitions equal the best of every way to cut the sizes (brute force), on seeded
    /// size distributions (seed 20261128).
    #[test]
    fn partitions_are_the_best_cut() {
        fn cuts(n: usize, parts: usize) -> Vec<Vec<usize>> {
            // Every increasing choice of parts − 1 cut points among 0..n−1.
            fn go(
                start: usize,
                n: usize,
                left: usize,
                acc: &mut Vec<usize>,
                out: &mut Vec<Vec<usize>>,
            ) {
                if left == 0 {
                    out.push(acc.clone());
                    return;
                }
                for c in start..n - 1 {
                    acc.push(c);
                    go(c + 1, n, left - 1, acc, out);
                    acc.pop();
                }
            }
            let mut out = Vec::new();
            go(0, n, parts - 1, &mut Vec::new(), &mut out);
            out
        }
        let mut state = 20_261_128_u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        for _ in 0..200 {
            let n = 3 + next(6) as usize;
            let mut sizes: Vec<u64> = (0..n).map(|_| 1 + next(500)).collect();
            sizes.sort_unstable();
            sizes.dedup();
            let counts: Vec<u64> = sizes.iter().map(|_| 1 + next(40)).collect();
            let n = sizes.len();
            for parts in 2..n {
                let x: Vec<f64> = sizes.iter().map(|&s| s as f64).collect();
                let c: Vec<f64> = counts.iter().map(|&k| k as f64).collect();
                let total = |bounds: &[(u64, u64)]| -> f64 {
                    bounds
                        .iter()
                        .map(|&(lo, hi)| {
                            let l = sizes.iter().position(|&s| s == lo).unwrap();
                            let u = sizes.iter().position(|&s| s == hi).unwrap();
                            partition_false_positives(&x, &c, l, u)
                        })
                        .sum()
                };
                let best = cuts(n, parts)
                    .iter()
                    .map(|cs| {
                        let mut bounds = Vec::new();
                        let mut start = 0;
                        for &c in cs {
                            bounds.push((sizes[start], sizes[c]));
                            start = c + 1;
                        }
                        bounds.push((sizes[start], sizes[n - 1]));
                        total(&bounds)
                    })
                    .fold(f64::INFINITY, f64::min);
                let got = optimal_partitions(&sizes, &counts, parts);
                assert_eq!(got.len(), parts);
                assert!(
                    (total(&got) - best).abs() <= 1e-9 * best.max(1.0),
                    "{sizes:?} {parts}"
                );
            }
        }
    }

    /// The prefix-sum cost of every partition equals the brute sum.
    #[test]
    fn prefix_sum_costs_equal_the_sum() {
        let sizes = [3u64, 7, 8, 20, 21, 90, 400];
        let counts = [5u64, 1, 9, 2, 30, 4, 1];
        let costs = PartitionCosts::new(&sizes, &counts);
        let x: Vec<f64> = sizes.iter().map(|&s| s as f64).collect();
        let c: Vec<f64> = counts.iter().map(|&k| k as f64).collect();
        for l in 0..sizes.len() {
            for u in l..sizes.len() {
                let want = partition_false_positives(&x, &c, l, u);
                assert!(
                    (costs.of(l, u) - want).abs() <= 1e-9 * want.max(1.0),
                    "{l}..={u}"
                );
            }
        }
    }

    /// A query the size of the indexed sets (xq = 1) is plain Jaccard banding: at threshold
    /// containment 0.5 (Jaccard 1/3) the error of the chosen banding is the least of all.
    #[test]
    fn banding_minimizes_the_weighted_error() {
        let (b, r) = optimal_banding(0.5, 32, 8, 1.0, (0.5, 0.5));
        let error = |b, r| {
            false_positive_area(0.5, b, r, 1.0) * 0.5 + false_negative_area(0.5, b, r, 1.0) * 0.5
        };
        for bb in 1..=32 {
            for rr in 1..=8usize.min(32 / bb) {
                assert!(error(b, r) <= error(bb, rr), "({b},{r}) vs ({bb},{rr})");
            }
        }
        // Sets far larger than the query: containment is tiny Jaccard, so long bands lose;
        // the chosen rows shrink as x/q grows.
        let (_, r_large) = optimal_banding(0.5, 128, 8, 100.0, (0.5, 0.5));
        let (_, r_equal) = optimal_banding(0.5, 128, 8, 1.0, (0.5, 0.5));
        assert!(r_large <= r_equal);
    }
}
