//! `neardup edit INPUT --edits "substitute=0.05,reorder=0.1" --seed 7 --output OUT.jsonl`:
//! writes the input documents plus edited copies, each copy with its source id, cluster and
//! edit log (JSONL, written atomically and streamed: memory holds the input corpus and one
//! block of records, however many copies are asked for).

use std::path::Path;

use anyhow::{Result, anyhow};

use crate::corpus::{self, LoadOptions};
use crate::edits::EditModel;
use crate::edits::derive::{DeriveOptions, derive_each};
use crate::error::LabError;

/// Runs the edit command; returns a one-line summary for stderr.
pub fn run(
    input: &Path,
    options: &LoadOptions,
    edits: &str,
    derive_options: DeriveOptions,
    output: &Path,
) -> Result<String> {
    let model = EditModel::parse(edits).map_err(|e| anyhow!("--edits: {e}"))?;
    if derive_options.copies == 0 {
        return Err(anyhow!("--copies must be at least 1"));
    }
    neardup_dedup::fsutil::check_output(output, &[input])?;
    let corpus = corpus::load(input, options)?;
    let mut counts = Default::default();
    neardup_dedup::fsutil::write_atomic(output, |w| {
        counts = derive_each(&corpus, &model, derive_options, |r| {
            serde_json::to_writer(&mut *w, &r).map_err(|e| LabError::io(output, e.into()))?;
            w.write_all(b"\n").map_err(|e| LabError::io(output, e))
        })
        .map_err(std::io::Error::other)?;
        Ok(())
    })?;
    let counts: crate::edits::derive::Derived = counts;
    Ok(format!(
        "wrote {} documents ({} sources, {} edited copies; edits {}; seed {}) to {}",
        counts.records,
        corpus.len(),
        counts.copies,
        model.spec(),
        derive_options.seed,
        output.display()
    ))
}
