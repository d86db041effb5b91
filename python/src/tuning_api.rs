//! Parameter choice: the same JSON documents as `neardup lsh tune --format json` and
//! `neardup hamming tune --format json` (the Python layer turns them into dicts).

use pyo3::prelude::*;

use crate::errors;

/// The (b, r) banding for `threshold` within `num_perm` hashes, as JSON; `objective` is
/// `balanced` or `recall-at-threshold`.
#[pyfunction]
#[pyo3(signature = (threshold, num_perm, false_positive_weight, objective="recall-at-threshold", min_probability=neardup::minhash::banding::RECALL_AT_THRESHOLD))]
pub fn lsh_tune(
    threshold: f64,
    num_perm: usize,
    false_positive_weight: f64,
    objective: &str,
    min_probability: f64,
) -> PyResult<String> {
    use neardup::minhash::banding::{Objective, tune_report};
    let objective = match objective {
        "balanced" => Objective::Balanced {
            false_positive_weight,
        },
        "recall-at-threshold" => Objective::RecallAtThreshold { min_probability },
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "objective must be 'balanced' or 'recall-at-threshold', not {other:?}"
            )));
        }
    };
    let report = tune_report(threshold, num_perm, objective).map_err(errors::library)?;
    Ok(serde_json::to_string(&report).expect("a report serializes"))
}

/// Manku's permuted-table designs for `fingerprints` fingerprints of `bits` bits within
/// Hamming distance `distance`, as JSON.
#[pyfunction]
#[pyo3(signature = (bits, distance, fingerprints, memory=None))]
pub fn hamming_designs(
    bits: u32,
    distance: u32,
    fingerprints: f64,
    memory: Option<u64>,
) -> PyResult<String> {
    let report = neardup::hamming::design::designs_report(bits, distance, fingerprints, memory)
        .map_err(errors::library)?;
    Ok(serde_json::to_string(&report).expect("a report serializes"))
}
