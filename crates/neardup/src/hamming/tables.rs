//! The permuted-table index and the all-pairs join (Manku et al., WWW 2007, §3.1).
//!
//! * [`PermutedTables`]: every table holds all fingerprints with their bits permuted so the
//!   table's prefix comes first, sorted; a query permutes itself the same way, finds the run of
//!   entries sharing its prefix by binary search, and keeps those within distance k (a bit
//!   permutation preserves Hamming distance, so permuted values are compared directly).
//! * [`all_pairs`]: the batch join. For each table, entries are radix-sorted by prefix and every
//!   pair inside a run of equal prefixes is checked. A pair is reported only by the *first*
//!   table whose prefix it shares, so each pair appears once without a global deduplication.
//!   Tables run in parallel; the output is sorted, so it never depends on the thread count.

use rayon::prelude::*;

use super::Bits;
use super::design::{Design, Table, best_for_join};
use super::run_split::{MIN_SPLIT_PER_PIECE, RunJoin, Scope, key_of, mask_of};
use crate::error::{Error, Result};
use crate::heavy::runs::{HEAVY, spanning_forest, try_connect_run};
use crate::pairs::Budget;

/// `fp` with `table`'s prefix ranges moved to the top, the other ranges after them.
#[inline]
pub fn permute<B: Bits>(fp: B, table: &Table) -> B {
    let mut out = B::ZERO;
    let mut pos = B::BITS;
    for r in table.prefix.iter().chain(&table.rest) {
        pos -= r.len;
        out = out.with_field(pos, r.len, fp.field(r.start, r.len));
    }
    out
}

/// The join keys of `fp` under `design`, one per table: the table's prefix (hashed when over
/// 64 bits). Two fingerprints within the design's distance share the key of at least one
/// table (the pigeonhole argument of Manku et al., WWW 2007, §3.1), so grouping fingerprints
/// by (table, key) finds every such pair: what a join that cannot hold the tables in memory
/// (spilled to disk, distributed) groups by.
pub fn table_keys<B: Bits>(fp: B, design: &Design, out: &mut [u64]) {
    debug_assert_eq!(out.len(), design.tables.len());
    for (o, table) in out.iter_mut().zip(&design.tables) {
        *o = key_of(fp, &table.prefix, table.prefix_bits());
    }
}

fn check_width<B: Bits>(design: &Design) -> Result<()> {
    if design.bits != B::BITS {
        return Err(Error::invalid(
            "hamming",
            "bits",
            format!(
                "design for {}-bit fingerprints used with {}-bit ones",
                design.bits,
                B::BITS
            ),
        ));
    }
    Ok(())
}

fn check_distance(design: &Design, k: u32) -> Result<()> {
    if k > design.distance {
        return Err(Error::invalid(
            "hamming",
            "distance",
            format!(
                "query distance {k} exceeds the {} the table design guarantees",
                design.distance
            ),
        ));
    }
    Ok(())
}

/// A permuted-table index over fingerprints.
#[derive(Debug, Clone)]
pub struct PermutedTables<B: Bits> {
    design: Design,
    /// Per table: (permuted fingerprint, id), sorted.
    tables: Vec<Vec<(B, u32)>>,
}

impl<B: Bits> PermutedTables<B> {
    /// Builds every table of `design` over `fps` (ids are indices), in parallel.
    pub fn build(design: Design, fps: &[B]) -> Result<Self> {
        check_width::<B>(&design)?;
        if fps.len() > u32::MAX as usize {
            return Err(Error::invalid(
                "hamming",
                "fingerprints",
                "at most 2^32 − 1 fingerprints",
            ));
        }
        let tables = design
            .tables
            .par_iter()
            .map(|t| {
                let mut v: Vec<(B, u32)> = fps
                    .iter()
                    .enumerate()
                    .map(|(i, &f)| (permute(f, t), i as u32))
                    .collect();
                v.par_sort_unstable();
                v
            })
            .collect();
        Ok(PermutedTables { design, tables })
    }

    /// The design.
    pub fn design(&self) -> &Design {
        &self.design
    }

    /// Ids of fingerprints within distance `k` (≤ the design's distance) of `q`, ascending.
    pub fn query(&self, q: B, k: u32) -> Result<Vec<u32>> {
        check_distance(&self.design, k)?;
        let mut out = Vec::new();
        for (t, entries) in self.design.tables.iter().zip(&self.tables) {
            let p = t.prefix_bits();
            let pq = permute(q, t);
            let low_bits = B::BITS - p;
            let lo = B::ZERO.with_field(low_bits, p, pq.field(low_bits, p));
            let hi = lo.or(B::ones(0, low_bits));
            let start = entries.partition_point(|e| e.0 < lo);
            let end = entries.partition_point(|e| e.0 <= hi);
            out.extend(
                entries[start..end]
                    .iter()
                    .filter(|e| e.0.distance(pq) <= k)
                    .map(|e| e.1),
            );
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// Heap bytes of the tables.
    pub fn heap_bytes(&self) -> usize {
        self.tables
            .iter()
            .map(|t| t.capacity() * std::mem::size_of::<(B, u32)>())
            .sum()
    }
}

/// LSD radix sort of (key, id) by the low `key_bits` bits of the key, 11 bits per pass.
fn radix_sort(mut v: Vec<(u64, u32)>, key_bits: u32) -> Vec<(u64, u32)> {
    const DIGIT: u32 = 11;
    let mut tmp = vec![(0u64, 0u32); v.len()];
    let passes = key_bits.div_ceil(DIGIT).max(1);
    for pass in 0..passes {
        let shift = pass * DIGIT;
        let mut count = vec![0usize; 1 << DIGIT];
        for e in &v {
            count[((e.0 >> shift) & ((1 << DIGIT) - 1)) as usize] += 1;
        }
        let mut sum = 0;
        for c in &mut count {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for e in &v {
            let d = ((e.0 >> shift) & ((1 << DIGIT) - 1)) as usize;
            tmp[count[d]] = *e;
            count[d] += 1;
        }
        std::mem::swap(&mut v, &mut tmp);
    }
    v
}

/// Every pair (i < j) of `fps` within distance `k`, packed and sorted — exactly the
/// brute-force set. `design` defaults to the cheapest for the corpus size
/// ([`best_for_join`]); it must guarantee at least distance `k`. Runs of a shared prefix
/// that the data makes long are split further ([`run_split`](super::run_split)).
pub fn all_pairs<B: Bits>(fps: &[B], k: u32, design: Option<&Design>) -> Result<Vec<u64>> {
    Ok(join(fps, k, design, MIN_SPLIT_PER_PIECE, false)?.0)
}

/// [`all_pairs`] for a consumer of connectivity: a run of more than
/// [`crate::heavy::runs::HEAVY`] fingerprints sharing a table's prefix is first connected by
/// edges within `k` (`heavy::runs::try_connect_run`, at most [`CONNECT_COMPARISONS`] per
/// member: a heavy cluster of near copies), and only when that does not pay (a run of skewed
/// fingerprints that are not near each other) joined pair by pair as in [`all_pairs`]. The
/// pairs connect the fingerprints exactly as [`all_pairs`]' do. Sorted, each once.
pub fn connecting_pairs<B: Bits>(fps: &[B], k: u32, design: Option<&Design>) -> Result<Vec<u64>> {
    let mut pairs = join(fps, k, design, MIN_SPLIT_PER_PIECE, true)?.0;
    pairs.dedup();
    Ok(pairs)
}

/// Comparisons per member a heavy run may take to be connected before it is joined pair by
/// pair instead: near copies take one each, a dense cluster whose members are within k of a
/// few percent of the others a few dozen; fingerprints that are not near each other give up
/// after this many, far fewer than the run's pairs.
pub const CONNECT_COMPARISONS: u64 = 64;

/// One table's part of the join: its pairs, its heavy runs' edges, the pairs it checked.
type TableJoin = (Vec<u64>, Vec<u64>, u64);

/// [`all_pairs`] with runs split past `min_split_per_piece` fingerprints per piece; also
/// returns the candidate pairs whose distance was computed.
fn join<B: Bits>(
    fps: &[B],
    k: u32,
    design: Option<&Design>,
    min_split_per_piece: usize,
    connect: bool,
) -> Result<(Vec<u64>, u64)> {
    let chosen;
    let design = match design {
        Some(d) => d,
        None => {
            chosen = best_for_join(B::BITS, k, fps.len())?;
            &chosen
        }
    };
    check_width::<B>(design)?;
    check_distance(design, k)?;
    let masks: Vec<B> = design.tables.iter().map(|t| mask_of(&t.prefix)).collect();
    let budget = Budget::new("the Hamming join")?;
    let per_table: Vec<Result<TableJoin>> = design
        .tables
        .par_iter()
        .enumerate()
        .map(|(t, table)| {
            let p = table.prefix_bits();
            let keyed: Vec<(u64, u32)> = fps
                .iter()
                .enumerate()
                .map(|(i, &f)| (key_of(f, &table.prefix, p), i as u32))
                .collect();
            let sorted = radix_sort(keyed, if p <= 64 { p } else { 64 });
            // A pair is reported only by the first table whose prefix it shares.
            let scope = Scope {
                required: masks[t],
                excluded: masks[..t].to_vec(),
                rest: table.rest.clone(),
            };
            let mut runs = RunJoin::new(k, &budget, min_split_per_piece);
            let mut members = Vec::new();
            let mut connected = Vec::new();
            let near = |a: u32, b: u32| fps[a as usize].distance(fps[b as usize]) <= k;
            for run in sorted.chunk_by(|x, y| x.0 == y.0) {
                if connect && run.len() > HEAVY {
                    let docs: Vec<u32> = run.iter().map(|e| e.1).collect();
                    let cap = CONNECT_COMPARISONS * docs.len() as u64;
                    if try_connect_run(&docs, &near, cap, &mut connected) {
                        continue;
                    }
                }
                if run.len() > 1 {
                    members.clear();
                    members.extend(run.iter().map(|e| (fps[e.1 as usize], e.1)));
                    runs.join(&members, &scope)?;
                }
            }
            let checked = runs.checked;
            Ok((runs.finish()?, connected, checked))
        })
        .collect();
    let mut all = Vec::new();
    let mut connected = Vec::new();
    let mut checked = 0;
    for table in per_table {
        let (pairs, edges, n) = table?;
        all.extend(pairs);
        connected.extend(edges);
        checked += n;
    }
    // Heavy runs' edges, one set per table: a forest of them connects the same documents.
    all.extend(spanning_forest(connected));
    all.par_sort_unstable();
    Ok((all, checked))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hamming::brute;
    use crate::hamming::design::{Design, candidates};
    use crate::hash::SplitMix64;
    use proptest::prelude::*;

    /// Random fingerprints with planted neighbours at distance 0..=max_flip.
    fn planted<B: Bits>(
        rng: &mut SplitMix64,
        n: usize,
        planted: usize,
        max_flip: u32,
        make: impl Fn(&mut SplitMix64) -> B,
    ) -> Vec<B> {
        let mut v: Vec<B> = (0..n).map(|_| make(rng)).collect();
        for _ in 0..planted {
            let src = v[rng.below(v.len() as u64) as usize];
            let flips = rng.below(max_flip as u64 + 1) as u32;
            let mut f = src;
            for _ in 0..flips {
                f = f.flip(rng.below(B::BITS as u64) as u32);
            }
            v.push(f);
        }
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// Heavy clusters (hundreds of fingerprints planted around a few, within and beyond
        /// k) among random and skewed ones: the connecting join's pairs are within k and
        /// connect exactly as every pair within k does.
        #[test]
        fn connecting_pairs_connect_as_all_pairs(seed: u64, k in 0u32..=4, heavy in 65usize..600) {
            let mut rng = SplitMix64::new(seed);
            let mut fps: Vec<u64> = planted(&mut rng, 200, 100, k + 2, |r| r.next_u64() & 0xffff_0f0f_ffff_ffff);
            for _ in 0..3 {
                let centre = rng.next_u64();
                for _ in 0..heavy {
                    let mut f = centre;
                    for _ in 0..rng.below(k as u64 + 3) {
                        f = f.flip(rng.below(64) as u32);
                    }
                    fps.push(f);
                }
            }
            let oracle = brute::all_pairs(&fps, k);
            let got = connecting_pairs(&fps, k, None).unwrap();
            let within = |&p: &u64| {
                let (a, b) = crate::pairs::unpack(p);
                fps[a as usize].distance(fps[b as usize]) <= k
            };
            prop_assert!(got.iter().all(within), "a pair beyond k");
            let components = |pairs: &[u64]| crate::cluster::connected_components(
                fps.len(), pairs.iter().map(|&p| crate::pairs::unpack(p)));
            prop_assert_eq!(components(&got), components(&oracle));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn join_and_index_equal_brute_force_64(seed: u64, k in 0u32..=6, n in 1usize..300) {
            let mut rng = SplitMix64::new(seed);
            let fps: Vec<u64> = planted(&mut rng, n, n / 2, k + 2, |r| r.next_u64());
            let oracle = brute::all_pairs(&fps, k);
            prop_assert_eq!(&all_pairs(&fps, k, None).unwrap(), &oracle);
            for design in candidates(64, k).unwrap().into_iter().take(4) {
                prop_assert_eq!(&all_pairs(&fps, k, Some(&design)).unwrap(), &oracle, "{:?}", design.levels);
                let index = PermutedTables::build(design, &fps).unwrap();
                for (i, &q) in fps.iter().enumerate().take(40) {
                    prop_assert_eq!(index.query(q, k).unwrap(), brute::query(&fps, q, k), "query {}", i);
                }
            }
        }

        #[test]
        fn join_and_index_equal_brute_force_32(seed: u64, k in 0u32..=6, n in 1usize..300) {
            let mut rng = SplitMix64::new(seed);
            // Few distinct high bits: many shared prefixes, long runs.
            let fps: Vec<u32> = planted(&mut rng, n, n, k + 2, |r| (r.next_u64() as u32) & 0x0f0f_ffff);
            let oracle = brute::all_pairs(&fps, k);
            for design in candidates(32, k).unwrap() {
                prop_assert_eq!(&all_pairs(&fps, k, Some(&design)).unwrap(), &oracle, "{:?}", design.levels);
                let index = PermutedTables::build(design, &fps).unwrap();
                for &q in fps.iter().take(30) {
                    prop_assert_eq!(index.query(q, k).unwrap(), brute::query(&fps, q, k));
                }
            }
        }
    }

    /// Fingerprints in tight clusters: each a base with up to `spread` bits flipped, some
    /// copied exactly, so that the join's runs are long and the runs are split.
    fn clustered<B: Bits>(
        rng: &mut SplitMix64,
        n: usize,
        clusters: usize,
        spread: u32,
        make: impl Fn(&mut SplitMix64) -> B,
    ) -> Vec<B> {
        let bases: Vec<B> = (0..clusters.max(1)).map(|_| make(rng)).collect();
        (0..n)
            .map(|_| {
                let mut f = bases[rng.below(bases.len() as u64) as usize];
                for _ in 0..rng.below(spread as u64 + 1) {
                    f = f.flip(rng.below(B::BITS as u64) as u32);
                }
                f
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Oracle: brute force, with every run split that can be (threshold 0), with none
        /// split, and with the default, over designs of one and two levels.
        #[test]
        fn split_runs_equal_brute_force_64(seed: u64, k in 0u32..=5, n in 2usize..400, clusters in 1usize..6, spread in 0u32..12) {
            let mut rng = SplitMix64::new(seed);
            let fps: Vec<u64> = clustered(&mut rng, n, clusters, spread, |r| r.next_u64());
            let oracle = brute::all_pairs(&fps, k);
            for design in candidates(64, k).unwrap().into_iter().take(3) {
                for min_split in [0, MIN_SPLIT_PER_PIECE, usize::MAX] {
                    prop_assert_eq!(&join(&fps, k, Some(&design), min_split, false).unwrap().0, &oracle, "{:?} split past {}", design.levels, min_split);
                }
            }
        }

        /// The same for random-projection's 384-bit fingerprints and Henzinger's design
        /// (d + 1 blocks of 32 bits), where the pieces of a split run span several words.
        #[test]
        fn split_runs_equal_brute_force_384(seed: u64, k in 0u32..=11, n in 2usize..300, clusters in 1usize..4, spread in 0u32..20) {
            use crate::hamming::Wide;
            let mut rng = SplitMix64::new(seed);
            let fps: Vec<Wide<6>> = clustered(&mut rng, n, clusters, spread, |r| Wide(std::array::from_fn(|_| r.next_u64())));
            let oracle = brute::all_pairs(&fps, k);
            let design = Design::single(384, k, k + 1).unwrap();
            for min_split in [0, MIN_SPLIT_PER_PIECE, usize::MAX] {
                prop_assert_eq!(&join(&fps, k, Some(&design), min_split, false).unwrap().0, &oracle, "split past {}", min_split);
            }
        }
    }

    /// Splitting is what makes a skewed corpus cheap: 3,000 fingerprints that share their
    /// top 32 bits put every fingerprint in one run of each table whose prefix lies there;
    /// split, the join computes under a tenth of the distances, and finds the same pairs.
    #[test]
    fn splitting_long_runs_checks_far_fewer_candidates() {
        let mut rng = SplitMix64::new(5);
        let mut fps: Vec<u64> = (0..3000)
            .map(|_| 0xdead_beef_0000_0000 | (rng.next_u64() >> 32))
            .collect();
        // Planted neighbours within k = 3.
        for i in 0..300 {
            fps.push(fps[i * 7] ^ (1 << (i % 32)) ^ (1 << ((i * 5) % 32)));
        }
        let design = Design::single(64, 3, 4).unwrap();
        let (split, split_checked) =
            join(&fps, 3, Some(&design), MIN_SPLIT_PER_PIECE, false).unwrap();
        let (whole, whole_checked) = join(&fps, 3, Some(&design), usize::MAX, false).unwrap();
        assert_eq!(split, whole);
        assert_eq!(split, brute::all_pairs(&fps, 3));
        assert!(split.len() >= 300, "{} pairs", split.len());
        assert!(
            split_checked * 10 < whole_checked,
            "{split_checked} candidates split, {whole_checked} whole"
        );
    }

    /// A run of identical fingerprints is found again by every piece: it is checked pair by
    /// pair (every pair is reported), not split again and again.
    #[test]
    fn identical_fingerprints_are_not_split_forever() {
        let mut rng = SplitMix64::new(9);
        let mut fps: Vec<u128> = vec![0x1234_5678_9abc_def0_0fed_cba9_8765_4321; 600];
        fps.extend((0..600).map(|_| (rng.next_u64() as u128) << 64 | rng.next_u64() as u128));
        let design = Design::single(128, 5, 6).unwrap();
        let (pairs, checked) = join(&fps, 5, Some(&design), MIN_SPLIT_PER_PIECE, false).unwrap();
        assert_eq!(pairs.len(), 600 * 599 / 2);
        assert_eq!(pairs, brute::all_pairs(&fps, 5));
        // Each table's run of 600, once: no split found it again.
        assert!(checked <= 6 * 600 * 599 / 2 + 1000, "{checked} candidates");
    }

    #[test]
    fn u128_join_equals_brute_force() {
        let mut rng = SplitMix64::new(11);
        let fps: Vec<u128> = planted(&mut rng, 400, 300, 6, |r| {
            (r.next_u64() as u128) << 64 | r.next_u64() as u128
        });
        for k in [0, 3, 5] {
            assert_eq!(
                all_pairs(&fps, k, None).unwrap(),
                brute::all_pairs(&fps, k),
                "k={k}"
            );
        }
    }

    /// Manku's seed example: 32-bit fingerprints in 4 segments of 8 bits and k = 3 — every
    /// pair within distance 3 agrees exactly on at least one segment. Checked exhaustively for
    /// every way of flipping up to 3 of the 32 bits.
    #[test]
    fn four_segments_of_eight_bits_k3() {
        let base: u32 = 0x9e37_79b9;
        let segment_equal =
            |a: u32, b: u32| (0..4).any(|s| (a >> (8 * s)) & 0xff == (b >> (8 * s)) & 0xff);
        let mut checked = 0;
        for i in 0..32 {
            for j in i..32 {
                for l in j..32 {
                    let x = base ^ (1 << i) ^ (1 << j) ^ (1 << l); // 1 or 3 flips (or 1 when i=j=l)
                    let y = base ^ (1 << i) ^ (1 << j);
                    assert!(segment_equal(base, x) && segment_equal(base, y));
                    checked += 1;
                }
            }
        }
        assert!(checked > 5000);
        // And the table design that encodes it: 4 blocks of 8 bits, choose 1.
        let d = Design::single(32, 3, 4).unwrap();
        assert_eq!((d.tables.len(), d.min_prefix_bits()), (4, 8));
    }

    #[test]
    fn distance_beyond_design_is_an_error() {
        let d = Design::single(64, 2, 3).unwrap();
        assert!(all_pairs(&[1u64, 2], 3, Some(&d)).is_err());
        let index = PermutedTables::build(d, &[1u64, 2]).unwrap();
        assert!(index.query(1, 3).is_err());
        let wrong = Design::single(32, 2, 3).unwrap();
        assert!(PermutedTables::<u64>::build(wrong, &[1]).is_err());
    }

    #[test]
    fn radix_sort_sorts() {
        let mut rng = SplitMix64::new(3);
        let v: Vec<(u64, u32)> = (0..5000).map(|i| (rng.next_u64() >> 30, i)).collect();
        let mut expected = v.clone();
        expected.sort_by_key(|e| e.0);
        let got = radix_sort(v, 34);
        assert_eq!(
            got.iter().map(|e| e.0).collect::<Vec<_>>(),
            expected.iter().map(|e| e.0).collect::<Vec<_>>()
        );
    }
}
