//! `neardup extract`: web pages' text written out, one row per page.

use std::path::PathBuf;

use anyhow::Result;
use neardup_dedup::input::Fields;
use neardup_dedup::web::export::extract_to;
use neardup_dedup::web::extract::Extract;

use super::dedup::parse_extract;
use super::invocation::{Invocation, Run};

/// Write the text of web pages — WARC/WET files, .html files, or a JSONL/CSV/Parquet field
/// holding HTML (--html-field) — one row per page: `id` (WARC-Record-ID, the file's path, or
/// the record's id), `url`, `host`, `date`, `charset`, `title`, `text`. JSON Lines
/// (`-o texts.jsonl`, optionally .gz or .zst) or Parquet (`-o texts.parquet`). The text is
/// what `neardup dedup` compares with the same --extract and --boilerplate-lines.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input files, directories or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output file: .jsonl (optionally .gz or .zst) or .parquet.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Which text of a page: `main` (its article or main content), `visible` (all text a
    /// reader sees), `none` (the markup as it is).
    #[arg(long, default_value = "main", value_name = "MODE", value_parser = parse_extract)]
    pub extract: Extract,
    /// A field or column holding a page's HTML (JSONL, CSV, Parquet inputs).
    #[arg(long, value_name = "NAME")]
    pub html_field: Option<String>,
    /// Text field (JSONL) or column (CSV, Parquet), for inputs that are text already.
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// Id field or column.
    #[arg(long, default_value = "id")]
    pub id_field: String,
    /// Drop the lines found on K or more pages of a host (site templates), as `dedup` does.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(2..))]
    pub boilerplate_lines: Option<u32>,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let fields = Fields {
            html: self.html_field,
            extract: self.extract,
            ..Fields::new(&self.text_field, &self.id_field)
        };
        let done = extract_to(&self.inputs, &fields, self.boilerplate_lines, &self.output)?;
        let counts = fields.tally.lines();
        if !counts.is_empty() {
            eprintln!("neardup: web pages read:\n{}", counts.join("\n"));
        }
        let rate = done.pages as f64 / done.seconds.max(1e-9);
        let digits = usize::from(rate < 10.0);
        writeln!(
            invocation.out,
            "{} pages, {:.1} MB of text, {:.1} s ({rate:.digits$} pages/s); wrote {}",
            done.pages,
            done.text_bytes as f64 / 1e6,
            done.seconds,
            self.output.display()
        )?;
        Ok(())
    }
}
