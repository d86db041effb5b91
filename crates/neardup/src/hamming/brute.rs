//! Brute force: compare every pair. O(n²) popcounts, written as a flat loop over a slice so
//! the compiler vectorizes the xor-popcount; the oracle for every fast structure.

use rayon::prelude::*;

use super::Bits;
use crate::pairs::pack;

/// Every pair (i < j) with distance ≤ k, packed and sorted.
pub fn all_pairs<B: Bits>(fps: &[B], k: u32) -> Vec<u64> {
    let mut out: Vec<u64> = (0..fps.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let a = fps[i];
            fps[i + 1..]
                .iter()
                .enumerate()
                .filter(move |(_, b)| a.distance(**b) <= k)
                .map(move |(j, _)| pack(i as u32, (i + 1 + j) as u32))
        })
        .collect();
    out.sort_unstable();
    out
}

/// Indices of fingerprints within distance k of `query`, ascending.
pub fn query<B: Bits>(fps: &[B], q: B, k: u32) -> Vec<u32> {
    fps.iter()
        .enumerate()
        .filter(|(_, f)| q.distance(**f) <= k)
        .map(|(i, _)| i as u32)
        .collect()
}

/// Number of pairs within distance k (counting only; for large verification runs).
pub fn count_pairs<B: Bits>(fps: &[B], k: u32) -> u64 {
    (0..fps.len())
        .into_par_iter()
        .map(|i| {
            let a = fps[i];
            fps[i + 1..].iter().filter(|b| a.distance(**b) <= k).count() as u64
        })
        .sum()
}
