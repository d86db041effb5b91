//! `exact`: the baseline — documents whose normalized full text is identical.
//!
//! The normalized text (default normalization: NFKC, lower case, collapsed whitespace, full
//! width and ideographic punctuation folded to ASCII, so a Chinese page reposted with `.` for
//! `。` is still an exact copy) is hashed with 128-bit XXH3; equal hashes are duplicates.
//! `punctuation = remove` makes it blind to every mark (a comma dropped or added). Documents that normalize to nothing are
//! never reported. Score: 1 for identical normalized text, 0 otherwise.

use serde::{Deserialize, Serialize};

use crate::detector::{Algorithm, ParamMap, ScoredPair};
use crate::error::Result;
use crate::keyjoin::shared_keys;
use crate::pairs::unpack;
use crate::resources::{self, Estimate};
use crate::streaming::{SignatureTable, SketchScratch, StreamingDetector};
use crate::text::Normalization;

/// Build parameters of `exact`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ExactParams {
    /// Normalization applied before hashing.
    #[serde(flatten)]
    pub normalization: Normalization,
}

/// `exact` has no query parameter.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NoQuery {}

/// One hash per document (`None`: empty after normalization).
#[derive(Debug)]
pub struct ExactIndex {
    hashes: Vec<Option<u128>>,
}

/// The key of a text: XXH3-128 of its normalized, trimmed form (`None`: nothing left).
fn text_key(normalization: &Normalization, text: &str, buf: &mut String) -> Option<u128> {
    normalization.apply_into(text, buf);
    let t = buf.trim();
    (!t.is_empty()).then(|| xxhash_rust::xxh3::xxh3_128(t.as_bytes()))
}

/// Pairs of documents with equal keys, score 1.
fn equal_key_pairs(keyed: Vec<(u128, u32)>) -> Result<Vec<ScoredPair>> {
    Ok(shared_keys(keyed)?
        .into_iter()
        .map(|(p, _)| {
            let (a, b) = unpack(p);
            ScoredPair { a, b, score: 1.0 }
        })
        .collect())
}

/// `exact` split for streaming: the key as four words.
#[derive(Debug)]
struct ExactStream {
    normalization: Normalization,
}

impl StreamingDetector for ExactStream {
    fn name(&self) -> &'static str {
        Exact::NAME
    }
    fn width(&self) -> usize {
        4
    }
    fn sketch_key(&self) -> String {
        serde_json::to_string(&self.normalization).expect("normalization serializes")
    }
    fn sketch(&self, text: &str, s: &mut SketchScratch, out: &mut [u32]) -> bool {
        let key = text_key(&self.normalization, text, &mut s.text);
        let v = key.unwrap_or(0);
        for (i, w) in out.iter_mut().enumerate() {
            *w = (v >> (32 * i)) as u32;
        }
        key.is_some()
    }
    fn candidates(&self, table: &SignatureTable) -> Result<Vec<u64>> {
        let keyed = (0..table.len())
            .filter(|&i| !table.is_empty_doc(i))
            .map(|i| {
                let r = table.row(i);
                let key = r.iter().rev().fold(0u128, |k, &w| (k << 32) | w as u128);
                (key, i as u32)
            })
            .collect();
        Ok(shared_keys(keyed)?.into_iter().map(|(p, _)| p).collect())
    }
    fn keys_per_doc(&self) -> usize {
        1
    }
    fn keys(&self, signature: &[u32], out: &mut [u64]) {
        // 128 bits folded to 64: a key collision only makes a candidate that `verify` rejects.
        let word = |i: usize| signature[i] as u64;
        out[0] = (word(0) | word(1) << 32) ^ (word(2) | word(3) << 32);
    }
    fn verify(&self, table: &SignatureTable, a: u32, b: u32) -> Option<f64> {
        // Candidates from `candidates` always agree; those from `keys` may not.
        (table.row(a as usize) == table.row(b as usize)).then_some(1.0)
    }
    fn compare(&self, table: &SignatureTable, a: u32, b: u32) -> (f64, bool) {
        let equal = table.row(a as usize) == table.row(b as usize);
        (if equal { 1.0 } else { 0.0 }, equal)
    }
}

/// Exact duplicates after normalization.
#[derive(Debug)]
pub struct Exact;

impl Algorithm for Exact {
    const NAME: &'static str = "exact";
    const SUMMARY: &'static str = "Exact duplicates: hash of the normalized full text (baseline)";
    const SCORE: &'static str = "1 when the normalized texts hash the same, else 0";
    type Params = ExactParams;
    type Query = NoQuery;
    type Index = ExactIndex;

    fn validate(_: &Self::Params, _: &Self::Query) -> Result<()> {
        Ok(())
    }

    fn build(p: &Self::Params, docs: &[&str]) -> Result<Self::Index> {
        use rayon::prelude::*;
        let hashes = docs
            .par_iter()
            .map_init(String::new, |buf, d| text_key(&p.normalization, d, buf))
            .collect();
        Ok(ExactIndex { hashes })
    }

    fn query(_: &Self::Params, index: &Self::Index, _: &Self::Query) -> Result<Vec<ScoredPair>> {
        let keyed = index
            .hashes
            .iter()
            .enumerate()
            .filter_map(|(i, h)| h.map(|h| (h, i as u32)))
            .collect();
        equal_key_pairs(keyed)
    }

    /// Always streams: the signature is the 128-bit hash.
    fn streaming(p: &Self::Params, _: &Self::Query) -> Option<Box<dyn StreamingDetector>> {
        Some(Box::new(ExactStream {
            normalization: p.normalization.clone(),
        }))
    }

    fn score(
        _: &Self::Params,
        index: &Self::Index,
        _: &Self::Query,
        a: usize,
        b: usize,
    ) -> Option<f64> {
        Some(match (index.hashes[a], index.hashes[b]) {
            (Some(x), Some(y)) if x == y => 1.0,
            _ => 0.0,
        })
    }

    /// Scores are 1 or 0; the index reports exactly the pairs scoring 1.
    fn threshold_params(_: &Self::Params, _: f64) -> Option<ParamMap> {
        Some(ParamMap::new())
    }

    fn memory(_: &Self::Params, docs: usize, _: usize) -> Estimate {
        resources::signatures(docs, 24, "hashes").plus(resources::join_keys(docs, 24))
    }

    fn index_bytes(index: &Self::Index) -> usize {
        index.hashes.capacity() * std::mem::size_of::<Option<u128>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Configured, Detector, ParamMap};

    #[test]
    fn normalized_equality() {
        let docs = ["Hello   World", "hello world", "hello world!", "", "  "];
        let d = Configured::<Exact>::from_params(&ParamMap::new()).unwrap();
        let pairs = d.build(&docs).unwrap().query(&ParamMap::new()).unwrap();
        assert_eq!(
            pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(),
            [(0, 1)]
        );
    }
}
