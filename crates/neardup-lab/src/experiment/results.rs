//! The results table: one row per (cell, query point), computed from stored raw results only.
//!
//! Written as `results.csv` and `results.parquet` (polars). Columns:
//!
//! | column | meaning |
//! |---|---|
//! | `experiment`, `dataset`, `edit`, `rate`, `edit_spec`, `seed` | where the corpus came from |
//! | `docs`, `corpus_sha256` | the corpus |
//! | `algorithm`, `label`, `build_params`, `query_params` | the configuration (grid keys only) |
//! | `resolved_params` | every build and query parameter as it ran (defaults filled in and resolved: minhash-lsh's threshold, bands, rows) |
//! | every quality and count column of `metrics::METRICS`, in order | see `metrics` |
//! | `stats` | what the index reports about itself, e.g. `unsigned_docs=12` (I-Match) |
//! | `error` | the algorithm's error when the cell failed (metrics empty) |
//! | `cell` | cache key of the raw result |
//!
//! Timing and memory go to `timing.csv` (`cell`, `label`, `query_params`, `build_seconds`,
//! `query_seconds`, `cluster_seconds` (anchoring, with a clustering mode), every cost column of `metrics::METRICS`, `index_mb`), so that everything
//! else is byte-identical when an experiment is rerun.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use neardup::detector::ScoredPair;
use polars::prelude::*;

use super::cells::{Cache, CellResult};
use super::corpora::CorpusTruth;
use super::runner::{PlannedCell, RunOutcome};
use crate::error::{LabError, Result};
use crate::metrics::{EvalInput, Kind, compute_all};
use crate::params::render_params;
use crate::truth::Truth;

/// One row of the results.
#[derive(Debug, Clone)]
pub struct ResultRow {
    /// The planned cell it belongs to.
    pub cell: PlannedCell,
    /// Index of the query point.
    pub query_index: usize,
    /// Build parameters as given.
    pub build_params: String,
    /// Query parameters as given.
    pub query_params: String,
    /// Every build and query parameter as it ran (empty when the cell failed).
    pub resolved_params: String,
    /// Query parameters, all of them (for charts that sweep one).
    pub query_full: neardup::detector::ParamMap,
    /// Build parameters, all of them.
    pub build_full: neardup::detector::ParamMap,
    /// Documents.
    pub docs: usize,
    /// Every metric column's value (quality, count and cost), in `metrics::METRICS` order.
    pub metrics: Vec<(&'static str, Option<f64>)>,
    /// Build seconds.
    pub build_seconds: f64,
    /// Query seconds.
    pub query_seconds: f64,
    /// Seconds spent anchoring the clusters (0 without a clustering mode).
    pub cluster_seconds: f64,
    /// Index heap MB.
    pub index_mb: f64,
    /// The algorithm's error, if it failed.
    pub error: Option<String>,
    /// The index's statistics as `key=value` (empty when it reports none).
    pub stats: String,
}

impl ResultRow {
    /// A row of `cell` at build parameters `build`, with only `metrics` measured: what the
    /// charts' unit tests build their results from.
    #[cfg(test)]
    pub fn of_cell(
        cell: crate::experiment::runner::PlannedCell,
        build: &str,
        metrics: Vec<(&'static str, Option<f64>)>,
    ) -> Self {
        ResultRow {
            cell,
            query_index: 0,
            build_params: build.into(),
            query_params: String::new(),
            resolved_params: String::new(),
            query_full: Default::default(),
            build_full: Default::default(),
            docs: 10,
            metrics,
            build_seconds: 0.0,
            query_seconds: 0.0,
            cluster_seconds: 0.0,
            index_mb: 0.0,
            error: None,
            stats: String::new(),
        }
    }

    /// The clustering mode its query point asked for (`connected`, `verified`), if any.
    pub fn cluster_mode(&self) -> Option<&str> {
        self.query_full
            .get(super::clustering::CLUSTERS_KEY)
            .and_then(|v| v.as_str())
    }

    /// A metric column's value.
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.metrics
            .iter()
            .find(|(c, _)| *c == name)
            .and_then(|(_, v)| *v)
    }
}

/// Rows plus the raw cells they came from (for charts that need pairs).
#[derive(Debug, Default)]
pub struct Results {
    /// Rows in plan order.
    pub rows: Vec<ResultRow>,
    /// Raw cells by key.
    pub cells: HashMap<String, CellResult>,
}

/// Computes the rows of a run from the cache.
pub fn collect(outcome: &RunOutcome, cache_dir: &Path) -> Result<Results> {
    let cache = Cache::new(cache_dir);
    let mut results = Results::default();
    let mut truths: HashMap<&str, Truth> = HashMap::new();
    for planned in &outcome.cells {
        let cell = cache.cell(&planned.key).ok_or_else(|| {
            LabError::file(
                cache_dir,
                format!("cell {} is missing from the cache", planned.key),
            )
        })?;
        let corpus = &outcome.truths[&planned.corpus_sha256];
        let truth = truths
            .entry(&planned.corpus_sha256)
            .or_insert_with(|| Truth::from_labels(&corpus.labels));
        if cell.error.is_some() {
            results.rows.push(failed_row(planned, &cell, corpus));
        }
        for (qi, q) in cell.queries.iter().enumerate() {
            let predicted: Vec<ScoredPair> = (0..q.pairs.len())
                .map(|i| ScoredPair {
                    a: q.pairs.a[i],
                    b: q.pairs.b[i],
                    score: q.pairs.score[i],
                })
                .collect();
            let clustering_seconds = q.clusters.as_ref().map_or(0.0, |c| c.seconds);
            let seconds = cell.build_seconds + q.seconds + clustering_seconds;
            let input = EvalInput {
                docs: corpus.docs,
                text_bytes: corpus.text_bytes,
                truth,
                predicted: &predicted,
                representative: q.clusters.as_ref().map(|c| &c.representative[..]),
                removed_below_threshold: q.clusters.as_ref().map(|c| c.below_threshold.len()),
                scored: cell.scored.as_ref(),
                seconds,
                peak_bytes: Some(cell.build_peak_bytes.max(cell.index_bytes + q.peak_bytes)),
            };
            results.rows.push(ResultRow {
                cell: planned.clone(),
                query_index: qi,
                build_params: render_params(&cell.given),
                query_params: render_params(&q.given),
                resolved_params: resolved(&cell.algorithm, &cell.given, &q.given),
                query_full: q.params.clone(),
                build_full: cell.params.clone(),
                docs: corpus.docs,
                metrics: compute_all(&input),
                build_seconds: cell.build_seconds,
                query_seconds: q.seconds,
                cluster_seconds: clustering_seconds,
                index_mb: cell.index_bytes as f64 / 1e6,
                error: None,
                stats: render_params(&cell.stats),
            });
        }
        results.cells.insert(planned.key.clone(), cell);
    }
    Ok(results)
}

/// Every parameter of a cell's query point as it ran (the lab's `clusters` key left as
/// given).
fn resolved(
    algorithm: &str,
    build: &neardup::detector::ParamMap,
    query: &neardup::detector::ParamMap,
) -> String {
    let Ok((overrides, _)) = super::clustering::split(query) else {
        return String::new();
    };
    let mut given = build.clone();
    given.extend(overrides);
    neardup::registry::detector(algorithm, &given).map_or_else(
        |_| String::new(),
        |d| {
            let mut p = d.resolved_params();
            p.extend(
                query
                    .iter()
                    .filter(|(k, _)| k.as_str() == super::clustering::CLUSTERS_KEY)
                    .map(|(k, v)| (k.clone(), v.clone())),
            );
            render_params(&p)
        },
    )
}

fn failed_row(planned: &PlannedCell, cell: &CellResult, corpus: &CorpusTruth) -> ResultRow {
    ResultRow {
        cell: planned.clone(),
        query_index: 0,
        build_params: render_params(&cell.given),
        query_params: String::new(),
        resolved_params: String::new(),
        query_full: Default::default(),
        build_full: cell.params.clone(),
        docs: corpus.docs,
        metrics: Vec::new(),
        build_seconds: 0.0,
        query_seconds: 0.0,
        cluster_seconds: 0.0,
        index_mb: 0.0,
        error: cell.error.clone(),
        stats: String::new(),
    }
}

/// Each label's best grid point: the (build, query) parameters with the highest F1 averaged
/// over every dataset, edit model, rate and seed it ran on (ties: the earlier point in the
/// grid). What "recall by edit kind" shows, so a sweep's first point (a SimHash distance of
/// 0, say) never stands for the algorithm.
pub fn best_points(rows: &[ResultRow]) -> BestPoints {
    use std::collections::BTreeMap;
    // label → (build index, query index) → (build, query, F1 values)
    type Grid<'r> = BTreeMap<(usize, usize), (&'r str, &'r str, Vec<f64>)>;
    let mut points: BTreeMap<&str, Grid<'_>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.error.is_none()) {
        let e = points
            .entry(&r.cell.label)
            .or_default()
            .entry((r.cell.build_index, r.query_index))
            .or_insert_with(|| (&r.build_params, &r.query_params, Vec::new()));
        if let Some(f1) = r.metric("f1") {
            e.2.push(f1);
        }
    }
    let by_label = points
        .into_iter()
        .filter_map(|(label, grid)| {
            let score = |v: &[f64]| {
                if v.is_empty() {
                    f64::NEG_INFINITY
                } else {
                    v.iter().sum::<f64>() / v.len() as f64
                }
            };
            let mut best: Option<(&str, &str, f64)> = None;
            for (b, q, f1) in grid.values() {
                let s = score(f1);
                if best.is_none_or(|(_, _, old)| s > old) {
                    best = Some((b, q, s));
                }
            }
            best.map(|(b, q, _)| (label.to_string(), (b.to_string(), q.to_string())))
        })
        .collect();
    BestPoints(by_label)
}

/// Each label's best grid point over the rows of one dataset (the best-configuration table's
/// choice on that dataset).
pub fn best_points_on(rows: &[ResultRow], dataset: &str) -> BestPoints {
    let own: Vec<ResultRow> = rows
        .iter()
        .filter(|r| r.cell.dataset == dataset)
        .cloned()
        .collect();
    best_points(&own)
}

/// Each label's best grid point ([`best_points`]): label → (build, query) parameters.
#[derive(Debug, Clone, Default)]
pub struct BestPoints(std::collections::BTreeMap<String, (String, String)>);

impl BestPoints {
    /// Whether `row` ran at its label's best grid point.
    pub fn includes(&self, row: &ResultRow) -> bool {
        self.0
            .get(&row.cell.label)
            .is_some_and(|(b, q)| *b == row.build_params && *q == row.query_params)
    }
}

/// Mean cost of one configuration's cells at one corpus size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeCost {
    /// Wall seconds, build + first query point.
    pub seconds: f64,
    /// Peak heap above the baseline, MB.
    pub peak_mb: f64,
}

/// Configuration (label, build parameters) → corpus size (documents) → mean cost.
pub type CostsBySize = BTreeMap<(String, String), BTreeMap<usize, SizeCost>>;

/// Per configuration (label, build parameters) and corpus size (documents), the mean cost of
/// its cells at the first query point; failed cells left out. What the scaling chart draws and
/// the growth table reports.
pub fn costs_by_size<'a>(rows: impl IntoIterator<Item = &'a ResultRow>) -> CostsBySize {
    // (seconds sum, peak sum, cells) per configuration and size
    type Sums = BTreeMap<(String, String), BTreeMap<usize, (f64, f64, usize)>>;
    let mut sums = Sums::new();
    for r in rows
        .into_iter()
        .filter(|r| r.query_index == 0 && r.error.is_none())
    {
        let e = sums
            .entry((r.cell.label.clone(), r.build_params.clone()))
            .or_default()
            .entry(r.docs)
            .or_default();
        e.0 += r.build_seconds + r.query_seconds + r.cluster_seconds;
        e.1 += r.metric("peak_mb").unwrap_or(0.0);
        e.2 += 1;
    }
    sums.into_iter()
        .map(|(config, sizes)| {
            let sizes = sizes
                .into_iter()
                .map(|(docs, (secs, peak, n))| {
                    let n = n as f64;
                    (
                        docs,
                        SizeCost {
                            seconds: secs / n,
                            peak_mb: peak / n,
                        },
                    )
                })
                .collect();
            (config, sizes)
        })
        .collect()
}

/// The results as a polars DataFrame (timing excluded).
pub fn results_frame(experiment: &str, rows: &[ResultRow]) -> PolarsResult<DataFrame> {
    let s = |f: &dyn Fn(&ResultRow) -> String| rows.iter().map(f).collect::<Vec<String>>();
    let mut columns: Vec<Column> = vec![
        Column::new(
            "experiment".into(),
            vec![experiment.to_string(); rows.len()],
        ),
        Column::new("dataset".into(), s(&|r| r.cell.dataset.clone())),
        Column::new("edit".into(), s(&|r| r.cell.edit.clone())),
        Column::new(
            "rate".into(),
            rows.iter().map(|r| r.cell.rate).collect::<Vec<f64>>(),
        ),
        Column::new("edit_spec".into(), s(&|r| r.cell.edit_spec.clone())),
        Column::new(
            "seed".into(),
            rows.iter().map(|r| r.cell.seed).collect::<Vec<u64>>(),
        ),
        Column::new(
            "docs".into(),
            rows.iter().map(|r| r.docs as u64).collect::<Vec<u64>>(),
        ),
        Column::new("algorithm".into(), s(&|r| r.cell.algorithm.clone())),
        Column::new("label".into(), s(&|r| r.cell.label.clone())),
        Column::new("build_params".into(), s(&|r| r.build_params.clone())),
        Column::new("query_params".into(), s(&|r| r.query_params.clone())),
        Column::new("resolved_params".into(), s(&|r| r.resolved_params.clone())),
    ];
    for m in crate::metrics::columns() {
        match m.kind {
            Kind::Count => columns.push(Column::new(
                m.name.into(),
                rows.iter()
                    .map(|r| r.metric(m.name).map(|v| v as u64))
                    .collect::<Vec<Option<u64>>>(),
            )),
            Kind::Quality => columns.push(Column::new(
                m.name.into(),
                rows.iter()
                    .map(|r| r.metric(m.name))
                    .collect::<Vec<Option<f64>>>(),
            )),
            Kind::Cost => {}
        }
    }
    columns.push(Column::new("stats".into(), s(&|r| r.stats.clone())));
    columns.push(Column::new(
        "error".into(),
        rows.iter()
            .map(|r| r.error.clone())
            .collect::<Vec<Option<String>>>(),
    ));
    columns.push(Column::new(
        "corpus_sha256".into(),
        s(&|r| r.cell.corpus_sha256.clone()),
    ));
    columns.push(Column::new("cell".into(), s(&|r| r.cell.key.clone())));
    DataFrame::new(rows.len(), columns)
}

/// The timing table.
pub fn timing_frame(rows: &[ResultRow]) -> PolarsResult<DataFrame> {
    let f =
        |g: &dyn Fn(&ResultRow) -> Option<f64>| rows.iter().map(g).collect::<Vec<Option<f64>>>();
    let mut columns = vec![
        Column::new(
            "cell".into(),
            rows.iter()
                .map(|r| r.cell.key.clone())
                .collect::<Vec<String>>(),
        ),
        Column::new(
            "label".into(),
            rows.iter()
                .map(|r| r.cell.label.clone())
                .collect::<Vec<String>>(),
        ),
        Column::new(
            "query_params".into(),
            rows.iter()
                .map(|r| r.query_params.clone())
                .collect::<Vec<String>>(),
        ),
        Column::new("build_seconds".into(), f(&|r| Some(r.build_seconds))),
        Column::new("query_seconds".into(), f(&|r| Some(r.query_seconds))),
        Column::new("cluster_seconds".into(), f(&|r| Some(r.cluster_seconds))),
    ];
    for m in crate::metrics::columns_of(Kind::Cost) {
        columns.push(Column::new(m.name.into(), f(&|r| r.metric(m.name))));
    }
    columns.push(Column::new("index_mb".into(), f(&|r| Some(r.index_mb))));
    DataFrame::new(rows.len(), columns)
}

/// Writes `results.csv`, `results.parquet` and `timing.csv` into `dir`, atomically.
pub fn write(dir: &Path, experiment: &str, rows: &[ResultRow]) -> Result<()> {
    let to_err = |path: &Path, e: PolarsError| LabError::file(path, e.to_string());
    let mut results = results_frame(experiment, rows).map_err(|e| to_err(dir, e))?;
    let mut timing = timing_frame(rows).map_err(|e| to_err(dir, e))?;
    let csv_path = dir.join("results.csv");
    neardup_dedup::fsutil::write_atomic(&csv_path, |w| {
        CsvWriter::new(w)
            .include_header(true)
            .finish(&mut results)
            .map_err(std::io::Error::other)
    })?;
    let pq_path = dir.join("results.parquet");
    neardup_dedup::fsutil::write_atomic(&pq_path, |w| {
        ParquetWriter::new(w)
            .finish(&mut results)
            .map(|_| ())
            .map_err(std::io::Error::other)
    })?;
    let timing_path = dir.join("timing.csv");
    neardup_dedup::fsutil::write_atomic(&timing_path, |w| {
        CsvWriter::new(w)
            .include_header(true)
            .finish(&mut timing)
            .map_err(std::io::Error::other)
    })?;
    Ok(())
}
