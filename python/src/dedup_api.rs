//! `neardup.dedup` on files: the CLI's own pipeline (`neardup_lab::dedup`), so the stages,
//! Parquet intermediates, resumption and outputs are exactly those of `neardup dedup`.

use std::path::PathBuf;

use neardup_dedup::input::expand;
use neardup_dedup::pipeline::{ClusterMode, TableFormat};
use neardup_dedup::{DedupOptions, Keep, run};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors;
use crate::sketch_api::parse_params;

/// Runs `neardup dedup` and returns `summary.json`'s content.
#[pyfunction]
#[pyo3(signature = (inputs, output, algorithm, params, text_field, id_field, keep, memory=None, index=None, inflated_copy=true, clusters=None, clusters_format="parquet"))]
#[allow(clippy::too_many_arguments)]
pub fn dedup(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    output: PathBuf,
    algorithm: String,
    params: &str,
    text_field: String,
    id_field: String,
    keep: &str,
    memory: Option<u64>,
    index: Option<PathBuf>,
    inflated_copy: bool,
    clusters: Option<&str>,
    clusters_format: &str,
) -> PyResult<String> {
    let clusters = clusters
        .map(|c| c.parse::<ClusterMode>().map_err(PyValueError::new_err))
        .transpose()?;
    let clusters_format = clusters_format
        .parse::<TableFormat>()
        .map_err(PyValueError::new_err)?;
    let keep = match keep {
        "first" => Keep::First,
        "longest" => Keep::Longest,
        other => {
            return Err(PyValueError::new_err(format!(
                "keep must be 'first' or 'longest', not {other:?}"
            )));
        }
    };
    let options = DedupOptions {
        inputs,
        output,
        algorithm,
        params: parse_params(params)?,
        text_field,
        id_field,
        keep,
        clusters,
        clusters_format,
        memory,
        stage: None,
        shard: None,
        index,
        inflated_copy,
        checkpoint_bytes: neardup_dedup::pipeline::DEFAULT_CHECKPOINT_BYTES,
    };
    let summary = py.detach(|| run(&options)).map_err(errors::pipeline)?;
    let summary = summary.expect("a full run writes a summary");
    serde_json::to_string(&summary).map_err(errors::params)
}

/// The input files `neardup dedup` would read for `inputs` (files, directories, globs), in
/// document order.
#[pyfunction]
pub fn expand_inputs(inputs: Vec<PathBuf>) -> PyResult<Vec<PathBuf>> {
    expand(&inputs)
        .map(|files| files.into_iter().map(|f| f.path).collect())
        .map_err(|e| errors::pipeline(e.into()))
}
