//! `neardup extract`: web pages' text written out, one row per page.

use std::path::PathBuf;

use anyhow::Result;
use neardup_dedup::input::Fields;
use neardup_dedup::web::export::extract_to;

use super::args::PageArgs;
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
    /// How web pages are read.
    #[command(flatten)]
    pub pages: PageArgs,
    /// Text field (JSONL) or column (CSV, Parquet), for inputs that are text already.
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// Id field or column.
    #[arg(long, default_value = "id")]
    pub id_field: String,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let fields = Fields {
            html: self.pages.html_field,
            extract: self.pages.extract,
            ..Fields::new(&self.text_field, &self.id_field)
        };
        let done = extract_to(
            &self.inputs,
            &fields,
            self.pages.boilerplate_lines,
            &self.output,
        )?;
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
