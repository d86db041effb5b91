//! The exact join of SpotSigs (Theobald et al. 2008, §4; the module docs of `spotsigs`): sets
//! partitioned by size (§4.1) so that a pair reaching τ lies in one partition or two
//! neighbouring ones, candidates found through rarest-first prefixes (§4.2's pruning with its
//! stopping point fixed in advance: prefix filtering, Bayardo et al. WWW 2007).

use rayon::prelude::*;

use crate::error::Result;
use crate::features::similarity::jaccard;
use crate::join::lengths_compatible;
use crate::pairs::{Budget, pack};

/// Partition start sizes for threshold τ over the (positive) sizes present: b₀ = the smallest,
/// bᵢ₊₁ = ⌊bᵢ/τ⌋ + 1. A set of size s is in the last partition whose start is ≤ s.
pub fn partition_starts(min_size: usize, max_size: usize, tau: f64) -> Vec<usize> {
    let mut starts = vec![min_size.max(1)];
    while *starts.last().expect("non-empty") <= max_size {
        let b = *starts.last().expect("non-empty");
        starts.push(((b as f64 / tau + 1e-9).floor() as usize + 1).max(b + 1));
    }
    starts.pop();
    starts
}

/// Every pair of sets with Jaccard ≥ τ: partitioned, prefix-filtered, exact. Fails with
/// [`Error::TooManyPairs`] as soon as more pairs are found than `budget` allows.
pub fn partitioned_join(sets: &[Vec<u64>], tau: f64, budget: &Budget) -> Result<Vec<(u64, f64)>> {
    let live: Vec<usize> = (0..sets.len()).filter(|&i| !sets[i].is_empty()).collect();
    if live.len() < 2 {
        return Ok(Vec::new());
    }
    let (lo, hi) = live.iter().fold((usize::MAX, 0), |(a, b), &i| {
        (a.min(sets[i].len()), b.max(sets[i].len()))
    });
    let starts = partition_starts(lo, hi, tau);
    let part_of = |len: usize| starts.partition_point(|&s| s <= len) - 1;
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); starts.len()];
    for &i in &live {
        members[part_of(sets[i].len())].push(i);
    }
    // Prefixes in the global rarity order (empty sets count for nothing).
    let prefixes = crate::join::prefixes(sets, tau);
    let mut out: Vec<(u64, f64)> = (0..members.len())
        .into_par_iter()
        .flat_map_iter(|pi| {
            let mut pairs = Vec::new();
            if budget.exceeded() {
                return pairs;
            }
            // Index partitions pi and pi + 1; probe with pi.
            let mut index: crate::hash::HashedKeyMap<Vec<usize>> = Default::default();
            for part in [pi, pi + 1] {
                for &j in members.get(part).map_or(&[][..], Vec::as_slice) {
                    for &s in &prefixes[j] {
                        index.entry(s).or_default().push(j);
                    }
                }
            }
            let mut candidates = Vec::new();
            for &i in &members[pi] {
                candidates.clear();
                candidates.extend(
                    prefixes[i]
                        .iter()
                        .flat_map(|s| index[s].iter().copied())
                        .filter(|&j| {
                            // Each unordered pair once: within a partition by index, across
                            // partitions always from the lower one.
                            (part_of(sets[j].len()) == pi && j > i)
                                || part_of(sets[j].len()) == pi + 1
                        }),
                );
                candidates.sort_unstable();
                candidates.dedup();
                for &j in &candidates {
                    if !lengths_compatible(sets[i].len(), sets[j].len(), tau) {
                        continue;
                    }
                    let jac = jaccard(&sets[i], &sets[j]);
                    if jac >= tau {
                        pairs.push((pack(i.min(j) as u32, i.max(j) as u32), jac));
                        if budget.spend(1).is_err() {
                            return pairs;
                        }
                    }
                }
                if budget.exceeded() {
                    return pairs;
                }
            }
            pairs
        })
        .collect();
    if budget.exceeded() {
        return Err(budget.error());
    }
    out.sort_unstable_by_key(|p| p.0);
    Ok(out)
}
