//! The streamable split of an algorithm: **text → fixed-size signature**, one document at a
//! time, and **signatures → pairs**, in two steps (candidates, then verification).
//!
//! This is the interface `neardup dedup` runs on corpora larger than memory: the sketch step
//! sees one document and writes `width` 32-bit words, so texts are never kept; the join steps
//! see only the [`SignatureTable`]. An algorithm whose signature is not fixed-size (SpotSigs'
//! spot sets, exact verification against shingle sets) or that needs collection statistics it
//! cannot get from a table (SimHash's tf-idf without `idf_from`) returns `None` from
//! [`crate::detector::Algorithm::streaming`] and runs in memory through `build` / `query`.
//!
//! Batch `build` + `query` and sketch + [`StreamingDetector::candidates`] +
//! [`StreamingDetector::verify`] give the same pairs: the algorithms share one per-document
//! function between the two paths, and `registry`'s tests check the equality for every
//! streamable algorithm.

use std::fmt::Debug;

use crate::error::Result;
use crate::features::Scratch;
use crate::pairs::ScoredPair;

/// Reused buffers of the sketch step (one per thread).
#[derive(Debug, Default)]
pub struct SketchScratch {
    /// The shingler's buffers.
    pub features: Scratch,
    /// Feature hashes of the current document.
    pub hashes: Vec<u64>,
    /// A text buffer (normalized text).
    pub text: String,
    /// Buffers of sign-of-sum fingerprints (SimHash).
    pub fingerprint: crate::simhash::FingerprintScratch,
}

/// Signatures of a corpus: `width` words per document in one allocation, and which documents
/// had no feature (never candidates).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignatureTable {
    width: usize,
    words: Vec<u32>,
    empty: Vec<bool>,
}

impl SignatureTable {
    /// An empty table of `width` words per row.
    pub fn new(width: usize) -> Self {
        SignatureTable {
            width,
            words: Vec::new(),
            empty: Vec::new(),
        }
    }

    /// A table from its parts (`words.len() == width · empty.len()`).
    pub fn from_parts(width: usize, words: Vec<u32>, empty: Vec<bool>) -> Self {
        assert_eq!(words.len(), width * empty.len(), "signature table shape");
        SignatureTable {
            width,
            words,
            empty,
        }
    }

    /// Words per signature.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.empty.len()
    }

    /// Whether there is no document.
    pub fn is_empty(&self) -> bool {
        self.empty.is_empty()
    }

    /// Document `i`'s signature.
    #[inline]
    pub fn row(&self, i: usize) -> &[u32] {
        &self.words[i * self.width..(i + 1) * self.width]
    }

    /// Whether document `i` had no feature.
    #[inline]
    pub fn is_empty_doc(&self, i: usize) -> bool {
        self.empty[i]
    }

    /// Makes room for exactly `rows` more rows (no doubling when the final size is known).
    pub fn reserve_exact(&mut self, rows: usize) {
        self.words.reserve_exact(rows * self.width);
        self.empty.reserve_exact(rows);
    }

    /// Marks document `i` as having no feature, or not: a join takes no part of a document
    /// marked empty (`crate::heavy::candidates` takes identical copies out of the join so).
    pub fn set_empty(&mut self, i: usize, empty: bool) {
        self.empty[i] = empty;
    }

    /// Appends `other`'s rows (same width).
    pub fn extend(&mut self, other: &SignatureTable) {
        assert_eq!(self.width, other.width, "signature widths differ");
        self.words.extend_from_slice(&other.words);
        self.empty.extend_from_slice(&other.empty);
    }

    /// Appends one row.
    pub fn push(&mut self, row: &[u32], empty: bool) {
        assert_eq!(row.len(), self.width, "signature width");
        self.words.extend_from_slice(row);
        self.empty.push(empty);
    }

    /// All words, row after row.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The empty flags.
    pub fn empty_flags(&self) -> &[bool] {
        &self.empty
    }

    /// Its parts `(width, words, empty)`, without copying (the Python package hands the
    /// words to NumPy this way).
    pub fn into_parts(self) -> (usize, Vec<u32>, Vec<bool>) {
        (self.width, self.words, self.empty)
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * 4 + self.empty.capacity()
    }

    /// Sketches `docs` in parallel with `detector` (identical for any thread count).
    pub fn sketch_all(detector: &dyn StreamingDetector, docs: &[&str]) -> SignatureTable {
        use rayon::prelude::*;
        let width = detector.width();
        let mut words = vec![0u32; docs.len() * width];
        let mut empty = vec![false; docs.len()];
        if width == 0 {
            // No words to fill: still record which documents have features.
            empty.par_iter_mut().zip(docs.par_iter()).for_each_init(
                SketchScratch::default,
                |s, (e, d)| {
                    *e = !detector.sketch(d, s, &mut []);
                },
            );
        } else {
            words
                .par_chunks_mut(width)
                .zip(empty.par_iter_mut())
                .zip(docs.par_iter())
                .for_each_init(SketchScratch::default, |s, ((row, e), d)| {
                    *e = !detector.sketch(d, s, row);
                });
        }
        SignatureTable {
            width,
            words,
            empty,
        }
    }
}

impl AsRef<SignatureTable> for SignatureTable {
    fn as_ref(&self) -> &SignatureTable {
        self
    }
}

/// A configured algorithm split into its streamable halves.
pub trait StreamingDetector: Send + Sync + Debug {
    /// Registered name.
    fn name(&self) -> &'static str;

    /// 32-bit words per signature.
    fn width(&self) -> usize;

    /// Everything a signature depends on (parameters, seeds), as a stable string: stored
    /// signatures are reused exactly when it is unchanged (join-only parameters such as a
    /// threshold must not be part of it).
    fn sketch_key(&self) -> String;

    /// Text → signature: fills `out` (`width` words) and returns whether the document has any
    /// feature (a document without one is never a candidate).
    fn sketch(&self, text: &str, scratch: &mut SketchScratch, out: &mut [u32]) -> bool;

    /// Signatures → candidate pairs (packed, `crate::pairs::pack`), sorted, each once. Spends
    /// the pair budget (`crate::pairs::Budget`).
    fn candidates(&self, table: &SignatureTable) -> Result<Vec<u64>>;

    /// Candidates for a consumer of connectivity only (components, then anchoring): like
    /// [`candidates`](StreamingDetector::candidates), except that a run of more than
    /// [`crate::heavy::HEAVY`] documents sharing a key may give only verified edges that
    /// connect its documents as its verified pairs do (`crate::heavy::connect_run`), so a
    /// heavy cluster costs linear time. Sorted, each once. The default is `candidates`: an
    /// algorithm whose runs are not heavy in practice, or that splits them itself (the
    /// Hamming join's run splitting), needs nothing else.
    fn connecting_candidates(&self, table: &SignatureTable) -> Result<Vec<u64>> {
        self.candidates(table)
    }

    /// How many join keys [`StreamingDetector::keys`] writes per document.
    fn keys_per_doc(&self) -> usize;

    /// The join keys of one (non-empty) signature: two documents whose keys agree at some
    /// position are candidates. Grouping by (position, key) therefore finds every pair of
    /// [`StreamingDetector::candidates`] — and, where a key is a hash of a wider signature,
    /// possibly a few more, which [`StreamingDetector::verify`] rejects. This is what a
    /// distributed join (the Python package's Ray pipeline) shuffles instead of signatures.
    fn keys(&self, signature: &[u32], out: &mut [u64]);

    /// A candidate's score if it is reported (`None`: rejected by verification).
    fn verify(&self, table: &SignatureTable, a: u32, b: u32) -> Option<f64>;

    /// Any two documents' similarity on their signatures (the score [`verify`] reports) and
    /// whether it is within the threshold — also for pairs no join key brought together, and
    /// whatever the verification mode: what a cluster's members are compared with its
    /// representative by (`crate::cluster::anchored`).
    ///
    /// [`verify`]: StreamingDetector::verify
    fn compare(&self, table: &SignatureTable, a: u32, b: u32) -> (f64, bool);

    /// Candidates and verification together: what batch `query` reports.
    fn join(&self, table: &SignatureTable) -> Result<Vec<ScoredPair>> {
        Ok(crate::pairs::scored_from_packed(
            &self.candidates(table)?,
            |a, b| self.verify(table, a, b),
        ))
    }
}
