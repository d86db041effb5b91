//! `[[datasets]]`: the embedded corpus, a manifest's dataset or a user's corpus file, each
//! with its label, size and copies.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::edits::EditSpec;
use crate::corpus::pages::PageSet;
use crate::corpus::pages::reading::Reading;
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
    /// Page datasets: how pages are read (`html`, `visible`, `main`, `main+boilerplate`),
    /// one dataset each.
    #[serde(default)]
    read: Option<Vec<String>>,
    /// Page datasets: K of `main+boilerplate` (`--boilerplate-lines K`).
    #[serde(default)]
    boilerplate_lines: Option<u32>,
}

/// K of `main+boilerplate` when a page dataset does not say: in a page corpus each host has
/// its own article and a few others' copies, never one article twice, so a line on two of a
/// host's pages is its template.
const DEFAULT_BOILERPLATE_LINES: u32 = 2;

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
    /// A page dataset (`web-pages`, `web-pages-zh`): its set and how its pages are read.
    pub pages: Option<PageDataset>,
}

/// A page corpus read one way (one `[[datasets]]` table with `read = [...]` is one of these
/// per reading, labelled `<label> (<reading>)`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PageDataset {
    /// Which pages.
    pub set: PageSet,
    /// How they are read.
    pub reading: Reading,
}

impl DatasetSpec {
    /// What the datasets that share generated pages have in common: adjacent datasets with
    /// one key are the readings of one page corpus, generated once (`None`: not pages).
    pub fn generation_key(&self) -> Option<String> {
        let p = self.pages?;
        Some(format!(
            "{:?}|{:?}|{}|{}|{:?}",
            p.set,
            self.docs,
            self.copies,
            self.fraction,
            self.edits.as_ref().map(EditSpec::spec)
        ))
    }

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
        for d in dataset_spec(d, start, &manifests, base_dir, at)? {
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
    }
    Ok(datasets)
}

/// One `[[datasets]]` table: one dataset, or a page dataset per reading (errors point at
/// offset `start`).
fn dataset_spec(
    d: DatasetFileSpec,
    start: usize,
    manifests: &[crate::corpus::manifest::Manifest],
    base_dir: &Path,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<DatasetSpec>> {
    let readings = page_readings(&d, start, at)?;
    let one = one_dataset(d, start, manifests, base_dir, at)?;
    let Some((set, readings)) = readings else {
        return Ok(vec![one]);
    };
    Ok(readings
        .into_iter()
        .map(|reading| DatasetSpec {
            label: format!("{} ({})", one.label, reading.name()),
            pages: Some(PageDataset { set, reading }),
            ..one.clone()
        })
        .collect())
}

/// A page dataset's set and readings (`None` for any other dataset, which may not say `read`
/// or `boilerplate_lines`).
fn page_readings(
    d: &DatasetFileSpec,
    start: usize,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Option<(PageSet, Vec<Reading>)>> {
    let set = d.name.as_ref().and_then(|n| PageSet::named(n.get_ref()));
    let Some(set) = set else {
        if d.read.is_some() || d.boilerplate_lines.is_some() {
            return Err(at(
                start,
                format!(
                    "`read` and `boilerplate_lines` apply to page datasets only ({})",
                    PageSet::NAMES.join(", ")
                ),
            ));
        }
        return Ok(None);
    };
    let k = d.boilerplate_lines.unwrap_or(DEFAULT_BOILERPLATE_LINES);
    if k < 2 {
        return Err(at(
            start,
            "boilerplate_lines must be at least 2 (a line on one page is every line)".into(),
        ));
    }
    let names: Vec<String> = match &d.read {
        Some(names) => names.clone(),
        None => Reading::NAMES.iter().map(|n| n.to_string()).collect(),
    };
    let mut readings = Vec::new();
    for name in &names {
        let reading = Reading::parse(name, k).ok_or_else(|| {
            at(
                start,
                format!(
                    "unknown reading `{name}`; known: {}",
                    Reading::NAMES.join(", ")
                ),
            )
        })?;
        readings.push(reading);
    }
    if readings.is_empty() {
        return Err(at(
            start,
            "`read` is empty: name at least one reading".into(),
        ));
    }
    Ok(Some((set, readings)))
}

/// One `[[datasets]]` table as one dataset (errors point at offset `start`).
fn one_dataset(
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
            check_name(&n, start, manifests, at)?;
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
        pages: None,
    })
}

/// A dataset name is `default`, a page set or a manifest's.
fn check_name(
    n: &str,
    start: usize,
    manifests: &[crate::corpus::manifest::Manifest],
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<()> {
    let known =
        n == "default" || PageSet::named(n).is_some() || manifests.iter().any(|m| m.name == n);
    if !known {
        return Err(at(
            start,
            format!(
                "unknown dataset `{n}`; known: default, {}, {} (or give `path` for a \
         corpus file)",
                PageSet::NAMES.join(", "),
                manifests
                    .iter()
                    .map(|m| m.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(())
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
