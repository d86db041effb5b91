//! `neardup edit INPUT --edits "substitute=0.05,reorder=0.1" --seed 7 --output OUT.jsonl`:
//! writes the input documents plus edited copies, each copy with its source id, cluster and
//! edit log (JSONL, written atomically and streamed: memory holds the input corpus and one
//! block of records, however many copies are asked for).

use std::path::Path;
use std::path::PathBuf;

use anyhow::{Result, anyhow};

use super::args::CorpusArgs;
use super::invocation::{Invocation, Run};
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
    let mut extras = match options.format.or_else(|| corpus::Format::guess(input)) {
        Some(corpus::Format::Jsonl) => corpus::jsonl::extra_fields(input, options)?,
        _ => Default::default(),
    };
    let mut counts = Default::default();
    neardup_dedup::fsutil::write_atomic(output, |w| {
        counts = derive_each(&corpus, &model, derive_options, |r| {
            let mut record =
                serde_json::to_value(&r).map_err(|e| LabError::io(output, e.into()))?;
            // A copy carries its source's other fields (a chain link, the link before's).
            let own = match &r.source {
                Some(source) => extras.get(source).cloned(),
                None => extras.get(&r.id).cloned(),
            };
            if let (Some(fields), Some(obj)) = (own, record.as_object_mut()) {
                for (k, v) in &fields {
                    obj.entry(k.clone()).or_insert_with(|| v.clone());
                }
                if r.source.is_some() {
                    extras.insert(r.id.clone(), fields);
                }
            }
            serde_json::to_writer(&mut *w, &record).map_err(|e| LabError::io(output, e.into()))?;
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

/// Derive edited copies of a corpus's documents with exact ground truth (JSONL output).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The source corpus.
    pub input: PathBuf,
    /// Edit model: `kind=rate[,kind=rate…]`, applied in order (the kinds are listed
    /// below).
    #[arg(long)]
    pub edits: String,
    /// Seed of the edits and of the choice of sources.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output JSONL (written atomically).
    #[arg(long, short)]
    pub output: PathBuf,
    /// Edited copies per chosen source.
    #[arg(long, default_value_t = 1)]
    pub copies: usize,
    /// Fraction of sources that get copies.
    #[arg(long, default_value_t = 1.0)]
    pub fraction: f64,
    /// Make each copy from the copy before it (copy 1 from the source): a chain of
    /// accumulating edits whose far end shares little with its source.
    #[arg(long)]
    pub chain: bool,
    /// How to read the corpus.
    #[command(flatten)]
    pub input_args: CorpusArgs,
}

impl Run for Args {
    fn run(self, _invocation: &mut Invocation<'_>) -> Result<()> {
        let options = DeriveOptions {
            copies: self.copies,
            fraction: self.fraction,
            seed: self.seed,
            chain: self.chain,
        };
        let summary = run(
            &self.input,
            &self.input_args.options(),
            &self.edits,
            options,
            &self.output,
        )?;
        eprintln!("neardup: {summary}");
        Ok(())
    }
}
