//! The runner owns the clock and does not trust algorithms (ann-benchmarks' rule): it times
//! build and query, measures peak heap, and validates what comes back — ids in range, pairs
//! normalized to a < b, no self-pairs, each pair once, sorted.

use std::time::Instant;

use neardup::detector::{Detector, Index, ParamMap, ScoredPair};

use crate::memory;

/// A built index with its build cost.
pub struct Built {
    /// The index.
    pub index: Box<dyn Index>,
    /// Wall seconds of `build`.
    pub seconds: f64,
    /// Peak heap bytes above the level before the build.
    pub peak_bytes: u64,
    /// Heap bytes the index reports holding.
    pub index_bytes: u64,
}

/// One query's result and cost.
#[derive(Debug, Clone)]
pub struct Queried {
    /// Validated pairs.
    pub pairs: Vec<ScoredPair>,
    /// Wall seconds of `query`.
    pub seconds: f64,
    /// Peak heap bytes above the level before the query.
    pub peak_bytes: u64,
}

impl std::fmt::Debug for Built {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Built")
            .field("seconds", &self.seconds)
            .field("peak_bytes", &self.peak_bytes)
            .field("index_bytes", &self.index_bytes)
            .finish_non_exhaustive()
    }
}

/// Builds `detector` over `docs`, timed.
pub fn build(detector: &dyn Detector, docs: &[&str]) -> neardup::Result<Built> {
    let base = memory::reset_peak();
    let t = Instant::now();
    let index = detector.build(docs)?;
    let seconds = t.elapsed().as_secs_f64();
    let peak_bytes = memory::peak_bytes().saturating_sub(base) as u64;
    let index_bytes = index.heap_bytes() as u64;
    Ok(Built {
        index,
        seconds,
        peak_bytes,
        index_bytes,
    })
}

/// Queries `index` with `overrides`, timed and validated.
pub fn query(
    name: &str,
    index: &dyn Index,
    overrides: &ParamMap,
    docs: usize,
) -> anyhow::Result<Queried> {
    let base = memory::reset_peak();
    let t = Instant::now();
    let raw = index.query(overrides)?;
    let seconds = t.elapsed().as_secs_f64();
    let peak_bytes = memory::peak_bytes().saturating_sub(base) as u64;
    let pairs = validate_pairs(name, raw, docs)?;
    Ok(Queried {
        pairs,
        seconds,
        peak_bytes,
    })
}

/// Normalizes and checks pairs: swaps a > b, rejects ids out of range, self-pairs and
/// non-finite scores, keeps the first of repeated pairs, sorts by (a, b).
pub fn validate_pairs(
    name: &str,
    mut pairs: Vec<ScoredPair>,
    docs: usize,
) -> anyhow::Result<Vec<ScoredPair>> {
    for p in &mut pairs {
        anyhow::ensure!(
            (p.a as usize) < docs && (p.b as usize) < docs,
            "{name} reported pair ({}, {}) outside the corpus of {docs} documents",
            p.a,
            p.b
        );
        anyhow::ensure!(
            p.a != p.b,
            "{name} reported document {} as a duplicate of itself",
            p.a
        );
        anyhow::ensure!(
            p.score.is_finite(),
            "{name} reported a non-finite score for ({}, {})",
            p.a,
            p.b
        );
        if p.a > p.b {
            std::mem::swap(&mut p.a, &mut p.b);
        }
    }
    pairs.sort_by_key(|p| (p.a, p.b));
    pairs.dedup_by_key(|p| (p.a, p.b));
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_normalizes_and_rejects() {
        let sp = |a, b| ScoredPair { a, b, score: 0.5 };
        let v = validate_pairs("x", vec![sp(3, 1), sp(1, 3), sp(0, 2)], 4).unwrap();
        assert_eq!(
            v.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(),
            [(0, 2), (1, 3)]
        );
        assert!(
            validate_pairs("x", vec![sp(0, 9)], 4)
                .unwrap_err()
                .to_string()
                .contains("outside")
        );
        assert!(validate_pairs("x", vec![sp(2, 2)], 4).is_err());
        assert!(
            validate_pairs(
                "x",
                vec![ScoredPair {
                    a: 0,
                    b: 1,
                    score: f64::NAN
                }],
                4
            )
            .is_err()
        );
    }
}
