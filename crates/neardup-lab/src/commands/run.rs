//! `neardup run EXPERIMENT.toml [--out DIR] [--force] [--cache DIR] [--data-dir DIR]` and
//! `neardup reproduce [--data-dir DIR] [--out reports/]`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;

use crate::experiment::{self, RunOptions, Summary, config};
use crate::report::index::write_index;

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
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("reports").join(&exp.name));
    // Before any cell is computed: the report and the cache can be written.
    crate::fsutil::check_dir(&out)?;
    crate::fsutil::check_dir(cache)?;
    let t = Instant::now();
    let s = experiment::run_and_report(
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
) -> Result<()> {
    let all = experiment::standard()?;
    if let Some(bad) = only.iter().find(|n| !all.iter().any(|e| &e.name == *n)) {
        anyhow::bail!(
            "no standard experiment `{bad}`; standard experiments: {}",
            all.iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    crate::fsutil::check_dir(out)?;
    crate::fsutil::check_dir(cache)?;
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
        let s = experiment::run_and_report(exp, &opts)?;
        say(&s, t.elapsed().as_secs_f64());
    }
    // Published figures beside ours: math computed now, configurations from stored results.
    if let Some(exp) = all
        .iter()
        .find(|e| e.name == crate::report::published_report::CONFIG_EXPERIMENT)
    {
        crate::report::published_report::write(out, exp)?;
    }
    crate::report::parameter_guide::write(
        out,
        &cache.join("choosing-parameters"),
        &crate::report::guide_measurements::SIZES,
        force,
    )?;
    write_index(out, &all.iter().map(|e| e.name.clone()).collect::<Vec<_>>())?;
    eprintln!(
        "neardup: reports in {} ({:.1} s)",
        out.join("README.md").display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
