//! What a calibration is asked ([`Options`]) and what it found for one configuration
//! ([`Outcome`]): the data the run produces and the report presents.

use std::path::PathBuf;

use neardup::detector::ParamMap;

use super::resampling::Intervals;
use super::statistics::AtThreshold;
use crate::corpus::LoadOptions;

/// Exact word 3-shingle Jaccard above which a cross-cluster pair is a "hard" non-duplicate.
pub const HARD_NEGATIVE_JACCARD: f64 = 0.3;

/// Options of one calibration run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The corpus file.
    pub corpus: PathBuf,
    /// How to read it.
    pub load: LoadOptions,
    /// Labelled pairs CSV (else the corpus's cluster labels).
    pub pairs: Option<PathBuf>,
    /// (algorithm, user parameters laid over every grid point).
    pub algorithms: Vec<(String, ParamMap)>,
    /// Highest recall at this precision instead of the highest F1.
    pub target_precision: Option<f64>,
    /// Share of pairs held out from the choice.
    pub holdout: Option<f64>,
    /// Bootstrap resamples.
    pub bootstrap: usize,
    /// Seed of the bootstrap, the holdout split and the negative sample.
    pub seed: u64,
    /// Report directory.
    pub out: Option<PathBuf>,
    /// What ranks the configurations (`None`: by clusters on a cluster-labelled corpus without
    /// a target precision, else by pairs).
    pub rank_by: Option<RankBy>,
}

/// What ranks the configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RankBy {
    /// B-cubed F1 of the clusters deduplication would make of the corpus (verified clusters
    /// when the algorithm compares any pair): what happens to documents, which pair F1
    /// hides — a low threshold can score a good pair F1 and still chain half a corpus into
    /// a few clusters. Needs cluster labels.
    Clusters,
    /// The pair objective: F1, or recall at --target-precision.
    Pairs,
}

/// One configuration's result (what the report shows of it: `report.rs`).
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub(crate) algorithm: String,
    /// Grid point with the user's parameters.
    pub(crate) params: ParamMap,
    /// Parameters realizing the threshold (`None`: decided by the algorithm's own query).
    pub(crate) threshold_params: Option<ParamMap>,
    pub(crate) chosen: Option<AtThreshold>,
    pub(crate) roc_auc: Option<f64>,
    pub(crate) intervals: Option<Intervals>,
    pub(crate) holdout: Option<AtThreshold>,
    /// What deduplicating with the chosen setting would do to the corpus (or why it could not
    /// be measured).
    pub(crate) clusters: Option<Result<super::clusters::ClusterEffects, String>>,
    /// minhash-lsh: (bands, rows, predicted recall with banding).
    pub(crate) banding: Option<(usize, usize, f64)>,
    pub(crate) observations: Vec<(bool, f64)>,
    /// Their weights (corpus pairs each stands for).
    pub(crate) weights: Vec<f64>,
    /// Why no threshold was chosen (nothing scores above 0, or the target precision is out of
    /// reach): a result, not a failure.
    pub(crate) note: Option<String>,
    pub(crate) error: Option<String>,
}

impl Outcome {
    /// A configuration not measured yet.
    pub(crate) fn new(algorithm: &str, params: &ParamMap) -> Outcome {
        Outcome {
            algorithm: algorithm.to_string(),
            params: params.clone(),
            threshold_params: None,
            chosen: None,
            roc_auc: None,
            intervals: None,
            holdout: None,
            clusters: None,
            banding: None,
            observations: Vec::new(),
            weights: Vec::new(),
            note: None,
            error: None,
        }
    }

    /// B-cubed F1 of the clusters it would make, when measured (what `--rank-by clusters`
    /// sorts by; −1 when unmeasured).
    pub(crate) fn cluster_objective(&self) -> f64 {
        match &self.clusters {
            Some(Ok(c)) if self.note.is_none() => c.objective().unwrap_or(-1.0),
            _ => -1.0,
        }
    }

    /// What the ranking sorts by: F1, or recall when the target precision is reached.
    pub(crate) fn objective(&self, target: Option<f64>) -> f64 {
        match (&self.chosen, target) {
            (None, _) => -1.0,
            (Some(_), _) if self.note.is_some() => -0.5,
            (Some(c), None) => c.f1(),
            (Some(c), Some(p)) if c.precision() >= p => c.recall(),
            _ => -1.0,
        }
    }

    /// Every parameter of the recommended command line.
    pub(crate) fn all_params(&self) -> ParamMap {
        let mut p = self.params.clone();
        if let Some(t) = &self.threshold_params {
            p.extend(t.clone());
        }
        p
    }
}
