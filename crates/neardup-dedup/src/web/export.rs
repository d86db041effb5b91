//! `neardup extract`: every page's text written out, one row per page, for people who feed
//! the text to other tools — JSON Lines (`.jsonl`, `.jsonl.gz`, `.jsonl.zst`) or Parquet
//! (`.parquet`), with `id`, `url`, `host`, `date`, `charset`, `title` and `text`. Streamed a
//! block of pages at a time; the file appears complete or not at all.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};

use crate::error::{Error, Result};
use crate::fsutil;
use crate::input::fields::Fields;
use crate::input::files::{InputFile, expand};
use crate::input::record::Record;

/// The columns written, in order.
const COLUMNS: [&str; 7] = ["id", "url", "host", "date", "charset", "title", "text"];

/// What an extraction wrote.
#[derive(Debug, Clone)]
pub struct Extracted {
    /// Pages (records) written.
    pub pages: u64,
    /// Bytes of text written.
    pub text_bytes: u64,
    /// Wall seconds.
    pub seconds: f64,
}

/// The output formats, by the output's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Jsonl(crate::input::files::Compression),
    Parquet,
}

fn format_of(output: &Path) -> Result<Format> {
    use crate::input::files::Compression;
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    Ok(match name {
        n if n.ends_with(".parquet") => Format::Parquet,
        n if n.ends_with(".jsonl") || n.ends_with(".json") => Format::Jsonl(Compression::None),
        n if n.ends_with(".jsonl.gz") => Format::Jsonl(Compression::Gzip),
        n if n.ends_with(".jsonl.zst") => Format::Jsonl(Compression::Zstd),
        _ => {
            return Err(Error::file(
                output,
                "unknown output format: name it .jsonl (optionally .gz or .zst) or .parquet",
            ));
        }
    })
}

/// Writes the text of every page (record) of `inputs` to `output`, read as `fields` says,
/// without the lines on `boilerplate_lines` or more pages of a host when asked.
pub fn extract_to(
    inputs: &[PathBuf],
    fields: &Fields,
    boilerplate_lines: Option<u32>,
    output: &Path,
) -> Result<Extracted> {
    let format = format_of(output)?;
    let files = expand(inputs)?;
    fsutil::check_output(
        output,
        &files.iter().map(|f| f.path.as_path()).collect::<Vec<_>>(),
    )?;
    let mut fields = fields.clone();
    if let Some(k) = boilerplate_lines {
        fields.boilerplate = Some(Arc::new(super::host_templates::count_boilerplate(
            &files, &fields, k,
        )?));
    }
    let fields = &fields;
    let start = Instant::now();
    let total: u64 = files.iter().map(|f| f.size).sum();
    let bar = crate::progress::bytes(total, "extract");
    let mut written = Extracted {
        pages: 0,
        text_bytes: 0,
        seconds: 0.0,
    };
    let mut write_all = |sink: &mut dyn FnMut(&[Record<'_>]) -> std::io::Result<()>| -> Result<()> {
        for file in &files {
            read_file(file, fields, &mut written, start, &bar, sink)?;
            bar.inc(file.size);
        }
        Ok(())
    };
    let result = match format {
        Format::Jsonl(compression) => fsutil::write_atomic(output, |w| {
            let mut w = compressed(w, compression)?;
            write_all(&mut |block| write_jsonl(&mut *w, block)).map_err(std::io::Error::other)?;
            w.flush()
        }),
        Format::Parquet => fsutil::write_atomic_file(output, |file| {
            let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema(), None)
                .map_err(std::io::Error::other)?;
            write_all(&mut |block| {
                let batch = batch(block).map_err(std::io::Error::other)?;
                writer.write(&batch).map_err(std::io::Error::other)
            })
            .map_err(std::io::Error::other)?;
            writer.close().map(|_| ()).map_err(std::io::Error::other)
        }),
    };
    bar.finish_and_clear();
    result?;
    written.seconds = start.elapsed().as_secs_f64();
    Ok(written)
}

/// One input's records handed to `sink` block by block, the count and the rate kept up.
fn read_file(
    file: &InputFile,
    fields: &Fields,
    written: &mut Extracted,
    start: Instant,
    bar: &indicatif::ProgressBar,
    sink: &mut dyn FnMut(&[Record<'_>]) -> std::io::Result<()>,
) -> Result<()> {
    crate::input::for_each_record_block(file, fields, |block| {
        sink(&block).map_err(|e| Error::io(&file.path, e))?;
        written.pages += block.len() as u64;
        written.text_bytes += block.iter().map(|r| r.text.len() as u64).sum::<u64>();
        let rate = written.pages as f64 / start.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!(
            "extract: {} pages, {rate:.0} pages/s",
            written.pages
        ));
        Ok(())
    })
}

fn compressed<'w>(
    w: &'w mut dyn Write,
    compression: crate::input::files::Compression,
) -> std::io::Result<Box<dyn Write + 'w>> {
    use crate::input::files::Compression;
    Ok(match compression {
        Compression::None => Box::new(w),
        Compression::Gzip => Box::new(flate2::write::GzEncoder::new(
            w,
            flate2::Compression::default(),
        )),
        Compression::Zstd => Box::new(zstd::stream::write::Encoder::new(w, 3)?.auto_finish()),
    })
}

/// A record's columns, in [`COLUMNS`] order.
fn columns<'r>(r: &'r Record<'_>) -> [Option<&'r str>; 7] {
    let page = r.page.as_deref();
    [
        r.id.as_deref(),
        page.and_then(|p| p.url.as_deref()),
        page.and_then(|p| p.host.as_deref()),
        page.and_then(|p| p.date.as_deref()),
        page.and_then(|p| p.charset),
        page.and_then(|p| p.title.as_deref()),
        Some(&r.text),
    ]
}

/// JSON Lines rows of `block`: [`COLUMNS`], each present only when known.
pub fn write_jsonl(w: &mut dyn Write, block: &[Record<'_>]) -> std::io::Result<()> {
    let mut line = Vec::new();
    for r in block {
        line.clear();
        let row: serde_json::Map<String, serde_json::Value> = COLUMNS
            .iter()
            .zip(columns(r))
            .filter_map(|(name, value)| value.map(|v| (name.to_string(), v.into())))
            .collect();
        serde_json::to_writer(&mut line, &row)?;
        line.push(b'\n');
        w.write_all(&line)?;
    }
    Ok(())
}

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(
        COLUMNS
            .iter()
            .map(|name| Field::new(*name, DataType::Utf8, *name != "text"))
            .collect::<Vec<_>>(),
    ))
}

fn batch(block: &[Record<'_>]) -> std::result::Result<RecordBatch, arrow_schema::ArrowError> {
    let rows: Vec<[Option<&str>; 7]> = block.iter().map(columns).collect();
    let arrays: Vec<ArrayRef> = (0..COLUMNS.len())
        .map(|c| {
            Arc::new(StringArray::from(
                rows.iter().map(|r| r[c]).collect::<Vec<_>>(),
            )) as ArrayRef
        })
        .collect();
    RecordBatch::try_new(schema(), arrays)
}
