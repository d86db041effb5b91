//! `neardup.dedup` on files: the CLI's own pipeline (`neardup_lab::dedup`), so the stages,
//! Parquet intermediates, resumption and outputs are exactly those of `neardup dedup`.

use std::path::PathBuf;

use neardup_dedup::input::expand;
use neardup_dedup::pipeline::external_outputs::{
    ExternalRun, publish_external as publish_external_outputs,
};
use neardup_dedup::pipeline::{ClusterMode, TableFormat};
use neardup_dedup::{DedupOptions, Keep, run};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors;
use crate::sketch_api::parse_params;

/// Which document of a cluster is kept, by its name.
fn keep_named(keep: &str) -> PyResult<Keep> {
    keep.parse()
        .map_err(|e: String| PyValueError::new_err(format!("keep: {e}")))
}

/// Runs `neardup dedup` and returns `summary.json`'s content.
#[pyfunction]
#[pyo3(signature = (inputs, output, algorithm, params, text_field, id_field, keep, memory=None, index=None, inflated_copy=true, clusters=None, clusters_format="parquet", progress=false, max_pairs=None, html_field=None, extract="main", boilerplate_lines=None, write_text=false, min_words=0, skip_invalid=false))]
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
    progress: bool,
    max_pairs: Option<u64>,
    html_field: Option<String>,
    extract: &str,
    boilerplate_lines: Option<u32>,
    write_text: bool,
    min_words: usize,
    skip_invalid: bool,
) -> PyResult<String> {
    if boilerplate_lines.is_some_and(|k| k < 2) {
        return Err(PyValueError::new_err(
            "boilerplate_lines must be at least 2",
        ));
    }
    let extract = crate::extract_api::extract_mode(extract)?;
    if max_pairs == Some(0) {
        return Err(PyValueError::new_err("max_pairs must be at least 1"));
    }
    let clusters = clusters
        .map(|c| c.parse::<ClusterMode>().map_err(PyValueError::new_err))
        .transpose()?;
    let clusters_format = clusters_format
        .parse::<TableFormat>()
        .map_err(PyValueError::new_err)?;
    let keep = keep_named(keep)?;
    let options = DedupOptions {
        inputs,
        output,
        algorithm,
        params: parse_params(params)?,
        text_field,
        id_field,
        html_field,
        extract,
        boilerplate_lines,
        write_text,
        keep,
        clusters,
        clusters_format,
        memory,
        stage: None,
        shard: None,
        index,
        inflated_copy,
        checkpoint_bytes: neardup_dedup::pipeline::DEFAULT_CHECKPOINT_BYTES,
        min_words,
        skip_invalid,
    };
    let summary = py.detach(|| {
        let was_quiet = neardup_dedup::progress::set_quiet(!progress);
        let limit_before = max_pairs.map(|m| neardup::pairs::swap_limit(Some(m)));
        let summary = run(&options);
        if let Some(before) = limit_before {
            neardup::pairs::swap_limit(before);
        }
        neardup_dedup::progress::set_quiet(was_quiet);
        summary
    });
    let summary = summary.map_err(errors::pipeline)?;
    let summary = summary.expect("a full run writes a summary");
    serde_json::to_string(&summary).map_err(errors::params)
}

/// Publishes the shards `neardup.ray.dedup` wrote under `output` in `neardup dedup`'s layout
/// (`neardup_dedup::pipeline::external_outputs`); `run` is an `ExternalRun` as JSON. Returns
/// `summary.json`'s content.
#[pyfunction]
pub fn publish_external(py: Python<'_>, output: PathBuf, run: &str) -> PyResult<String> {
    let run: ExternalRun = serde_json::from_str(run).map_err(errors::params)?;
    let summary = py
        .detach(|| publish_external_outputs(&output, &run))
        .map_err(|e| errors::pipeline(e.into()))?;
    serde_json::to_string(&summary).map_err(errors::params)
}

/// The deduplicated files `neardup dedup` writes for `inputs` (files, directories, globs),
/// relative to the output directory, in input order.
#[pyfunction]
pub fn deduplicated_names(inputs: Vec<PathBuf>) -> PyResult<Vec<String>> {
    let files = expand(&inputs).map_err(|e| errors::pipeline(e.into()))?;
    Ok(neardup_dedup::pipeline::deduplicated_names(&files))
}

/// The input files `neardup dedup` would read for `inputs` (files, directories, globs), in
/// document order.
#[pyfunction]
pub fn expand_inputs(inputs: Vec<PathBuf>) -> PyResult<Vec<PathBuf>> {
    expand(&inputs)
        .map(|files| files.into_iter().map(|f| f.path).collect())
        .map_err(|e| errors::pipeline(e.into()))
}

/// Writes input `input`'s records without those at the `removed` lines (sorted, as the
/// sketch numbered them) to `target`, as `neardup dedup`'s outputs stage does: JSONL lines
/// byte for byte, compressed or not, CSV records and Parquet rows; put in place atomically.
#[pyfunction]
pub fn write_deduplicated(
    py: Python<'_>,
    input: PathBuf,
    target: PathBuf,
    removed: PyReadonlyArray1<'_, u64>,
) -> PyResult<()> {
    let removed = removed.as_slice()?;
    if removed.windows(2).any(|w| w[0] >= w[1]) {
        return Err(PyValueError::new_err(
            "removed: lines must be sorted and distinct",
        ));
    }
    let files = expand(std::slice::from_ref(&input)).map_err(|e| errors::pipeline(e.into()))?;
    let [file] = files.as_slice() else {
        return Err(PyValueError::new_err(format!(
            "{}: not one input file",
            input.display()
        )));
    };
    py.detach(|| neardup_dedup::pipeline::write_deduplicated(file, &target, removed))
        .map_err(|e| errors::pipeline(e.into()))
}

/// What is read of each record: the text and id fields, or the field holding a page's HTML,
/// and the text `extract` takes of web pages (as `dedup` reads them).
pub fn record_fields(
    text_field: &str,
    id_field: &str,
    extract: &str,
    html_field: Option<String>,
) -> PyResult<neardup_dedup::input::Fields> {
    let mut fields = neardup_dedup::input::Fields::new(text_field, id_field);
    fields.extract = crate::extract_api::extract_mode(extract)?;
    fields.html = html_field;
    Ok(fields)
}

/// Writes the text of input `input`'s records at the `kept` lines (sorted, as the sketch
/// numbered them) to `target` as JSON Lines, as `neardup dedup --write-text` writes
/// `kept-text.jsonl`: each record's text as compared (web pages extracted again), with a web
/// page's id, URL, host, date, charset and title; put in place atomically.
#[pyfunction]
#[pyo3(signature = (input, target, kept, text_field, id_field, extract="main", html_field=None))]
#[allow(clippy::too_many_arguments)]
pub fn write_kept_text(
    py: Python<'_>,
    input: PathBuf,
    target: PathBuf,
    kept: PyReadonlyArray1<'_, u64>,
    text_field: &str,
    id_field: &str,
    extract: &str,
    html_field: Option<String>,
) -> PyResult<()> {
    let kept = kept.as_slice()?;
    if kept.windows(2).any(|w| w[0] >= w[1]) {
        return Err(PyValueError::new_err(
            "kept: lines must be sorted and distinct",
        ));
    }
    let fields = record_fields(text_field, id_field, extract, html_field)?;
    py.detach(|| -> anyhow::Result<()> {
        let file = crate::stream_api::one_input(&input)?;
        neardup_dedup::fsutil::write_atomic(&target, |w| {
            neardup_dedup::input::for_each_record_block(&file, &fields, |block| {
                let block: Vec<_> = block
                    .into_iter()
                    .filter(|r| kept.binary_search(&r.line).is_ok())
                    .collect();
                neardup_dedup::web::export::write_jsonl(w, &block)
                    .map_err(|e| neardup_dedup::error::Error::io(&target, e))
            })
            .map_err(std::io::Error::other)
        })?;
        Ok(())
    })
    .map_err(errors::pipeline)
}
