//! Exact set-similarity joins: every pair of sets with Jaccard ≥ τ, without comparing all
//! pairs.
//!
//! Two filters, both exact (Bayardo, Ma, Srikant, WWW 2007 "Scaling up all pairs similarity
//! search", §4; Theobald et al., SIGIR 2008, §4 for the length bound):
//! * **length** — J(A, B) ≤ |A| / |B| for |A| ≤ |B|, so B can match A only if
//!   τ·|B| ≤ |A| ≤ |B|/τ;
//! * **prefix** — order every set's elements by global rarity (document frequency, then
//!   value). If J(A, B) ≥ τ the sets share at least ⌈τ·max(|A|,|B|)⌉ elements, so they share an
//!   element among the first |A| − ⌈τ·|A|⌉ + 1 of A and the first |B| − ⌈τ·|B|⌉ + 1 of B: only
//!   those prefixes go into the inverted index and are probed, and rare elements keep the
//!   posting lists short.
//!
//! Survivors are verified with the exact Jaccard coefficient, the merge stopped once the
//! overlap τ needs is out of reach (`similarity::jaccard_at_least`). Empty sets never match
//! (their Jaccard is 0 by the convention of `features::similarity`).

use rayon::prelude::*;

use crate::features::similarity::{jaccard, jaccard_at_least};
use crate::hash::HashedKeyMap;
use crate::pairs::pack;

/// Length of the probing prefix of a set of `n` elements for threshold `tau`.
pub fn prefix_len(n: usize, tau: f64) -> usize {
    // The 1e-9 guards against 0.3 · 10 = 3.0000000000000004 rounding the bound up: a longer
    // prefix is always safe.
    (n + 1)
        .saturating_sub((tau * n as f64 - 1e-9).ceil() as usize)
        .min(n)
}

/// Whether sizes `a` and `b` can reach Jaccard `tau`.
#[inline]
pub fn lengths_compatible(a: usize, b: usize, tau: f64) -> bool {
    let (a, b) = (a as f64, b as f64);
    a >= tau * b - 1e-9 && b >= tau * a - 1e-9
}

/// Each set's probing prefix, elements ordered rarest first (document frequency, then value).
pub fn prefixes(sets: &[Vec<u64>], tau: f64) -> Vec<Vec<u64>> {
    let shared = shared_counts(sets);
    let df = |f: u64| shared.get(&f).copied().unwrap_or(1);
    sets.par_iter()
        .map(|s| {
            let mut v = s.clone();
            v.sort_unstable_by_key(|&f| (df(f), f));
            v.truncate(prefix_len(v.len(), tau));
            v
        })
        .collect()
}

/// The document frequency of every element found in two or more sets (the others are in
/// one). Counted by sorting all elements, not in a hash map of all of them: most shingles of
/// a corpus occur once, and at 10^6 documents (≈ 10^8 distinct shingles) building and merging
/// per-thread maps of every one took minutes where one parallel sort takes seconds.
fn shared_counts(sets: &[Vec<u64>]) -> HashedKeyMap<u32> {
    let mut all: Vec<u64> = Vec::with_capacity(sets.iter().map(Vec::len).sum());
    for s in sets {
        all.extend_from_slice(s);
    }
    all.par_sort_unstable();
    all.chunk_by(|a, b| a == b)
        .filter(|run| run.len() > 1)
        .map(|run| (run[0], run.len() as u32))
        .collect()
}

/// Every pair (i < j) of sorted, repeat-free `sets` with Jaccard ≥ `tau` (in (0, 1]), as
/// (packed pair, Jaccard), sorted by pair.
///
/// The inverted index holds only prefix elements that occur in two or more prefixes: all
/// prefix elements are sorted as (element, set) postings first and the runs of length one
/// dropped. In near-duplicate corpora most prefix elements are unique to their set (that is
/// what rarest-first ordering buys), so the index of a million documents is small, where a
/// hash map over every prefix element took about 100 bytes each (≈ 10 GB at 10^6 documents).
pub fn jaccard_join(sets: &[Vec<u64>], tau: f64) -> Vec<(u64, f64)> {
    assert!(tau > 0.0 && tau <= 1.0, "threshold must be in (0, 1]");
    let pre = prefixes(sets, tau);
    let index = shared_postings(&pre);
    let mut out: Vec<(u64, f64)> = (0..sets.len())
        .into_par_iter()
        .flat_map_iter(|x| {
            let mut cands: Vec<u32> = pre[x]
                .iter()
                .filter_map(|f| index.get(f))
                .flat_map(|ids| ids.iter().copied())
                .filter(|&y| (y as usize) > x)
                .collect();
            cands.sort_unstable();
            cands.dedup();
            cands
                .into_iter()
                .filter(|&y| lengths_compatible(sets[x].len(), sets[y as usize].len(), tau))
                .filter_map(|y| {
                    jaccard_at_least(&sets[x], &sets[y as usize], tau)
                        .map(|j| (pack(x as u32, y), j))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort_unstable_by_key(|p| p.0);
    out
}

/// Element → the sets (ascending) whose prefixes contain it, for elements in at least two
/// prefixes; an element in one prefix can make no candidate.
fn shared_postings(pre: &[Vec<u64>]) -> HashedKeyMap<Vec<u32>> {
    let mut postings: Vec<(u64, u32)> = Vec::with_capacity(pre.iter().map(Vec::len).sum());
    for (i, p) in pre.iter().enumerate() {
        postings.extend(p.iter().map(|&f| (f, i as u32)));
    }
    postings.par_sort_unstable();
    let mut index = HashedKeyMap::<Vec<u32>>::default();
    for run in postings.chunk_by(|a, b| a.0 == b.0) {
        if run.len() > 1 {
            index.insert(run[0].0, run.iter().map(|p| p.1).collect());
        }
    }
    index
}

/// Brute force: every pair, exact Jaccard (the oracle).
pub fn jaccard_join_brute(sets: &[Vec<u64>], tau: f64) -> Vec<(u64, f64)> {
    let mut out = Vec::new();
    for a in 0..sets.len() {
        for b in a + 1..sets.len() {
            let j = jaccard(&sets[a], &sets[b]);
            if j >= tau {
                out.push((pack(a as u32, b as u32), j));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn join_equals_brute_force(
            raw in prop::collection::vec(prop::collection::btree_set(0u64..12, 0..8), 0..30),
            tau in 0.05f64..=1.0,
        ) {
            let sets: Vec<Vec<u64>> = raw.into_iter().map(|s| s.into_iter().collect()).collect();
            prop_assert_eq!(jaccard_join(&sets, tau), jaccard_join_brute(&sets, tau));
        }
    }

    #[test]
    fn prefix_lengths() {
        assert_eq!(prefix_len(10, 1.0), 1);
        assert_eq!(prefix_len(10, 0.3), 8); // ⌈3⌉ = 3 shared needed → 10 − 3 + 1
        assert_eq!(prefix_len(0, 0.5), 0);
        assert_eq!(prefix_len(1, 0.01), 1);
    }
}
