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
//!
//! This file holds the top level and [`parse`], which checks the tables in the file's order;
//! each table's grammar and checks are in their own file: `truth.rs`, `datasets.rs`,
//! `edits.rs` and `algorithms.rs`.

mod algorithms;
mod datasets;
mod edits;
mod truth;

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use algorithms::{AlgorithmFileSpec, algorithm_grids};
pub use algorithms::{AlgorithmGrid, Published};
pub use datasets::DatasetSpec;
use datasets::{DatasetFileSpec, dataset_specs};
pub use edits::EditSpec;
use edits::{EditsFileSpec, edit_grid};
pub use truth::TruthSpec;
use truth::{TruthFileSpec, truth_spec};

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
        assert_eq!(d.edit_models(&e.edits).len(), 1);
        assert_eq!(d.edit_models(&e.edits)[0].kind, "blend");
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
