//! `neardup run EXPERIMENT.toml [--out DIR] [--force] [--cache DIR] [--data-dir DIR]` and
//! `neardup reproduce [--data-dir DIR] [--out reports/]`: the orchestration one floor above
//! the experiment runner, its charts and its reports (the runner knows neither).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;

use super::invocation::{Invocation, Run};
use crate::charts::{self, CHARTS, ChartFile, ChartInput};
use crate::corpus::manifest::data_dir;
use crate::experiment::config::{self, Experiment};
use crate::experiment::{RunOptions, STANDARD_EXPERIMENTS, results, runner};
use crate::report::index::write_index;
use crate::report::{ExperimentReport, RunInfo};

fn say(s: &Summary, seconds: f64) {
    let skipped = if s.unavailable.is_empty() {
        String::new()
    } else {
        format!("; not available: {}", s.unavailable.join(", "))
    };
    eprintln!(
        "neardup: {}: {} cells computed, {} from cache, {} result rows, {} failed, {seconds:.1} s{skipped}",
        s.name, s.computed, s.cached, s.rows, s.failed
    );
}

/// Runs one experiment file.
pub fn run(
    path: &Path,
    out: Option<&Path>,
    cache: &Path,
    data_dir: &Path,
    force: bool,
) -> Result<()> {
    let exp = config::load(path)?;
    exp.check_charts(&charts::names())?;
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("reports").join(&exp.name));
    // Before any cell is computed: the report and the cache can be written.
    neardup_dedup::fsutil::check_dir(&out)?;
    neardup_dedup::fsutil::check_dir(cache)?;
    let t = Instant::now();
    let s = run_and_report(
        &exp,
        &RunOptions {
            out: out.clone(),
            cache: cache.join(&exp.name),
            data_dir: data_dir.to_path_buf(),
            force,
        },
    )?;
    say(&s, t.elapsed().as_secs_f64());
    eprintln!("neardup: report in {}", out.join("README.md").display());
    Ok(())
}

/// Runs the standard experiments and regenerates the index.
pub fn reproduce(
    out: &Path,
    cache: &Path,
    data_dir: &Path,
    force: bool,
    only: &[String],
    guide_full: bool,
) -> Result<()> {
    let all = standard()?;
    if let Some(bad) = only.iter().find(|n| !all.iter().any(|e| &e.name == *n)) {
        anyhow::bail!(
            "no standard experiment `{bad}`; standard experiments: {}",
            all.iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    neardup_dedup::fsutil::check_dir(out)?;
    neardup_dedup::fsutil::check_dir(cache)?;
    eprintln!(
        "neardup: data directory {}{}",
        data_dir.display(),
        if data_dir.is_dir() {
            ""
        } else {
            " (absent: embedded corpus only)"
        }
    );
    let t0 = Instant::now();
    for exp in all
        .iter()
        .filter(|e| only.is_empty() || only.contains(&e.name))
    {
        let t = Instant::now();
        let opts = RunOptions {
            out: out.join(&exp.name),
            cache: cache.join(&exp.name),
            data_dir: data_dir.to_path_buf(),
            force,
        };
        let s = run_and_report(exp, &opts)?;
        say(&s, t.elapsed().as_secs_f64());
    }
    // Published figures beside ours: math computed now, configurations from stored results.
    if let Some(exp) = all
        .iter()
        .find(|e| e.name == crate::report::published_report::CONFIG_EXPERIMENT)
    {
        crate::report::published_report::write(out, exp)?;
    }
    crate::guide::report::write(
        out,
        &cache.join("choosing-parameters"),
        &crate::guide::measurements::SIZES,
        force,
        guide_full,
    )?;
    let order: Vec<String> = all.iter().map(|e| e.name.clone()).collect();
    write_index(out, &order, Some(crate::REVISION))?;
    eprintln!(
        "neardup: reports in {} ({:.1} s)",
        out.join("README.md").display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

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
pub fn standard() -> Result<Vec<Experiment>> {
    STANDARD_EXPERIMENTS
        .iter()
        .map(|(file, text)| {
            let exp = config::parse(&Path::new("experiments").join(file), text)?;
            exp.check_charts(&charts::names())?;
            Ok(exp)
        })
        .collect()
}

/// Runs an experiment's missing cells, then writes its results, charts and report into
/// `opts.out`. When none of its datasets is available nothing is written, so a report made
/// earlier with the data stays as it was.
pub fn run_and_report(exp: &Experiment, opts: &RunOptions) -> Result<Summary> {
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
        let mut drawn = chart.draw(&input, &opts.out)?;
        // One chart per algorithm (trade-off curves): a family, folded on the charts page.
        if drawn.len() > 2 {
            for file in &mut drawn {
                file.family = Some(name.clone());
            }
        }
        charts.extend(drawn);
    }
    crate::report::examples::write(&opts.out, exp, &results, &opts.data_dir)?;
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

/// Run an experiment: build every cell not already cached, then write results, charts and
/// a report.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The experiment TOML.
    pub experiment: PathBuf,
    /// Report directory (default: reports/<experiment name>).
    #[arg(long = "output", short = 'o', alias = "out")]
    pub out: Option<PathBuf>,
    /// Recompute cells even when cached.
    #[arg(long)]
    pub force: bool,
    /// Raw-result cache (one subfolder per experiment).
    #[arg(long, default_value = ".neardup-cache")]
    pub cache: PathBuf,
    /// Data directory for real corpora (default: $NEARDUP_DATA_DIR, else datasets/cache).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

impl Run for Args {
    fn run(self, _invocation: &mut Invocation<'_>) -> Result<()> {
        run(
            &self.experiment,
            self.out.as_deref(),
            &self.cache,
            &data_dir(self.data_dir.as_deref()),
            self.force,
        )
    }
}
