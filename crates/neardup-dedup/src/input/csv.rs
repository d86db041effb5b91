//! CSV records read in order (quoted fields may span lines), in blocks of about a given size
//! of text.

use std::borrow::Cow;

use super::csv_quotes::{QuoteAudit, malformed};
use super::files::InputFile;
use super::json_fields::FieldNames;
use super::keep_value;
use super::open::open_tapped;
use super::position::{ReadFrom, ReadPosition};
use super::record::Record;
use crate::error::{Error, Result};

/// Records of a CSV file in order from `from`, in blocks of about `block` bytes of text.
pub(super) fn for_each_block(
    file: &InputFile,
    read: &ReadFrom,
    names: FieldNames<'_>,
    mut each: impl FnMut(Vec<Record<'_>>, ReadPosition) -> Result<()>,
) -> Result<()> {
    let path = &file.path;
    let (from, block_bytes) = (read.position, read.block);
    // CSV resumes by skipping records: it always reads from the start, so it is always hashed.
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .from_reader(QuoteAudit::new(open_tapped(file, read.tap.as_ref())?));
    let (text_col, id_col, keep_col) = columns(&mut reader, path, names)?;
    let mut block = Vec::new();
    let mut bytes = 0;
    let mut records = 0u64;
    let mut record = csv::StringRecord::new();
    let position = |reader: &csv::Reader<_>, records| {
        let p: &csv::Position = reader.position();
        ReadPosition {
            records,
            line: p.line(),
            byte: p.byte(),
        }
    };
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                if let Some(error) = malformed(path, &e) {
                    return Err(error);
                }
                let line = e.position().map_or(0, |p| p.line() as usize);
                return Err(Error::line(path, line, format!("malformed CSV: {e}")));
            }
        }
        records += 1;
        if records <= from.records {
            // Sketched before the interruption this read resumes from.
            continue;
        }
        let line = record.position().map_or(0, |p| p.line());
        let text = record.get(text_col).unwrap_or("").to_string();
        bytes += text.len();
        let keep = match (keep_col, names.keep) {
            (Some(c), Some(field)) => keep_value::of_text(field, record.get(c).unwrap_or(""))
                .map_err(|why| Error::line(path, line as usize, why))?,
            _ => keep_value::MISSING,
        };
        block.push(Record {
            page: None,
            line,
            id: id_col.and_then(|c| record.get(c)).map(str::to_string),
            text: Cow::Owned(text),
            keep,
        });
        if bytes >= block_bytes {
            each(std::mem::take(&mut block), position(&reader, records))?;
            bytes = 0;
        }
    }
    if !block.is_empty() {
        each(block, position(&reader, records))?;
    }
    Ok(())
}

/// The positions of the text column, the id column if there is one and the keep field's
/// column if one is asked (it must be there) in the header (a UTF-8 byte-order mark ignored).
fn columns<R: std::io::Read>(
    reader: &mut csv::Reader<R>,
    path: &std::path::Path,
    names: FieldNames<'_>,
) -> Result<(usize, Option<usize>, Option<usize>)> {
    let headers = reader.headers().map_err(|e| {
        malformed(path, &e)
            .unwrap_or_else(|| Error::file(path, format!("cannot read the CSV header: {e}")))
    })?;
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}') == name)
    };
    let text_col = column(names.text).ok_or_else(|| {
        Error::line(
            path,
            1,
            format!("no text column `{}` in the header", names.text),
        )
    })?;
    let keep_col = match names.keep {
        Some(field) => Some(column(field).ok_or_else(|| {
            Error::line(
                path,
                1,
                format!("no column `{field}` (the field --keep chooses by) in the header"),
            )
        })?),
        None => None,
    };
    Ok((text_col, column(names.id), keep_col))
}
