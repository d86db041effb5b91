//! The MinHash family: signatures (classic and one-permutation), LSH banding, the S-curve
//! tuner and Broder's supershingles.
//!
//! Text → signature ([`Sketcher`], [`Signatures::compute`]) is kept apart from signature →
//! candidates ([`lsh`], [`supershingles`]), so one signature matrix serves banding, brute
//! force verification and supershingles alike.

pub mod banding;
pub mod containment;
pub mod datasketch;
pub mod lsh;
pub mod num_perm;
pub mod oph;
pub mod sha1_lanes;
pub mod signature;
pub mod supershingles;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::features::{Scratch, Shingler};
use crate::streaming::SignatureTable;
pub use num_perm::{MAX_NUM_PERM, check_num_perm};
pub use oph::OnePermutationHasher;
pub use signature::{MinHasher, agreement};

/// Which signature scheme to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SketchKind {
    /// `num_perm` independent permutations (O(|set|·k)).
    #[default]
    Classic,
    /// One permutation hashing with optimal densification (O(|set| + k)).
    Oph,
}

/// A signature scheme with its hash functions drawn.
#[derive(Debug, Clone)]
pub enum Sketcher {
    /// Classic MinHash.
    Classic(MinHasher),
    /// One-permutation hashing.
    Oph(OnePermutationHasher),
}

impl Sketcher {
    /// Draws `num_perm` hash functions of `kind` from `seed`.
    pub fn new(kind: SketchKind, num_perm: usize, seed: u64) -> Result<Self> {
        Ok(match kind {
            SketchKind::Classic => Sketcher::Classic(MinHasher::new(num_perm, seed)?),
            SketchKind::Oph => Sketcher::Oph(OnePermutationHasher::new(num_perm, seed)?),
        })
    }

    /// Writes the signature of `hashes` into `out`.
    #[inline]
    pub fn sketch_into(&self, hashes: &[u64], out: &mut [u32]) {
        match self {
            Sketcher::Classic(m) => m.sketch_into(hashes, out),
            Sketcher::Oph(m) => m.sketch_into(hashes, out),
        }
    }
}

/// The signatures of a corpus, one row of `num_perm` values per document, in one allocation
/// (a [`SignatureTable`] of width `num_perm`, so streamed signatures need no copy).
#[derive(Debug, Clone)]
pub struct Signatures {
    table: SignatureTable,
}

impl AsRef<SignatureTable> for Signatures {
    fn as_ref(&self) -> &SignatureTable {
        &self.table
    }
}

/// Text → signature for one document: the function batch [`Signatures::compute`] and the
/// streaming sketch step share. Returns whether the document has any feature.
#[inline]
pub fn sketch_document(
    shingler: &Shingler,
    sketcher: &Sketcher,
    text: &str,
    scratch: &mut Scratch,
    hashes: &mut Vec<u64>,
    row: &mut [u32],
) -> bool {
    hashes.clear();
    shingler.hashes_into(text, scratch, hashes);
    sketcher.sketch_into(hashes, row);
    !hashes.is_empty()
}

impl Signatures {
    /// Sketches every document in parallel. Each row depends only on its document, so the
    /// result is identical for any number of threads.
    pub fn compute(
        docs: &[&str],
        shingler: &Shingler,
        sketcher: &Sketcher,
        num_perm: usize,
    ) -> Self {
        let mut data = vec![0u32; docs.len() * num_perm];
        let mut empty = vec![false; docs.len()];
        data.par_chunks_mut(num_perm.max(1))
            .zip(empty.par_iter_mut())
            .zip(docs.par_iter())
            .for_each_init(
                || (Scratch::default(), Vec::new()),
                |(scratch, hashes), ((row, is_empty), doc)| {
                    *is_empty = !sketch_document(shingler, sketcher, doc, scratch, hashes, row);
                },
            );
        Signatures {
            table: SignatureTable::from_parts(num_perm, data, empty),
        }
    }

    /// Builds from precomputed rows (tests, tools).
    pub fn from_rows(num_perm: usize, rows: &[Vec<u32>]) -> Self {
        assert!(rows.iter().all(|r| r.len() == num_perm), "row length");
        Signatures {
            table: SignatureTable::from_parts(num_perm, rows.concat(), vec![false; rows.len()]),
        }
    }

    /// Wraps a table of MinHash rows (its width is `num_perm`).
    pub fn from_table(table: SignatureTable) -> Self {
        Signatures { table }
    }

    /// The rows as a table.
    pub fn table(&self) -> &SignatureTable {
        &self.table
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether there are no documents.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Signature length.
    pub fn num_perm(&self) -> usize {
        self.table.width()
    }

    /// Document `i`'s signature.
    #[inline]
    pub fn row(&self, i: usize) -> &[u32] {
        self.table.row(i)
    }

    /// Whether document `i` had no feature.
    #[inline]
    pub fn is_empty_doc(&self, i: usize) -> bool {
        self.table.is_empty_doc(i)
    }

    /// Estimated Jaccard of documents `a` and `b` (0 when either is empty).
    pub fn estimate(&self, a: usize, b: usize) -> f64 {
        if self.is_empty_doc(a) || self.is_empty_doc(b) {
            0.0
        } else {
            agreement(self.row(a), self.row(b))
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.table.heap_bytes()
    }
}
