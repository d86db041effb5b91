//! The one way a stage after the sketch runs (candidates, verify, components, outputs):
//! skipped when its marker carries the key of what it depends on and its files are still
//! there, else computed, its files written, then its marker. (The sketch stage marks each
//! input file's pieces with the same markers, per file, so that a killed run resumes inside
//! a file.)

use std::path::{Path, PathBuf};

use super::options::{Stage, StageReport};
use super::stage_files::{Marker, finished, intact, mark, parquet_checksums, stage_dir};
use crate::error::{Error, Result};

/// Runs one stage unless its marker carries `stage_key` and `present()` says its files are
/// still there: `compute` writes the stage's files (into its directory, or the outputs into
/// `output`) and returns its result and row count; then the marker is written and the stage
/// reported. A finished stage is reported as reused and gives `None` (its files are read by
/// whoever needs them); an unfinished one that may not run is an error.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_stage<T>(
    output: &Path,
    reports: &mut Vec<StageReport>,
    stage: Stage,
    stage_key: &str,
    run_it: bool,
    present: impl FnOnce() -> bool,
    compute: impl FnOnce(&Path) -> Result<(T, u64)>,
) -> Result<Option<T>> {
    let dir = stage_dir(output, stage.name());
    let marker = dir.join("done.json");
    let intact = |m: &Marker| {
        let writer = format!("the stage `{}`", stage.name());
        intact(&dir, m, writer, "computing the stage again")
    };
    if let Some(m) = finished(&marker, stage_key).filter(|m| present() && intact(m)) {
        reports.push(StageReport {
            stage: stage.name().into(),
            seconds: 0.0,
            reused: true,
            rows: m.rows,
        });
        return Ok(None);
    }
    if !run_it {
        return Err(missing_stage(output, stage));
    }
    let step = crate::progress::step(stage.name());
    let (result, rows) = compute(&dir)?;
    let seconds = step.finish(format_args!("{rows} rows"));
    mark(
        &marker,
        &Marker {
            key: stage_key.to_string(),
            rows,
            seconds,
            checksums: parquet_checksums(&dir)?,
            ..Marker::default()
        },
    )?;
    reports.push(StageReport {
        stage: stage.name().into(),
        seconds,
        reused: false,
        rows,
    });
    Ok(Some(result))
}

/// The pairs file of the candidates or verify stage.
pub(super) fn pairs_path(output: &Path, stage: Stage) -> PathBuf {
    stage_dir(output, stage.name()).join("pairs.parquet")
}

fn missing_stage(output: &Path, stage: Stage) -> Error {
    Error::file(
        output,
        format!(
            "stage `{}` has no finished result for these inputs and parameters; run it first (--stage {})",
            stage.name(),
            stage.name()
        ),
    )
}
