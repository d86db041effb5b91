//! The join behind every signature-equality algorithm (exact hashing, I-Match, Tianwang,
//! longest sentences): documents that share a key are pairs, and a pair's count is the number
//! of keys it shares. Sort-based, so the output order never depends on threads.

use rayon::prelude::*;

use crate::pairs::{Budget, run_pairs};

/// Pairs of documents sharing at least one key, with how many keys they share, sorted by pair.
/// `keyed` holds (key, document); a document should list a key at most once (namespace keys
/// of different signature kinds yourself).
pub fn shared_keys(mut keyed: Vec<(u128, u32)>) -> crate::Result<Vec<(u64, u32)>> {
    keyed.par_sort_unstable();
    keyed.dedup();
    let budget = Budget::new("the signature join")?;
    let mut pairs = Vec::new();
    run_pairs(&keyed, &budget, &mut pairs)?;
    pairs.par_sort_unstable();
    Ok(pairs
        .chunk_by(|a, b| a == b)
        .map(|r| (r[0], r.len() as u32))
        .collect())
}

/// The first 128 bits of a digest, as a key.
pub fn key128(digest: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    let n = digest.len().min(16);
    b[..n].copy_from_slice(&digest[..n]);
    u128::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairs::pack;

    #[test]
    fn too_many_pairs_is_an_error_not_an_allocation() {
        // 10,000 documents with one key would be 49,995,000 pairs, above the default limit.
        let keyed: Vec<(u128, u32)> = (0..10_000).map(|i| (7, i)).collect();
        let e = shared_keys(keyed).unwrap_err().to_string();
        assert!(
            e.contains("at least 49995000 pairs") && e.contains("NEARDUP_MAX_PAIRS"),
            "{e}"
        );
    }

    #[test]
    fn counts_shared_keys() {
        let keyed = vec![(7, 0), (7, 2), (9, 2), (9, 0), (1, 1), (7, 3)];
        assert_eq!(
            shared_keys(keyed).unwrap(),
            vec![(pack(0, 2), 2), (pack(0, 3), 1), (pack(2, 3), 1)]
        );
        assert!(
            shared_keys(vec![(1, 0), (1, 0)]).unwrap().is_empty(),
            "a document never pairs with itself"
        );
    }
}
