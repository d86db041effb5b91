//! `minhash-lsh`: MinHash signatures + LSH banding + verification (MMDS §3.3–3.4; the
//! datasketch / text-dedup / datatrove pipeline).
//!
//! Build: shingle every document, sketch it (classic or one-permutation MinHash), band the
//! signatures. Query: candidate pairs (equal key in ≥ 1 band) are verified — by the signature
//! agreement (estimated Jaccard), by exact Jaccard of the shingle sets, or not at all — against
//! `min_similarity` (default: the build's `threshold`). A pair is reported when its score is
//! ≥ the cutoff.
//!
//! The tuned banding (`bands` and `rows` unset) is chosen for recall at the threshold when
//! candidates are verified (P(candidate | J = t) ≥ 0.95, `banding::tune_for_recall`: a
//! verified false candidate costs a comparison, a missed pair is lost) and with datasketch's
//! balanced areas when they are not (`tuning` overrides).
//!
//! `threshold` unset means 0.8 with a tuned banding; with explicit `bands` and `rows` it means
//! the banding's own threshold (1/b)^(1/r), so the verification never silently disagrees with
//! the banding the user asked for (a 20 × 5 banding verifies at 0.549, not at 0.8).
//!
//! Score: estimated Jaccard (exact Jaccard when `verify = "exact"`).
//!
//! Chinese: shingles are character k-grams (`cjk_unit = char`), and those that start on a Han
//! character have `cjk_k = 3` characters where English ones have `k = 5` words
//! (`FeatureParams::cjk_k`), so that one threshold suits both. Measured on bible-zh's ChiUn
//! chapters with one copy of 5 % of them, 3 % of their characters changed and their
//! punctuation made ASCII (`neardup edit --edits typo=0.03,ascii-punct=1 --fraction 0.05`,
//! seed 1: 74 copies; `scripts/chinese_web_check.py`), copies found at the default threshold
//! 0.8 and precision: 5 characters 27 (1.00), 4: 49 (0.98), 3: 63 (0.98), 2: 74 (0.97); seeds
//! 2 and 3 give 46/53 and 57/59 for 3 characters. Three keep most of the precision that
//! longer shingles buy on unrelated pages while their Jaccard under a few changed characters
//! stays near that of English 5-word shingles under as many changed words.

use serde::{Deserialize, Serialize};

use crate::detector::{Algorithm, ParamMap, ScoredPair, params, scored_from_packed};
use crate::error::{Error, Result, check_unit_threshold};
use crate::features::FeatureParams;
use crate::features::Shingler;
use crate::features::similarity::jaccard;
use crate::hash::derive_seed;
use crate::minhash::banding::{Objective, RECALL_AT_THRESHOLD};
use crate::minhash::lsh::{Banding, candidate_pairs, connecting_pairs};
use crate::minhash::{Signatures, SketchKind, Sketcher, agreement, sketch_document};
use crate::resources::{self, Estimate};
use crate::streaming::{SignatureTable, SketchScratch, StreamingDetector};

/// How candidates are checked before they are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Verify {
    /// Estimated Jaccard (signature agreement) ≥ cutoff.
    #[default]
    Estimate,
    /// Exact Jaccard of the shingle sets ≥ cutoff (the index keeps the sets).
    Exact,
    /// Every candidate is reported.
    None,
}

/// What a tuned banding (`bands` and `rows` unset) is chosen for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Tuning {
    /// `recall-at-threshold` when candidates are verified, `balanced` when they are not.
    #[default]
    Auto,
    /// Least equal-weight false-positive + false-negative area (datasketch's tuning).
    Balanced,
    /// P(candidate | J = threshold) ≥ 0.95 with the least false-positive area: verification
    /// removes the extra candidates (`banding::tune_for_recall`).
    RecallAtThreshold,
}

/// Build parameters of `minhash-lsh`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct MinHashLshParams {
    /// Features (default word 5-shingles, Unicode words, lower-cased, NFKC).
    #[serde(flatten)]
    pub features: FeatureParams,
    /// Signature scheme: `classic` (`num_perm` independent permutations, Broder 1997: work
    /// grows with shingles × num_perm) or `oph` (one permutation hashing with optimal
    /// densification, Li, Owen & Zhang NIPS 2012, Shrivastava ICML 2017: one hash per
    /// shingle, the same estimator, in O(shingles + num_perm) instead of
    /// O(shingles · num_perm)). Default `classic`.
    pub sketch: SketchKind,
    /// Signature length. Default 128.
    pub num_perm: usize,
    /// Target Jaccard similarity in (0, 1]: the banding is tuned for it when `bands` and
    /// `rows` are 0, and it is the default verification cutoff. Default: 0.8, or the banding's
    /// threshold (1/b)^(1/r) when `bands` and `rows` are set.
    pub threshold: Option<f64>,
    /// Number of bands; 0 = chosen by the tuner for `threshold`. Default 0.
    pub bands: usize,
    /// Rows per band; 0 = chosen by the tuner for `threshold`. Default 0.
    pub rows: usize,
    /// How a candidate pair is confirmed: `estimate` (its signatures agree on at least the
    /// threshold's share of positions), `exact` (the exact Jaccard of its shingle sets, the
    /// texts read again) or `none` (every candidate is reported). Default `estimate`.
    pub verify: Verify,
    /// What a tuned banding is chosen for: `auto` (recall at the threshold when verified,
    /// balanced when `verify = "none"`), `balanced` or `recall-at-threshold`. Default `auto`.
    pub tuning: Tuning,
    /// Seed of the token hash and the permutations. Default 42.
    pub seed: u64,
}

impl Default for MinHashLshParams {
    fn default() -> Self {
        MinHashLshParams {
            // Chinese shingles of 3 characters (`FeatureParams::cjk_k`; measured in the
            // module docs).
            features: FeatureParams {
                cjk_k: Some(3),
                ..FeatureParams::default()
            },
            sketch: SketchKind::Classic,
            num_perm: 128,
            threshold: None,
            bands: 0,
            rows: 0,
            verify: Verify::Estimate,
            tuning: Tuning::Auto,
            seed: 42,
        }
    }
}

/// Query parameters of `minhash-lsh`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MinHashLshQuery {
    /// Verification cutoff in (0, 1]; unset = the build `threshold`.
    pub min_similarity: Option<f64>,
}

impl MinHashLshParams {
    /// Default target when neither `threshold` nor a banding is given.
    pub const DEFAULT_THRESHOLD: f64 = 0.8;

    /// The target threshold: `threshold` if set, else the explicit banding's threshold, else
    /// [`Self::DEFAULT_THRESHOLD`].
    pub fn threshold(&self) -> f64 {
        match (self.threshold, self.bands, self.rows) {
            (Some(t), _, _) => t,
            (None, b, r) if b > 0 && r > 0 => crate::minhash::banding::threshold(b, r),
            _ => Self::DEFAULT_THRESHOLD,
        }
    }

    /// The shingler and the MinHash functions, both drawn from `seed`.
    fn sketcher(&self) -> Result<(Shingler, Sketcher)> {
        Ok((
            self.features.shingler(derive_seed(self.seed, "tokens")),
            Sketcher::new(
                self.sketch,
                self.num_perm,
                derive_seed(self.seed, "permutations"),
            )?,
        ))
    }

    /// What a tuned banding is chosen for, `auto` resolved by the verification.
    pub fn objective(&self) -> Objective {
        let recall = match self.tuning {
            Tuning::Auto => self.verify != Verify::None,
            Tuning::Balanced => false,
            Tuning::RecallAtThreshold => true,
        };
        if recall {
            Objective::RecallAtThreshold {
                min_probability: RECALL_AT_THRESHOLD,
            }
        } else {
            Objective::Balanced {
                false_positive_weight: 0.5,
            }
        }
    }

    /// The banding: explicit, or tuned for `threshold` by [`Self::objective`].
    pub fn banding(&self) -> Result<Banding> {
        let (b, r) = match (self.bands, self.rows) {
            (0, 0) => {
                let t = self.objective().tune(self.threshold(), self.num_perm)?;
                (t.bands, t.rows)
            }
            (0, _) | (_, 0) => {
                return Err(Error::invalid(
                    MinHashLsh::NAME,
                    if self.bands == 0 { "bands" } else { "rows" },
                    "set both bands and rows, or neither (0 = tuned for `threshold`)",
                ));
            }
            (b, r) => (b, r),
        };
        Banding::new(b, r, self.num_perm).map_err(|e| match e {
            Error::InvalidParam { field, reason, .. } => {
                Error::invalid(MinHashLsh::NAME, field, reason)
            }
            other => other,
        })
    }
}

/// The built index.
#[derive(Debug)]
pub struct MinHashLshIndex {
    signatures: Signatures,
    candidates: Vec<u64>,
    /// Shingle sets, kept only for exact verification.
    sets: Option<Vec<Vec<u64>>>,
}

/// MinHash + LSH banding.
#[derive(Debug)]
pub struct MinHashLsh;

impl Algorithm for MinHashLsh {
    const NAME: &'static str = "minhash-lsh";
    const SUMMARY: &'static str = "MinHash signatures + LSH banding + verification (Broder 1997; MMDS 3.3-3.4); English: k-word shingles, Chinese: cjk_k-character shingles";
    const SCORE: &'static str =
        "Jaccard of the shingle sets, estimated by the share of equal MinHash values";
    const COMPARES_ANY_PAIR: bool = true;
    type Params = MinHashLshParams;
    type Query = MinHashLshQuery;
    type Index = MinHashLshIndex;

    fn validate(p: &Self::Params, q: &Self::Query) -> Result<()> {
        p.features.validate(Self::NAME)?;
        crate::minhash::num_perm::check_num_perm(Self::NAME, p.num_perm)?;
        if let Some(t) = p.threshold {
            check_unit_threshold(Self::NAME, "threshold", t)?;
        }
        p.banding()?;
        if let Some(m) = q.min_similarity {
            check_unit_threshold(Self::NAME, "min_similarity", m)?;
        }
        Ok(())
    }

    fn build(p: &Self::Params, docs: &[&str]) -> Result<Self::Index> {
        let (shingler, sketcher) = p.sketcher()?;
        let signatures = Signatures::compute(docs, &shingler, &sketcher, p.num_perm);
        let candidates = candidate_pairs(&signatures, &p.banding()?)?;
        let sets = (p.verify == Verify::Exact).then(|| {
            use rayon::prelude::*;
            docs.par_iter().map(|d| shingler.set(d)).collect()
        });
        Ok(MinHashLshIndex {
            signatures,
            candidates,
            sets,
        })
    }

    fn query(p: &Self::Params, index: &Self::Index, q: &Self::Query) -> Result<Vec<ScoredPair>> {
        let cutoff = q.min_similarity.unwrap_or(p.threshold());
        Ok(scored_from_packed(&index.candidates, |a, b| {
            let s = Self::score(p, index, q, a as usize, b as usize)?;
            (p.verify == Verify::None || s >= cutoff).then_some(s)
        }))
    }

    fn score(
        _: &Self::Params,
        index: &Self::Index,
        _: &Self::Query,
        a: usize,
        b: usize,
    ) -> Option<f64> {
        Some(match &index.sets {
            Some(sets) => jaccard(&sets[a], &sets[b]),
            None => index.signatures.estimate(a, b),
        })
    }

    /// The threshold, the banding and the tuning objective that run (a default record says
    /// `threshold = null, bands = 0, rows = 0, tuning = auto`; this says 0.8, 13 × 7,
    /// `recall-at-threshold`).
    fn resolve(p: &Self::Params) -> Self::Params {
        let mut ran = p.clone();
        ran.threshold = Some(p.threshold());
        if let Ok(banding) = p.banding() {
            ran.bands = banding.bands();
            ran.rows = banding.rows();
        }
        ran.tuning = match p.objective() {
            Objective::RecallAtThreshold { .. } => Tuning::RecallAtThreshold,
            Objective::Balanced { .. } => Tuning::Balanced,
        };
        ran
    }

    /// The score (exact Jaccard with `verify = "exact"`, else the estimate) against the
    /// verification cutoff.
    fn compare(
        p: &Self::Params,
        index: &Self::Index,
        q: &Self::Query,
        a: usize,
        b: usize,
    ) -> Option<(f64, bool)> {
        let s = Self::score(p, index, q, a, b)?;
        Some((s, s >= q.min_similarity.unwrap_or(p.threshold())))
    }

    /// Word 3-, 5- and 7-shingles and character 5-shingles with 128 permutations, and word
    /// 5-shingles with 256: what shingles measure matters more than signature length, which
    /// only narrows the estimate.
    fn calibration_grid() -> Vec<ParamMap> {
        let g = |shingle: &str, k: u64, num_perm: u64| {
            params(&[
                ("shingle", shingle.into()),
                ("k", k.into()),
                ("num_perm", num_perm.into()),
            ])
        };
        vec![
            g("word", 3, 128),
            g("word", 5, 128),
            g("word", 7, 128),
            g("char", 5, 128),
            g("word", 5, 256),
        ]
    }

    /// `threshold = t`: the banding is tuned for t and candidates are verified at t.
    fn threshold_params(_: &Self::Params, t: f64) -> Option<ParamMap> {
        Some(params(&[("threshold", t.into())]))
    }

    /// Streams unless candidates are verified against exact shingle sets (not fixed-size).
    fn streaming(p: &Self::Params, q: &Self::Query) -> Option<Box<dyn StreamingDetector>> {
        if p.verify == Verify::Exact {
            return None;
        }
        let (shingler, sketcher) = p.sketcher().ok()?;
        let key = serde_json::json!({
            "features": p.features, "sketch": p.sketch, "num_perm": p.num_perm, "seed": p.seed,
        });
        Some(Box::new(MinHashLshStream {
            key: key.to_string(),
            shingler,
            sketcher,
            banding: p.banding().ok()?,
            verify: p.verify,
            cutoff: q.min_similarity.unwrap_or(p.threshold()),
            num_perm: p.num_perm,
        }))
    }

    fn memory(p: &Self::Params, docs: usize, text_bytes: usize) -> Estimate {
        // Band keys (8 B a band and document), then one band's (key, document) list per thread.
        let bands = p.banding().map_or(p.num_perm, |b| b.bands());
        let e = resources::signatures(docs, p.num_perm * 4, "signatures")
            .plus(resources::signatures(docs, bands * 8, "band keys"))
            .plus(resources::join_keys(docs, 16));
        if p.verify == Verify::Exact {
            // Shingle sets for exact verification: about one 8-byte shingle per 6 bytes.
            e.plus(Estimate::new(
                text_bytes as u64 * 4 / 3,
                format!("shingle sets {text_bytes} B of text × 4/3"),
            ))
        } else {
            e
        }
    }

    fn index_bytes(index: &Self::Index) -> usize {
        index.signatures.heap_bytes()
            + index.candidates.capacity() * 8
            + index
                .sets
                .as_ref()
                .map_or(0, |s| s.iter().map(|v| v.capacity() * 8 + 24).sum())
    }
}

/// `minhash-lsh` split for streaming: the same sketch and banding as `build`, verification
/// by the signature estimate (or none).
#[derive(Debug)]
struct MinHashLshStream {
    key: String,
    shingler: Shingler,
    sketcher: Sketcher,
    banding: Banding,
    verify: Verify,
    cutoff: f64,
    num_perm: usize,
}

impl StreamingDetector for MinHashLshStream {
    fn name(&self) -> &'static str {
        MinHashLsh::NAME
    }
    fn width(&self) -> usize {
        self.num_perm
    }
    fn sketch_key(&self) -> String {
        self.key.clone()
    }
    fn sketch(&self, text: &str, s: &mut SketchScratch, out: &mut [u32]) -> bool {
        sketch_document(
            &self.shingler,
            &self.sketcher,
            text,
            &mut s.features,
            &mut s.hashes,
            out,
        )
    }
    fn candidates(&self, table: &SignatureTable) -> Result<Vec<u64>> {
        candidate_pairs(table, &self.banding)
    }
    fn connecting_candidates(&self, table: &SignatureTable) -> Result<Vec<u64>> {
        let verify = |a: u32, b: u32| self.verify(table, a, b).is_some();
        connecting_pairs(table, &self.banding, &verify)
    }
    fn keys_per_doc(&self) -> usize {
        self.banding.bands()
    }
    fn keys(&self, signature: &[u32], out: &mut [u64]) {
        // Exactly the keys `candidate_pairs` sorts.
        self.banding.keys_into(signature, out);
    }
    fn verify(&self, table: &SignatureTable, a: u32, b: u32) -> Option<f64> {
        let (a, b) = (a as usize, b as usize);
        let s = if table.is_empty_doc(a) || table.is_empty_doc(b) {
            0.0
        } else {
            agreement(table.row(a), table.row(b))
        };
        (self.verify == Verify::None || s >= self.cutoff).then_some(s)
    }
    fn compare(&self, table: &SignatureTable, a: u32, b: u32) -> (f64, bool) {
        let (a, b) = (a as usize, b as usize);
        let s = if table.is_empty_doc(a) || table.is_empty_doc(b) {
            0.0
        } else {
            agreement(table.row(a), table.row(b))
        };
        (s, s >= self.cutoff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Configured, Detector};
    use serde_json::json;

    fn detector(params: serde_json::Value) -> Result<Configured<MinHashLsh>> {
        let map: ParamMap = serde_json::from_value(params).unwrap();
        Configured::<MinHashLsh>::from_params(&map)
    }

    #[test]
    fn default_banding_is_tuned_for_threshold() {
        // Verified (the default): recall at the threshold, P(candidate | 0.8) ≥ 0.95.
        let b = MinHashLshParams::default().banding().unwrap();
        assert_eq!((b.bands(), b.rows()), (13, 7));
        let p = |v| -> MinHashLshParams { serde_json::from_value(v).unwrap() };
        // Unverified, or asked for: datasketch's balanced 9 × 13.
        for v in [json!({"verify": "none"}), json!({"tuning": "balanced"})] {
            let b = p(v).banding().unwrap();
            assert_eq!((b.bands(), b.rows()), (9, 13));
        }
        let b = p(json!({"verify": "none", "tuning": "recall-at-threshold"}))
            .banding()
            .unwrap();
        assert_eq!((b.bands(), b.rows()), (13, 7));
    }

    /// Explicit bands and rows move the verification cutoff to the banding's threshold;
    /// an explicit `threshold` still wins (issue 12: it silently stayed 0.8).
    #[test]
    fn explicit_banding_sets_the_default_cutoff() {
        let p = |v| -> MinHashLshParams { serde_json::from_value(v).unwrap() };
        assert_eq!(p(json!({})).threshold(), 0.8);
        let banded = p(json!({"bands": 20, "rows": 5}));
        assert!((banded.threshold() - 0.05f64.powf(0.2)).abs() < 1e-12);
        assert_eq!(
            p(json!({"bands": 20, "rows": 5, "threshold": 0.7})).threshold(),
            0.7
        );
        // Two documents at Jaccard 6/8 = 0.75 (word 1-shingles; candidates with probability
        // 0.9955 under 20 × 5): reported by that banding verified exactly at its threshold
        // 0.549, not at the 0.8 default.
        let docs = ["a b c d e f g", "a b c d e f h"];
        let pairs = |v| {
            detector(v)
                .unwrap()
                .build(&docs)
                .unwrap()
                .query(&ParamMap::new())
                .unwrap()
                .len()
        };
        assert_eq!(
            pairs(json!({"k": 1, "verify": "exact", "bands": 20, "rows": 5})),
            1
        );
        assert_eq!(pairs(json!({"k": 1, "verify": "exact"})), 0);
        assert_eq!(
            pairs(json!({"k": 1, "verify": "exact", "bands": 20, "rows": 5, "threshold": 0.8})),
            0
        );
    }

    #[test]
    fn finds_near_duplicates_not_strangers() {
        let base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat \
                    near the old stone fireplace in the small cottage by the river";
        let near = base.replace("lazy", "sleepy");
        let other = "completely unrelated text about database indexes and query planners that \
                     shares almost nothing with the other two documents at all really";
        let docs = [base, near.as_str(), other];
        let d = detector(json!({"threshold": 0.5, "k": 3})).unwrap();
        let index = d.build(&docs).unwrap();
        let pairs = index.query(&ParamMap::new()).unwrap();
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].a, pairs[0].b), (0, 1));
        assert!(index.score(0, 2).unwrap() < 0.2);
    }

    #[test]
    fn short_and_empty_documents_are_not_all_duplicates() {
        // Regression guard for the documented short-document rule: different short documents
        // do not collide; empty ones are never reported.
        let docs = ["", "   ", "two words", "other pair", "two words", "!!"];
        let d = detector(json!({"threshold": 0.5})).unwrap();
        let pairs = d.build(&docs).unwrap().query(&ParamMap::new()).unwrap();
        let got: Vec<(u32, u32)> = pairs.iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(got, [(2, 4)]);
    }

    #[test]
    fn bad_parameters_are_named() {
        let err = |v| detector(v).unwrap_err().to_string();
        assert!(err(json!({"k": 0})).contains("`k`"));
        assert!(err(json!({"num_perm": 0})).contains("num_perm"));
        assert!(err(json!({"bands": 20, "rows": 7})).contains("exceeds num_perm"));
        assert!(err(json!({"threshold": 0.0})).contains("threshold"));
        assert!(err(json!({"threshold": 1.5})).contains("threshold"));
        assert!(err(json!({"min_similarity": -1.0})).contains("min_similarity"));
        assert!(err(json!({"bands": 4})).contains("rows"));
        assert!(err(json!({"colour": 1})).contains("no parameter `colour`"));
        // Regression (issue 15): a value of the wrong type names its parameter.
        let e = err(json!({"k": "five"}));
        assert!(
            e.contains("parameter `k` of `minhash-lsh`") && e.contains("invalid type"),
            "{e}"
        );
        assert!(err(json!({"sketch": "fast"})).contains("unknown variant"));
    }

    #[test]
    fn exact_verification_and_query_sweep() {
        let docs = ["a b c d e f g h", "a b c d e f g x", "a b c d x y z w"];
        let d =
            detector(json!({"k": 1, "verify": "exact", "threshold": 0.5, "bands": 64, "rows": 2}))
                .unwrap();
        let index = d.build(&docs).unwrap();
        // exact Jaccard: (0,1) = 7/9, (0,2) = 4/12, (1,2) = 4/11
        assert!((index.score(0, 1).unwrap() - 7.0 / 9.0).abs() < 1e-12);
        let strict = index
            .query(&serde_json::from_value(json!({"min_similarity": 0.7})).unwrap())
            .unwrap();
        assert_eq!(strict.len(), 1);
        let loose = index
            .query(&serde_json::from_value(json!({"min_similarity": 0.3})).unwrap())
            .unwrap();
        assert_eq!(loose.len(), 3);
        assert!(
            index
                .query(&serde_json::from_value(json!({"k": 3})).unwrap())
                .is_err()
        );
    }
}
