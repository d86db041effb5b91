//! The experiment file: one TOML describes a question and the grid that answers it.
//!
//! ```toml
//! name = "edit-robustness"           # report folder: reports/<name>/
//! title = "Robustness to edits"
//! question = "How does recall fall as edits accumulate, per edit kind?"
//! seeds = [1]                         # one cell per seed (edits, samples)
//! charts = ["robustness"]             # chart kinds drawn from the results
//! answer = "quality"                  # what answers the question, shown first: quality
//!                                     # (charts, then the best configurations), charts (no
//!                                     # best-configuration table), timing (TIMING.md first)
//! examples = true                     # EXAMPLES.md: each algorithm's pairs just above and
//!                                     # below its cut, texts side by side (report/examples.rs)
//!
//! [truth]                             # features of the exact Jaccard ground truth
//! shingle = "word"                    # word | char | stopword
//! k = 5
//! similarity_floor = 0.2              # all pairs at or above it are kept (≤ 50,000 docs)
//!
//! [[datasets]]
//! name = "default"                    # the embedded corpus, or a manifest name (datasets/*.toml)
//! # path = "my-corpus.jsonl"          # … or your own file (JSONL/CSV/Parquet/folder of .txt),
//! # text_field = "text"               #   relative to this file's folder, with its field names
//! # id_field = "id"                   #   (ids optional: row numbers when absent)
//! # cluster_field = "cluster"         #   (optional: documents with equal values are duplicates)
//! label = "default-600"               # name in tables (default: name); needed to use one twice
//! docs = 600                          # embedded: documents to generate; manifest: read at most
//! copies = 1                          # edited copies per chosen source (with [edits])
//! fraction = 0.5                      # share of sources that get copies
//! chain = false                       # true: each copy edits the copy before it
//! # edits = "blend=0.05"              # this dataset's own edit model instead of [edits]
//!
//! [edits]                             # each kind alone at each rate (kinds × rates) …
//! kinds = ["substitute", "reorder"]
//! rates = [0.02, 0.1]
//! models = ["substitute=0.05,reorder=0.1"]   # … and/or composite models
//! unedited = false                    # also run each dataset as it is
//!
//! [[algorithms]]
//! name = "minhash-lsh"
//! build = { k = [3, 5], num_perm = 128 }     # arrays are grid axes: one index per point
//! query = { min_similarity = [0.5, 0.7, 0.9] }   # swept over each built index
//! # query = { clusters = ["connected", "verified"] }  # clusters of the pairs: components,
//! #                                   # or cut at the threshold (experiment/clustering.rs)
//!
//! # datasets = ["default-600"]        # only these datasets (labels); default: every one
//!
//! [[algorithms]]                      # explicit points instead of a product: an array of tables
//! name = "minhash-lsh"
//! build = [{ bands = 20, rows = 5 }, { bands = 9, rows = 13 }]
//! # what a paper published for this configuration (reports/published/ shows it beside ours)
//! published = { source = "MMDS §3.4", precision = 0.9, comparable = "same corpus" }
//! ```
//!
//! Unknown keys, wrong types, empty grids, unknown algorithms, parameters or edit kinds are
//! errors naming the key and its line.

use std::path::{Path, PathBuf};

use neardup::detector::ParamMap;
use serde::Deserialize;
use toml::Spanned;

use crate::edits::EditModel;
use crate::error::{LabError, Result};

/// What answers an experiment's question, and so what its report shows first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    /// The charts, then the best configuration per dataset and algorithm.
    #[default]
    Quality,
    /// The charts alone: a best-F1 configuration means nothing for the question (an
    /// S-curve's bandings are not competing for F1).
    Charts,
    /// Seconds, throughput and memory (TIMING.md), shown before the quality figures.
    Timing,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    name: Spanned<String>,
    title: String,
    question: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default = "default_seeds")]
    seeds: Spanned<Vec<u64>>,
    #[serde(default)]
    charts: Vec<Spanned<String>>,
    #[serde(default)]
    answer: Answer,
    #[serde(default)]
    examples: bool,
    #[serde(default)]
    truth: Option<TruthFileSpec>,
    datasets: Spanned<Vec<Spanned<DatasetFileSpec>>>,
    #[serde(default)]
    edits: Option<Spanned<EditsFileSpec>>,
    algorithms: Spanned<Vec<AlgorithmFileSpec>>,
}

fn default_seeds() -> Spanned<Vec<u64>> {
    Spanned::new(0..0, vec![1])
}

/// `[truth]` as written, with the position of each key for errors.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TruthFileSpec {
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DatasetFileSpec {
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EditsFileSpec {
    #[serde(default)]
    kinds: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    rates: Option<Spanned<Vec<f64>>>,
    #[serde(default)]
    models: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    unedited: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AlgorithmFileSpec {
    name: Spanned<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    build: Option<Spanned<toml::Value>>,
    #[serde(default)]
    query: Option<Spanned<toml::Value>>,
    #[serde(default)]
    published: Option<Spanned<Published>>,
    #[serde(default)]
    datasets: Option<Spanned<Vec<String>>>,
}

/// What a paper or tool published for one configuration, shown beside neardup's own figures
/// (`reports/published/`). Never an input to any computation: neardup's column always comes
/// from its own cells.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// Who published it, and where (paper and section, or tool and file).
    pub source: String,
    /// Published pair-level precision, when the source gives one.
    #[serde(default)]
    pub precision: Option<f64>,
    /// Published pair-level recall, when the source gives one.
    #[serde(default)]
    pub recall: Option<f64>,
    /// The label of another configuration when the source gives recall only relative to it
    /// (Henzinger: the combined algorithm keeps 79 % of B's recall); ours is then divided the
    /// same way.
    #[serde(default)]
    pub recall_relative_to: Option<String>,
    /// On what data the figures were measured, and whether ours can be compared with them.
    pub comparable: String,
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

/// One edit model of the grid.
#[derive(Debug, Clone)]
pub struct EditSpec {
    /// `none`, an edit kind, or `composite`.
    pub kind: String,
    /// The rate (0 for `none`, the largest step rate for composites).
    pub rate: f64,
    /// The model, `None` = the dataset as it is.
    pub model: Option<EditModel>,
}

impl PartialEq for EditSpec {
    fn eq(&self, other: &Self) -> bool {
        (&self.kind, self.rate, self.spec()) == (&other.kind, other.rate, other.spec())
    }
}

impl EditSpec {
    /// The edit models a dataset runs: its own, or else the experiment's grid.
    pub fn of<'a>(dataset: &'a DatasetSpec, grid: &'a [EditSpec]) -> &'a [EditSpec] {
        dataset.edits.as_ref().map_or(grid, std::slice::from_ref)
    }

    /// A dataset's own model (`kind=rate[,kind=rate…]`), named by its kind when it has one
    /// step and `composite` otherwise.
    fn parse(spec: &str) -> std::result::Result<EditSpec, String> {
        let model = EditModel::parse(spec)?;
        Ok(EditSpec {
            kind: model.only_kind().unwrap_or("composite").to_string(),
            rate: model.max_rate(),
            model: Some(model),
        })
    }

    /// The canonical spec string (`none` when unedited).
    pub fn spec(&self) -> String {
        self.model
            .as_ref()
            .map_or_else(|| "none".into(), EditModel::spec)
    }
}

/// One algorithm with its expanded grids.
#[derive(Debug, Clone)]
pub struct AlgorithmGrid {
    /// Registered name.
    pub name: String,
    /// Label in tables and charts (default: the name).
    pub label: String,
    /// Build parameter points (given keys only).
    pub builds: Vec<ParamMap>,
    /// Query parameter points (given keys only; one empty map = defaults).
    pub queries: Vec<ParamMap>,
    /// Published figures for this configuration, if it reproduces a published one.
    pub published: Option<Published>,
    /// The labels of the datasets it runs on (`None`: every dataset).
    pub datasets: Option<Vec<String>>,
}

impl AlgorithmGrid {
    /// Whether it runs on the dataset labelled `label`.
    pub fn runs_on(&self, label: &str) -> bool {
        self.datasets
            .as_ref()
            .is_none_or(|only| only.iter().any(|l| l == label))
    }
}

/// A parsed, validated experiment.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// The TOML file.
    pub path: PathBuf,
    /// The TOML text (recorded in the report).
    pub source: String,
    /// Short name (report folder).
    pub name: String,
    /// Title.
    pub title: String,
    /// The question it answers.
    pub question: String,
    /// Longer notes for the report.
    pub description: Option<String>,
    /// Seeds.
    pub seeds: Vec<u64>,
    /// Chart kinds (checked against the registry by [`Experiment::check_charts`]: the charts
    /// draw experiments, so the grammar does not know them).
    pub charts: Vec<String>,
    /// What answers the question, shown first.
    pub answer: Answer,
    /// Whether the report shows example pairs (EXAMPLES.md).
    pub examples: bool,
    /// The line of each chart name in the file, for that check's error.
    pub chart_lines: Vec<usize>,
    /// Ground-truth features.
    pub truth: TruthSpec,
    /// Datasets.
    pub datasets: Vec<DatasetSpec>,
    /// Edit models.
    pub edits: Vec<EditSpec>,
    /// Algorithms.
    pub algorithms: Vec<AlgorithmGrid>,
}

/// Byte offset → 1-based line.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

/// Parses and validates an experiment file.
pub fn load(path: &Path) -> Result<Experiment> {
    let text = std::fs::read_to_string(path).map_err(|e| LabError::io(path, e))?;
    parse(path, &text)
}

impl Experiment {
    /// The place of the dataset labelled `label` in the file (tables and charts list
    /// datasets in that order); past the end when there is none.
    pub fn dataset_position(&self, label: &str) -> usize {
        self.datasets
            .iter()
            .position(|d| d.label == label)
            .unwrap_or(usize::MAX)
    }

    /// Checks that every chart it names is one of `known` (the chart registry's names); the
    /// error names the file and the line of the first unknown one.
    pub fn check_charts(&self, known: &[&str]) -> Result<()> {
        for (name, &line) in self.charts.iter().zip(&self.chart_lines) {
            if !known.contains(&name.as_str()) {
                return Err(LabError::line(
                    &self.path,
                    line,
                    format!("unknown chart `{name}`; charts: {}", known.join(", ")),
                ));
            }
        }
        Ok(())
    }
}

/// Parses and validates experiment TOML `text` (errors name `path` and the line).
pub fn parse(path: &Path, text: &str) -> Result<Experiment> {
    let at = |offset: usize, reason: String| LabError::line(path, line_of(text, offset), reason);
    let spec: FileSpec = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(1, |s| line_of(text, s.start));
        LabError::line(path, line, e.message().to_string())
    })?;
    let name = experiment_name(&spec.name, &at)?;
    if spec.seeds.get_ref().is_empty() {
        return Err(at(
            spec.seeds.span().start,
            "`seeds` is an empty list".into(),
        ));
    }
    let truth = truth_spec(spec.truth.as_ref(), &at)?;
    let base_dir = path.parent().unwrap_or(Path::new("."));
    let datasets = dataset_specs(spec.datasets, base_dir, &at)?;
    let edits = edit_grid(spec.edits, &at)?;
    let algorithms = algorithm_grids(spec.algorithms, &datasets, &at)?;
    Ok(Experiment {
        path: path.to_path_buf(),
        source: text.to_string(),
        name,
        title: spec.title,
        question: spec.question,
        description: spec.description,
        seeds: spec.seeds.into_inner(),
        chart_lines: spec
            .charts
            .iter()
            .map(|c| line_of(text, c.span().start))
            .collect(),
        charts: spec.charts.into_iter().map(Spanned::into_inner).collect(),
        answer: spec.answer,
        examples: spec.examples,
        truth,
        datasets,
        edits,
        algorithms,
    })
}

/// The experiment's `name`: a word that names its report folder.
fn experiment_name(
    name: &Spanned<String>,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<String> {
    let trimmed = name.get_ref().trim().to_string();
    if trimmed.is_empty()
        || !trimmed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(at(
            name.span().start,
            format!("`name` must be a non-empty [A-Za-z0-9_-] word, not {trimmed:?}"),
        ));
    }
    Ok(trimmed)
}

/// `[truth]`: the features and floor of the exact ground truth, defaults where not given.
fn truth_spec(
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

/// `[[datasets]]`: each a named dataset or a user's file, labels distinct.
fn dataset_specs(
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

/// `[[algorithms]]`: one grid each; a published `recall_relative_to` names one above it.
fn algorithm_grids(
    specs: Spanned<Vec<AlgorithmFileSpec>>,
    datasets: &[DatasetSpec],
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<AlgorithmGrid>> {
    if specs.get_ref().is_empty() {
        return Err(at(
            specs.span().start,
            "`algorithms` is empty: name at least one algorithm".into(),
        ));
    }
    let mut algorithms = Vec::new();
    for a in specs.into_inner() {
        let start = a.name.span().start;
        if let Some(only) = &a.datasets
            && let Some(unknown) = only
                .get_ref()
                .iter()
                .find(|l| !datasets.iter().any(|d| &d.label == *l))
        {
            return Err(at(
                only.span().start,
                format!(
                    "`datasets` names `{unknown}`, which is no dataset's label; the labels are: {}",
                    datasets
                        .iter()
                        .map(|d| d.label.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        let grid = algorithm_grid(a, at)?;
        if let Some(base) = grid
            .published
            .as_ref()
            .and_then(|p| p.recall_relative_to.as_ref())
            && !algorithms.iter().any(|g: &AlgorithmGrid| &g.label == base)
        {
            return Err(at(
                start,
                format!(
                    "published recall_relative_to = `{base}` names no configuration above this one"
                ),
            ));
        }
        algorithms.push(grid);
    }
    Ok(algorithms)
}

fn edit_grid(
    edits: Option<Spanned<EditsFileSpec>>,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<EditSpec>> {
    let Some(edits) = edits else {
        return Ok(vec![EditSpec {
            kind: "none".into(),
            rate: 0.0,
            model: None,
        }]);
    };
    let start = edits.span().start;
    let e = edits.into_inner();
    let mut out = Vec::new();
    if e.unedited {
        out.push(EditSpec {
            kind: "none".into(),
            rate: 0.0,
            model: None,
        });
    }
    out.extend(kinds_by_rates(&e, at)?);
    out.extend(composite_models(&e, at)?);
    if out.is_empty() {
        return Err(at(
            start,
            "[edits] defines no edit model: give kinds and rates, models, or unedited = true"
                .into(),
        ));
    }
    Ok(out)
}

/// `kinds` × `rates`: one single-kind model per pair.
fn kinds_by_rates(
    e: &EditsFileSpec,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<EditSpec>> {
    let mut out = Vec::new();
    match (&e.kinds, &e.rates) {
        (Some(k), Some(r)) => {
            if k.get_ref().is_empty() {
                return Err(at(k.span().start, "`edits.kinds` is an empty list".into()));
            }
            if r.get_ref().is_empty() {
                return Err(at(r.span().start, "`edits.rates` is an empty list".into()));
            }
            for kind in k.get_ref() {
                for &rate in r.get_ref() {
                    let model = EditModel::single(kind, rate).map_err(|m| at(k.span().start, m))?;
                    out.push(EditSpec {
                        kind: kind.clone(),
                        rate,
                        model: Some(model),
                    });
                }
            }
        }
        (Some(k), None) => {
            return Err(at(
                k.span().start,
                "`edits.kinds` needs `edits.rates`".into(),
            ));
        }
        (None, Some(r)) => {
            return Err(at(
                r.span().start,
                "`edits.rates` needs `edits.kinds`".into(),
            ));
        }
        (None, None) => {}
    }
    Ok(out)
}

/// `models`: composite models, each named by its highest rate.
fn composite_models(
    e: &EditsFileSpec,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<EditSpec>> {
    let mut out = Vec::new();
    if let Some(models) = &e.models {
        if models.get_ref().is_empty() {
            return Err(at(
                models.span().start,
                "`edits.models` is an empty list".into(),
            ));
        }
        for m in models.get_ref() {
            let model = EditModel::parse(m).map_err(|msg| at(models.span().start, msg))?;
            out.push(EditSpec {
                kind: "composite".into(),
                rate: model.max_rate(),
                model: Some(model),
            });
        }
    }
    Ok(out)
}

/// A TOML value as a JSON parameter value.
fn to_json(v: &toml::Value) -> std::result::Result<serde_json::Value, String> {
    Ok(match v {
        toml::Value::String(s) => s.clone().into(),
        toml::Value::Integer(i) => (*i).into(),
        toml::Value::Float(f) => (*f).into(),
        toml::Value::Boolean(b) => (*b).into(),
        toml::Value::Array(a) => serde_json::Value::Array(
            a.iter()
                .map(to_json)
                .collect::<std::result::Result<_, _>>()?,
        ),
        other => return Err(format!("unsupported parameter value {other}")),
    })
}

/// Expands a grid: a table `key = value | [values]` is the cartesian product (keys in sorted
/// order); an array of such tables is the concatenation of their products.
fn expand(
    spec: Option<&Spanned<toml::Value>>,
    what: &str,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<ParamMap>> {
    let Some(spec) = spec else {
        return Ok(vec![ParamMap::new()]);
    };
    let pos = spec.span().start;
    match spec.get_ref() {
        toml::Value::Table(t) => expand_table(t, pos, what, at),
        toml::Value::Array(points) if points.is_empty() => {
            Err(at(pos, format!("`{what}` is an empty list of points")))
        }
        toml::Value::Array(points) => {
            let mut out = Vec::new();
            for p in points {
                let toml::Value::Table(t) = p else {
                    return Err(at(
                        pos,
                        format!("`{what}` must be a table or an array of tables"),
                    ));
                };
                out.extend(expand_table(t, pos, what, at)?);
            }
            Ok(out)
        }
        _ => Err(at(
            pos,
            format!("`{what}` must be a table or an array of tables"),
        )),
    }
}

fn expand_table(
    table: &toml::Table,
    pos: usize,
    what: &str,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<ParamMap>> {
    let mut points = vec![ParamMap::new()];
    for (key, value) in table {
        let axis: Vec<serde_json::Value> = match value {
            toml::Value::Array(a) if a.is_empty() => {
                return Err(at(pos, format!("`{what}.{key}` is an empty grid")));
            }
            toml::Value::Array(a) => a.iter().map(to_json).collect::<std::result::Result<_, _>>(),
            v => to_json(v).map(|x| vec![x]),
        }
        .map_err(|m| at(pos, format!("`{what}.{key}`: {m}")))?;
        points = points
            .into_iter()
            .flat_map(|p| {
                axis.iter().map(move |v| {
                    let mut q = p.clone();
                    q.insert(key.clone(), v.clone());
                    q
                })
            })
            .collect();
    }
    Ok(points)
}

/// The keys named in a grid spec, with the position of the spec.
fn grid_keys(spec: Option<&Spanned<toml::Value>>) -> Vec<(String, usize)> {
    let Some(spec) = spec else { return Vec::new() };
    let pos = spec.span().start;
    let tables: Vec<&toml::Table> = match spec.get_ref() {
        toml::Value::Table(t) => vec![t],
        toml::Value::Array(a) => a.iter().filter_map(|v| v.as_table()).collect(),
        _ => Vec::new(),
    };
    tables
        .iter()
        .flat_map(|t| t.keys().map(move |k| (k.clone(), pos)))
        .collect()
}

/// Validates every build × query point now, so that a bad one fails before any work:
/// the algorithm must accept it, and a clustering mode must suit it.
fn check_points(
    info: &neardup::registry::AlgorithmInfo,
    builds: &[ParamMap],
    queries: &[ParamMap],
    a: &AlgorithmFileSpec,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<()> {
    let query_at = a
        .query
        .as_ref()
        .map_or(a.name.span().start, |q| q.span().start);
    for b in builds {
        for q in queries {
            let (algorithm_query, _) = super::clustering::split(q).map_err(|e| at(query_at, e))?;
            let mut all = b.clone();
            all.extend(algorithm_query);
            let detector = info
                .detector(&all)
                .map_err(|e| at(a.name.span().start, e.to_string()))?;
            super::clustering::check(detector.as_ref(), q).map_err(|e| at(query_at, e))?;
        }
    }
    Ok(())
}

fn algorithm_grid(
    a: AlgorithmFileSpec,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<AlgorithmGrid> {
    let name = a.name.get_ref().clone();
    let info =
        neardup::registry::find(&name).map_err(|e| at(a.name.span().start, e.to_string()))?;
    for (spec, defaults, other, what) in [
        (
            a.build.as_ref(),
            &info.build_defaults,
            &info.query_defaults,
            "build",
        ),
        (
            a.query.as_ref(),
            &info.query_defaults,
            &info.build_defaults,
            "query",
        ),
    ] {
        for (key, pos) in grid_keys(spec) {
            let key = &key;
            let lab_key = what == "query" && key == super::clustering::CLUSTERS_KEY;
            if !defaults.contains_key(key) && !lab_key {
                let hint = if other.contains_key(key) {
                    format!(
                        "`{key}` is a {} parameter of `{name}`; move it to `{}`",
                        if what == "build" { "query" } else { "build" },
                        if what == "build" { "query" } else { "build" }
                    )
                } else {
                    format!(
                        "`{name}` has no {what} parameter `{key}`; its {what} parameters are: {}",
                        defaults.keys().cloned().collect::<Vec<_>>().join(", ")
                    )
                };
                return Err(at(pos, hint));
            }
        }
    }
    let builds = expand(a.build.as_ref(), "build", at)?;
    let queries = expand(a.query.as_ref(), "query", at)?;
    check_points(&info, &builds, &queries, &a, at)?;
    if let Some(p) = &a.published {
        for (what, v) in [
            ("precision", p.get_ref().precision),
            ("recall", p.get_ref().recall),
        ] {
            if v.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
                return Err(at(
                    p.span().start,
                    format!(
                        "published {what} = {} is outside [0, 1]",
                        v.unwrap_or_default()
                    ),
                ));
            }
        }
    }
    Ok(AlgorithmGrid {
        label: a.label.unwrap_or_else(|| name.clone()),
        name,
        builds,
        queries,
        published: a.published.map(Spanned::into_inner),
        datasets: a.datasets.map(Spanned::into_inner),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "t"
title = "T"
question = "Q?"
seeds = [1, 2]

[[datasets]]
name = "default"
docs = 20

[edits]
kinds = ["substitute", "delete"]
rates = [0.1, 0.2]
models = ["substitute=0.05,reorder=0.1"]

[[algorithms]]
name = "minhash-lsh"
build = { k = [3, 5], num_perm = 64 }
query = { min_similarity = [0.5, 0.7] }
"#;

    fn err(text: &str) -> String {
        parse(Path::new("x.toml"), text).unwrap_err().to_string()
    }

    #[test]
    fn expands_the_grid() {
        let e = parse(Path::new("x.toml"), GOOD).unwrap();
        assert_eq!(e.seeds, [1, 2]);
        assert_eq!(e.edits.len(), 5);
        assert_eq!(e.edits[4].kind, "composite");
        assert_eq!(e.edits[4].rate, 0.1);
        let a = &e.algorithms[0];
        assert_eq!(a.builds.len(), 2);
        assert_eq!(a.builds[1]["k"], 5);
        assert_eq!(a.builds[1]["num_perm"], 64);
        assert_eq!(a.queries.len(), 2);
        let points = GOOD.replace(
            "build = { k = [3, 5], num_perm = 64 }",
            "build = [{ bands = 20, rows = 5 }, { bands = 9, rows = [13, 14] }]",
        );
        let e = parse(Path::new("x.toml"), &points).unwrap();
        let b = &e.algorithms[0].builds;
        assert_eq!(b.len(), 3);
        assert_eq!(
            (b[0]["bands"].as_u64(), b[2]["rows"].as_u64()),
            (Some(20), Some(14))
        );
    }

    /// Published figures are parsed, checked, and never confused with a dataset choice.
    #[test]
    fn published_figures_and_dataset_paths() {
        let with = |published: &str| {
            GOOD.replace(
                "query = { min_similarity = [0.5, 0.7] }",
                &format!("query = {{ min_similarity = [0.5, 0.7] }}\npublished = {published}"),
            )
        };
        let e = parse(
            Path::new("x.toml"),
            &with("{ source = \"S\", precision = 0.9, comparable = \"no\" }"),
        )
        .unwrap();
        let p = e.algorithms[0].published.as_ref().unwrap();
        assert_eq!(
            (p.source.as_str(), p.precision, p.recall),
            ("S", Some(0.9), None)
        );
        let e = err(&with(
            "{ source = \"S\", precision = 1.5, comparable = \"no\" }",
        ));
        assert!(
            e.contains("x.toml:20:") && e.contains("outside [0, 1]"),
            "{e}"
        );
        let e = err(&with(
            "{ source = \"S\", recall = 0.8, recall_relative_to = \"B\", comparable = \"no\" }",
        ));
        assert!(e.contains("recall_relative_to = `B`"), "{e}");
        let e = err(&GOOD.replace(
            "name = \"default\"",
            "name = \"default\"\npath = \"a.jsonl\"",
        ));
        assert!(
            e.contains("x.toml:8:") && e.contains("either `name`"),
            "{e}"
        );
        let e = err(&GOOD.replace("docs = 20", "docs = 20\ntext_field = \"body\""));
        assert!(e.contains("apply to `path` corpora only"), "{e}");
        let e = parse(
            Path::new("exps/x.toml"),
            &GOOD.replace("name = \"default\"", "path = \"mine.jsonl\""),
        )
        .unwrap();
        let d = &e.datasets[0];
        assert_eq!(
            (d.name.as_str(), d.path.as_deref()),
            ("mine", Some(Path::new("exps/mine.jsonl")))
        );
    }

    #[test]
    fn errors_name_key_and_line() {
        let e = err(&GOOD.replace("seeds = [1, 2]", "seeds = [1, 2]\ncolour = 3"));
        assert!(e.contains("x.toml:6:") && e.contains("colour"), "{e}");
        let e = err(&GOOD.replace("docs = 20", "docs = \"many\""));
        assert!(e.contains("x.toml:9:") && e.contains("invalid type"), "{e}");
        let e = err(&GOOD.replace("k = [3, 5]", "k = []"));
        assert!(
            e.contains("x.toml:18:") && e.contains("`build.k` is an empty grid"),
            "{e}"
        );
        let e = err(&GOOD.replace("rates = [0.1, 0.2]", "rates = []"));
        assert!(
            e.contains("x.toml:13:") && e.contains("`edits.rates` is an empty list"),
            "{e}"
        );
        let e = err(&GOOD.replace("num_perm = 64", "colour = 64"));
        assert!(
            e.contains("x.toml:18:") && e.contains("no build parameter `colour`"),
            "{e}"
        );
        let e = err(&GOOD.replace("num_perm = 64", "min_similarity = 0.5"));
        assert!(e.contains("move it to `query`"), "{e}");
        let e = err(&GOOD.replace("name = \"minhash-lsh\"", "name = \"nope\""));
        assert!(
            e.contains("x.toml:17:") && e.contains("unknown algorithm `nope`"),
            "{e}"
        );
        let e = err(&GOOD.replace("\"delete\"", "\"smudge\""));
        assert!(e.contains("unknown edit kind `smudge`"), "{e}");
        let e = err(&GOOD.replace("name = \"default\"", "name = \"imaginary\""));
        assert!(
            e.contains("x.toml:8:") && e.contains("unknown dataset `imaginary`"),
            "{e}"
        );
        let e = err(&GOOD.replace("num_perm = 64", "num_perm = 0"));
        assert!(e.contains("num_perm"), "{e}");
        // Regression (issue 15): [truth] errors pointed at line 1.
        let truth = GOOD.replace(
            "[[datasets]]",
            "[truth]\nk = 5\nsimilarity_floor = 1.5\n\n[[datasets]]",
        );
        let e = err(&truth);
        assert!(
            e.contains("x.toml:9:") && e.contains("similarity_floor = 1.5 is outside (0, 1]"),
            "{e}"
        );
    }

    /// The chaining experiment's keys: a dataset's own edit model and chains, an algorithm
    /// limited to some datasets, and the lab's `clusters` query key.
    #[test]
    fn chains_dataset_filters_and_clustering_modes() {
        let text = GOOD
            .replace(
                "docs = 20",
                "docs = 20\nlabel = \"walk\"\nchain = true\nedits = \"blend=0.05\"",
            )
            .replace(
                "query = { min_similarity = [0.5, 0.7] }",
                "query = { clusters = [\"connected\", \"verified\"] }\ndatasets = [\"walk\"]",
            );
        let e = parse(Path::new("x.toml"), &text).unwrap();
        let d = &e.datasets[0];
        assert!(d.chain);
        assert_eq!(EditSpec::of(d, &e.edits).len(), 1);
        assert_eq!(EditSpec::of(d, &e.edits)[0].kind, "blend");
        assert!(e.algorithms[0].runs_on("walk") && !e.algorithms[0].runs_on("other"));
        assert_eq!(e.algorithms[0].queries.len(), 2);

        let e = err(&text.replace("\"verified\"", "\"loose\""));
        assert!(
            e.contains("x.toml:22:") && e.contains("not a clustering mode"),
            "{e}"
        );
        let e = err(&text.replace("clusters = [", "min_similarity = 0.5, clusters = ["));
        assert!(e.contains("cannot be swept together with"), "{e}");
        let e = err(&text
            .replace("name = \"minhash-lsh\"", "name = \"supershingles\"")
            .replace("build = { k = [3, 5], num_perm = 64 }", ""));
        assert!(
            e.contains("compares any pair") && e.contains("supershingles"),
            "{e}"
        );
        let e = err(&text.replace("datasets = [\"walk\"]", "datasets = [\"wlak\"]"));
        assert!(
            e.contains("x.toml:23:") && e.contains("`wlak`, which is no dataset"),
            "{e}"
        );
        let e = err(&text.replace("blend=0.05", "blend=2"));
        assert!(
            e.contains("dataset `default`") && e.contains("outside [0, 1]"),
            "{e}"
        );
    }
}
