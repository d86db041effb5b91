//! `tianwang`: the five duplicate detectors of the Tianwang search engine (Peking University;
//! seed 002), selected by `variant`.
//!
//! Keywords are a document's words, stopwords of its language excluded, weighted by
//! tf · ln(1 + N / df) over the indexed corpus or a reference collection (`idf_from`; the
//! smoothed idf keeps words shared by every document — in a two-document corpus, all of them —
//! from weighing zero). T = the top-N keywords (ties broken alphabetically), W = their
//! weights. Chinese text is cut into words by jieba, as the Tianwang engine segmented the
//! Chinese web pages it was built for, so keywords are tf-idf keywords of segmented words.
//!
//! | variant | duplicates when |
//! |---|---|
//! | 1 | MD5 of the first `abstract_bytes` (512) bytes of the normalized text is equal (the default normalization folds ideographic punctuation to ASCII, so a repost with ASCII marks has the same abstract; `punctuation = remove` drops every mark) |
//! | 2 | MD5 of T concatenated in weight order is equal |
//! | 3 | variant 2 and SIM(Wᵢ, Wⱼ) ≤ ε |
//! | 4 | variant 5 and SIM(Wᵢ, Wⱼ) ≤ ε |
//! | 5 | MD5 of T sorted alphabetically is equal |
//!
//! SIM(Wᵢ, Wⱼ) = Σ (wᵢ − wⱼ)² / Σ (wᵢ² + wⱼ²) over the union of both keyword sets (a missing
//! keyword weighs 0). It weighs angle and length together: 0 for identical vectors, 1 for
//! orthogonal ones (disjoint keywords), strictly between otherwise; symmetric. (Cosine would
//! ignore length: a document and its tripled copy would be identical; this SIM is not 0 there.)
//!
//! Documents without keywords (or, for variant 1, without text) get no signature and are
//! never reported. Score: 1 − SIM. MD5s are compared on all 128 bits.

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use crate::detector::{Algorithm, ParamMap, ScoredPair, params};
use crate::error::{Error, Result};
use crate::features::statistics::{Statistics, StatisticsFeatures, term_key, terms};
use crate::keyjoin::{key128, shared_keys};
use crate::pairs::unpack;
use crate::resources::{self, Estimate};
use crate::text::{Normalization, WordParams, is_stopword_in};

/// Build parameters of `tianwang`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct TianwangParams {
    /// Which of the five algorithms (1–5). Default 2.
    pub variant: u8,
    /// Keywords per document N. Default 10.
    pub keywords: usize,
    /// Bytes of normalized text in variant 1's abstract. Default 512.
    pub abstract_bytes: usize,
    /// Normalization before tokenizing.
    #[serde(flatten)]
    pub normalization: Normalization,
    /// Words (Chinese: jieba words).
    #[serde(flatten)]
    pub words: WordParams,
    /// Word document frequencies from this table (`neardup idf build`) instead of the corpus.
    pub idf_from: Option<String>,
}

impl Default for TianwangParams {
    fn default() -> Self {
        TianwangParams {
            variant: 2,
            keywords: 10,
            abstract_bytes: 512,
            normalization: Normalization::default(),
            words: WordParams::default(),
            idf_from: None,
        }
    }
}

/// Query parameters of `tianwang`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct TianwangQuery {
    /// SIM cutoff ε in [0, 1] for variants 3 and 4 (ignored by 1, 2, 5). Default 0.1.
    pub epsilon: f64,
}

impl Default for TianwangQuery {
    fn default() -> Self {
        TianwangQuery { epsilon: 0.1 }
    }
}

/// Per document: keyword weights (by term hash) and its signature.
#[derive(Debug)]
pub struct TianwangIndex {
    weights: Vec<Vec<(u64, f64)>>,
    /// (pair, 1) for every pair with equal signatures.
    equal: Vec<(u64, u32)>,
    unsigned: usize,
    statistics: Statistics,
}

/// The Tianwang algorithms.
#[derive(Debug)]
pub struct Tianwang;

/// A document's keyword weights (by term hash) and its MD5 signature, if any.
type KeywordsAndSignature = (Vec<(u64, f64)>, Option<u128>);

/// SIM(Wᵢ, Wⱼ) of two weight lists sorted by term; 0 when both are empty.
pub fn sim(a: &[(u64, f64)], b: &[(u64, f64)]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let (x, y) = match (a.get(i), b.get(j)) {
            (Some(p), Some(q)) if p.0 == q.0 => {
                i += 1;
                j += 1;
                (p.1, q.1)
            }
            (Some(p), Some(q)) if p.0 < q.0 => {
                i += 1;
                (p.1, 0.0)
            }
            (Some(p), None) => {
                i += 1;
                (p.1, 0.0)
            }
            (_, Some(q)) => {
                j += 1;
                (0.0, q.1)
            }
            (None, None) => unreachable!(),
        };
        num += (x - y) * (x - y);
        den += x * x + y * y;
    }
    if den == 0.0 { 0.0 } else { num / den }
}

impl Algorithm for Tianwang {
    const NAME: &'static str = "tianwang";
    const SUMMARY: &'static str = "Tianwang algorithms 1-5: MD5 of abstract / top-N tf-idf keywords, with SIM <= eps (Peking University)";
    const SCORE: &'static str =
        "1 - SIM, the distance of the keyword or abstract signatures (1 = same)";
    type Params = TianwangParams;
    type Query = TianwangQuery;
    type Index = TianwangIndex;

    fn validate(p: &Self::Params, q: &Self::Query) -> Result<()> {
        if !(1..=5).contains(&p.variant) {
            return Err(Error::invalid(
                Self::NAME,
                "variant",
                format!("{} is not one of 1, 2, 3, 4, 5", p.variant),
            ));
        }
        if p.keywords == 0 {
            return Err(Error::invalid(
                Self::NAME,
                "keywords",
                "N must be at least 1",
            ));
        }
        if p.abstract_bytes == 0 {
            return Err(Error::invalid(
                Self::NAME,
                "abstract_bytes",
                "must be at least 1",
            ));
        }
        if !(0.0..=1.0).contains(&q.epsilon) {
            return Err(Error::invalid(
                Self::NAME,
                "epsilon",
                format!("{} is outside [0, 1]", q.epsilon),
            ));
        }
        Ok(())
    }

    fn statistics(p: &Self::Params) -> Option<StatisticsFeatures> {
        Some(terms(&p.normalization, &p.words))
    }

    fn build(p: &Self::Params, docs: &[&str]) -> Result<Self::Index> {
        use rayon::prelude::*;
        let features = Self::statistics(p).expect("tianwang has statistics");
        let statistics = Statistics::gather(&features, p.idf_from.as_deref(), docs, Self::NAME)?;
        let (df, n) = (&statistics.df, statistics.docs() as f64);
        let per_doc: Vec<KeywordsAndSignature> = docs
            .par_iter()
            .map_init(String::new, |text, d| {
                p.normalization.apply_into(d, text);
                // (key, word) of every non-stopword, then counted per key.
                let mut words: Vec<(u64, &str)> = Vec::new();
                p.words.for_each_word(text, |t| {
                    if !is_stopword_in(t, p.words.language.of_token(t)) {
                        words.push((term_key(t), t));
                    }
                });
                words.sort_unstable();
                let mut scored: Vec<(f64, &str, u64)> = words
                    .chunk_by(|a, b| a.0 == b.0)
                    .map(|run| {
                        let (t, name) = run[0];
                        let idf = (1.0 + n / df.get(t).max(1) as f64).ln();
                        (run.len() as f64 * idf, name, t)
                    })
                    .collect();
                scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
                scored.truncate(p.keywords);
                let mut weights: Vec<(u64, f64)> = scored.iter().map(|s| (s.2, s.0)).collect();
                weights.sort_by_key(|w| w.0);
                let md5 = |parts: &mut dyn Iterator<Item = &str>| {
                    let mut m = Md5::new();
                    let mut any = false;
                    for part in parts {
                        m.update(part.as_bytes());
                        m.update(b"\n");
                        any = true;
                    }
                    any.then(|| key128(&m.finalize()))
                };
                let signature = match p.variant {
                    1 => {
                        let t = text.trim();
                        let mut end = t.len().min(p.abstract_bytes);
                        while !t.is_char_boundary(end) {
                            end -= 1;
                        }
                        (!t.is_empty()).then(|| key128(&Md5::digest(&t.as_bytes()[..end])))
                    }
                    2 | 3 => md5(&mut scored.iter().map(|s| s.1)),
                    _ => {
                        let mut alpha: Vec<&str> = scored.iter().map(|s| s.1).collect();
                        alpha.sort_unstable();
                        md5(&mut alpha.into_iter())
                    }
                };
                (weights, signature)
            })
            .collect();
        let unsigned = per_doc.iter().filter(|d| d.1.is_none()).count();
        let equal = shared_keys(
            per_doc
                .iter()
                .enumerate()
                .filter_map(|(i, d)| d.1.map(|s| (s, i as u32)))
                .collect(),
        )?;
        Ok(TianwangIndex {
            weights: per_doc.into_iter().map(|d| d.0).collect(),
            equal,
            unsigned,
            statistics,
        })
    }

    fn query(p: &Self::Params, index: &Self::Index, q: &Self::Query) -> Result<Vec<ScoredPair>> {
        Ok(index
            .equal
            .iter()
            .filter_map(|&(pair, _)| {
                let (a, b) = unpack(pair);
                let s = sim(&index.weights[a as usize], &index.weights[b as usize]);
                let keep = !matches!(p.variant, 3 | 4) || s <= q.epsilon;
                keep.then_some(ScoredPair {
                    a,
                    b,
                    score: 1.0 - s,
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
        let (wa, wb) = (&index.weights[a], &index.weights[b]);
        Some(if wa.is_empty() || wb.is_empty() {
            0.0
        } else {
            1.0 - sim(wa, wb)
        })
    }

    /// The five variants. No threshold parameter follows the score: every variant decides by
    /// MD5 equality, which 1 − SIM does not see (`neardup calibrate` measures the reported
    /// pairs instead).
    fn calibration_grid() -> Vec<ParamMap> {
        (1..=5u64)
            .map(|v| params(&[("variant", v.into())]))
            .collect()
    }

    fn memory(p: &Self::Params, docs: usize, text_bytes: usize) -> Estimate {
        let e = resources::signatures(docs, p.keywords * 16 + 40, "keywords");
        if p.idf_from.is_none() {
            e.plus(resources::statistics(text_bytes))
        } else {
            e
        }
    }

    fn index_bytes(index: &Self::Index) -> usize {
        index
            .weights
            .iter()
            .map(|w| w.capacity() * 16 + 24)
            .sum::<usize>()
            + index.equal.capacity() * 16
    }

    fn stats(index: &Self::Index) -> crate::detector::ParamMap {
        let mut m = crate::detector::ParamMap::new();
        m.insert("unsigned_docs".into(), index.unsigned.into());
        m
    }

    fn warnings(index: &Self::Index) -> Vec<String> {
        index.statistics.warnings(Self::NAME, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Configured, Detector, ParamMap};
    use serde_json::json;

    fn pairs(variant: u8, docs: &[&str], eps: f64) -> Vec<(u32, u32)> {
        let m: ParamMap =
            serde_json::from_value(json!({"variant": variant, "keywords": 3, "epsilon": eps}))
                .unwrap();
        let index = Configured::<Tianwang>::from_params(&m)
            .unwrap()
            .build(docs)
            .unwrap();
        index
            .query(&ParamMap::new())
            .unwrap()
            .iter()
            .map(|p| (p.a, p.b))
            .collect()
    }

    #[test]
    fn variant_2_depends_on_keyword_order_5_does_not() {
        // Same three keywords; apple leads in A, cherry in B.
        let a = "apple apple apple banana banana cherry";
        let b = "apple banana banana cherry cherry cherry";
        assert!(pairs(2, &[a, b], 1.0).is_empty());
        assert_eq!(pairs(5, &[a, b], 1.0), [(0, 1)]);
        // Variant 4 adds SIM ≤ ε: the weights differ (SIM = 8/28 here), so a small ε rejects.
        assert!(pairs(4, &[a, b], 0.1).is_empty());
        assert_eq!(pairs(4, &[a, b], 0.5), [(0, 1)]);
        // Variant 3 = variant 2 and SIM: identical documents pass both.
        assert_eq!(pairs(3, &[a, a], 0.0), [(0, 1)]);
    }

    #[test]
    fn variant_1_compares_the_abstract() {
        let long = "x ".repeat(400);
        let a = format!("{long} ending one");
        let b = format!("{long} ending two");
        assert_eq!(pairs(1, &[&a, &b], 0.1), [(0, 1)], "same first 512 bytes");
        assert!(pairs(1, &["short a", "short b"], 0.1).is_empty());
        assert!(pairs(1, &["", ""], 0.1).is_empty(), "no text, no signature");
    }

    #[test]
    fn sim_properties() {
        let a = [(1, 2.0), (2, 1.0)];
        let b = [(3, 1.0), (4, 5.0)];
        assert_eq!(sim(&a, &a), 0.0);
        assert_eq!(sim(&a, &b), 1.0, "orthogonal: disjoint keywords");
        let c = [(1, 2.0), (3, 1.0)];
        let s = sim(&a, &c);
        assert!(s > 0.0 && s < 1.0);
        assert_eq!(sim(&a, &c), sim(&c, &a));
        // Length matters: the same direction with doubled weights is not identical.
        let doubled = [(1, 4.0), (2, 2.0)];
        assert!((sim(&a, &doubled) - 0.2).abs() < 1e-12); // (4+1)/(20+5)
    }

    #[test]
    fn no_keywords_no_signature_and_bad_parameters() {
        assert!(
            pairs(2, &["the of and", "the of and"], 1.0).is_empty(),
            "stopwords only"
        );
        let err = crate::testutil::param_error::<Tianwang>;
        assert!(err(json!({"variant": 6})).contains("variant"));
        assert!(err(json!({"keywords": 0})).contains("N must be"));
        assert!(err(json!({"epsilon": 1.5})).contains("epsilon"));
    }
}
