//! `[[datasets]]`: the embedded corpus, a manifest's dataset or a user's corpus file, each
//! with its label, size and copies.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::edits::EditSpec;
use crate::error::{LabError, Result};

/// One `[[datasets]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DatasetFileSpec {
    #[serde(default)]
    name: Option<Spanned<String>>,
    #[serde(default)]
    path: Option<Spanned<PathBuf>>,
    #[serde(default)]
    text_field: Option<String>,
    #[serde(default)]
    id_field: Option<String>,
    #[serde(default)]
    cluster_field: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    docs: Option<usize>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default = "one")]
    copies: usize,
    #[serde(default = "one_f")]
    fraction: f64,
    #[serde(default)]
    chain: bool,
    #[serde(default)]
    edits: Option<String>,
}

fn one() -> usize {
    1
}

fn one_f() -> f64 {
    1.0
}

/// A dataset of the experiment.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DatasetSpec {
    /// `default` (embedded), a manifest name, or the file stem of `path`.
    pub name: String,
    /// A user's corpus file (JSONL, CSV, Parquet, or a folder of .txt), instead of a name;
    /// relative paths are taken from the experiment file's folder.
    pub path: Option<PathBuf>,
    /// Field names of `path`'s records (id, text, optional cluster label).
    pub fields: crate::corpus::Fields,
    /// Name in tables and charts (default: `name`); tells apart two uses of one dataset.
    pub label: String,
    /// Documents to generate (embedded) or read at most (manifest).
    pub docs: Option<usize>,
    /// Generator seed (embedded corpus only).
    pub seed: Option<u64>,
    /// Edited copies per chosen source.
    pub copies: usize,
    /// Share of sources with copies.
    pub fraction: f64,
    /// Each copy edits the one before it (a chain of accumulating edits).
    pub chain: bool,
    /// This dataset's own edit model, run instead of the experiment's `[edits]` grid.
    #[serde(skip)]
    pub edits: Option<EditSpec>,
}

impl DatasetSpec {
    /// The edit models it runs: its own, or else the experiment's grid.
    pub fn edit_models<'a>(&'a self, grid: &'a [EditSpec]) -> &'a [EditSpec] {
        self.edits.as_ref().map_or(grid, std::slice::from_ref)
    }
}

/// `[[datasets]]`: each a named dataset or a user's file, labels distinct.
pub(super) fn dataset_specs(
    specs: Spanned<Vec<Spanned<DatasetFileSpec>>>,
    base_dir: &Path,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<DatasetSpec>> {
    if specs.get_ref().is_empty() {
        return Err(at(
            specs.span().start,
            "`datasets` is empty: name at least one dataset".into(),
        ));
    }
    let manifests = crate::corpus::manifest::all();
    let mut datasets = Vec::new();
    for d in specs.into_inner() {
        let table = d.span().start;
        let d = d.into_inner();
        // Errors point at the `name` or `path` line, else at the table.
        let start = d
            .name
            .as_ref()
            .map(|n| n.span().start)
            .or(d.path.as_ref().map(|p| p.span().start))
            .unwrap_or(table);
        let d = dataset_spec(d, start, &manifests, base_dir, at)?;
        if datasets.iter().any(|x: &DatasetSpec| x.label == d.label) {
            return Err(at(
                start,
                format!(
                    "two datasets are labelled `{}`: give each a distinct `label`",
                    d.label
                ),
            ));
        }
        datasets.push(d);
    }
    Ok(datasets)
}

/// One `[[datasets]]` table (errors point at offset `start`).
fn dataset_spec(
    d: DatasetFileSpec,
    start: usize,
    manifests: &[crate::corpus::manifest::Manifest],
    base_dir: &Path,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<DatasetSpec> {
    let (n, file) = match (&d.name, &d.path) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(at(
                start,
                "a dataset takes either `name` (default or a manifest) or `path` (a corpus \
                 file), not both or neither"
                    .into(),
            ));
        }
        (None, Some(p)) => {
            let file = base_dir.join(p.get_ref());
            (corpus_name(&file), Some(file))
        }
        (Some(n), None) => {
            let n = n.get_ref().clone();
            if n != "default" && !manifests.iter().any(|m| m.name == n) {
                return Err(at(
                    start,
                    format!(
                        "unknown dataset `{n}`; known: default, {} (or give `path` for a \
                         corpus file)",
                        manifests
                            .iter()
                            .map(|m| m.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            if d.text_field.is_some() || d.id_field.is_some() || d.cluster_field.is_some() {
                return Err(at(
                    start,
                    format!(
                        "dataset `{n}`: text_field, id_field and cluster_field apply to \
                         `path` corpora only"
                    ),
                ));
            }
            (n, None)
        }
    };
    let defaults = crate::corpus::Fields::default();
    let fields = crate::corpus::Fields {
        id: d.id_field.clone().unwrap_or(defaults.id),
        text: d.text_field.clone().unwrap_or(defaults.text),
        label: d.cluster_field.clone().or(defaults.label),
    };
    let n = &n;
    if !(0.0..=1.0).contains(&d.fraction) || d.docs == Some(0) {
        return Err(at(
            start,
            format!("dataset `{n}`: fraction must be in [0, 1] and docs ≥ 1"),
        ));
    }
    let label = d.label.clone().unwrap_or_else(|| n.clone());
    let edits = d
        .edits
        .as_deref()
        .map(|spec| EditSpec::parse(spec).map_err(|m| at(start, format!("dataset `{n}`: {m}"))))
        .transpose()?;
    Ok(DatasetSpec {
        name: n.clone(),
        path: file,
        fields,
        label,
        docs: d.docs,
        seed: d.seed,
        copies: d.copies,
        fraction: d.fraction,
        chain: d.chain,
        edits,
    })
}

/// A user's corpus file's name in reports: the file name up to its first dot.
fn corpus_name(file: &Path) -> String {
    file.file_name()
        .map(|f| {
            f.to_string_lossy()
                .split('.')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "corpus".into())
}
