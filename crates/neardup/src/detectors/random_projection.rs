//! `random-projection`: Charikar's random-hyperplane sketch as Henzinger's algorithm C
//! (SIGIR 2006 §2.2): b = 384 bits from tf-weighted tokens, each token's ±1 vector derived
//! from seeded hashes (no stored matrix); C-similar when at least t bits agree (Henzinger:
//! "more than 372", i.e. t = 373 — the boundary is the `min_agreement` parameter).
//!
//! Search: at most d = b − t bits differ, so splitting the fingerprint into d + 1 pieces
//! guarantees one identical piece (Henzinger: 12 pieces of 32 bits for d ≤ 11) — the
//! permuted-table join with "d + 1 blocks, choose 1". When pieces would be shorter than 8 bits
//! the join degrades to a scan of all pairs.
//!
//! Score: the cosine estimate cos(π · (1 − agree / b)).

use serde::{Deserialize, Serialize};

use crate::detector::{Algorithm, ParamMap, ScoredPair, params, scored_from_packed};
use crate::error::{Error, Result};
use crate::features::FeatureParams;
use crate::features::statistics::{STATISTICS_SEED, Statistics, StatisticsFeatures, shingles};
use crate::hamming::design::{Design, SUPPORTED_BITS};
use crate::hash::derive_seed;
use crate::resources::{self, Estimate};
use crate::simhash::{Fingerprints, SignSketcher, Weighting, Weights, cosine_estimate};
use crate::text::CjkUnit;

/// Build parameters of `random-projection`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ProjectionParams {
    /// Features (default: words, k = 1, as Henzinger's tokens; Chinese: jieba words).
    #[serde(flatten)]
    pub features: FeatureParams,
    /// Bits b: 64, 128, 192, 256, 384 or 512. Default 384.
    pub bits: u32,
    /// Feature weights. Default `tf` (term frequency, as in Henzinger's C).
    pub weighting: Weighting,
    /// Seed. Default 42.
    pub seed: u64,
    /// tf-idf weighting: feature document frequencies from this table (`neardup idf build`).
    pub idf_from: Option<String>,
}

impl Default for ProjectionParams {
    fn default() -> Self {
        ProjectionParams {
            features: FeatureParams::words(1).with_cjk(CjkUnit::Word),
            bits: 384,
            weighting: Weighting::Tf,
            seed: 42,
            idf_from: None,
        }
    }
}

/// Query parameters of `random-projection`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ProjectionQuery {
    /// Pairs need at least this many agreeing bits. Default 373 (Henzinger: > 372 of 384).
    pub min_agreement: u32,
}

impl Default for ProjectionQuery {
    fn default() -> Self {
        ProjectionQuery { min_agreement: 373 }
    }
}

/// The built index: fingerprints.
#[derive(Debug)]
pub struct ProjectionIndex {
    fps: Fingerprints,
    statistics: Option<Statistics>,
}

/// Henzinger's algorithm C.
#[derive(Debug)]
pub struct RandomProjection;

impl Algorithm for RandomProjection {
    const NAME: &'static str = "random-projection";
    const SUMMARY: &'static str =
        "Charikar random projection, >= t of b bits agree (Henzinger SIGIR 2006, algorithm C)";
    const SCORE: &'static str =
        "cosine of the feature vectors, estimated from the share of equal bits";
    type Params = ProjectionParams;
    type Query = ProjectionQuery;
    type Index = ProjectionIndex;

    fn validate(p: &Self::Params, q: &Self::Query) -> Result<()> {
        p.features.validate(Self::NAME)?;
        if p.bits < 64 || !SUPPORTED_BITS.contains(&p.bits) {
            return Err(Error::invalid(
                Self::NAME,
                "bits",
                format!(
                    "{} is not supported; use 64, 128, 192, 256, 384 or 512",
                    p.bits
                ),
            ));
        }
        if q.min_agreement == 0 || q.min_agreement > p.bits {
            return Err(Error::invalid(
                Self::NAME,
                "min_agreement",
                format!("{} is outside 1..={}", q.min_agreement, p.bits),
            ));
        }
        Ok(())
    }

    fn statistics(p: &Self::Params) -> Option<StatisticsFeatures> {
        (p.weighting == Weighting::Tfidf).then(|| shingles(&p.features))
    }

    fn build(p: &Self::Params, docs: &[&str]) -> Result<Self::Index> {
        let shingler = p.features.shingler(STATISTICS_SEED);
        let sketcher = SignSketcher::new(p.bits as usize / 64, derive_seed(p.seed, "projection"));
        let statistics = Self::statistics(p)
            .map(|f| Statistics::gather(&f, p.idf_from.as_deref(), docs, Self::NAME))
            .transpose()?;
        let weights = match (&statistics, p.weighting) {
            (Some(s), _) => Weights::Tfidf(&s.df),
            (None, Weighting::Binary) => Weights::Binary,
            (None, _) => Weights::Tf,
        };
        Ok(ProjectionIndex {
            fps: Fingerprints::compute(docs, &shingler, weights, &sketcher),
            statistics,
        })
    }

    fn warnings(index: &Self::Index) -> Vec<String> {
        index
            .statistics
            .as_ref()
            .map_or_else(Vec::new, |s| s.warnings(Self::NAME, true))
    }

    fn query(p: &Self::Params, index: &Self::Index, q: &Self::Query) -> Result<Vec<ScoredPair>> {
        projection_pairs(p, index, q, false)
    }

    fn connecting_query(
        p: &Self::Params,
        index: &Self::Index,
        q: &Self::Query,
    ) -> Result<Vec<ScoredPair>> {
        projection_pairs(p, index, q, true)
    }

    fn score(
        p: &Self::Params,
        index: &Self::Index,
        _: &Self::Query,
        a: usize,
        b: usize,
    ) -> Option<f64> {
        if index.fps.empty[a] || index.fps.empty[b] {
            return Some(0.0);
        }
        Some(cosine_estimate(p.bits - index.fps.distance(a, b), p.bits))
    }

    /// Single words and word 3-shingles, tf weighted, 384 bits (Henzinger's C).
    fn calibration_grid() -> Vec<ParamMap> {
        vec![params(&[("k", 1.into())]), params(&[("k", 3.into())])]
    }

    /// Score cos(π(1 − a/b)) ≥ t ⟺ a ≥ b·(1 − arccos(t)/π): `min_agreement`.
    fn threshold_params(p: &Self::Params, t: f64) -> Option<ParamMap> {
        Some(params(&[(
            "min_agreement",
            crate::simhash::agreement_for_cosine(t, p.bits).into(),
        )]))
    }

    fn memory(p: &Self::Params, docs: usize, text_bytes: usize) -> Estimate {
        let e = resources::signatures(docs, p.bits as usize / 8, "fingerprints")
            .plus(resources::join_keys(docs, p.bits as usize / 8 + 8));
        if p.weighting == Weighting::Tfidf && p.idf_from.is_none() {
            e.plus(resources::statistics(text_bytes))
        } else {
            e
        }
    }

    fn index_bytes(index: &Self::Index) -> usize {
        index.fps.heap_bytes()
    }
}

/// Pairs agreeing on at least `min_agreement` bits: the one-level Hamming join, or a scan where
/// no design serves; `connecting`: a heavy cluster's runs connected, not enumerated
/// (`crate::hamming::tables::connecting_pairs`).
fn projection_pairs(
    p: &ProjectionParams,
    index: &ProjectionIndex,
    q: &ProjectionQuery,
    connecting: bool,
) -> Result<Vec<ScoredPair>> {
    let d = p.bits - q.min_agreement;
    let pieces = d + 1;
    let pairs = match Design::single(p.bits, d, pieces) {
        Ok(design) if p.bits / pieces >= 8 && connecting => {
            index.fps.connecting_pairs_within(d, Some(&design))?
        }
        Ok(design) if p.bits / pieces >= 8 => index.fps.pairs_within(d, Some(&design))?,
        _ => index.fps.pairs_within_by_scan(d, "the projection scan")?,
    };
    Ok(scored_from_packed(&pairs, |a, b| {
        RandomProjection::score(p, index, q, a as usize, b as usize)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Configured, Detector, ParamMap};
    use crate::hash::SplitMix64;
    use serde_json::json;

    /// Oracle: reported pairs equal a brute-force agreement scan, for a pigeonhole design
    /// (t = 373 → 12 pieces of 32 bits) and for the fallback scan (t = 300).
    #[test]
    fn reported_pairs_equal_brute_force() {
        let mut rng = SplitMix64::new(8);
        let mut docs = Vec::new();
        for _ in 0..120 {
            let base: Vec<String> = (0..80).map(|_| format!("t{}", rng.below(500))).collect();
            docs.push(base.join(" "));
            let copy: Vec<String> = base
                .iter()
                .map(|w| {
                    if rng.next_f64() < 0.02 {
                        "zz".to_string()
                    } else {
                        w.clone()
                    }
                })
                .collect();
            docs.push(copy.join(" "));
        }
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        for t in [373u32, 360, 300] {
            let m: ParamMap = serde_json::from_value(json!({ "min_agreement": t })).unwrap();
            let index = Configured::<RandomProjection>::from_params(&m)
                .unwrap()
                .build(&refs)
                .unwrap();
            let got: Vec<(u32, u32)> = index
                .query(&ParamMap::new())
                .unwrap()
                .iter()
                .map(|p| (p.a, p.b))
                .collect();
            let mut oracle = Vec::new();
            for a in 0..refs.len() {
                for b in a + 1..refs.len() {
                    // score = cos(π(1 − agree/384)) is monotone in agreement
                    if index.score(a, b).unwrap() >= cosine_estimate(t, 384) - 1e-12 {
                        oracle.push((a as u32, b as u32));
                    }
                }
            }
            assert_eq!(got, oracle, "t = {t}");
        }
    }

    #[test]
    fn bad_parameters() {
        let err = crate::testutil::param_error::<RandomProjection>;
        assert!(err(json!({"bits": 100})).contains("not supported"));
        assert!(err(json!({"min_agreement": 400})).contains("outside"));
        assert!(err(json!({"min_agreement": 0})).contains("outside"));
    }
}
