//! `[truth]`: the features and floor of the exact-similarity ground truth.

use serde::Deserialize;
use toml::Spanned;

use crate::error::{LabError, Result};

/// `[truth]` as written, with the position of each key for errors.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TruthFileSpec {
    #[serde(default)]
    shingle: Option<neardup::features::ShingleKind>,
    #[serde(default)]
    k: Option<Spanned<usize>>,
    #[serde(default)]
    similarity_floor: Option<Spanned<f64>>,
}

/// Features and floor of the exact-similarity ground truth.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TruthSpec {
    /// Shingle kind (`word`, `char`, `stopword`). Default `word`.
    pub shingle: neardup::features::ShingleKind,
    /// Shingle size. Default 5.
    pub k: usize,
    /// Keep every pair with exact Jaccard at or above this (corpora ≤ 50,000 docs). Default 0.2.
    pub similarity_floor: f64,
}

impl Default for TruthSpec {
    fn default() -> Self {
        TruthSpec {
            shingle: neardup::features::ShingleKind::Word,
            k: 5,
            similarity_floor: 0.2,
        }
    }
}

impl TruthSpec {
    /// The feature parameters of the ground truth (default normalization and tokenizer, as the
    /// detectors' defaults).
    pub fn features(&self) -> neardup::features::FeatureParams {
        neardup::features::FeatureParams {
            shingle: self.shingle,
            k: self.k,
            ..Default::default()
        }
    }
}

/// `[truth]`: the features and floor of the exact ground truth, defaults where not given.
pub(super) fn truth_spec(
    spec: Option<&TruthFileSpec>,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<TruthSpec> {
    let mut truth = TruthSpec::default();
    if let Some(t) = spec {
        if let Some(shingle) = t.shingle {
            truth.shingle = shingle;
        }
        if let Some(k) = &t.k {
            truth.k = *k.get_ref();
            if truth.k == 0 || truth.k > 64 {
                return Err(at(
                    k.span().start,
                    format!("[truth] k = {} is outside 1..=64", truth.k),
                ));
            }
        }
        if let Some(floor) = &t.similarity_floor {
            truth.similarity_floor = *floor.get_ref();
            if !(truth.similarity_floor > 0.0 && truth.similarity_floor <= 1.0) {
                return Err(at(
                    floor.span().start,
                    format!(
                        "[truth] similarity_floor = {} is outside (0, 1]",
                        truth.similarity_floor
                    ),
                ));
            }
        }
    }
    Ok(truth)
}
