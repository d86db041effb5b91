//! The one way a join stage runs (candidates, verify, components): skipped when its marker
//! carries the key of what it depends on, else computed, its files written, then its marker.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::options::{Stage, StageReport};
use super::stage_files::{Marker, finished, mark, stage_dir};
use crate::error::{Error, Result};

/// Runs one join stage unless its marker carries `stage_key`: `compute` writes the stage's
/// files into its directory and returns its result and row count; then the marker is written
/// and the stage reported. A finished stage is reported as reused and gives `None` (its files
/// are read by whoever needs them); an unfinished one that may not run is an error.
pub(super) fn run_stage<T>(
    output: &Path,
    reports: &mut Vec<StageReport>,
    stage: Stage,
    stage_key: &str,
    run_it: bool,
    compute: impl FnOnce(&Path) -> Result<(T, u64)>,
) -> Result<Option<T>> {
    let dir = stage_dir(output, stage.name());
    let marker = dir.join("done.json");
    if let Some(m) = finished(&marker, stage_key) {
        reports.push(StageReport {
            stage: stage.name(),
            seconds: 0.0,
            reused: true,
            rows: m.rows,
        });
        return Ok(None);
    }
    if !run_it {
        return Err(missing_stage(output, stage));
    }
    let t = Instant::now();
    let (result, rows) = compute(&dir)?;
    let seconds = t.elapsed().as_secs_f64();
    mark(
        &marker,
        &Marker {
            key: stage_key.to_string(),
            rows,
            seconds,
            ..Marker::default()
        },
    )?;
    reports.push(StageReport {
        stage: stage.name(),
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
