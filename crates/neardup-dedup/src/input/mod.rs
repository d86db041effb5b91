//! The inputs of `neardup dedup`: files, directories and globs expanded into a sorted list of
//! corpus files, and their records streamed in blocks so texts are never all in memory.
//!
//! JSON Lines (`.jsonl`, `.json`, optionally `.gz` / `.zst`) is read by a reader thread in
//! blocks of whole lines and parsed in parallel by the caller (`json_fields`: only the text
//! and id fields are decoded). CSV is parsed in order
//! (quoted fields may span lines) and Parquet is read a row group at a time.
//!
//! Reading can start at a [`ReadPosition`] recorded by an earlier, interrupted read (the
//! sketch stage's checkpoints): a plain JSONL file is sought to its byte, a compressed one
//! inflated up to it, and CSV and Parquet skip the records before it.
//!
//! A record's *line* is its 1-based line number (JSONL, CSV) or row number (Parquet), the
//! position error messages name and the deduplicated output is selected by.

//! Files: `files` (what the inputs are), `position` (where a read starts), `open`
//! (decompressed content), `line_blocks` (JSONL in blocks of whole lines), `json_fields`,
//! `csv` and `parquet` (records), `content` and `checksummed` (what was read, hashed),
//! `carrying_reader` (a large file read into one reused buffer).

use std::borrow::Cow;

pub mod carrying_reader;
pub mod checksummed;
pub mod content;
mod csv;
mod files;
pub mod json_fields;
mod line_blocks;
mod open;
pub mod parquet;
mod position;

use crate::error::{Error, Result};
pub use files::{Compression, FileFormat, InputFile, compression_of, detect, expand, stem};
pub use json_fields::id_string;
use json_fields::parse_json_line;
pub use line_blocks::{BOM, LineBlock, for_each_line_block, for_each_line_block_from, line_record};
use open::open_tapped;
pub use open::{decompressed, open};
pub use position::{BLOCK_BYTES, ReadFrom, ReadPosition};

/// One record: where it is, its id and its text (borrowed from the line when it can be).
#[derive(Debug, Clone)]
pub struct Record<'a> {
    /// Line (JSONL, CSV) or row (Parquet) number, 1-based.
    pub line: u64,
    /// The id, if the record has one.
    pub id: Option<String>,
    /// The text.
    pub text: Cow<'a, str>,
}

/// Every record of `file` in order, in blocks (JSONL lines are parsed in parallel; the first
/// bad line in file order is the error, naming file and line).
pub fn for_each_record_block(
    file: &InputFile,
    text_field: &str,
    id_field: &str,
    mut each: impl FnMut(Vec<Record<'_>>) -> Result<()>,
) -> Result<()> {
    let from = ReadFrom::start();
    for_each_record_block_and_bytes(file, &from, text_field, id_field, |_| {}, |b, _| each(b))
}

/// The records of `file` from `from` on, in blocks of about `block` bytes of text (Parquet:
/// a row group), each handed to `each` with the position after it; also hands `bytes` a JSONL file's bytes as read (inflated, every line from
/// `from` on, in order, before its records): what the sketch stage keeps of a compressed
/// file so that the outputs stage need not inflate it again. Not called for CSV or Parquet.
pub fn for_each_record_block_and_bytes(
    file: &InputFile,
    from: &ReadFrom,
    text_field: &str,
    id_field: &str,
    mut bytes: impl FnMut(&[u8]),
    mut each: impl FnMut(Vec<Record<'_>>, ReadPosition) -> Result<()>,
) -> Result<()> {
    use rayon::prelude::*;
    match file.format {
        FileFormat::Jsonl => {
            let mut records = from.position.records;
            for_each_line_block_from(file, from, |lines| {
                bytes(&lines.data);
                let parsed = lines
                    .lines()
                    .par_iter()
                    .map(|&(line, bytes)| {
                        parse_json_line(bytes, text_field, id_field)
                            .map(|f| Record {
                                line,
                                id: f.id,
                                text: f.text,
                            })
                            .map_err(|reason| Error::line(&file.path, line as usize, reason))
                    })
                    .collect::<Result<Vec<_>>>()?;
                records += parsed.len() as u64;
                each(parsed, lines.end(records))
            })
        }
        FileFormat::Csv => csv::for_each_block(file, from, text_field, id_field, each),
        FileFormat::Parquet => {
            parquet::for_each_block(file, from.position, text_field, id_field, each)
        }
    }
}
