//! Broder's supershingles (Broder, Glassman, Manasse, Zweig 1997; as Henzinger's algorithm B,
//! SIGIR 2006 §2.1).
//!
//! Of a document's m min-values (a classic MinHash signature), m' groups of l consecutive
//! values are each fingerprinted into one *supershingle*. Two documents are B-similar when at
//! least t of their m' supershingles agree. Henzinger's setting: 8-token shingles, m = 84,
//! l = 14, m' = 6, t = 2.
//!
//! A supershingle is exactly an LSH band key with b = m' and r = l, so the join reuses
//! [`lsh::band_collisions`](super::lsh::band_collisions) and counts, per pair, the bands it
//! collides in.

use super::Signatures;
use super::lsh::{Banding, band_collisions};
use crate::error::{Error, Result};

/// Supershingle layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Supershingles {
    banding: Banding,
    min_agreeing: usize,
}

impl Supershingles {
    /// `count` supershingles of `values_each` min-values out of `min_values`; pairs need
    /// `min_agreeing` equal supershingles.
    pub fn new(
        min_values: usize,
        count: usize,
        values_each: usize,
        min_agreeing: usize,
    ) -> Result<Self> {
        const NAME: &str = "supershingles";
        if count == 0 {
            return Err(Error::invalid(NAME, "supershingles", "must be at least 1"));
        }
        if values_each == 0 {
            return Err(Error::invalid(
                NAME,
                "values_per_supershingle",
                "must be at least 1",
            ));
        }
        if count * values_each > min_values {
            return Err(Error::invalid(
                NAME,
                "min_values",
                format!(
                    "{count} supershingles × {values_each} values = {} exceeds min_values = {min_values}",
                    count * values_each
                ),
            ));
        }
        if min_agreeing == 0 || min_agreeing > count {
            return Err(Error::invalid(
                NAME,
                "min_agreeing",
                format!("{min_agreeing} is outside 1..={count} (the number of supershingles)"),
            ));
        }
        Ok(Supershingles {
            banding: Banding::new(count, values_each, min_values)?,
            min_agreeing,
        })
    }

    /// The supershingles of one signature.
    pub fn of(&self, signature: &[u32]) -> Vec<u64> {
        let mut keys = vec![0; self.banding.bands()];
        self.banding.keys_into(signature, &mut keys);
        keys
    }

    /// Number of supershingles per document (m').
    pub fn count(&self) -> usize {
        self.banding.bands()
    }

    /// Every pair with at least `min_agreeing` equal supershingles, as (packed pair, number of
    /// agreeing supershingles), sorted by pair.
    pub fn similar_pairs(&self, signatures: &Signatures) -> Result<Vec<(u64, usize)>> {
        Ok(band_collisions(signatures, &self.banding)?
            .chunk_by(|a, b| a == b)
            .map(|run| (run[0], run.len()))
            .filter(|&(_, n)| n >= self.min_agreeing)
            .collect())
    }

    /// Number of agreeing supershingles of two signatures.
    pub fn agreeing(&self, a: &[u32], b: &[u32]) -> usize {
        (0..self.banding.bands())
            .filter(|&j| self.banding.key(a, j) == self.banding.key(b, j))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairs::pack;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn join_equals_pairwise_count(docs in prop::collection::vec(prop::collection::vec(0u32..2, 6), 0..30), t in 1usize..=3) {
            let ss = Supershingles::new(6, 3, 2, t).unwrap();
            let sigs = Signatures::from_rows(6, &docs);
            let mut oracle = Vec::new();
            for a in 0..docs.len() {
                for b in a + 1..docs.len() {
                    let n = (0..3).filter(|j| docs[a][2 * j..2 * j + 2] == docs[b][2 * j..2 * j + 2]).count();
                    if n >= t {
                        oracle.push((pack(a as u32, b as u32), n));
                    }
                }
            }
            prop_assert_eq!(ss.similar_pairs(&sigs).unwrap(), oracle);
        }
    }

    #[test]
    fn henzinger_defaults_validate() {
        assert!(Supershingles::new(84, 6, 14, 2).is_ok());
        assert!(Supershingles::new(84, 7, 14, 2).is_err());
        assert!(Supershingles::new(84, 6, 14, 7).is_err());
        assert!(Supershingles::new(84, 6, 14, 0).is_err());
    }
}
