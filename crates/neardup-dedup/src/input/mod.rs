//! The inputs of `neardup dedup`: files, directories and globs expanded into a sorted list of
//! corpus files, and their records streamed in blocks so texts are never all in memory.
//!
//! JSON Lines (`.jsonl`, `.json`, optionally `.gz` / `.zst`) is read by a reader thread in
//! blocks of whole lines and parsed in parallel by the caller (`json_fields`: only the text
//! and id fields are decoded). CSV is parsed in order
//! (quoted fields may span lines) and Parquet is read a row group at a time. Web pages —
//! WARC/WET files, HTML files, a JSONL/CSV/Parquet field holding HTML — are read by
//! [`crate::web`] and handed on as records whose text is what extraction took.
//!
//! Reading can start at a [`ReadPosition`] recorded by an earlier, interrupted read (the
//! sketch stage's checkpoints): a plain JSONL file is sought to its byte, a compressed one
//! inflated up to it, and CSV and Parquet skip the records before it.
//!
//! A record's *line* is its 1-based line number (JSONL, CSV), row number (Parquet) or record
//! number (WARC, every record counted), the position error messages name and the
//! deduplicated output is selected by.

//! Files: `files` (what the inputs are), `position` (where a read starts), `open`
//! (decompressed content), `line_blocks` (JSONL in blocks of whole lines), `json_fields`,
//! `csv` and `parquet` (records), `record` (a record), `fields` (what is read of it), `content` and `checksummed` (what was read, hashed),
//! `carrying_reader` (a large file read into one reused buffer).

pub mod carrying_reader;
pub mod checksummed;
pub mod content;
mod csv;
pub mod csv_quotes;
pub(crate) mod fields;
pub(crate) mod files;
pub mod json_fields;
pub mod keep_value;
mod line_blocks;
pub(crate) mod open;
pub mod parquet;
pub(crate) mod position;
pub mod record;

use crate::error::{Error, Result};
pub use fields::Fields;
pub use files::{Compression, FileFormat, InputFile, compression_of, detect, expand, stem};
pub use json_fields::id_string;
use json_fields::{FieldNames, parse_json_record};
pub use line_blocks::{BOM, LineBlock, for_each_line_block, for_each_line_block_from, line_record};
pub use open::{decompressed, open};
pub use position::{BLOCK_BYTES, ReadFrom, ReadPosition};
pub use record::{PageInfo, Record, host_of};

/// Every record of `file` in order, in blocks (JSONL lines are parsed in parallel; the first
/// bad line in file order is the error, naming file and line).
pub fn for_each_record_block(
    file: &InputFile,
    fields: &Fields,
    mut each: impl FnMut(Vec<Record<'_>>) -> Result<()>,
) -> Result<()> {
    let from = ReadFrom::start();
    for_each_record_block_and_bytes(file, &from, fields, |_| {}, |b, _| each(b))
}

/// The records of `file` from `from` on, in blocks of about `block` bytes of text (Parquet:
/// a record batch of at most 8,192 rows), each handed to `each` with the position after it; also hands `bytes` a JSONL file's bytes as read (inflated, every line from
/// `from` on, in order, before its records): what the sketch stage keeps of a compressed
/// file so that the outputs stage need not inflate it again. Not called for CSV or Parquet.
///
/// Web pages (WARC, HTML files, a `--html-field`) come out as text: decoded and extracted as
/// `fields.extract` says, in parallel, in this one place every command reads through.
pub fn for_each_record_block_and_bytes(
    file: &InputFile,
    from: &ReadFrom,
    fields: &Fields,
    bytes: impl FnMut(&[u8]),
    mut each: impl FnMut(Vec<Record<'_>>, ReadPosition) -> Result<()>,
) -> Result<()> {
    match file.format {
        FileFormat::Warc => crate::web::read_warc(file, from, fields, each),
        FileFormat::Html => crate::web::read_html_file(file, from, fields, each),
        _ if fields.html.is_some() => {
            for_each_field_block(file, from, fields, bytes, |block, at| {
                each(crate::web::extract_records(block, fields), at)
            })
        }
        _ => for_each_field_block(file, from, fields, bytes, each),
    }
}

/// The records of a JSONL, CSV or Parquet file: the text field (or the HTML field) as it is.
fn for_each_field_block(
    file: &InputFile,
    from: &ReadFrom,
    fields: &Fields,
    mut bytes: impl FnMut(&[u8]),
    mut each: impl FnMut(Vec<Record<'_>>, ReadPosition) -> Result<()>,
) -> Result<()> {
    use rayon::prelude::*;
    let (text_field, id_field) = (fields.text_source(), fields.id.as_str());
    let names = FieldNames {
        text: text_field,
        id: id_field,
        keep: fields.keep.as_deref(),
        page: fields.html.is_some(),
    };
    match file.format {
        FileFormat::Jsonl => {
            let mut records = from.position.records;
            for_each_line_block_from(file, from, |lines| {
                bytes(&lines.data);
                let parsed: Vec<Result<Record<'_>>> = lines
                    .lines()
                    .par_iter()
                    .map(|&(line, bytes)| {
                        parse_json_record(bytes, names)
                            .map(|f| Record {
                                page: f.page.map(Box::new),
                                keep: f.keep,
                                ..Record::new(line, f.id, f.text)
                            })
                            .map_err(|reason| Error::line(&file.path, line as usize, reason))
                    })
                    .collect();
                let parsed = if fields.skip_invalid {
                    let before = parsed.len();
                    let kept: Vec<Record<'_>> = parsed.into_iter().filter_map(|r| r.ok()).collect();
                    fields.skipped.add(&file.path, (before - kept.len()) as u64);
                    kept
                } else {
                    parsed.into_iter().collect::<Result<Vec<_>>>()?
                };
                records += parsed.len() as u64;
                each(parsed, lines.end(records))
            })
        }
        FileFormat::Csv => csv::for_each_block(file, from, names, each),
        FileFormat::Parquet => parquet::for_each_block(file, from.position, names, each),
        FileFormat::Warc | FileFormat::Html => unreachable!("web pages are read by crate::web"),
    }
}
