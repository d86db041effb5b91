//! Experiments: a TOML grid ([`config`]) becomes corpora ([`corpora`]) and cached cells
//! ([`cells`], [`runner`]); stored cells become the results table ([`results`]), charts and
//! a report. `neardup run` does one experiment, `neardup reproduce` the standard set
//! (`experiments/*.toml`, embedded in the binary).

pub mod cells;
pub mod config;
pub mod corpora;
pub mod results;
pub mod runner;

use std::path::Path;

use crate::charts::{CHARTS, ChartFile, ChartInput};
use crate::report::{ExperimentReport, RunInfo};
pub use runner::RunOptions;

include!(concat!(env!("OUT_DIR"), "/experiments.rs"));

/// What `run_and_report` did.
#[derive(Debug)]
pub struct Summary {
    /// Experiment name.
    pub name: String,
    /// Cells computed now.
    pub computed: usize,
    /// Cells taken from the cache.
    pub cached: usize,
    /// Result rows.
    pub rows: usize,
    /// Failed cells.
    pub failed: usize,
    /// Datasets skipped as unavailable.
    pub unavailable: Vec<String>,
    /// Whether a report was written (false when no dataset was available).
    pub written: bool,
}

/// The standard experiments, parsed (their path is `experiments/<file>`).
pub fn standard() -> crate::error::Result<Vec<config::Experiment>> {
    STANDARD_EXPERIMENTS
        .iter()
        .map(|(file, text)| config::parse(&Path::new("experiments").join(file), text))
        .collect()
}

/// Runs an experiment's missing cells, then writes its results, charts and report into
/// `opts.out`. When none of its datasets is available nothing is written, so a report made
/// earlier with the data stays as it was.
pub fn run_and_report(exp: &config::Experiment, opts: &RunOptions) -> anyhow::Result<Summary> {
    let outcome = runner::run(exp, opts)?;
    let unavailable: Vec<String> = outcome
        .unavailable
        .iter()
        .map(|u| format!("{} ({})", u.dataset, u.reason))
        .collect();
    if outcome.cells.is_empty() {
        return Ok(Summary {
            name: exp.name.clone(),
            computed: 0,
            cached: 0,
            rows: 0,
            failed: 0,
            unavailable,
            written: false,
        });
    }
    let results = results::collect(&outcome, &opts.cache)?;
    std::fs::create_dir_all(&opts.out)?;
    results::write(&opts.out, &exp.name, &results.rows)?;
    let input = ChartInput {
        experiment: exp,
        results: &results,
        truths: &outcome.truths,
    };
    let mut charts: Vec<ChartFile> = Vec::new();
    for name in &exp.charts {
        let chart = CHARTS
            .iter()
            .find(|c| c.name() == name)
            .expect("chart names are validated when parsing");
        charts.extend(chart.draw(&input, &opts.out)?);
    }
    let report = ExperimentReport::new(exp, &outcome, &results, charts, RunInfo::current());
    report.write(&opts.out)?;
    Ok(Summary {
        name: exp.name.clone(),
        computed: outcome.computed,
        cached: outcome.cached,
        rows: results.rows.len(),
        failed: outcome.failed.len(),
        unavailable,
        written: true,
    })
}
