//! The join of an external pipeline's candidates stage (`neardup.ray`): every pair of
//! documents that share a join key, from one partition's (band, key, document) rows — what
//! `spilled_join.rs` computes per band for `neardup dedup` when signatures are on disk. NumPy
//! needed a three-column sort for it (1.5 s of CPU per partition of a 1 M-document run); a
//! sort of packed tuples takes a fraction of that.
//!
//! A run of more than `neardup::heavy::HEAVY` documents sharing a key (a heavy cluster: a
//! crawl's thousands of copies of a 404 page) gives each member paired with the run's first
//! `HUBS` members only, as the spilled join does (`heavy::run_candidates_to_hubs`): the
//! signatures are not at hand here to connect the run as the in-memory join does, and its
//! m(m − 1)/2 pairs would make the join quadratic (10^5 copies: 5·10^9 pairs).

use neardup::heavy::HEAVY;
use neardup::heavy::runs::HUBS;
use rayon::prelude::*;

/// Every pair (a < b) of documents whose rows agree in `position` (the band) and `key`,
/// once, sorted by (a, b), as two columns — except in a run of more than [`HEAVY`] rows,
/// whose members are paired with its first [`HUBS`] documents only. Rows are (position[i],
/// key[i], doc[i]) in any order; the three slices have the same length.
pub fn pairs_sharing_a_key(position: &[u64], key: &[u64], doc: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let mut rows: Vec<(u64, u64, u64)> = (0..doc.len())
        .map(|i| (position[i], key[i], doc[i]))
        .collect();
    rows.par_sort_unstable();
    let mut pairs = Vec::new();
    // Sorted rows: a run of equal (position, key) lists its documents in increasing order.
    for run in rows.chunk_by(|x, y| x.0 == y.0 && x.1 == y.1) {
        let hubs = if run.len() > HEAVY { HUBS } else { run.len() };
        for (i, first) in run[..hubs].iter().enumerate() {
            for second in &run[i + 1..] {
                if first.2 != second.2 {
                    pairs.push((first.2, second.2));
                }
            }
        }
    }
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs.into_iter().unzip()
}

#[cfg(test)]
mod tests {
    use super::pairs_sharing_a_key;

    /// Against the definition: every pair of rows, compared directly.
    #[test]
    fn pairs_equal_the_brute_force_pairs() {
        let mut rng = neardup::hash::SplitMix64::new(0x2545_f491_4f6c_dd1d);
        let mut next = |m: u64| rng.below(m);
        let n = 3000;
        let position: Vec<u64> = (0..n).map(|_| next(4)).collect();
        let key: Vec<u64> = (0..n).map(|_| next(300)).collect();
        let doc: Vec<u64> = (0..n).map(|_| next(2000)).collect();
        let mut want = std::collections::BTreeSet::new();
        for i in 0..n {
            for j in 0..n {
                let same = position[i] == position[j] && key[i] == key[j];
                if same && doc[i] < doc[j] {
                    want.insert((doc[i], doc[j]));
                }
            }
        }
        let (a, b) = pairs_sharing_a_key(&position, &key, &doc);
        let got: Vec<(u64, u64)> = a.into_iter().zip(b).collect();
        assert!(want.len() > 100, "the case has pairs: {}", want.len());
        assert_eq!(got, want.into_iter().collect::<Vec<_>>());
    }

    /// A heavy run against the rule of `heavy::run_candidates_to_hubs` written out: each
    /// member with the run's first `HUBS` documents; a run of exactly `HEAVY` still gives
    /// every pair.
    #[test]
    fn a_heavy_run_is_paired_with_its_hubs() {
        use neardup::heavy::HEAVY;
        use neardup::heavy::runs::HUBS;
        for m in [HEAVY, HEAVY + 1, 1000] {
            // Documents 3, 6, 9, ... in reverse order: the rule sorts them first.
            let doc: Vec<u64> = (1..=m as u64).rev().map(|d| 3 * d).collect();
            let (a, b) = pairs_sharing_a_key(&vec![2; m], &vec![7; m], &doc);
            let mut sorted = doc.clone();
            sorted.sort_unstable();
            let hubs = if m > HEAVY { HUBS } else { m };
            let mut want = Vec::new();
            for (i, &h) in sorted[..hubs].iter().enumerate() {
                want.extend(sorted[i + 1..].iter().map(|&x| (h, x)));
            }
            want.sort_unstable();
            let got: Vec<(u64, u64)> = a.into_iter().zip(b).collect();
            assert_eq!(got, want, "run of {m}");
            let expected_len = if m > HEAVY {
                HUBS * (HUBS - 1) / 2 + HUBS * (m - HUBS)
            } else {
                m * (m - 1) / 2
            };
            assert_eq!(got.len(), expected_len);
        }
    }

    /// The same key in two bands joins nothing: sorted, band 0's last row and band 1's first
    /// are neighbours with equal keys.
    #[test]
    fn a_key_joins_within_its_band_only() {
        let (a, b) = pairs_sharing_a_key(&[0, 1, 1], &[5, 5, 5], &[1, 2, 3]);
        assert_eq!((a, b), (vec![2], vec![3]));
    }
}
