//! `neardup check DIR INPUT…`: a corpus checked against an index without adding it
//! (`neardup_dedup::live::query`).

use std::path::PathBuf;

use anyhow::Result;
use neardup_dedup::live::{LiveConfig, LiveIndex, query};

use super::args::{PageArgs, SignatureArgs};
use super::invocation::{Invocation, Run};
use crate::error::LabError;

/// Check a corpus against an index without adding to it: one row per record with the indexed
/// document it is a near-duplicate of (`duplicate_of`), the similarity and how many it matches.
///
/// Inputs as `dedup` reads them (JSONL, CSV, Parquet, WARC, HTML; --extract). The algorithm and
/// parameters must be the index's (as for `dedup --index`). Output: .jsonl or .csv, by name.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The index folder (made by `dedup --index` or `serve`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Input files, directories or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Where the rows go: a .jsonl or .csv file.
    #[arg(long, short)]
    pub output: PathBuf,
    /// The index's algorithm and parameters.
    #[command(flatten)]
    pub signatures: SignatureArgs,
    /// Text field (JSONL) or column (CSV, Parquet).
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// Id field or column.
    #[arg(long, default_value = "id")]
    pub id_field: String,
    /// How web pages are read.
    #[command(flatten)]
    pub pages: PageArgs,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        if !self.dir.join("index.json").is_file() {
            return Err(LabError::file(
                &self.dir,
                "no index here (no index.json); `neardup dedup --index` or `neardup serve` makes one",
            )
            .into());
        }
        query::RowFormat::of(&self.output)?;
        let files = query::expand_inputs(&self.inputs)?;
        let config = self
            .signatures
            .live_config(LiveConfig::default().fold_after)?;
        let (live, _) = LiveIndex::open(&self.dir, &config)?;
        if self.pages.boilerplate_lines.is_some() {
            anyhow::bail!(
                "--boilerplate-lines: `check` reads each record once and cannot learn a host's \
                 template lines; check text extracted with them (`neardup extract`)"
            );
        }
        let fields = neardup_dedup::input::Fields {
            html: self.pages.html_field.clone(),
            extract: self.pages.extract,
            min_words: self.signatures.min_words,
            ..neardup_dedup::input::Fields::new(&self.text_field, &self.id_field)
        };
        let summary = query::check_inputs(&live, &files, &fields, &self.output)?;
        writeln!(
            invocation.out,
            "{} records checked against {} indexed documents: {} near-duplicates; wrote {}",
            summary.records,
            live.stats().documents,
            summary.duplicates,
            self.output.display()
        )?;
        Ok(())
    }
}
