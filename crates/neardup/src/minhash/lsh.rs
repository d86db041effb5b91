//! LSH banding (MMDS §3.4.1): band keys, the batch all-pairs join, and an incremental index.
//!
//! A band key is a 64-bit hash of the band's `r` values seeded with the band number, so keys of
//! different bands never need separate tables. Two ways to get candidates:
//!
//! * [`band_collisions`] — batch: for each band, sort (key, doc) and emit every pair inside a
//!   run of equal keys. No hash map, one sort per band, bands in parallel; output in a fixed
//!   order, so results do not depend on the thread count.
//! * [`LshIndex`] — streaming: insert signatures one at a time and query any signature.
//!
//! Both are tested against a brute-force oracle that compares every pair's band *values*.

use rayon::prelude::*;

use crate::error::Result;
use crate::hash::{combine, hash_sequence, mix64, sequence_start};
use crate::heavy::runs::{run_candidates, spanning_forest};
use crate::pairs::Budget;
use crate::streaming::SignatureTable;

/// A banding of a signature: `bands` bands of `rows` consecutive rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Banding {
    bands: usize,
    rows: usize,
}

impl Banding {
    /// A banding for signatures of length `num_perm` (errors when b·r > num_perm or b, r = 0).
    pub fn new(bands: usize, rows: usize, num_perm: usize) -> Result<Self> {
        super::banding::validate(bands, rows, num_perm, "lsh")?;
        Ok(Banding { bands, rows })
    }

    /// Number of bands b.
    pub fn bands(&self) -> usize {
        self.bands
    }

    /// Rows per band r.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The key of band `band` of `signature`.
    #[inline]
    pub fn key(&self, signature: &[u32], band: usize) -> u64 {
        let start = band * self.rows;
        hash_sequence(
            band as u64,
            signature[start..start + self.rows]
                .iter()
                .map(|&v| v as u64),
        )
    }

    /// The keys of all bands of `signature` into `out[..bands]`, each equal to
    /// [`key`](Self::key). One key is a serial chain of a multiply per value; here the bands'
    /// chains advance side by side, one value of every band per step, so they overlap instead
    /// of waiting on each other, and the row is read once rather than once per band.
    #[inline]
    pub fn keys_into(&self, signature: &[u32], out: &mut [u64]) {
        let (bands, rows) = (self.bands, self.rows);
        let signature = &signature[..bands * rows];
        let keys = &mut out[..bands];
        for (band, acc) in keys.iter_mut().enumerate() {
            *acc = sequence_start(band as u64);
        }
        for r in 0..rows {
            for (band, acc) in keys.iter_mut().enumerate() {
                *acc = combine(*acc, u64::from(signature[band * rows + r]));
            }
        }
        for acc in keys.iter_mut() {
            *acc = mix64(*acc);
        }
    }
}

/// Every document's band keys, document by document (`bands` keys a row), computed in
/// parallel. Each signature is read once for all its bands; keyed band by band, the loop
/// walked the whole signature table at a stride once per band and each key waited on its own
/// chain: the join of 200,000 signatures at 9 × 13 took 1.6× the time.
fn band_keys(signatures: &SignatureTable, banding: &Banding) -> Vec<u64> {
    let bands = banding.bands;
    let mut keys = vec![0u64; signatures.len() * bands];
    keys.par_chunks_mut(bands)
        .with_min_len(1024)
        .enumerate()
        .for_each(|(i, out)| banding.keys_into(signatures.row(i), out));
    keys
}

/// Every (pair, band) collision: a packed pair appears once for each band in which its two
/// signatures agree. Empty documents take no part. Sorted. Collisions are spent from the
/// pair budget as they are found (`pairs::Budget`), so too loose a banding fails before it
/// fills memory.
pub fn band_collisions(
    signatures: &(impl AsRef<SignatureTable> + ?Sized),
    banding: &Banding,
) -> Result<Vec<u64>> {
    collisions(signatures.as_ref(), banding, None)
}

/// Per band, sorts (key, doc) and turns each run of equal keys into pairs — or, with
/// `verify`, a run of more than [`crate::heavy::HEAVY`] documents into the edges that connect
/// it (`heavy::run_candidates`).
fn collisions(
    signatures: &SignatureTable,
    banding: &Banding,
    verify: Option<&(dyn Fn(u32, u32) -> bool + Sync)>,
) -> Result<Vec<u64>> {
    let budget = Budget::new("LSH banding")?;
    let bands = banding.bands;
    let keys = band_keys(signatures, banding);
    let per_band: Vec<Result<(Vec<u64>, Vec<u64>)>> = (0..bands)
        .into_par_iter()
        .map(|band| {
            if budget.exceeded() {
                return Err(budget.error());
            }
            let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(signatures.len());
            keyed.extend(
                (0..signatures.len())
                    .filter(|&i| !signatures.is_empty_doc(i))
                    .map(|i| (keys[i * bands + band], i as u32)),
            );
            keyed.sort_unstable();
            let (mut pairs, mut edges) = (Vec::new(), Vec::new());
            run_candidates(&keyed, verify, &budget, &mut pairs, &mut edges)?;
            Ok((pairs, edges))
        })
        .collect();
    let (per_band, edges): (Vec<Vec<u64>>, Vec<Vec<u64>>) = per_band
        .into_iter()
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let mut all = per_band.concat();
    // Heavy runs' edges, one set per band: a forest of them connects the same documents.
    all.extend(spanning_forest(edges.concat()));
    all.par_sort_unstable();
    Ok(all)
}

/// Candidate pairs: pairs that agree on at least one band, sorted, each once.
pub fn candidate_pairs(
    signatures: &(impl AsRef<SignatureTable> + ?Sized),
    banding: &Banding,
) -> Result<Vec<u64>> {
    let mut c = band_collisions(signatures, banding)?;
    c.dedup();
    Ok(c)
}

/// Candidate pairs for a consumer of connectivity: [`candidate_pairs`], except that a band's
/// run of more than [`crate::heavy::HEAVY`] documents gives only the `verify`d edges that
/// connect it (`heavy::connect_run`): linear in a heavy cluster of near copies. Sorted, each
/// once.
pub fn connecting_pairs(
    signatures: &SignatureTable,
    banding: &Banding,
    verify: &(dyn Fn(u32, u32) -> bool + Sync),
) -> Result<Vec<u64>> {
    let mut c = collisions(signatures, banding, Some(verify))?;
    c.dedup();
    Ok(c)
}

type KeyMap<V> = crate::hash::HashedKeyMap<V>;

/// An incremental LSH index: one table per band mapping band keys to document ids.
#[derive(Debug, Clone)]
pub struct LshIndex {
    banding: Banding,
    tables: Vec<KeyMap<Vec<u32>>>,
}

impl LshIndex {
    /// An empty index.
    pub fn new(banding: Banding) -> Self {
        LshIndex {
            banding,
            tables: (0..banding.bands).map(|_| KeyMap::default()).collect(),
        }
    }

    /// Adds document `id` with `signature`.
    pub fn insert(&mut self, id: u32, signature: &[u32]) {
        for (band, table) in self.tables.iter_mut().enumerate() {
            table
                .entry(self.banding.key(signature, band))
                .or_default()
                .push(id);
        }
    }

    /// Removes document `id`, inserted with `signature` (the index keeps ids, not
    /// signatures, so the caller supplies it); returns whether it was there. Empty buckets
    /// are dropped so that removal frees memory.
    pub fn remove(&mut self, id: u32, signature: &[u32]) -> bool {
        let mut found = false;
        for (band, table) in self.tables.iter_mut().enumerate() {
            let key = self.banding.key(signature, band);
            if let Some(ids) = table.get_mut(&key)
                && let Some(at) = ids.iter().position(|&x| x == id)
            {
                ids.swap_remove(at);
                found = true;
                if ids.is_empty() {
                    table.remove(&key);
                }
            }
        }
        found
    }

    /// Ids whose signature agrees with `signature` on at least one band, sorted, each once.
    pub fn query(&self, signature: &[u32]) -> Vec<u32> {
        let mut out = Vec::new();
        for (band, table) in self.tables.iter().enumerate() {
            if let Some(ids) = table.get(&self.banding.key(signature, band)) {
                out.extend_from_slice(ids);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::SplitMix64;
    use crate::minhash::{MinHasher, Signatures, banding::candidate_probability};
    use crate::pairs::pack;
    use proptest::prelude::*;

    /// The oracle: every pair, every band, compare the band's values directly.
    fn brute_force(rows: &[Vec<u32>], banding: &Banding) -> Vec<u64> {
        let mut out = Vec::new();
        for a in 0..rows.len() {
            for b in a + 1..rows.len() {
                let r = banding.rows;
                if (0..banding.bands).any(|band| {
                    rows[a][band * r..(band + 1) * r] == rows[b][band * r..(band + 1) * r]
                }) {
                    out.push(pack(a as u32, b as u32));
                }
            }
        }
        out
    }

    proptest! {
        // Small value alphabets make band collisions frequent.
        #[test]
        fn batch_and_incremental_equal_brute_force(
            (bands, rows, docs) in (1usize..5, 1usize..4).prop_flat_map(|(b, r)| {
                (Just(b), Just(r), prop::collection::vec(prop::collection::vec(0u32..3, b * r + 1), 0..40))
            })
        ) {
            let num_perm = bands * rows + 1;
            let banding = Banding::new(bands, rows, num_perm).unwrap();
            let sigs = Signatures::from_rows(num_perm, &docs);
            let oracle = brute_force(&docs, &banding);
            prop_assert_eq!(&candidate_pairs(&sigs, &banding).unwrap(), &oracle);

            let mut index = LshIndex::new(banding);
            for (i, d) in docs.iter().enumerate() {
                index.insert(i as u32, d);
            }
            let mut incremental = Vec::new();
            for (i, d) in docs.iter().enumerate() {
                for j in index.query(d) {
                    if (i as u32) < j {
                        incremental.push(pack(i as u32, j));
                    }
                }
            }
            incremental.sort_unstable();
            prop_assert_eq!(&incremental, &oracle);

            // Removing every odd document leaves exactly the oracle's pairs among even ones.
            for (i, d) in docs.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
                prop_assert!(index.remove(i as u32, d));
                prop_assert!(!index.remove(i as u32, d));
            }
            let mut kept = Vec::new();
            for (i, d) in docs.iter().enumerate() {
                for j in index.query(d) {
                    prop_assert!(j % 2 == 0, "removed id {} still answers", j);
                    if (i as u32) < j && i % 2 == 0 {
                        kept.push(pack(i as u32, j));
                    }
                }
            }
            kept.sort_unstable();
            let even: Vec<u64> = oracle
                .iter()
                .copied()
                .filter(|&p| { let (a, b) = crate::pairs::unpack(p); a % 2 == 0 && b % 2 == 0 })
                .collect();
            prop_assert_eq!(&kept, &even);
        }
    }

    proptest! {
        // Oracle: `keys_into` gives, band by band, what `key` gives for that band alone, with
        // signatures longer than the banding (the rows past b·r are not read).
        #[test]
        fn all_band_keys_equal_each_band_key(
            (bands, rows, extra) in (1usize..12, 1usize..15, 0usize..5),
            seed in any::<u64>(),
        ) {
            let mut rng = SplitMix64::new(seed);
            let signature: Vec<u32> = (0..bands * rows + extra).map(|_| rng.next_u64() as u32).collect();
            let banding = Banding::new(bands, rows, signature.len()).unwrap();
            let mut keys = vec![0; bands + 1];
            banding.keys_into(&signature, &mut keys);
            for (band, &key) in keys[..bands].iter().enumerate() {
                prop_assert_eq!(key, banding.key(&signature, band), "band {}", band);
            }
            prop_assert_eq!(keys[bands], 0, "a slot past the bands was written");
        }
    }

    /// The empirical candidate rate of pairs with known Jaccard lies in the 95 %
    /// binomial interval around the S-curve's P(s), for several s and bandings.
    #[test]
    fn candidate_rate_follows_the_s_curve() {
        const SEED: u64 = 77;
        println!("candidate_rate_follows_the_s_curve: seed {SEED}");
        let mut rng = SplitMix64::new(SEED);
        let trials = 600;
        for (bands, rows) in [(20, 5), (9, 13), (16, 4)] {
            let num_perm = bands * rows;
            for s in [0.3, 0.5, 0.7, 0.85] {
                let mh = MinHasher::new(num_perm, rng.next_u64()).unwrap();
                let banding = Banding::new(bands, rows, num_perm).unwrap();
                let mut hits = 0;
                for _ in 0..trials {
                    let (a, b) = crate::testutil::pair_with_jaccard(&mut rng, s, 200);
                    let (sa, sb) = (mh.sketch(&a), mh.sketch(&b));
                    if (0..bands).any(|band| banding.key(&sa, band) == banding.key(&sb, band)) {
                        hits += 1;
                    }
                }
                let p = candidate_probability(s, bands, rows);
                let (lo, hi) = binomial_interval(p, trials);
                let rate = hits as f64 / trials as f64;
                println!(
                    "b={bands} r={rows} s={s}: rate {rate:.4}, P(s) {p:.4}, 95% [{lo:.4}, {hi:.4}]"
                );
                assert!(
                    rate >= lo && rate <= hi,
                    "b={bands} r={rows} s={s}: {rate} outside [{lo}, {hi}]"
                );
            }
        }
    }

    /// The central 95 % acceptance interval of Binomial(n, p), as proportions: the smallest
    /// lo and largest hi with P(X < lo) ≤ 2.5 % and P(X > hi) ≤ 2.5 %.
    fn binomial_interval(p: f64, n: usize) -> (f64, f64) {
        // pmf by the ratio recurrence pmf(k+1) = pmf(k) · (n−k)/(k+1) · p/(1−p), in logs.
        let pmf: Vec<f64> = if p <= 0.0 || p >= 1.0 {
            (0..=n)
                .map(|k| {
                    if (p <= 0.0 && k == 0) || (p >= 1.0 && k == n) {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect()
        } else {
            let mut log = n as f64 * (1.0 - p).ln();
            let mut v = Vec::with_capacity(n + 1);
            for k in 0..=n {
                v.push(log.exp());
                log += ((n - k) as f64 / (k + 1) as f64).ln() + (p / (1.0 - p)).ln();
            }
            v
        };
        let mut below = 0.0;
        let mut lo = 0;
        while lo < n && below + pmf[lo] <= 0.025 {
            below += pmf[lo];
            lo += 1;
        }
        let mut above = 0.0;
        let mut hi = n;
        while hi > 0 && above + pmf[hi] <= 0.025 {
            above += pmf[hi];
            hi -= 1;
        }
        (lo as f64 / n as f64, hi as f64 / n as f64)
    }
}
