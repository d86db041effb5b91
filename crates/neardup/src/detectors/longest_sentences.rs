//! `longest-sentences`: the fingerprint of a document is the hashes of its k longest sentences
//! (sorted by hash, so their order in the text does not matter); two documents are duplicates
//! when their fingerprints are equal, or, with `min_common = m < k`, when they share at least
//! m of the k sentence hashes (seed 004's fingerprint system).
//!
//! Sentences: UAX #29 boundaries (Chinese 。！？ included), then the default normalization,
//! then XXH3; length in characters (ties: the earlier sentence). The normalization folds
//! ideographic punctuation to ASCII (`fold_punctuation`), so a sentence hashes the same whether
//! its marks are `。` and `「」` or `.` and `""`, as web reposts of Chinese pages write them.
//! `punctuation = remove` makes the hashes blind to marks altogether (a comma dropped or
//! added); it is not the default because on 20news it more than doubles the false alarms
//! (reports/news-injected, unedited corpus: 792 pairs reported at `min_common = 0` against 347
//! with marks kept; with 5 % of words substituted, 466 copies found against 517). Documents with no sentence
//! have no fingerprint and are never reported; documents with fewer than k sentences use all
//! they have, and `min_common` is capped by the smaller fingerprint, so two identical
//! one-sentence documents match whatever m is. Score: shared sentence hashes / the larger
//! fingerprint's size (1 for identical documents, however few sentences they have).

use serde::{Deserialize, Serialize};

use crate::detector::{Algorithm, ParamMap, ScoredPair, params};
use crate::error::{Error, Result};
use crate::hash::hash_bytes;
use crate::keyjoin::shared_keys;
use crate::pairs::unpack;
use crate::resources::{self, Estimate};
use crate::text::{Normalization, sentences};

/// Build parameters of `longest-sentences`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct LongestParams {
    /// Sentences per fingerprint k. Default 3.
    pub sentences: usize,
    /// Normalization of each sentence before hashing.
    #[serde(flatten)]
    pub normalization: Normalization,
}

impl Default for LongestParams {
    fn default() -> Self {
        LongestParams {
            sentences: 3,
            normalization: Normalization::default(),
        }
    }
}

/// Query parameters of `longest-sentences`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LongestQuery {
    /// Shared sentence hashes needed; 0 = all k (equal fingerprints). Default 0.
    pub min_common: usize,
}

/// Per document: its sorted sentence hashes (empty: no fingerprint).
#[derive(Debug)]
pub struct LongestIndex {
    prints: Vec<Vec<u64>>,
    shared: Vec<(u64, u32)>,
}

/// The k-longest-sentences fingerprint.
#[derive(Debug)]
pub struct LongestSentences;

/// The sorted hashes of the `k` longest sentences of `text`.
pub fn fingerprint(text: &str, k: usize, normalization: &Normalization) -> Vec<u64> {
    let mut by_length: Vec<(usize, usize, u64)> = sentences(text)
        .enumerate()
        .filter_map(|(i, s)| {
            let n = normalization.apply(s);
            let n = n.trim();
            (!n.is_empty()).then(|| (n.chars().count(), i, hash_bytes(n.as_bytes(), 0x5e47)))
        })
        .collect();
    by_length.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut hashes: Vec<u64> = by_length.into_iter().take(k).map(|x| x.2).collect();
    hashes.sort_unstable();
    hashes
}

/// Shared sentence hashes over the larger fingerprint (0 when either is empty).
fn share(shared: usize, fa: &[u64], fb: &[u64]) -> f64 {
    let larger = fa.len().max(fb.len());
    if larger == 0 || fa.is_empty() || fb.is_empty() {
        0.0
    } else {
        shared as f64 / larger as f64
    }
}

impl Algorithm for LongestSentences {
    const NAME: &'static str = "longest-sentences";
    const SUMMARY: &'static str = "Hashes of the k longest sentences; equal, or >= m of k shared (seed 004 fingerprint system)";
    const SCORE: &'static str =
        "share of longest-sentence fingerprints the two have in common (0 to 1)";
    type Params = LongestParams;
    type Query = LongestQuery;
    type Index = LongestIndex;

    fn validate(p: &Self::Params, q: &Self::Query) -> Result<()> {
        if p.sentences == 0 {
            return Err(Error::invalid(
                Self::NAME,
                "sentences",
                "k must be at least 1",
            ));
        }
        if q.min_common > p.sentences {
            return Err(Error::invalid(
                Self::NAME,
                "min_common",
                format!("{} exceeds k = {}", q.min_common, p.sentences),
            ));
        }
        Ok(())
    }

    fn build(p: &Self::Params, docs: &[&str]) -> Result<Self::Index> {
        use rayon::prelude::*;
        let prints: Vec<Vec<u64>> = docs
            .par_iter()
            .map(|d| fingerprint(d, p.sentences, &p.normalization))
            .collect();
        // Keys: every sentence hash (shared counts), plus the whole fingerprint (equality).
        let mut keyed = Vec::new();
        for (i, f) in prints.iter().enumerate() {
            for &h in f {
                keyed.push((h as u128, i as u32));
            }
        }
        let shared = shared_keys(keyed)?;
        Ok(LongestIndex { prints, shared })
    }

    fn query(_: &Self::Params, index: &Self::Index, q: &Self::Query) -> Result<Vec<ScoredPair>> {
        Ok(index
            .shared
            .iter()
            .filter_map(|&(pair, n)| {
                let (a, b) = unpack(pair);
                let (fa, fb) = (&index.prints[a as usize], &index.prints[b as usize]);
                let ok = if q.min_common == 0 {
                    fa == fb
                } else {
                    n as usize >= q.min_common.min(fa.len()).min(fb.len())
                };
                ok.then(|| ScoredPair {
                    a,
                    b,
                    score: share(n as usize, fa, fb),
                })
            })
            .collect())
    }

    fn score(
        _: &Self::Params,
        index: &Self::Index,
        _: &Self::Query,
        a: usize,
        b: usize,
    ) -> Option<f64> {
        let (fa, fb) = (&index.prints[a], &index.prints[b]);
        let shared = crate::features::similarity::intersection_size(fa, fb);
        Some(share(shared, fa, fb))
    }

    /// Fingerprints of the 3 and of the 5 longest sentences.
    fn calibration_grid() -> Vec<ParamMap> {
        vec![
            params(&[("sentences", 3.into())]),
            params(&[("sentences", 5.into())]),
        ]
    }

    /// Score shared/max(sentences) ≥ t ⟺ shared ≥ ⌈t·k⌉ when both documents have k
    /// sentences (`min_common`); exact for documents with at least k sentences, conservative
    /// for shorter ones (their cap on `min_common` reports them at least as often).
    fn threshold_params(p: &Self::Params, t: f64) -> Option<ParamMap> {
        let m = ((t * p.sentences as f64 - 1e-9).ceil() as u64).clamp(1, p.sentences as u64);
        Some(params(&[("min_common", m.into())]))
    }

    fn memory(p: &Self::Params, docs: usize, _: usize) -> Estimate {
        resources::signatures(docs, p.sentences * 8 + 24, "fingerprints")
            .plus(resources::join_keys(docs * p.sentences, 24))
    }

    fn index_bytes(index: &Self::Index) -> usize {
        index
            .prints
            .iter()
            .map(|p| p.capacity() * 8 + 24)
            .sum::<usize>()
            + index.shared.capacity() * 16
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Configured, Detector, ParamMap};
    use serde_json::json;

    const A: &str = "Short one. This is the longest sentence of the whole document by far. A medium sentence here. Tiny.";
    const B: &str = "Tiny! A medium sentence here. Different short. This is the longest sentence of the whole document by far.";
    const C: &str = "This is the longest sentence of the whole document by far. Something else entirely now. Ok.";

    #[test]
    fn equal_and_partial_fingerprints() {
        assert_eq!(
            fingerprint(A, 2, &Normalization::default()),
            fingerprint(B, 2, &Normalization::default())
        );
        let docs = [A, B, C, "", "no terminator at all"];
        let d = Configured::<LongestSentences>::from_params(
            &serde_json::from_value(json!({"sentences": 2})).unwrap(),
        )
        .unwrap();
        let index = d.build(&docs).unwrap();
        let equal: Vec<(u32, u32)> = index
            .query(&ParamMap::new())
            .unwrap()
            .iter()
            .map(|p| (p.a, p.b))
            .collect();
        assert_eq!(equal, [(0, 1)]);
        let one: Vec<(u32, u32)> = index
            .query(&serde_json::from_value(json!({"min_common": 1})).unwrap())
            .unwrap()
            .iter()
            .map(|p| (p.a, p.b))
            .collect();
        assert_eq!(one, [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(index.score(0, 2), Some(0.5));
        assert!(fingerprint("", 3, &Normalization::default()).is_empty());
    }

    /// Regression (issue 11): identical one-sentence documents scored 1/3, and `min_common`
    /// above their sentence count never matched them.
    #[test]
    fn identical_short_documents_score_one_and_match() {
        let one = "The quick brown fox jumps over the lazy dog.";
        let d = Configured::<LongestSentences>::from_params(&ParamMap::new()).unwrap();
        let index = d.build(&[one, one, "Another sentence entirely."]).unwrap();
        assert_eq!(index.score(0, 1), Some(1.0));
        for m in [0, 1, 2, 3] {
            let q: ParamMap = serde_json::from_value(json!({ "min_common": m })).unwrap();
            let pairs = index.query(&q).unwrap();
            assert_eq!(pairs.len(), 1, "min_common = {m}");
            assert_eq!((pairs[0].a, pairs[0].b, pairs[0].score), (0, 1, 1.0));
        }
        let chinese = "起初神創造天地。地是空虛混沌。";
        let zh = d.build(&[chinese, chinese]).unwrap();
        assert_eq!(zh.score(0, 1), Some(1.0));
    }

    #[test]
    fn bad_parameters() {
        let err = crate::testutil::param_error::<LongestSentences>;
        assert!(err(json!({"sentences": 0})).contains("sentences"));
        assert!(err(json!({"min_common": 5})).contains("exceeds k"));
    }
}
