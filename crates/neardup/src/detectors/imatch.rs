//! `imatch`: I-Match (Chowdhury, Frieder, Grossman, McCabe, TOIS 2002) with lexicon
//! randomization (Kołcz, Chowdhury, Alspector, KDD 2004).
//!
//! Collection statistics come from the corpus being indexed, or from a reference collection
//! (`idf_from`, a table written by `neardup idf build`), which is what the paper's collection
//! statistics are: idf values of a large collection, applied to each new document. A term's
//! normalized inverse document frequency is nidf = ln(N / df) / ln N ∈ [0, 1] (0: in every
//! document; 1: in one; a term unseen in the reference collection counts as seen once).
//! The lexicon keeps the terms with `min_idf ≤ nidf ≤ max_idf` — dropping both the ubiquitous
//! words and the hapaxes that make signatures brittle. A document's signature is the SHA1 of
//! its unique in-lexicon terms, sorted and joined by newlines; equal signatures are duplicates.
//!
//! Randomization: `extra_lexicons` = K more lexicons, each dropping a random fraction
//! `drop_fraction` of the lexicon (a term's membership is a seeded hash of the term, so
//! nothing is stored). Each document gets K + 1 signatures; a pair is reported when at least
//! `min_collisions` of them collide (Kołcz et al.: any one). A single changed in-lexicon term
//! breaks the plain signature (the weakness the paper states) but survives in every extra
//! lexicon that happened to drop it.
//!
//! A document with no in-lexicon term gets no signature: it is never a duplicate, and it is
//! counted in the statistics (`unsigned_docs`). Statistics from fewer than 3 documents cannot
//! separate a lexicon from the rest (of two documents, every term is in one or in both, so
//! two unrelated documents sharing one word would get equal signatures): such an index
//! reports no pair and no score, with a warning. Score: colliding signatures / (K + 1).
//! Signatures are compared on their first 128 bits. Words: Chinese text is cut by jieba.

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use crate::detector::{Algorithm, ParamMap, ScoredPair, params};
use crate::error::{Error, Result, check_unit_band};
use crate::features::statistics::{Statistics, StatisticsFeatures, term_key, terms};
use crate::hash::{SplitMix64, derive_seed, mix64};
use crate::keyjoin::{key128, shared_keys};
use crate::pairs::unpack;
use crate::resources::{self, Estimate};
use crate::text::{Normalization, WordParams};

/// Build parameters of `imatch`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct IMatchParams {
    /// Normalization before tokenizing.
    #[serde(flatten)]
    pub normalization: Normalization,
    /// Words (Chinese: jieba words).
    #[serde(flatten)]
    pub words: WordParams,
    /// Lowest normalized idf kept in the lexicon. Default 0.2.
    pub min_idf: f64,
    /// Highest normalized idf kept. Default 0.8.
    pub max_idf: f64,
    /// Extra randomized lexicons K (Kołcz et al.); 0 = plain I-Match. Default 0.
    pub extra_lexicons: usize,
    /// Share of the lexicon each extra lexicon drops, in (0, 1). Default 0.33.
    pub drop_fraction: f64,
    /// Seed of the randomized lexicons. Default 42.
    pub seed: u64,
    /// Term document frequencies from this table (`neardup idf build`) instead of the corpus.
    pub idf_from: Option<String>,
}

impl Default for IMatchParams {
    fn default() -> Self {
        IMatchParams {
            normalization: Normalization::default(),
            words: WordParams::default(),
            min_idf: 0.2,
            max_idf: 0.8,
            extra_lexicons: 0,
            drop_fraction: 0.33,
            seed: 42,
            idf_from: None,
        }
    }
}

/// Query parameters of `imatch`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct IMatchQuery {
    /// Colliding signatures needed (of K + 1). Default 1.
    pub min_collisions: usize,
}

impl Default for IMatchQuery {
    fn default() -> Self {
        IMatchQuery { min_collisions: 1 }
    }
}

/// Signatures per document and lexicon.
#[derive(Debug)]
pub struct IMatchIndex {
    /// `docs × (K + 1)` signatures.
    signatures: Vec<Option<u128>>,
    lexicons: usize,
    /// (pair, colliding signatures).
    collisions: Vec<(u64, u32)>,
    unsigned: usize,
    lexicon_size: usize,
    statistics: Statistics,
}

/// I-Match.
#[derive(Debug)]
pub struct IMatch;

impl Algorithm for IMatch {
    const NAME: &'static str = "imatch";
    const SUMMARY: &'static str = "I-Match: SHA1 of the idf-band terms; randomized lexicons (Chowdhury et al. TOIS 2002; Kolcz et al. KDD 2004)";
    const SCORE: &'static str = "share of lexicons whose I-Match signatures are equal (0 to 1)";
    type Params = IMatchParams;
    type Query = IMatchQuery;
    type Index = IMatchIndex;

    fn validate(p: &Self::Params, q: &Self::Query) -> Result<()> {
        check_unit_band(Self::NAME, "min_idf", p.min_idf, p.max_idf)?;
        if !(p.drop_fraction > 0.0 && p.drop_fraction < 1.0) {
            return Err(Error::invalid(
                Self::NAME,
                "drop_fraction",
                format!("{} is outside (0, 1)", p.drop_fraction),
            ));
        }
        if q.min_collisions == 0 || q.min_collisions > p.extra_lexicons + 1 {
            return Err(Error::invalid(
                Self::NAME,
                "min_collisions",
                format!(
                    "{} is outside 1..={} (the number of signatures)",
                    q.min_collisions,
                    p.extra_lexicons + 1
                ),
            ));
        }
        Ok(())
    }

    fn statistics(p: &Self::Params) -> Option<StatisticsFeatures> {
        Some(terms(&p.normalization, &p.words))
    }

    fn build(p: &Self::Params, docs: &[&str]) -> Result<Self::Index> {
        use rayon::prelude::*;
        let seed = derive_seed(p.seed, "imatch");
        let features = Self::statistics(p).expect("imatch has statistics");
        let statistics = Statistics::gather(&features, p.idf_from.as_deref(), docs, Self::NAME)?;
        let df = &statistics.df;
        let usable = statistics.usable();
        let n = statistics.docs() as f64;
        let in_band = |t: u64| {
            if !usable {
                return false;
            }
            let nidf = (n / df.get(t).max(1) as f64).ln() / n.ln();
            nidf >= p.min_idf - 1e-12 && nidf <= p.max_idf + 1e-12
        };
        // The lexicon's size over the terms seen (a reference table may hold many more).
        let lexicon_size = df.iter().filter(|&(t, _)| in_band(t)).count();
        let lexicons = p.extra_lexicons + 1;
        let drop_seeds: Vec<u64> = {
            let mut rng = SplitMix64::new(seed);
            (0..p.extra_lexicons).map(|_| rng.next_u64()).collect()
        };
        // Is term `t` (in band) kept by extra lexicon `i`? Drawn from a hash of the term under
        // this detector's seed, so lexicons vary with the seed, not with the statistics.
        let kept = |t: &str, i: usize| {
            let h = crate::hash::hash_bytes(t.as_bytes(), seed);
            (mix64(h ^ drop_seeds[i]) >> 11) as f64 / (1u64 << 53) as f64 >= p.drop_fraction
        };
        let signatures: Vec<Option<u128>> = docs
            .par_iter()
            .map_init(String::new, |buf, d| {
                p.normalization.apply_into(d, buf);
                let mut terms: Vec<&str> = Vec::new();
                p.words.for_each_word(buf, |t| {
                    if in_band(term_key(t)) {
                        terms.push(t);
                    }
                });
                terms.sort_unstable();
                terms.dedup();
                (0..lexicons)
                    .map(|l| {
                        let mut sha = Sha1::new();
                        let mut any = false;
                        for t in &terms {
                            if l == 0 || kept(t, l - 1) {
                                sha.update(t.as_bytes());
                                sha.update(b"\n");
                                any = true;
                            }
                        }
                        any.then(|| key128(&sha.finalize()))
                    })
                    .collect::<Vec<_>>()
            })
            .flatten()
            .collect();
        let unsigned = (0..docs.len())
            .filter(|&i| signatures[i * lexicons].is_none())
            .count();
        Ok(IMatchIndex {
            collisions: shared_keys(lexicon_keys(&signatures, lexicons))?,
            signatures,
            lexicons,
            unsigned,
            lexicon_size,
            statistics,
        })
    }

    fn query(_: &Self::Params, index: &Self::Index, q: &Self::Query) -> Result<Vec<ScoredPair>> {
        Ok(index
            .collisions
            .iter()
            .filter(|&&(_, n)| n as usize >= q.min_collisions)
            .map(|&(pair, n)| {
                let (a, b) = unpack(pair);
                ScoredPair {
                    a,
                    b,
                    score: n as f64 / index.lexicons as f64,
                }
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
        if !index.statistics.usable() {
            return None;
        }
        let l = index.lexicons;
        let same = (0..l).filter(|&i| matches!((index.signatures[a * l + i], index.signatures[b * l + i]), (Some(x), Some(y)) if x == y)).count();
        Some(same as f64 / l as f64)
    }

    /// One lexicon, and two extra randomized lexicons (Kolcz et al.'s remedy for fragility).
    fn calibration_grid() -> Vec<ParamMap> {
        vec![
            params(&[("extra_lexicons", 0.into())]),
            params(&[("extra_lexicons", 2.into())]),
        ]
    }

    /// Score c/(K + 1) ≥ t ⟺ c ≥ ⌈t·(K + 1)⌉ colliding signatures: `min_collisions`.
    fn threshold_params(p: &Self::Params, t: f64) -> Option<ParamMap> {
        let lexicons = (p.extra_lexicons + 1) as f64;
        let c = ((t * lexicons - 1e-9).ceil() as u64).max(1);
        Some(params(&[("min_collisions", c.into())]))
    }

    fn memory(p: &Self::Params, docs: usize, text_bytes: usize) -> Estimate {
        let e = resources::signatures(docs, (p.extra_lexicons + 1) * 24, "signatures");
        if p.idf_from.is_none() {
            e.plus(resources::statistics(text_bytes))
        } else {
            e
        }
    }

    fn index_bytes(index: &Self::Index) -> usize {
        index.signatures.capacity() * std::mem::size_of::<Option<u128>>()
            + index.collisions.capacity() * 16
    }

    fn stats(index: &Self::Index) -> ParamMap {
        let mut m = ParamMap::new();
        m.insert("unsigned_docs".into(), index.unsigned.into());
        m.insert("lexicon_terms".into(), index.lexicon_size.into());
        m
    }

    fn warnings(index: &Self::Index) -> Vec<String> {
        index
            .statistics
            .warnings(Self::NAME, index.statistics.usable())
    }
}

/// Every signature as a join key with its document, namespaced by lexicon so that a
/// signature only collides with the same lexicon's (`signatures`: `lexicons` per document).
fn lexicon_keys(signatures: &[Option<u128>], lexicons: usize) -> Vec<(u128, u32)> {
    signatures
        .iter()
        .enumerate()
        .filter_map(|(k, s)| {
            s.map(|s| {
                (
                    s ^ ((k % lexicons) as u128)
                        .wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835),
                    (k / lexicons) as u32,
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Configured, Detector};
    use serde_json::json;

    fn detector(v: serde_json::Value) -> Configured<IMatch> {
        Configured::<IMatch>::from_params(&serde_json::from_value(v).unwrap()).unwrap()
    }

    /// 40 filler documents give the terms a spread of document frequencies (N = 44): `common`
    /// is in almost every document (nidf ≈ 0), each `mid*` in 16–18 (nidf ≈ 0.24, in band),
    /// `filler*` and `hapax*` in one or two (nidf ≥ 0.82, out of band).
    fn corpus(extra: &[String]) -> Vec<String> {
        let mut docs: Vec<String> = (0..40)
            .map(|i| format!("common filler{i} mid{}", i % 3))
            .collect();
        docs.extend_from_slice(extra);
        docs
    }

    #[test]
    fn out_of_band_differences_collide_in_band_ones_do_not() {
        let base = "common mid0 mid1 mid2 hapaxa";
        let extra = vec![
            base.to_string(),
            "common mid0 mid1 mid2 hapaxb".to_string(), // differs in a hapax (out of band)
            "mid0 mid1 mid2 hapaxc".to_string(),        // drops the ubiquitous term
            "common mid0 mid1 hapaxd".to_string(),      // drops an in-band term
        ];
        let docs = corpus(&extra);
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let index = detector(json!({})).build(&refs).unwrap();
        let pairs: Vec<(u32, u32)> = index
            .query(&ParamMap::new())
            .unwrap()
            .iter()
            .map(|p| (p.a, p.b))
            .collect();
        let (b, h, c, m) = (40u32, 41, 42, 43);
        assert!(
            pairs.contains(&(b, h)),
            "out-of-band hapax ignored: {pairs:?}"
        );
        assert!(pairs.contains(&(b, c)), "out-of-band common term ignored");
        assert!(
            !pairs.contains(&(b, m)),
            "one changed in-band term breaks the signature"
        );
        assert_eq!(index.stats()["unsigned_docs"], 0);
    }

    #[test]
    fn documents_without_lexicon_terms_are_never_duplicates() {
        let docs = corpus(&["common".to_string(), "common".to_string(), "".to_string()]);
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let index = detector(json!({})).build(&refs).unwrap();
        let pairs = index.query(&ParamMap::new()).unwrap();
        assert!(pairs.iter().all(|p| p.a < 40 && p.b < 40), "{pairs:?}");
        assert_eq!(index.stats()["unsigned_docs"], 3);
        // A single document has no lexicon.
        let one = detector(json!({})).build(&["alone here"]).unwrap();
        assert_eq!(one.stats()["unsigned_docs"], 1);
    }

    /// Regression (issue 11): two identical documents alone scored 0 as if they were
    /// different; an idf band over two documents means nothing, so there is no score, with a
    /// warning — and a reference table gives them their score.
    #[test]
    fn two_lone_documents_need_reference_statistics() {
        let text = "the council approved the new bridge over the river this spring";
        let alone = detector(json!({})).build(&[text, text]).unwrap();
        assert_eq!(alone.score(0, 1), None);
        assert!(alone.query(&ParamMap::new()).unwrap().is_empty());
        assert!(
            alone.warnings()[0].contains("idf_from"),
            "{:?}",
            alone.warnings()
        );

        // A reference collection where the document's words have middling frequencies
        // (about 30 % of 200 documents: nidf ≈ 0.23, inside the band).
        let words: Vec<&str> = text.split(' ').collect();
        let reference: Vec<String> = (0..200)
            .map(|i| {
                let mut d: Vec<String> = (0..words.len())
                    .filter(|j| (i * 7 + j * 3) % 10 < 3)
                    .map(|j| words[j].to_string())
                    .collect();
                d.push(format!("filler{i}"));
                d.join(" ")
            })
            .collect();
        let refs: Vec<&str> = reference.iter().map(String::as_str).collect();
        let features = IMatch::statistics(&IMatchParams::default()).unwrap();
        let df = features.count(&refs);
        let table = crate::features::dftable::DfTable {
            sections: vec![crate::features::dftable::Section {
                description: features.description.clone(),
                docs: df.docs() as u64,
                entries: {
                    let mut e: Vec<(u64, u32)> = df.iter().collect();
                    e.sort_unstable();
                    e
                },
            }],
            sources: vec![],
        };
        let path = std::env::temp_dir().join(format!("neardup-imatch-{}.df", std::process::id()));
        std::fs::write(&path, table.to_bytes()).unwrap();
        let with_reference = detector(json!({ "idf_from": path.to_str().unwrap() }))
            .build(&[text, text, "an unrelated note about cooking pasta"])
            .unwrap();
        assert_eq!(with_reference.score(0, 1), Some(1.0));
        assert_eq!(with_reference.score(0, 2), Some(0.0));
        assert!(with_reference.warnings().is_empty());
    }

    /// Kołcz et al.: extra randomized lexicons raise recall. Seeded corpus (seed printed):
    /// 300 documents over a 2,000-word vocabulary, 100 copies with one substituted word.
    #[test]
    fn randomized_lexicons_raise_recall() {
        const SEED: u64 = 2004;
        println!("randomized_lexicons_raise_recall: seed {SEED}");
        let mut rng = SplitMix64::new(SEED);
        let mut docs: Vec<String> = (0..300)
            .map(|_| {
                (0..40)
                    .map(|_| format!("w{}", rng.below(2000)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let mut truth = Vec::new();
        for c in 0..100 {
            let mut words: Vec<String> = docs[c].split(' ').map(String::from).collect();
            let i = rng.below(words.len() as u64) as usize;
            words[i] = format!("w{}", rng.below(2000));
            truth.push((c as u32, docs.len() as u32));
            docs.push(words.join(" "));
        }
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let recall = |k: usize| {
            let index = detector(json!({ "extra_lexicons": k }))
                .build(&refs)
                .unwrap();
            let pairs: Vec<(u32, u32)> = index
                .query(&ParamMap::new())
                .unwrap()
                .iter()
                .map(|p| (p.a, p.b))
                .collect();
            truth.iter().filter(|t| pairs.contains(t)).count() as f64 / truth.len() as f64
        };
        let (plain, randomized) = (recall(0), recall(10));
        println!("recall: plain {plain:.2}, 10 extra lexicons {randomized:.2}");
        assert!(
            randomized > plain + 0.1,
            "plain {plain}, randomized {randomized}"
        );
    }

    #[test]
    fn bad_parameters() {
        let err = crate::testutil::param_error::<IMatch>;
        assert!(err(json!({"min_idf": 0.9, "max_idf": 0.1})).contains("empty"));
        assert!(err(json!({"max_idf": 1.5})).contains("outside"));
        assert!(err(json!({"drop_fraction": 1.0})).contains("drop_fraction"));
        assert!(err(json!({"min_collisions": 2})).contains("min_collisions"));
    }
}
