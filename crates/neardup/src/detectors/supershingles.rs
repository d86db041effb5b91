//! `supershingles`: Broder's shingling with supershingles, as Henzinger's algorithm B
//! (SIGIR 2006 §2.1): 8-token shingles, m = 84 min-values, m' = 6 supershingles of l = 14
//! values; B-similar when at least t = 2 supershingles agree.
//!
//! Score: Broder's resemblance estimate from the sketch, the share of the m min-values that
//! agree (Broder 1997 §3: the sketch estimates resemblance; supershingles only decide which
//! pairs to look at). The decision stays the supershingle vote. A vote count (0, 1/m', …, 1)
//! would rank a pair of 5 %-edited copies with every unrelated pair when no supershingle of
//! 14 values survives the edits (a 0.6-resemblance pair keeps one with probability 0.6^14).

use serde::{Deserialize, Serialize};

use crate::detector::{Algorithm, ScoredPair};
use crate::error::{Error, Result};
use crate::features::FeatureParams;
use crate::hash::derive_seed;
use crate::minhash::supershingles::Supershingles as Layout;
use crate::minhash::{MinHasher, Signatures, Sketcher};
use crate::pairs::unpack;
use crate::resources::{self, Estimate};

/// Build parameters of `supershingles`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SupershinglesParams {
    /// Features (default word 8-shingles, as Henzinger's B).
    #[serde(flatten)]
    pub features: FeatureParams,
    /// Number of min-values m (classic MinHash permutations). Default 84.
    pub min_values: usize,
    /// Number of supershingles m'. Default 6.
    pub supershingles: usize,
    /// Min-values per supershingle l. Default 14.
    pub values_per_supershingle: usize,
    /// Seed. Default 42.
    pub seed: u64,
}

impl Default for SupershinglesParams {
    fn default() -> Self {
        SupershinglesParams {
            features: FeatureParams::words(8),
            min_values: 84,
            supershingles: 6,
            values_per_supershingle: 14,
            seed: 42,
        }
    }
}

/// Query parameters of `supershingles`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SupershinglesQuery {
    /// Agreeing supershingles needed (t). Default 2.
    pub min_agreeing: usize,
}

impl Default for SupershinglesQuery {
    fn default() -> Self {
        SupershinglesQuery { min_agreeing: 2 }
    }
}

fn layout(p: &SupershinglesParams, min_agreeing: usize) -> Result<Layout> {
    Layout::new(
        p.min_values,
        p.supershingles,
        p.values_per_supershingle,
        min_agreeing,
    )
}

/// The built index: signatures and every pair sharing at least one supershingle.
#[derive(Debug)]
pub struct SupershinglesIndex {
    signatures: Signatures,
    /// (packed pair, agreeing supershingles) for pairs with at least one.
    sharing: Vec<(u64, usize)>,
}

/// Broder / Henzinger algorithm B.
#[derive(Debug)]
pub struct Supershingles;

/// How many supershingles documents `a` and `b` share (0 when either has no feature).
pub fn agreeing(p: &SupershinglesParams, index: &SupershinglesIndex, a: usize, b: usize) -> usize {
    let sig = &index.signatures;
    if sig.is_empty_doc(a) || sig.is_empty_doc(b) {
        return 0;
    }
    layout(p, 1).map_or(0, |l| l.agreeing(sig.row(a), sig.row(b)))
}

impl Algorithm for Supershingles {
    const NAME: &'static str = "supershingles";
    const SUMMARY: &'static str =
        "Broder supershingles: >= t of m' supershingles agree (Henzinger SIGIR 2006, algorithm B)";
    const SCORE: &'static str = "share of equal sketch values (an estimate of resemblance)";
    type Params = SupershinglesParams;
    type Query = SupershinglesQuery;
    type Index = SupershinglesIndex;

    fn validate(p: &Self::Params, q: &Self::Query) -> Result<()> {
        p.features.validate(Self::NAME)?;
        if p.min_values == 0 {
            return Err(Error::invalid(
                Self::NAME,
                "min_values",
                "must be at least 1",
            ));
        }
        layout(p, q.min_agreeing).map(|_| ())
    }

    fn build(p: &Self::Params, docs: &[&str]) -> Result<Self::Index> {
        let shingler = p.features.shingler(derive_seed(p.seed, "tokens"));
        let sketcher = Sketcher::Classic(MinHasher::new(
            p.min_values,
            derive_seed(p.seed, "permutations"),
        )?);
        let signatures = Signatures::compute(docs, &shingler, &sketcher, p.min_values);
        let sharing = layout(p, 1)?.similar_pairs(&signatures)?;
        Ok(SupershinglesIndex {
            signatures,
            sharing,
        })
    }

    fn query(_: &Self::Params, index: &Self::Index, q: &Self::Query) -> Result<Vec<ScoredPair>> {
        Ok(index
            .sharing
            .iter()
            .filter(|&&(_, n)| n >= q.min_agreeing)
            .map(|&(pair, _)| {
                let (a, b) = unpack(pair);
                ScoredPair {
                    a,
                    b,
                    score: index.signatures.estimate(a as usize, b as usize),
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
        Some(index.signatures.estimate(a, b))
    }

    fn memory(p: &Self::Params, docs: usize, _: usize) -> Estimate {
        resources::signatures(docs, p.min_values * 4, "signatures")
            .plus(resources::join_keys(docs, 16))
    }

    fn index_bytes(index: &Self::Index) -> usize {
        index.signatures.heap_bytes() + index.sharing.capacity() * 16
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Configured, Detector, ParamMap};

    #[test]
    fn identical_documents_agree_on_all_supershingles() {
        let text = "one two three four five six seven eight nine ten eleven twelve";
        let d = Configured::<Supershingles>::from_params(&ParamMap::new()).unwrap();
        let index = d
            .build(&[
                text,
                text,
                "something else entirely, nine words long here ok",
            ])
            .unwrap();
        let pairs = index.query(&ParamMap::new()).unwrap();
        assert_eq!(pairs.len(), 1);
        assert_eq!(pairs[0].score, 1.0);
        assert!(index.score(0, 2).unwrap() < 0.1);
    }
}
