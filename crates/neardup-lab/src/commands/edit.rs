//! `neardup edit INPUT --edits "substitute=0.05,reorder=0.1" --seed 7 --output OUT.jsonl`:
//! writes the input documents plus edited copies, each copy with its source id, cluster and
//! edit log (JSONL, written atomically).

use std::path::Path;

use anyhow::{Result, anyhow};

use crate::corpus::{self, LoadOptions};
use crate::edits::EditModel;
use crate::edits::derive::{DeriveOptions, derive, write_jsonl};

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
    let corpus = corpus::load(input, options)?;
    let records = derive(&corpus, &model, derive_options)?;
    write_jsonl(&records, output)?;
    let copies = records.iter().filter(|r| r.source.is_some()).count();
    Ok(format!(
        "wrote {} documents ({} sources, {copies} edited copies; edits {}; seed {}) to {}",
        records.len(),
        corpus.len(),
        model.spec(),
        derive_options.seed,
        output.display()
    ))
}
