//! CSV loader (`.csv`, `.csv.gz`, `.csv.zst`): a header row naming the columns, streamed record by record.

use std::path::Path;

use super::model::{Corpus, CorpusBuilder, LoadOptions, stem};
use crate::error::{LabError, Result};
use neardup_dedup::input::checksummed::Input;
use neardup_dedup::input::csv_quotes::{QuoteAudit, malformed};

/// Loads a CSV corpus.
pub fn load(path: &Path, options: &LoadOptions) -> Result<Corpus> {
    let input = Input::open(path)?;
    let compressed = input.compressed();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(QuoteAudit::new(input.reader));
    let Columns {
        headers,
        id: id_col,
        text: text_col,
        label: label_col,
    } = columns(&mut rdr, path, options)?;
    let mut builder = CorpusBuilder::new(path);
    let mut record = csv::ByteRecord::new();
    loop {
        let line = rdr.position().line() as usize;
        if options.limit.is_some_and(|l| builder.len() >= l) {
            break;
        }
        match rdr.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) if malformed(path, &e).is_some() => {
                return Err(malformed(path, &e).expect("matched"));
            }
            Err(e) if matches!(e.kind(), csv::ErrorKind::Io(_)) => {
                let csv::ErrorKind::Io(io) = e.into_kind() else {
                    unreachable!("matched above")
                };
                return Err(LabError::file(
                    path,
                    if let Some(kind) = compressed {
                        format!("corrupt {kind} data ({io})")
                    } else {
                        io.to_string()
                    },
                ));
            }
            Err(e) => {
                let line = e.position().map_or(line, |p| p.line() as usize);
                builder.invalid(
                    options.skip_invalid,
                    LabError::line(path, line, format!("malformed CSV: {e}")),
                )?;
                continue;
            }
        }
        let line = record.position().map_or(line, |p| p.line() as usize);
        let field = |i: usize| -> std::result::Result<&str, String> {
            std::str::from_utf8(record.get(i).unwrap_or_default()).map_err(|e| {
                format!(
                    "column `{}` is not valid UTF-8 (byte {})",
                    &headers[i],
                    e.valid_up_to() + 1
                )
            })
        };
        let parsed = (|| {
            let id = field(id_col)?.to_string();
            let text = field(text_col)?;
            let label = match label_col {
                Some(c) => Some(field(c)?).filter(|l| !l.is_empty()),
                None => None,
            };
            Ok::<_, String>((id, text, label))
        })();
        match parsed {
            Ok((id, text, label)) => builder.push(line, id, text, label)?,
            Err(reason) => {
                builder.invalid(options.skip_invalid, LabError::line(path, line, reason))?
            }
        }
    }
    drop(rdr);
    let sha = neardup_dedup::input::checksummed::sha256_file(path)?;
    builder.finish(stem(path), path.display().to_string(), sha)
}

/// The header row and where the fields are.
struct Columns {
    headers: csv::StringRecord,
    id: usize,
    text: usize,
    label: Option<usize>,
}

/// The header row (a byte-order mark dropped) and the positions of the id and text columns
/// and, if present, the label column.
fn columns(
    rdr: &mut csv::Reader<QuoteAudit<Box<dyn std::io::BufRead>>>,
    path: &Path,
    options: &LoadOptions,
) -> Result<Columns> {
    let mut headers = rdr
        .headers()
        .map_err(|e| {
            malformed(path, &e).unwrap_or_else(|| {
                LabError::line(path, 1, format!("cannot read the header row: {e}"))
            })
        })?
        .clone();
    // A UTF-8 byte-order mark (Windows editors write one) is not part of the first name.
    if headers.get(0).is_some_and(|h| h.starts_with('\u{FEFF}')) {
        headers = headers
            .iter()
            .enumerate()
            .map(|(i, h)| {
                if i == 0 {
                    h.trim_start_matches('\u{FEFF}')
                } else {
                    h
                }
            })
            .collect();
    }
    let column = |name: &str| headers.iter().position(|h| h == name);
    let f = &options.fields;
    let id_col = column(&f.id).ok_or_else(|| missing_column(path, "id", &f.id, &headers))?;
    let text_col =
        column(&f.text).ok_or_else(|| missing_column(path, "text", &f.text, &headers))?;
    let label_col = match &f.label {
        None => None,
        Some(name) => match column(name) {
            Some(c) => Some(c),
            None if options.label_required => {
                return Err(missing_column(path, "label", name, &headers));
            }
            None => None,
        },
    };
    Ok(Columns {
        headers,
        id: id_col,
        text: text_col,
        label: label_col,
    })
}

fn missing_column(path: &Path, what: &str, name: &str, headers: &csv::StringRecord) -> LabError {
    LabError::line(
        path,
        1,
        format!(
            "no {what} column `{name}` in the header (columns: {})",
            headers.iter().collect::<Vec<_>>().join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_reports_bad_rows() {
        let d = std::env::temp_dir().join(format!("neardup-csv-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("c.csv");
        std::fs::write(&p, "id,text,cluster\na,\"hello, world\",x\nb,bye,\n").unwrap();
        let c = load(&p, &LoadOptions::default()).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c.text(0), "hello, world");
        assert_eq!(c.label(0), Some(0));
        assert_eq!(c.label(1), None);

        std::fs::write(&p, "id,body\na,x\n").unwrap();
        let e = load(&p, &LoadOptions::default()).unwrap_err().to_string();
        assert!(e.contains("c.csv:1: no text column `text`"), "{e}");

        std::fs::write(&p, "id,text\na,x\nb,y,extra\n").unwrap();
        let e = load(&p, &LoadOptions::default()).unwrap_err().to_string();
        assert!(e.contains("c.csv:3: malformed CSV"), "{e}");

        // Regression (issue 15): a byte-order mark made the first column unknown.
        std::fs::write(&p, "\u{FEFF}id,text\na,x\n").unwrap();
        assert_eq!(load(&p, &LoadOptions::default()).unwrap().id(0), "a");
    }
}
