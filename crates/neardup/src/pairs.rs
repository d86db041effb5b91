//! Pairs of documents — what every join produces — and the limit on how many it may produce.
//!
//! A pair is two document indices a < b packed as `a << 32 | b` ([`pack`]), so a sorted
//! `Vec<u64>` is a pair list sorted by (a, b), and joins sort instead of hashing. Sort-based
//! joins find pairs as runs of equal keys ([`run_pairs`]).
//!
//! **The pair limit.** A join whose parameters put too many documents together would produce
//! quadratically many pairs. Every join spends its pairs from a [`Budget`] *while* producing
//! them, before they are stored, and stops with [`Error::TooManyPairs`] as soon as the limit
//! is passed, so a loose threshold fails in moments instead of exhausting memory. The limit is
//! `$NEARDUP_MAX_PAIRS` (default 20 million: 16 bytes each before scores, and every reported
//! pair is kept by the caller); a value that is not a whole number is an error, not the
//! default. A program may set it with [`set_limit`] (the CLI's `--max-pairs`).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result, parse_env};

/// The default pair limit.
pub const DEFAULT_LIMIT: u64 = 20_000_000;

/// Packs document indices `a < b` into one sortable `u64`.
#[inline]
pub fn pack(a: u32, b: u32) -> u64 {
    debug_assert!(a < b);
    ((a as u64) << 32) | b as u64
}

/// Unpacks [`pack`].
#[inline]
pub fn unpack(p: u64) -> (u32, u32) {
    ((p >> 32) as u32, p as u32)
}

/// Pairs inside runs of the given lengths: Σ n(n − 1)/2.
pub fn pairs_in_runs(runs: impl IntoIterator<Item = usize>) -> u64 {
    runs.into_iter()
        .map(|n| (n as u64) * (n as u64).saturating_sub(1) / 2)
        .sum()
}

/// The limit set by [`set_limit`] (0: none set).
static SET_LIMIT: AtomicU64 = AtomicU64::new(0);

/// Sets the pair limit of this process (overrides `$NEARDUP_MAX_PAIRS`).
pub fn set_limit(limit: u64) {
    SET_LIMIT.store(limit.max(1), Ordering::Relaxed);
}

/// Sets the limit of [`set_limit`], or with `None` clears it (back to `$NEARDUP_MAX_PAIRS`
/// or the default); returns what was set before. For a caller that sets the limit for one
/// call (Python's `neardup.dedup(max_pairs=…)`).
pub fn swap_limit(limit: Option<u64>) -> Option<u64> {
    let old = SET_LIMIT.swap(limit.map_or(0, |l| l.max(1)), Ordering::Relaxed);
    (old != 0).then_some(old)
}

/// The pair limit: [`set_limit`], else `$NEARDUP_MAX_PAIRS`, else [`DEFAULT_LIMIT`].
pub fn limit() -> Result<u64> {
    match SET_LIMIT.load(Ordering::Relaxed) {
        0 => parse_env("NEARDUP_MAX_PAIRS", DEFAULT_LIMIT, |v| {
            v.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or("a whole number of pairs, at least 1")
        }),
        set => Ok(set),
    }
}

/// Pairs a join may still produce; shared by its threads.
#[derive(Debug)]
pub struct Budget {
    what: &'static str,
    limit: u64,
    spent: AtomicU64,
}

impl Budget {
    /// A budget of the process's pair limit for the join called `what`.
    pub fn new(what: &'static str) -> Result<Self> {
        Ok(Budget::with_limit(what, limit()?))
    }

    /// A budget of `limit` pairs.
    pub fn with_limit(what: &'static str, limit: u64) -> Self {
        Budget {
            what,
            limit,
            spent: AtomicU64::new(0),
        }
    }

    /// Accounts for `n` more pairs; fails once more than the limit have been spent.
    #[inline]
    pub fn spend(&self, n: u64) -> Result<()> {
        let total = self.spent.fetch_add(n, Ordering::Relaxed) + n;
        if total > self.limit {
            Err(self.error())
        } else {
            Ok(())
        }
    }

    /// Whether the limit has been passed (for threads that should stop early).
    #[inline]
    pub fn exceeded(&self) -> bool {
        self.spent.load(Ordering::Relaxed) > self.limit
    }

    /// Pairs spent so far.
    pub fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    /// The error a join reports when over budget.
    pub fn error(&self) -> Error {
        Error::TooManyPairs {
            what: self.what.to_string(),
            pairs: self.spent(),
            limit: self.limit,
        }
    }
}

/// Appends every pair inside each run of equal keys of `sorted` (key, document) — keys
/// sorted, each document at most once per run — spending them from `budget` first, run by
/// run, so nothing over budget is ever stored.
pub fn run_pairs<K: PartialEq>(
    sorted: &[(K, u32)],
    budget: &Budget,
    out: &mut Vec<u64>,
) -> Result<()> {
    for run in sorted.chunk_by(|x, y| x.0 == y.0) {
        let n = run.len() as u64;
        if n < 2 {
            continue;
        }
        budget.spend(n * (n - 1) / 2)?;
        for (i, &(_, a)) in run.iter().enumerate() {
            for &(_, b) in &run[i + 1..] {
                out.push(if a < b { pack(a, b) } else { pack(b, a) });
            }
        }
    }
    Ok(())
}

/// A reported pair: document indices `a < b` and the algorithm's similarity score (higher
/// means more similar; the scale is the algorithm's, documented there).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScoredPair {
    /// Smaller document index.
    pub a: u32,
    /// Larger document index.
    pub b: u32,
    /// Similarity score.
    pub score: f64,
}

/// Builds a sorted, unique list of scored pairs from packed pairs and a scoring function.
pub fn scored_from_packed(
    pairs: &[u64],
    mut score: impl FnMut(u32, u32) -> Option<f64>,
) -> Vec<ScoredPair> {
    pairs
        .iter()
        .filter_map(|&p| {
            let (a, b) = unpack(p);
            score(a, b).map(|score| ScoredPair { a, b, score })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_sorts_by_pair() {
        let mut v = vec![pack(2, 3), pack(0, 9), pack(1, 2), pack(0, 1)];
        v.sort_unstable();
        let pairs: Vec<(u32, u32)> = v.into_iter().map(unpack).collect();
        assert_eq!(pairs, [(0, 1), (0, 9), (1, 2), (2, 3)]);
        assert_eq!(
            unpack(pack(u32::MAX - 1, u32::MAX)),
            (u32::MAX - 1, u32::MAX)
        );
    }

    #[test]
    fn runs_give_their_pairs_within_budget() {
        let sorted = [(1, 4u32), (1, 2), (5, 0), (7, 3), (7, 1), (7, 9)];
        let budget = Budget::with_limit("test", 10);
        let mut out = Vec::new();
        run_pairs(&sorted, &budget, &mut out).unwrap();
        out.sort_unstable();
        assert_eq!(out, [pack(1, 3), pack(1, 9), pack(2, 4), pack(3, 9)]);
        assert_eq!(budget.spent(), 4);
        assert_eq!(pairs_in_runs([2, 1, 3]), 4);
    }

    #[test]
    fn over_budget_stops_before_storing() {
        // One run of 10,000 documents would be 49,995,000 pairs.
        let sorted: Vec<(u8, u32)> = (0..10_000).map(|i| (7, i)).collect();
        let budget = Budget::with_limit("the test join", 1000);
        let mut out = Vec::new();
        let e = run_pairs(&sorted, &budget, &mut out)
            .unwrap_err()
            .to_string();
        assert!(out.is_empty(), "nothing stored");
        assert!(
            e.contains("the test join would report at least 49995000 pairs")
                && e.contains("limit of 1000"),
            "{e}"
        );
    }
}
