//! `neardup check DIR INPUT…`: every record of a corpus checked against an index without
//! adding it — one row per record naming the indexed document it is a near-duplicate of.
//! Records are read through the input layer as `dedup` reads them (JSONL, CSV, Parquet, WARC,
//! HTML, `--extract`), sketched and checked in parallel a block at a time, written in input
//! order.

use std::io::Write;
use std::path::{Path, PathBuf};

use neardup::streaming::SketchScratch;
use rayon::prelude::*;
use serde::Serialize;

use super::{LiveIndex, Match};
use crate::error::{Error, Result};
use crate::input::{Fields, InputFile, Record};

/// The formats `check` writes, by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFormat {
    Jsonl,
    Csv,
}

impl RowFormat {
    /// The format of `path` (`.jsonl` or `.csv`), refused before any work otherwise.
    pub fn of(path: &Path) -> Result<RowFormat> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl") | Some("ndjson") => Ok(RowFormat::Jsonl),
            Some("csv") => Ok(RowFormat::Csv),
            _ => Err(Error::file(
                path,
                "the output's format is read from its name: .jsonl (one JSON object a record) or .csv",
            )),
        }
    }
}

/// One record's answer.
#[derive(Debug, Clone, Serialize)]
pub struct CheckRow {
    pub file: String,
    pub line: u64,
    pub id: Option<String>,
    pub url: Option<String>,
    pub duplicate_of: Option<String>,
    pub similarity: Option<f64>,
    /// Every indexed document it matches.
    pub matches: usize,
}

/// What a check of a corpus found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckSummary {
    pub records: u64,
    pub duplicates: u64,
}

fn row(file: &InputFile, r: &Record<'_>, matches: &[Match]) -> CheckRow {
    CheckRow {
        file: file.path.display().to_string(),
        line: r.line,
        id: r.id.clone(),
        url: r.page.as_ref().and_then(|p| p.url.clone()),
        duplicate_of: matches.first().map(|m| m.id.clone()),
        similarity: matches.first().map(|m| m.similarity),
        matches: matches.len(),
    }
}

/// Checks every record of `files` against `live` and writes the rows to `output` (atomically;
/// `.jsonl` or `.csv`).
pub fn check_inputs(
    live: &LiveIndex,
    files: &[InputFile],
    fields: &Fields,
    output: &Path,
) -> Result<CheckSummary> {
    let format = RowFormat::of(output)?;
    let inputs: Vec<&Path> = files.iter().map(|f| f.path.as_path()).collect();
    crate::fsutil::check_outputs([output], &inputs)?;
    let mut summary = CheckSummary::default();
    let mut failure: Option<Error> = None;
    crate::fsutil::write_atomic(output, |w| {
        let mut sink = match format {
            RowFormat::Csv => Sink::Csv(Box::new(csv::Writer::from_writer(w))),
            RowFormat::Jsonl => Sink::Jsonl(w),
        };
        for file in files {
            let read = crate::input::for_each_record_block(file, fields, |block| {
                let rows: Vec<CheckRow> = block
                    .par_iter()
                    .map_init(SketchScratch::default, |scratch, r| {
                        let matches = live.check(&live.sketch(&r.text, scratch));
                        row(file, r, &matches)
                    })
                    .collect();
                for r in rows {
                    summary.records += 1;
                    summary.duplicates += r.duplicate_of.is_some() as u64;
                    sink.write(&r).map_err(|e| Error::io(output, e))?;
                }
                Ok(())
            });
            if let Err(e) = read {
                failure = Some(e);
                return Err(std::io::Error::other("reading an input failed"));
            }
        }
        sink.finish()
    })
    .map_err(|e| failure.take().unwrap_or(e))?;
    Ok(summary)
}

/// Where rows go.
enum Sink<'w> {
    Csv(Box<csv::Writer<&'w mut dyn Write>>),
    Jsonl(&'w mut dyn Write),
}

impl Sink<'_> {
    fn write(&mut self, row: &CheckRow) -> std::io::Result<()> {
        match self {
            Sink::Csv(c) => c.serialize(row).map_err(std::io::Error::other),
            Sink::Jsonl(w) => {
                serde_json::to_writer(&mut **w, row)?;
                w.write_all(b"\n")
            }
        }
    }

    fn finish(self) -> std::io::Result<()> {
        match self {
            Sink::Csv(mut c) => c.flush(),
            Sink::Jsonl(w) => w.flush(),
        }
    }
}

/// The files `check` reads, expanded as `dedup` expands its inputs.
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<InputFile>> {
    crate::input::expand(inputs)
}
