//! Parquet loader (arrow-rs, through `neardup_dedup::input::parquet`: a corrupt file is an
//! error naming it, never an abort). Parquet is columnar, so the id, text and label columns
//! are read whole; "line" in errors means the 1-based row.

use std::path::Path;

use neardup_dedup::input::parquet::{ParquetInput, TextColumn, Values};

use super::model::{Corpus, CorpusBuilder, LoadOptions, stem};
use crate::error::{LabError, Result};

/// Loads a Parquet corpus.
pub fn load(path: &Path, options: &LoadOptions) -> Result<Corpus> {
    let f = &options.fields;
    let (ids, texts, labels) = columns(path, options)?;
    let mut builder = CorpusBuilder::new(path);
    for (row, (id, text)) in ids.into_iter().zip(texts).enumerate() {
        if options.limit.is_some_and(|l| builder.len() >= l) {
            break;
        }
        let Some(id) = id else {
            builder.invalid(
                options.skip_invalid,
                LabError::line(path, row + 1, format!("null id in column `{}`", f.id)),
            )?;
            continue;
        };
        let label = labels.as_ref().and_then(|l| l[row].as_deref());
        builder.push(row + 1, id, text.as_deref().unwrap_or_default(), label)?;
    }
    let sha = neardup_dedup::input::checksummed::sha256_file(path)?;
    builder.finish(stem(path), path.display().to_string(), sha)
}

/// The id, text and (if present) label columns as text, checked: text must be text, every
/// column as long as the others.
fn columns(path: &Path, options: &LoadOptions) -> Result<(Values, Values, Option<Values>)> {
    let f = &options.fields;
    let parquet = ParquetInput::open(path)?;
    let names = parquet.column_names();
    let label = match &f.label {
        Some(l) if parquet.has_column(l) => Some(l.clone()),
        Some(l) if options.label_required => {
            return Err(LabError::file(
                path,
                format!("no label column `{l}` (columns: {})", names.join(", ")),
            ));
        }
        _ => None,
    };
    for (what, name) in [("id", &f.id), ("text", &f.text)] {
        if !parquet.has_column(name) {
            return Err(LabError::file(
                path,
                format!("no {what} column `{name}` (columns: {})", names.join(", ")),
            ));
        }
    }
    // Text must be text: a column of numbers is a wrong --text-field, not a corpus (JSONL
    // rejects numbers as text too). Ids and labels may be integers.
    let mut wanted = vec![
        TextColumn {
            name: &f.id,
            strings_only: false,
        },
        TextColumn {
            name: &f.text,
            strings_only: true,
        },
    ];
    if let Some(l) = &label {
        wanted.push(TextColumn {
            name: l,
            strings_only: false,
        });
    }
    let mut values = parquet.read_text(&wanted, None)?.into_iter();
    let (ids, texts) = (
        values.next().unwrap_or_default(),
        values.next().unwrap_or_default(),
    );
    let labels = values.next();
    let rows: u64 = parquet.row_groups().iter().sum();
    for (name, len) in [(&f.id, ids.len()), (&f.text, texts.len())]
        .into_iter()
        .chain(label.as_ref().zip(labels.as_ref().map(Vec::len)))
    {
        if len as u64 != rows {
            return Err(LabError::file(
                path,
                format!("column `{name}` has {len} values for {rows} rows: the file is corrupt"),
            ));
        }
    }
    Ok((ids, texts, labels))
}

#[cfg(test)]
mod tests {
    use super::super::{Format, LoadOptions, load};

    /// Loading `bytes` as Parquet (with and without `skip_invalid`) is an error that names the
    /// file, not a panic.
    fn load_is_an_error_naming_the_file(name: &str, bytes: &[u8]) {
        let path =
            std::env::temp_dir().join(format!("neardup-{name}-{}.parquet", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        for skip_invalid in [false, true] {
            let options = LoadOptions {
                format: Some(Format::Parquet),
                skip_invalid,
                ..LoadOptions::default()
            };
            let e = load(&path, &options).expect_err("a corrupt file");
            assert!(
                e.to_string().contains(&format!("neardup-{name}-")),
                "unnamed error: {e}"
            );
        }
        std::fs::remove_file(&path).unwrap();
    }

    /// Regressions (fuzzing, issue 15): corrupt Parquet files that panicked instead of giving an
    /// error naming the file — columns that decode shorter than the frame ("index: 0 out of
    /// bounds for len: 0" in our row loop) and metadata that polars' thrift reader `expect`s
    /// ("thrift bool field"). The reproducers are libFuzzer's crash inputs, byte for byte.
    #[test]
    fn corrupt_files_are_errors_not_panics() {
        let inputs: [(&str, &[u8]); 3] = [
            (
                "short-column",
                include_bytes!("../../tests/fuzz_regressions/load_parquet-short-column.parquet"),
            ),
            (
                "thrift-bool",
                include_bytes!("../../tests/fuzz_regressions/load_parquet-thrift-bool.parquet"),
            ),
            (
                "thrift-bool-2",
                include_bytes!("../../tests/fuzz_regressions/load_parquet-thrift-bool-2.parquet"),
            ),
        ];
        for (name, bytes) in inputs {
            load_is_an_error_naming_the_file(name, bytes);
        }
    }

    /// Regressions (fuzzing, issue 15; fixed by reading inputs with arrow-rs, issue 34):
    /// polars-parquet 0.55 allocated by counts the file declares — a thrift list
    /// (`Vec::with_capacity` in `read_list`: this 857-byte file asked for 86 GB) and a page's
    /// value count (`BitmapBuilder::reserve` in `decode_hybrid_rle_into_bitmap`: 2^61 bytes) —
    /// so the process aborted (SIGABRT) before any error could name the file.
    #[test]
    fn corrupt_declared_counts_do_not_abort() {
        let inputs: [(&str, &[u8]); 2] = [
            (
                "huge-list",
                include_bytes!("../../tests/fuzz_regressions/load_parquet-huge-list.parquet"),
            ),
            (
                "huge-bitmap",
                include_bytes!("../../tests/fuzz_regressions/load_parquet-huge-bitmap.parquet"),
            ),
        ];
        for (name, bytes) in inputs {
            load_is_an_error_naming_the_file(name, bytes);
        }
    }
}
