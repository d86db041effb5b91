//! `henzinger`: Henzinger's combined algorithm (SIGIR 2006, §5): the pairs algorithm B
//! (supershingles, high recall, low precision) calls similar are kept only when algorithm C
//! (384-bit random projection) also agrees on at least `min_agreement` bits (published: 355).
//!
//! Both indexes are built with their own modules (`supershingles`, `random-projection`); the
//! combination only filters, so it never reports a pair B does not (tested), and it reports
//! exactly the pairs that satisfy both conditions when each is computed by brute force
//! (tested). Score: C's cosine estimate for B-similar pairs, 0 for pairs B rejects (the
//! combined algorithm never considers them).

use serde::{Deserialize, Serialize};

use super::random_projection::{ProjectionParams, ProjectionQuery, RandomProjection};
use super::supershingles::{Supershingles, SupershinglesParams, SupershinglesQuery};
use crate::detector::{Algorithm, ParamMap, ScoredPair, params};
use crate::error::Result;
use crate::features::FeatureParams;
use crate::resources::Estimate;
use crate::text::CjkUnit;

/// Build parameters of `henzinger`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct HenzingerParams {
    /// B's features (default word 8-shingles, Chinese: character 8-grams); C uses the same text
    /// processing with k = 1 (Chinese: jieba words, C's tokens).
    #[serde(flatten)]
    pub features: FeatureParams,
    /// B: min-values m. Default 84.
    pub min_values: usize,
    /// B: supershingles m'. Default 6.
    pub supershingles: usize,
    /// B: min-values per supershingle l. Default 14.
    pub values_per_supershingle: usize,
    /// C: projection bits b. Default 384.
    pub bits: u32,
    /// Seed of both. Default 42.
    pub seed: u64,
}

impl Default for HenzingerParams {
    fn default() -> Self {
        let b = SupershinglesParams::default();
        HenzingerParams {
            features: b.features,
            min_values: b.min_values,
            supershingles: b.supershingles,
            values_per_supershingle: b.values_per_supershingle,
            bits: 384,
            seed: 42,
        }
    }
}

/// Query parameters of `henzinger`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct HenzingerQuery {
    /// B: agreeing supershingles needed. Default 2.
    pub min_agreeing: usize,
    /// C: agreeing bits needed to keep a B-similar pair. Default 355.
    pub min_agreement: u32,
}

impl Default for HenzingerQuery {
    fn default() -> Self {
        HenzingerQuery {
            min_agreeing: 2,
            min_agreement: 355,
        }
    }
}

impl HenzingerParams {
    fn b(&self) -> SupershinglesParams {
        SupershinglesParams {
            features: self.features.clone(),
            min_values: self.min_values,
            supershingles: self.supershingles,
            values_per_supershingle: self.values_per_supershingle,
            seed: self.seed,
        }
    }

    fn c(&self) -> ProjectionParams {
        ProjectionParams {
            features: FeatureParams {
                k: 1,
                ..self.features.clone()
            }
            .with_cjk(CjkUnit::Word),
            bits: self.bits,
            seed: self.seed,
            ..Default::default()
        }
    }
}

/// Both indexes.
#[derive(Debug)]
pub struct HenzingerIndex {
    b: <Supershingles as Algorithm>::Index,
    c: <RandomProjection as Algorithm>::Index,
}

/// Henzinger's combined B + C.
#[derive(Debug)]
pub struct Henzinger;

impl Algorithm for Henzinger {
    const NAME: &'static str = "henzinger";
    const SUMMARY: &'static str = "B-similar pairs kept when C agrees on >= t bits (Henzinger SIGIR 2006, combined algorithm)";
    const SCORE: &'static str =
        "C's cosine estimate (random projection), 0 unless B's supershingles agree";
    type Params = HenzingerParams;
    type Query = HenzingerQuery;
    type Index = HenzingerIndex;

    fn validate(p: &Self::Params, q: &Self::Query) -> Result<()> {
        Supershingles::validate(
            &p.b(),
            &SupershinglesQuery {
                min_agreeing: q.min_agreeing,
            },
        )?;
        RandomProjection::validate(
            &p.c(),
            &ProjectionQuery {
                min_agreement: q.min_agreement,
            },
        )
    }

    fn build(p: &Self::Params, docs: &[&str]) -> Result<Self::Index> {
        Ok(HenzingerIndex {
            b: Supershingles::build(&p.b(), docs)?,
            c: RandomProjection::build(&p.c(), docs)?,
        })
    }

    fn query(p: &Self::Params, index: &Self::Index, q: &Self::Query) -> Result<Vec<ScoredPair>> {
        let c = p.c();
        let cq = ProjectionQuery {
            min_agreement: q.min_agreement,
        };
        let threshold = crate::simhash::cosine_estimate(q.min_agreement, p.bits);
        Ok(Supershingles::query(
            &p.b(),
            &index.b,
            &SupershinglesQuery {
                min_agreeing: q.min_agreeing,
            },
        )?
        .into_iter()
        .filter_map(|pair| {
            let s = RandomProjection::score(&c, &index.c, &cq, pair.a as usize, pair.b as usize)?;
            // cos(π(1 − agree/b)) is increasing in `agree`, so this is agree ≥ t.
            (s >= threshold - 1e-12).then_some(ScoredPair { score: s, ..pair })
        })
        .collect())
    }

    fn score(
        p: &Self::Params,
        index: &Self::Index,
        q: &Self::Query,
        a: usize,
        b: usize,
    ) -> Option<f64> {
        if super::supershingles::agreeing(&p.b(), &index.b, a, b) < q.min_agreeing {
            return Some(0.0);
        }
        let cq = ProjectionQuery {
            min_agreement: q.min_agreement,
        };
        RandomProjection::score(&p.c(), &index.c, &cq, a, b)
    }

    /// Henzinger's published configuration only: B's supershingles and C's 384 bits are the
    /// algorithm; the calibrated choice is C's cutoff among B-similar pairs.
    fn calibration_grid() -> Vec<ParamMap> {
        vec![ParamMap::new()]
    }

    /// Score (C's cosine estimate for B-similar pairs, else 0) ≥ t > 0 ⟺ B-similar and C
    /// agrees on ≥ b·(1 − arccos(t)/π) bits: `min_agreement`.
    fn threshold_params(p: &Self::Params, t: f64) -> Option<ParamMap> {
        Some(params(&[(
            "min_agreement",
            crate::simhash::agreement_for_cosine(t, p.bits).into(),
        )]))
    }

    fn memory(p: &Self::Params, docs: usize, text_bytes: usize) -> Estimate {
        Supershingles::memory(&p.b(), docs, text_bytes).plus(RandomProjection::memory(
            &p.c(),
            docs,
            text_bytes,
        ))
    }

    fn index_bytes(index: &Self::Index) -> usize {
        Supershingles::index_bytes(&index.b) + RandomProjection::index_bytes(&index.c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Configured, Detector, ParamMap, to_map};
    use crate::hash::SplitMix64;
    use serde_json::json;

    fn corpus() -> Vec<String> {
        let mut rng = SplitMix64::new(12);
        let mut docs = Vec::new();
        for _ in 0..80 {
            let base: Vec<String> = (0..120).map(|_| format!("w{}", rng.below(400))).collect();
            docs.push(base.join(" "));
            for rate in [0.01, 0.05, 0.15] {
                let copy: Vec<String> = base
                    .iter()
                    .map(|w| {
                        if rng.next_f64() < rate {
                            "x".to_string()
                        } else {
                            w.clone()
                        }
                    })
                    .collect();
                docs.push(copy.join(" "));
            }
        }
        docs
    }

    /// Oracle: the combined join reports exactly the pairs that are B-similar (≥ 2 of 6
    /// supershingles equal, compared pair by pair) and have ≥ t agreeing projection bits
    /// (popcount, pair by pair), for t around the published 355 cut; every other pair scores 0
    /// or below C's cut.
    #[test]
    fn cut_equals_brute_force_of_both_conditions() {
        let docs = corpus();
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let p = HenzingerParams::default();
        let c_params = to_map(&p.c());
        let c = Configured::<RandomProjection>::from_params(&c_params)
            .unwrap()
            .build(&refs)
            .unwrap();
        // B's vote, recomputed from scratch: the supershingles of each document compared.
        let layout = crate::minhash::supershingles::Supershingles::new(84, 6, 14, 1).unwrap();
        let sketcher =
            crate::minhash::MinHasher::new(84, crate::hash::derive_seed(p.seed, "permutations"))
                .unwrap();
        let shingler = p
            .features
            .shingler(crate::hash::derive_seed(p.seed, "tokens"));
        let supers: Vec<Vec<u64>> = refs
            .iter()
            .map(|d| layout.of(&sketcher.sketch(&shingler.hashes(d))))
            .collect();
        let b_votes = |a: usize, x: usize| {
            supers[a]
                .iter()
                .zip(&supers[x])
                .filter(|(u, v)| u == v)
                .count()
        };
        let agree = |a: usize, x: usize| {
            let s = c.score(a, x).unwrap();
            (p.bits as f64 * (1.0 - s.clamp(-1.0, 1.0).acos() / std::f64::consts::PI)).round()
                as u32
        };
        for t in [300u32, 350, 355, 356, 372] {
            let m: ParamMap = serde_json::from_value(json!({ "min_agreement": t })).unwrap();
            let combined = Configured::<Henzinger>::from_params(&m)
                .unwrap()
                .build(&refs)
                .unwrap();
            let got: Vec<(u32, u32)> = combined
                .query(&ParamMap::new())
                .unwrap()
                .iter()
                .map(|p| (p.a, p.b))
                .collect();
            let mut oracle = Vec::new();
            for a in 0..refs.len() {
                for x in a + 1..refs.len() {
                    let b_similar = b_votes(a, x) >= 2;
                    if b_similar && agree(a, x) >= t {
                        oracle.push((a as u32, x as u32));
                    } else if !b_similar {
                        assert_eq!(
                            combined.score(a, x),
                            Some(0.0),
                            "({a}, {x}) is not B-similar"
                        );
                    }
                }
            }
            assert_eq!(got, oracle, "t = {t}");
            if t == 355 {
                assert!(!oracle.is_empty() && oracle.len() < 240, "{}", oracle.len());
            }
        }
    }

    #[test]
    fn never_reports_a_pair_b_does_not() {
        let mut rng = SplitMix64::new(12);
        let mut docs = Vec::new();
        for _ in 0..80 {
            let base: Vec<String> = (0..120).map(|_| format!("w{}", rng.below(400))).collect();
            docs.push(base.join(" "));
            for rate in [0.01, 0.05] {
                let copy: Vec<String> = base
                    .iter()
                    .map(|w| {
                        if rng.next_f64() < rate {
                            "x".to_string()
                        } else {
                            w.clone()
                        }
                    })
                    .collect();
                docs.push(copy.join(" "));
            }
        }
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let b = Configured::<Supershingles>::from_params(&ParamMap::new())
            .unwrap()
            .build(&refs)
            .unwrap();
        let b_pairs: Vec<(u32, u32)> = b
            .query(&ParamMap::new())
            .unwrap()
            .iter()
            .map(|p| (p.a, p.b))
            .collect();
        for t in [300u32, 355, 372, 384] {
            let m: ParamMap = serde_json::from_value(json!({ "min_agreement": t })).unwrap();
            let combined = Configured::<Henzinger>::from_params(&m)
                .unwrap()
                .build(&refs)
                .unwrap();
            let pairs = combined.query(&ParamMap::new()).unwrap();
            assert!(
                pairs.iter().all(|p| b_pairs.contains(&(p.a, p.b))),
                "t = {t}"
            );
            if t == 300 {
                assert_eq!(
                    pairs.len(),
                    b_pairs.len(),
                    "a loose C keeps every B pair here"
                );
            }
        }
        assert!(!b_pairs.is_empty());
    }
}
