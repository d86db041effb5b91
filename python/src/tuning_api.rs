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

/// LSH Ensemble's banding (b, r) for each size ratio in `ratios` (Zhu et al. 2016 §5.1):
/// r ≤ `max_rows`, b·r ≤ `num_perm`, least weighted false-positive and false-negative areas
/// over containment. Computed in parallel, the GIL released.
#[pyfunction]
pub fn containment_bandings(
    py: Python<'_>,
    threshold: f64,
    num_perm: usize,
    max_rows: usize,
    ratios: Vec<f64>,
    weights: (f64, f64),
) -> Vec<(usize, usize)> {
    use rayon::prelude::*;
    py.detach(|| {
        ratios
            .par_iter()
            .map(|&xq| {
                neardup::minhash::containment::optimal_banding(
                    threshold, num_perm, max_rows, xq, weights,
                )
            })
            .collect()
    })
}

/// LSH Ensemble's size partitions (Zhu et al. 2016 §4): inclusive (lower, upper) sizes of at
/// most `parts` partitions minimizing the expected false positives.
#[pyfunction]
pub fn containment_partitions(sizes: Vec<u64>, counts: Vec<u64>, parts: usize) -> Vec<(u64, u64)> {
    neardup::minhash::containment::optimal_partitions(&sizes, &counts, parts)
}
