//! Permuted-table designs (Manku, Jain, Das Sarma, WWW 2007, §3.1.1).
//!
//! To find every fingerprint within Hamming distance k of a query, split the f bits into n
//! blocks. A fingerprint differing in at most k bits leaves at least n − k blocks untouched,
//! so if each table puts one choice of n − k blocks in front (its *prefix*), some table sees
//! the pair with an identical prefix: C(n, n − k) tables, each probed by exact prefix match.
//! The *two-level* design first chooses n₁ − k of n₁ blocks, then splits the remaining bits
//! into n₂ blocks and chooses n₂ − k of those: C(n₁, n₁ − k) · C(n₂, n₂ − k) tables with
//! longer prefixes.
//!
//! With 2^d fingerprints, a probe on a p-bit prefix returns about 2^(d − p) of them: more
//! tables buy longer prefixes (fewer candidates) at the price of memory. Blocks are as equal as
//! possible, larger first (Manku's 11, 11, 11, 11, 10, 10 for f = 64, n = 6), and the expected
//! matches are reported for the shortest prefix a table can have (a worst case: "≤ 8").

use crate::error::{Error, Result};

/// A run of bits: `len` bits starting at bit `start` (0 = least significant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// First bit.
    pub start: u32,
    /// Length.
    pub len: u32,
}

/// One permuted table: the bit ranges that form its prefix, most significant first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Prefix ranges, in prefix order.
    pub prefix: Vec<Range>,
    /// The other ranges, in the order they follow the prefix.
    pub rest: Vec<Range>,
}

impl Table {
    /// Number of prefix bits p.
    pub fn prefix_bits(&self) -> u32 {
        self.prefix.iter().map(|r| r.len).sum()
    }
}

/// A set of tables guaranteeing that every pair within distance `distance` shares a prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Design {
    /// Fingerprint width f.
    pub bits: u32,
    /// The distance k it guarantees.
    pub distance: u32,
    /// Blocks per level: `[n]` or `[n₁, n₂]`.
    pub levels: Vec<u32>,
    /// The tables.
    pub tables: Vec<Table>,
}

/// Fingerprint widths with a [`Bits`](super::Bits) type.
pub const SUPPORTED_BITS: [u32; 7] = [32, 64, 128, 192, 256, 384, 512];

/// Checks (f, k) before any design is built.
pub fn check(bits: u32, distance: u32) -> Result<()> {
    if !SUPPORTED_BITS.contains(&bits) {
        return Err(Error::invalid(
            "hamming",
            "bits",
            format!("unsupported fingerprint width {bits}; supported: {SUPPORTED_BITS:?}"),
        ));
    }
    if distance >= bits {
        return Err(Error::invalid(
            "hamming",
            "distance",
            format!("k = {distance} must be smaller than the fingerprint width f = {bits}"),
        ));
    }
    Ok(())
}

/// Splits ranges (taken as one bit sequence, first range most significant) into `n` pieces of
/// as-equal-as-possible length, longer first. A piece may span several ranges.
pub(super) fn split_evenly(ranges: &[Range], n: u32) -> Vec<Vec<Range>> {
    let total: u32 = ranges.iter().map(|r| r.len).sum();
    let (base, extra) = (total / n, total % n);
    // Walk bits from the most significant end of the sequence.
    let mut pieces = Vec::new();
    let mut cursor = ranges.iter().map(|r| (r.start, r.len)).collect::<Vec<_>>();
    let mut idx = 0;
    for i in 0..n {
        let mut want = base + u32::from(i < extra);
        let mut piece = Vec::new();
        while want > 0 {
            let (start, len) = cursor[idx];
            let take = want.min(len);
            // the most significant `take` bits of this range
            piece.push(Range {
                start: start + len - take,
                len: take,
            });
            cursor[idx].1 -= take;
            want -= take;
            if cursor[idx].1 == 0 {
                idx += 1;
            }
        }
        pieces.push(piece);
    }
    pieces
}

/// All `choose`-subsets of `0..n`, lexicographic.
fn combinations(n: u32, choose: u32) -> Vec<Vec<u32>> {
    fn rec(start: u32, n: u32, left: u32, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if left == 0 {
            out.push(cur.clone());
            return;
        }
        for i in start..=n - left {
            cur.push(i);
            rec(i + 1, n, left - 1, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    rec(0, n, choose, &mut Vec::new(), &mut out);
    out
}

/// Cuts ranges longer than 64 bits into 64-bit pieces (most significant first), so every
/// field fits the `Bits` accessors comfortably.
fn at_most_64(ranges: Vec<Range>) -> Vec<Range> {
    let mut out = Vec::with_capacity(ranges.len());
    for r in ranges {
        let mut end = r.start + r.len;
        while end > r.start {
            let len = (end - r.start).min(64);
            out.push(Range {
                start: end - len,
                len,
            });
            end -= len;
        }
    }
    out
}

/// C(n, k), saturating.
fn binomial(n: u32, k: u32) -> u64 {
    let k = k.min(n - k);
    (0..k).fold(1u64, |acc, i| {
        acc.saturating_mul((n - i) as u64) / (i as u64 + 1)
    })
}

/// Most tables a design may have.
pub const MAX_TABLES: u64 = 2000;

fn tables_for(pieces: &[Vec<Range>], choose: u32, fixed: &[Range]) -> Vec<Table> {
    combinations(pieces.len() as u32, choose)
        .into_iter()
        .map(|c| {
            let mut prefix = fixed.to_vec();
            let mut rest = Vec::new();
            for (i, p) in pieces.iter().enumerate() {
                if c.contains(&(i as u32)) {
                    prefix.extend(p.iter().copied());
                } else {
                    rest.extend(p.iter().copied());
                }
            }
            Table {
                prefix: at_most_64(prefix),
                rest: at_most_64(rest),
            }
        })
        .collect()
}

impl Design {
    /// "n blocks, choose n − k": C(n, n − k) tables.
    pub fn single(bits: u32, distance: u32, blocks: u32) -> Result<Design> {
        check(bits, distance)?;
        if blocks <= distance {
            return Err(Error::invalid(
                "hamming",
                "blocks",
                format!(
                    "{blocks} blocks cannot guarantee distance {distance}: need more blocks than k (choose n − k ≥ 1)"
                ),
            ));
        }
        if blocks > bits {
            return Err(Error::invalid(
                "hamming",
                "blocks",
                format!("{blocks} blocks is more than the {bits} bits"),
            ));
        }
        if binomial(blocks, blocks - distance) > MAX_TABLES {
            return Err(Error::invalid(
                "hamming",
                "blocks",
                format!(
                    "{blocks} blocks choose {} is {} tables, more than {MAX_TABLES}",
                    blocks - distance,
                    binomial(blocks, blocks - distance)
                ),
            ));
        }
        let pieces = split_evenly(
            &[Range {
                start: 0,
                len: bits,
            }],
            blocks,
        );
        Ok(Design {
            bits,
            distance,
            levels: vec![blocks],
            tables: tables_for(&pieces, blocks - distance, &[]),
        })
    }

    /// Two levels: choose n₁ − k of n₁ blocks, then n₂ − k of n₂ blocks of the remaining bits.
    pub fn two_level(bits: u32, distance: u32, first: u32, second: u32) -> Result<Design> {
        let top = Design::single(bits, distance, first)?;
        let remaining = top.tables[0].rest.iter().map(|r| r.len).sum::<u32>();
        if second <= distance || second > remaining {
            return Err(Error::invalid(
                "hamming",
                "blocks",
                format!(
                    "second level: {second} blocks of the remaining {remaining} bits cannot guarantee distance {distance}"
                ),
            ));
        }
        let count = top.tables.len() as u64 * binomial(second, second - distance);
        if count > MAX_TABLES {
            return Err(Error::invalid(
                "hamming",
                "blocks",
                format!("{count} tables, more than {MAX_TABLES}"),
            ));
        }
        let mut tables = Vec::new();
        for t in &top.tables {
            tables.extend(tables_for(
                &split_evenly(&t.rest, second),
                second - distance,
                &t.prefix,
            ));
        }
        Ok(Design {
            bits,
            distance,
            levels: vec![first, second],
            tables,
        })
    }

    /// The shortest prefix of any table.
    pub fn min_prefix_bits(&self) -> u32 {
        self.tables
            .iter()
            .map(Table::prefix_bits)
            .min()
            .unwrap_or(0)
    }

    /// The longest prefix of any table.
    pub fn max_prefix_bits(&self) -> u32 {
        self.tables
            .iter()
            .map(Table::prefix_bits)
            .max()
            .unwrap_or(0)
    }

    /// Expected fingerprints returned per probe among `n` random ones, for the shortest
    /// prefix: n / 2^p.
    pub fn expected_matches(&self, n: f64) -> f64 {
        n / 2f64.powi(self.min_prefix_bits() as i32)
    }

    /// Bytes to hold the tables for `n` fingerprints: each table stores every fingerprint
    /// (f/8 bytes) and its 4-byte id.
    pub fn memory_bytes(&self, n: f64) -> f64 {
        self.tables.len() as f64 * n * (self.bits as f64 / 8.0 + 4.0)
    }

    /// "6" or "4+4": blocks per level.
    pub fn blocks(&self) -> String {
        self.levels
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// Candidate designs for f bits, distance k: single-level with n = k+1 … k+6 blocks and
/// two-level with n₁, n₂ ∈ k+1 … k+3, those with at most [`MAX_TABLES`] tables, sorted by
/// number of tables. (For k = 0 they all reduce to one table keyed by the whole fingerprint.)
pub fn candidates(bits: u32, distance: u32) -> Result<Vec<Design>> {
    check(bits, distance)?;
    let mut out = Vec::new();
    for n in distance + 1..=distance + 6 {
        if let Ok(d) = Design::single(bits, distance, n) {
            out.push(d);
        }
    }
    for n1 in distance + 1..=distance + 3 {
        for n2 in distance + 1..=distance + 3 {
            if let Ok(d) = Design::two_level(bits, distance, n1, n2) {
                out.push(d);
            }
        }
    }
    out.sort_by_key(|d| (d.tables.len(), std::cmp::Reverse(d.min_prefix_bits())));
    out.dedup_by(|a, b| {
        a.tables.len() == b.tables.len() && a.min_prefix_bits() == b.min_prefix_bits()
    });
    Ok(out)
}

/// Expected pairs within Hamming distance `k` among `n` independent uniformly random
/// `bits`-bit fingerprints: C(n, 2) · Σᵢ≤ₖ C(bits, i) / 2^bits. Unrelated documents look
/// random to SimHash, so this is how many false pairs a corpus of `n` documents gets by
/// chance — the precision warning of a design.
pub fn random_pairs_within(bits: u32, k: u32, n: f64) -> f64 {
    let mut p = 0.0;
    let mut choose = 1.0f64; // C(bits, i)
    for i in 0..=k.min(bits) {
        if i > 0 {
            choose *= (bits - i + 1) as f64 / i as f64;
        }
        p += choose;
    }
    p /= 2f64.powi(bits as i32);
    n * (n - 1.0) / 2.0 * p
}

/// Fingerprints a query examines with `design` among `n`: every table's matches per probe.
pub fn examined_per_query(design: &Design, n: f64) -> f64 {
    design.tables.len() as f64 * design.expected_matches(n)
}

/// The modelled cost of finding every pair within k among `n` fingerprints with `design`:
/// one sort per table (≈ n · log2 n, × 1.5 for the permutation) plus the candidate pairs
/// checked, n²/2 · 2^−p per table. Few tables of long prefixes win once n is large; past
/// that, more tables only cost memory and sorts.
fn join_cost(design: &Design, n: f64) -> f64 {
    let t = design.tables.len() as f64;
    t * n * n.max(1.0).log2() * 1.5 + t * n * n / 2.0 / 2f64.powi(design.min_prefix_bits() as i32)
}

/// The one rule neardup picks a design by, for its own join ([`best_for_join`]), the
/// parameter guide and `neardup hamming tune`: the lowest [`join_cost`] among the designs
/// whose tables fit in `memory` bytes for `n` fingerprints (fewer tables break ties), if any
/// fits.
pub fn cheapest_within(bits: u32, distance: u32, n: f64, memory: f64) -> Result<Option<Design>> {
    Ok(candidates(bits, distance)?
        .into_iter()
        .filter(|d| d.memory_bytes(n) <= memory)
        .min_by(|a, b| {
            join_cost(a, n)
                .total_cmp(&join_cost(b, n))
                .then(a.tables.len().cmp(&b.tables.len()))
        }))
}

/// One design's costs for `n` fingerprints, as [`DesignsReport`] lists them. (Fields in name
/// order: the document's keys have always been sorted.)
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DesignCost {
    /// Blocks per level ("6" or "4+4").
    pub blocks: String,
    /// Fingerprints a query examines: every table's matches per probe.
    pub examined_per_query: f64,
    /// n / 2^p for the shortest prefix p.
    pub expected_matches_per_probe: f64,
    /// Whether the tables fit the memory budget.
    pub fits_memory: bool,
    /// `memory_bytes`, human-readable.
    pub memory: String,
    /// Bytes of the tables.
    pub memory_bytes: f64,
    /// The shortest prefix any table is keyed by.
    pub prefix_bits: u32,
    /// Number of tables.
    pub tables: usize,
}

/// Every candidate design for a corpus and the cheapest within a budget: what
/// `neardup hamming tune --format json` prints and Python's `neardup.hamming_designs` returns.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DesignsReport {
    /// Fingerprint width f.
    pub bits: u32,
    /// Every candidate design, by number of tables.
    pub designs: Vec<DesignCost>,
    /// Hamming distance k.
    pub distance: u32,
    /// Corpus size N.
    pub fingerprints: f64,
    /// The memory budget, if any.
    pub memory_budget_bytes: Option<u64>,
    /// Unrelated pairs expected within k by chance ([`random_pairs_within`]).
    pub random_pairs_within_distance: f64,
    /// [`cheapest_within`] the budget, if any design fits.
    pub recommended: Option<DesignCost>,
}

/// The designs for `fingerprints` fingerprints of `bits` bits within distance `distance`, with
/// their costs and the cheapest within `memory` bytes (unbounded when `None`).
pub fn designs_report(
    bits: u32,
    distance: u32,
    fingerprints: f64,
    memory: Option<u64>,
) -> Result<DesignsReport> {
    if !(fingerprints >= 1.0 && fingerprints.is_finite()) {
        return Err(Error::invalid(
            "hamming tune",
            "fingerprints",
            format!("must be a number ≥ 1, not {fingerprints}"),
        ));
    }
    let n = fingerprints;
    let budget = memory.map_or(f64::INFINITY, |m| m as f64);
    let cost = |d: &Design| DesignCost {
        blocks: d.blocks(),
        examined_per_query: examined_per_query(d, n),
        expected_matches_per_probe: d.expected_matches(n),
        fits_memory: d.memory_bytes(n) <= budget,
        memory: crate::resources::human_bytes(d.memory_bytes(n).min(u64::MAX as f64) as u64),
        memory_bytes: d.memory_bytes(n).round(),
        prefix_bits: d.min_prefix_bits(),
        tables: d.tables.len(),
    };
    Ok(DesignsReport {
        bits,
        designs: candidates(bits, distance)?.iter().map(cost).collect(),
        distance,
        fingerprints: n,
        memory_budget_bytes: memory,
        random_pairs_within_distance: random_pairs_within(bits, distance, n),
        recommended: cheapest_within(bits, distance, n, budget)?
            .as_ref()
            .map(cost),
    })
}

/// The design neardup's all-pairs join uses over `n` fingerprints: [`cheapest_within`] an
/// unbounded budget.
pub fn best_for_join(bits: u32, distance: u32, n: usize) -> Result<Design> {
    cheapest_within(bits, distance, n.max(2) as f64, f64::INFINITY)?.ok_or_else(|| {
        Error::invalid(
            "hamming",
            "distance",
            format!("no table design guarantees distance {distance} on {bits} bits"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Oracle: the expected random pairs within k equal the share of random pairs a seeded
    /// simulation finds within k (32-bit fingerprints so the share is large enough to count).
    #[test]
    fn random_pairs_within_follows_simulation() {
        const SEED: u64 = 404;
        println!("random_pairs_within_follows_simulation: seed {SEED}");
        let mut rng = crate::hash::SplitMix64::new(SEED);
        let fps: Vec<u32> = (0..3000).map(|_| rng.next_u64() as u32).collect();
        for k in [4u32, 6] {
            let mut found = 0u64;
            for a in 0..fps.len() {
                for b in a + 1..fps.len() {
                    found += ((fps[a] ^ fps[b]).count_ones() <= k) as u64;
                }
            }
            let expected = random_pairs_within(32, k, fps.len() as f64);
            let sd = expected.sqrt();
            println!("k = {k}: {found} found, {expected:.1} expected");
            assert!(
                (found as f64 - expected).abs() < 4.0 * sd,
                "k = {k}: {found} vs {expected}"
            );
        }
        // At Manku's scale: 2^34 random 64-bit fingerprints have C(2^34, 2) · 43,745 / 2^64
        // ≈ 349,960 pairs within k = 3 by chance (43,745 = C(64,0) + … + C(64,3)).
        let p = random_pairs_within(64, 3, 2f64.powi(34));
        assert!((p / 349_960.0 - 1.0).abs() < 1e-4, "{p}");
    }

    #[test]
    fn cheapest_design_within_memory() {
        let n = 2f64.powi(34);
        let gib = |g: f64| g * (1u64 << 30) as f64;
        // Oracle: every candidate's cost, by brute force. Unlimited memory: the lowest cost,
        // and the design the join itself uses (one rule for the join, the guide and tune).
        let all = candidates(64, 3).unwrap();
        let best = cheapest_within(64, 3, n, f64::INFINITY).unwrap().unwrap();
        assert!(all.iter().all(|d| join_cost(d, n) >= join_cost(&best, n)));
        assert_eq!(best, best_for_join(64, 3, 1 << 34).unwrap());
        // At 2^34 the tables of Manku's 20-table region win over 4 tables (2^18 matches a
        // probe) and over hundreds of tables (sorts and memory).
        assert!(
            (10..=100).contains(&best.tables.len()),
            "{}",
            best.tables.len()
        );
        // A budget that fits four tables of 2^34 × 12 bytes but not ten.
        let four = cheapest_within(64, 3, n, gib(800.0)).unwrap().unwrap();
        assert!(four.memory_bytes(n) <= gib(800.0) && four.tables.len() <= 4);
        let fitting = all.iter().filter(|d| d.memory_bytes(n) <= gib(800.0));
        assert!(
            fitting
                .into_iter()
                .all(|d| join_cost(d, n) >= join_cost(&four, n))
        );
        assert!(cheapest_within(64, 3, n, 1e6).unwrap().is_none());
    }

    /// Manku et al.'s designs for f = 64, k = 3, d = 34 (reports/published/SOURCES.md).
    #[test]
    fn manku_designs() {
        let d20 = Design::single(64, 3, 6).unwrap();
        assert_eq!(d20.tables.len(), 20);
        let sizes: Vec<u32> = split_evenly(&[Range { start: 0, len: 64 }], 6)
            .iter()
            .map(|p| p.iter().map(|r| r.len).sum())
            .collect();
        assert_eq!(sizes, [11, 11, 11, 11, 10, 10]);
        assert_eq!((d20.min_prefix_bits(), d20.max_prefix_bits()), (31, 33));
        assert!(d20.expected_matches(2f64.powi(34)) <= 8.0);
        let d16 = Design::two_level(64, 3, 4, 4).unwrap();
        assert_eq!((d16.tables.len(), d16.min_prefix_bits()), (16, 28));
        assert_eq!(d16.expected_matches(2f64.powi(34)), 64.0);
        let d10 = Design::single(64, 3, 5).unwrap();
        assert_eq!(
            (
                d10.tables.len(),
                d10.min_prefix_bits(),
                d10.max_prefix_bits()
            ),
            (10, 25, 26)
        );
        assert_eq!(d10.expected_matches(2f64.powi(34)), 512.0);
        let d4 = Design::single(64, 3, 4).unwrap();
        assert_eq!((d4.tables.len(), d4.min_prefix_bits()), (4, 16));
        assert_eq!(d4.expected_matches(2f64.powi(34)), 2f64.powi(18));
    }

    #[test]
    fn every_table_covers_every_bit_once() {
        for d in candidates(64, 3).unwrap() {
            for t in &d.tables {
                let mut seen = 0u128;
                for r in t.prefix.iter().chain(&t.rest) {
                    for b in r.start..r.start + r.len {
                        assert_eq!(seen >> b & 1, 0, "bit {b} twice");
                        seen |= 1 << b;
                    }
                }
                assert_eq!(seen, (1u128 << 64) - 1);
            }
        }
    }

    #[test]
    fn impossible_designs_are_errors() {
        assert!(
            Design::single(64, 3, 3)
                .unwrap_err()
                .to_string()
                .contains("more blocks than k")
        );
        assert!(
            Design::single(64, 64, 70)
                .unwrap_err()
                .to_string()
                .contains("smaller than")
        );
        assert!(
            Design::single(48, 3, 6)
                .unwrap_err()
                .to_string()
                .contains("unsupported")
        );
        assert!(
            Design::single(384, 84, 91)
                .unwrap_err()
                .to_string()
                .contains("more than 2000")
        );
        assert!(
            Design::single(32, 3, 40)
                .unwrap_err()
                .to_string()
                .contains("more than the 32 bits")
        );
        assert!(Design::two_level(32, 3, 4, 30).is_err());
    }

    #[test]
    fn join_design_for_a_million() {
        let d = best_for_join(64, 3, 1_000_000).unwrap();
        assert_eq!(d.tables.len(), 4, "{d:?}");
    }
}
