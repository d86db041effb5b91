//! `neardup.extract`: web pages' text written to a file by the CLI's own code
//! (`neardup_dedup::web::export`), so Python and `neardup extract` take the same text.

use std::path::PathBuf;

use neardup_dedup::input::Fields;
use neardup_dedup::web::export::extract_to;
use neardup_dedup::web::extract::Extract;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors;

/// The `--extract` mode named `name`, or the error Python raises.
pub fn extract_mode(name: &str) -> PyResult<Extract> {
    Extract::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "extract must be one of {}, not {name:?}",
            Extract::NAMES.join(", ")
        ))
    })
}

/// Runs `neardup extract` and returns what happened to the pages, as JSON: `pages` written,
/// `text_bytes`, `seconds` and `counts` (records skipped by reason, extraction outcomes).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (inputs, output, extract="main", html_field=None, text_field="text", id_field="id", boilerplate_lines=None))]
pub fn extract(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    output: PathBuf,
    extract: &str,
    html_field: Option<String>,
    text_field: &str,
    id_field: &str,
    boilerplate_lines: Option<u32>,
) -> PyResult<String> {
    if boilerplate_lines.is_some_and(|k| k < 2) {
        return Err(PyValueError::new_err(
            "boilerplate_lines must be at least 2",
        ));
    }
    let fields = Fields {
        html: html_field,
        extract: extract_mode(extract)?,
        ..Fields::new(text_field, id_field)
    };
    let done = py
        .detach(|| extract_to(&inputs, &fields, boilerplate_lines, &output))
        .map_err(|e| errors::pipeline(e.into()))?;
    Ok(serde_json::json!({
        "pages": done.pages,
        "text_bytes": done.text_bytes,
        "seconds": done.seconds,
        "counts": fields.tally.counts(),
    })
    .to_string())
}
