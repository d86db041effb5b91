//! Parquet inputs, read with arrow-rs's `parquet` crate: the dedup pipeline's (a row group at
//! a time), the deduplicated copy of a Parquet input, and the lab's corpus loader.
//!
//! Why not polars, which the lab uses for its own tables: polars-parquet allocates the counts
//! a file declares, so a corrupt 857-byte file aborted the process asking for 86 GB (and a
//! page's value count asked for 2^61 bytes) before any error could name the file. arrow-rs
//! checks declared sizes against the bytes there; the reproducers in
//! `crates/neardup-lab/tests/fuzz_regressions/` are errors now. Every failure, and a panic of
//! the reader should one remain, is an error naming the file.
//!
//! Texts must be text (a string column; a column of numbers is a wrong `--text-field`, as
//! JSONL rejects numbers as text); ids and labels may be strings or integers, and the field
//! `--keep max:FIELD` names numbers, dates or timestamps too.

use std::borrow::Cow;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};

use super::files::InputFile;
use super::json_fields::FieldNames;
use super::keep_value;
use super::position::ReadPosition;
use super::record::Record;
use crate::error::{Error, Result};

/// Rows decoded at a time.
const BATCH_ROWS: usize = 8192;

/// The bytes a deduplicated Parquet copy buffers before it writes them as a row group.
const COPY_ROW_GROUP_BYTES: usize = 8 << 20;

/// A column to read as text: its name and whether it must hold strings (a text column) or may
/// hold integers too (ids, labels).
#[derive(Debug, Clone, Copy)]
pub struct TextColumn<'a> {
    pub name: &'a str,
    pub strings_only: bool,
}

/// The values of a column read as text (`None`: null).
pub type Values = Vec<Option<String>>;

/// An open Parquet input: its footer read and checked.
#[derive(Debug)]
pub struct ParquetInput {
    path: PathBuf,
    metadata: ArrowReaderMetadata,
}

/// Runs `read` on the file, with its errors and panics as errors naming it (arrow-rs panics
/// on some corrupt files instead of returning an error; the stage files are read through it
/// too).
pub(crate) fn guarded<T>(
    path: &Path,
    read: impl FnOnce() -> std::result::Result<T, String>,
) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(why)) => Err(Error::file(path, format!("cannot read Parquet: {why}"))),
        Err(panic) => {
            let why = crate::error::panic_reason(panic.as_ref());
            Err(Error::file(
                path,
                format!("cannot read Parquet: the reader failed on a corrupt file ({why})"),
            ))
        }
    }
}

impl ParquetInput {
    /// Opens `path` and reads its footer.
    pub fn open(path: &Path) -> Result<ParquetInput> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let metadata = guarded(path, || {
            ArrowReaderMetadata::load(&file, Default::default()).map_err(|e| e.to_string())
        })?;
        Ok(ParquetInput {
            path: path.to_path_buf(),
            metadata,
        })
    }

    /// The top-level column names.
    pub fn column_names(&self) -> Vec<String> {
        let schema = self.metadata.schema();
        schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    /// Whether the file has a top-level column `name`.
    pub fn has_column(&self, name: &str) -> bool {
        self.metadata.schema().fields().find(name).is_some()
    }

    /// Rows in each row group.
    pub fn row_groups(&self) -> Vec<u64> {
        let groups = self.metadata.metadata().row_groups();
        groups.iter().map(|g| g.num_rows().max(0) as u64).collect()
    }

    /// The index of column `column` after checking that it can be read as text.
    fn text_column(&self, column: TextColumn<'_>) -> Result<usize> {
        let schema = self.metadata.schema();
        let Some((index, field)) = schema.fields().find(column.name) else {
            return Err(Error::file(
                &self.path,
                format!(
                    "no column `{}` (columns: {})",
                    column.name,
                    self.column_names().join(", ")
                ),
            ));
        };
        let readable = match field.data_type() {
            DataType::Dictionary(_, values) => is_text(values, column.strings_only),
            other => is_text(other, column.strings_only),
        };
        if !readable {
            let wanted = match column.strings_only {
                true => "text (choose the text column with --text-field)",
                false => "text or integers",
            };
            return Err(Error::file(
                &self.path,
                format!(
                    "column `{}` holds {} values, not {wanted}",
                    column.name,
                    field.data_type()
                ),
            ));
        }
        Ok(index)
    }

    /// Reads `columns` as text, from row groups `groups` (every one: `None`), in row order.
    pub fn read_text(
        &self,
        columns: &[TextColumn<'_>],
        groups: Option<Vec<usize>>,
    ) -> Result<Vec<Values>> {
        let mut values: Vec<Values> = vec![Vec::new(); columns.len()];
        self.each_text_batch(columns, groups, |batch| {
            for (all, part) in values.iter_mut().zip(batch) {
                all.extend(part);
            }
            Ok(())
        })?;
        Ok(values)
    }

    /// Calls `each` with `columns` read as text, one record batch ([`BATCH_ROWS`] rows) at a
    /// time, from row groups `groups` (every one: `None`), in row order: memory holds a batch,
    /// never a whole row group (one row group of 200,000 documents, read whole, took 440 MB
    /// under `--memory 256MiB`).
    pub fn each_text_batch(
        &self,
        columns: &[TextColumn<'_>],
        groups: Option<Vec<usize>>,
        mut each: impl FnMut(Vec<Values>) -> Result<()>,
    ) -> Result<()> {
        let indices = columns
            .iter()
            .map(|&c| self.text_column(c))
            .collect::<Result<Vec<_>>>()?;
        // An error of `each` (not the reader's) is kept apart, so it is returned as it is.
        let mut failed = None;
        self.each_batch(&indices, groups, |batch| {
            let mut values: Vec<Values> = Vec::with_capacity(indices.len());
            for &index in &indices {
                let name = self.metadata.schema().field(index).name();
                let column = batch
                    .column_by_name(name)
                    .ok_or_else(|| format!("column `{name}` missing from a batch"))?;
                let mut part = Vec::with_capacity(batch.num_rows());
                append_text(column.as_ref(), &mut part)?;
                values.push(part);
            }
            each(values).map_err(|e| {
                failed = Some(e);
                "stopped".to_string()
            })
        })
        .or_else(|e| failed.take().map_or(Err(e), Err))
    }

    /// Calls `each` on every record batch of columns `indices` (all: empty) of row groups
    /// `groups` (all: `None`), in order.
    fn each_batch(
        &self,
        indices: &[usize],
        groups: Option<Vec<usize>>,
        mut each: impl FnMut(&RecordBatch) -> std::result::Result<(), String>,
    ) -> Result<()> {
        let file = File::open(&self.path).map_err(|e| Error::io(&self.path, e))?;
        guarded(&self.path, || {
            let mut builder =
                ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.metadata.clone())
                    .with_batch_size(BATCH_ROWS);
            if !indices.is_empty() {
                let mask = ProjectionMask::roots(builder.parquet_schema(), indices.to_vec());
                builder = builder.with_projection(mask);
            }
            if let Some(groups) = groups {
                builder = builder.with_row_groups(groups);
            }
            let reader = builder.build().map_err(|e| e.to_string())?;
            for batch in reader {
                each(&batch.map_err(|e| e.to_string())?)?;
            }
            Ok(())
        })
    }

    /// Writes the rows `keep` says (asked with rows 1, 2, … in order) to `out` as Parquet with
    /// the file's own schema and zstd compression.
    pub fn copy_rows(&self, out: &mut File, keep: &mut dyn FnMut(u64) -> bool) -> Result<()> {
        let schema = self.metadata.schema().clone();
        let properties = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
            .build();
        let mut writer = parquet::arrow::ArrowWriter::try_new(out, schema, Some(properties))
            .map_err(|e| Error::file(&self.path, format!("cannot write Parquet: {e}")))?;
        let mut row = 0u64;
        let mut write_error = None;
        self.each_batch(&[], None, |batch| {
            let mask: arrow_array::BooleanArray = (0..batch.num_rows())
                .map(|_| {
                    row += 1;
                    Some(keep(row))
                })
                .collect();
            let kept = arrow_select::filter::filter_record_batch(batch, &mask)
                .map_err(|e| e.to_string())?;
            let mut write = || {
                writer.write(&kept)?;
                // The writer holds a row group until it has a million rows: a corpus's kept
                // texts (480 MB peak under `--memory 256MiB` for 200,000 documents).
                if writer.memory_size() >= COPY_ROW_GROUP_BYTES {
                    writer.flush()?;
                }
                Ok::<(), parquet::errors::ParquetError>(())
            };
            write().map_err(|e| {
                write_error = Some(e.to_string());
                "the output could not be written".to_string()
            })
        })?;
        if let Some(e) = write_error {
            return Err(Error::file(
                &self.path,
                format!("cannot write Parquet: {e}"),
            ));
        }
        writer
            .close()
            .map(|_| ())
            .map_err(|e| Error::file(&self.path, format!("cannot write Parquet: {e}")))
    }
}

/// Records of a Parquet file in order from `from`, a record batch ([`BATCH_ROWS`] rows) at a
/// time: memory holds a batch, not the file, nor its row group (a writer may put a whole
/// corpus in one).
pub(super) fn for_each_block(
    file: &InputFile,
    from: ReadPosition,
    names: FieldNames<'_>,
    mut each: impl FnMut(Vec<Record<'_>>, ReadPosition) -> Result<()>,
) -> Result<()> {
    let path = &file.path;
    let parquet = ParquetInput::open(path)?;
    let mut columns = vec![TextColumn {
        name: names.text,
        strings_only: true,
    }];
    // The keep field's column must be there (a wrong name is an error, as for the text);
    // the id's may not be.
    if let Some(keep) = names.keep {
        columns.push(TextColumn {
            name: keep,
            strings_only: false,
        });
    }
    if parquet.has_column(names.id) {
        columns.push(TextColumn {
            name: names.id,
            strings_only: false,
        });
    }
    let mut first = 0u64;
    for (group, rows) in parquet.row_groups().into_iter().enumerate() {
        let group_first = first;
        first += rows;
        if from.records >= first {
            continue;
        }
        let mut row = group_first;
        parquet.each_text_batch(&columns, Some(vec![group]), |values| {
            let mut values = values.into_iter();
            let texts = values.next().unwrap_or_default();
            let keeps = names.keep.and_then(|_| values.next());
            let ids = values.next();
            let batch_first = row;
            row += texts.len() as u64;
            let other_length =
                |c: &Option<Values>| c.as_ref().is_some_and(|c| c.len() != texts.len());
            if row > first || other_length(&ids) || other_length(&keeps) {
                return Err(wrong_row_count(path, group, row - group_first, rows));
            }
            let skip = from.records.saturating_sub(batch_first) as usize;
            let records = batch_records(path, names, batch_first, skip, texts, ids, keeps)?;
            if records.is_empty() {
                return Ok(());
            }
            let after = ReadPosition {
                records: row,
                line: row + 1,
                byte: 0,
            };
            each(records, after)
        })?;
        if row != first {
            return Err(wrong_row_count(path, group, row - group_first, rows));
        }
    }
    Ok(())
}

/// The records of one batch whose first row is `batch_first` (0-based), from its `skip`th.
fn batch_records(
    path: &Path,
    names: FieldNames<'_>,
    batch_first: u64,
    skip: usize,
    texts: Values,
    ids: Option<Values>,
    keeps: Option<Values>,
) -> Result<Vec<Record<'static>>> {
    let mut ids = ids.map(|i| i.into_iter().skip(skip));
    let mut keeps = keeps.map(|i| i.into_iter().skip(skip));
    let mut records = Vec::with_capacity(texts.len().saturating_sub(skip));
    for (k, text) in texts.into_iter().enumerate().skip(skip) {
        let line = batch_first + k as u64 + 1;
        let keep = match (keeps.as_mut().and_then(|v| v.next().flatten()), names.keep) {
            (Some(value), Some(field)) => keep_value::of_text(field, &value)
                .map_err(|why| Error::line(path, line as usize, why))?,
            _ => keep_value::MISSING,
        };
        records.push(Record {
            page: None,
            line,
            id: ids.as_mut().and_then(|i| i.next().flatten()),
            text: Cow::Owned(text.unwrap_or_default()),
            keep,
        });
    }
    Ok(records)
}

/// A row group that holds (at least) `held` rows where its footer says `rows`.
fn wrong_row_count(path: &Path, group: usize, held: u64, rows: u64) -> Error {
    Error::file(
        path,
        format!("row group {group} holds {held} rows, its footer says {rows}: the file is corrupt"),
    )
}

/// Whether values of type `t` read as text (strings; integers too unless `strings_only`).
fn is_text(t: &DataType, strings_only: bool) -> bool {
    use DataType::*;
    match t {
        Utf8 | LargeUtf8 | Utf8View | Null => true,
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => !strings_only,
        Float32 | Float64 | Timestamp(_, _) | Date32 | Date64 => !strings_only,
        _ => false,
    }
}

/// Appends `array`'s values as text (a type [`is_text`] accepts, or a dictionary of one).
fn append_text(array: &dyn Array, out: &mut Values) -> std::result::Result<(), String> {
    use DataType::*;
    fn each<T: ToString>(out: &mut Values, values: impl Iterator<Item = Option<T>>) {
        out.extend(values.map(|v| v.map(|v| v.to_string())));
    }
    match array.data_type() {
        Utf8 => each(out, array.as_string::<i32>().iter()),
        LargeUtf8 => each(out, array.as_string::<i64>().iter()),
        Utf8View => each(out, array.as_string_view().iter()),
        Null => out.extend(std::iter::repeat_n(None, array.len())),
        Int8 => each(out, array.as_primitive::<Int8Type>().iter()),
        Int16 => each(out, array.as_primitive::<Int16Type>().iter()),
        Int32 => each(out, array.as_primitive::<Int32Type>().iter()),
        Int64 => each(out, array.as_primitive::<Int64Type>().iter()),
        UInt8 => each(out, array.as_primitive::<UInt8Type>().iter()),
        UInt16 => each(out, array.as_primitive::<UInt16Type>().iter()),
        UInt32 => each(out, array.as_primitive::<UInt32Type>().iter()),
        UInt64 => each(out, array.as_primitive::<UInt64Type>().iter()),
        Float32 => each(out, array.as_primitive::<Float32Type>().iter()),
        Float64 => each(out, array.as_primitive::<Float64Type>().iter()),
        // Dates and times as their count of units since the epoch: ordered as they are, which
        // is what `--keep max:FIELD` reads them for.
        Date32 => each(out, array.as_primitive::<Date32Type>().iter()),
        Date64 => each(out, array.as_primitive::<Date64Type>().iter()),
        Timestamp(unit, _) => {
            use arrow_schema::TimeUnit::*;
            match unit {
                Second => each(out, array.as_primitive::<TimestampSecondType>().iter()),
                Millisecond => each(out, array.as_primitive::<TimestampMillisecondType>().iter()),
                Microsecond => each(out, array.as_primitive::<TimestampMicrosecondType>().iter()),
                Nanosecond => each(out, array.as_primitive::<TimestampNanosecondType>().iter()),
            }
        }
        Dictionary(_, _) => {
            let dictionary = array.as_any_dictionary();
            let mut distinct = Vec::new();
            append_text(dictionary.values().as_ref(), &mut distinct)?;
            let keys = dictionary.normalized_keys();
            for (row, key) in keys.into_iter().enumerate() {
                let value = match dictionary.keys().is_null(row) {
                    true => None,
                    false => distinct.get(key).cloned().flatten(),
                };
                out.push(value);
            }
        }
        other => return Err(format!("a column of {other} values cannot be read as text")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::StringArray;

    use super::*;
    use crate::input::{Compression, FileFormat};

    /// One row group of `rows` documents `t1`, `t2`, … with ids `d1`, `d2`, ….
    fn one_row_group(path: &Path, rows: usize) -> InputFile {
        let texts = StringArray::from_iter_values((1..=rows).map(|r| format!("t{r}")));
        let ids = StringArray::from_iter_values((1..=rows).map(|r| format!("d{r}")));
        let batch = RecordBatch::try_from_iter([
            ("text", Arc::new(texts) as Arc<dyn Array>),
            ("id", Arc::new(ids) as Arc<dyn Array>),
        ])
        .unwrap();
        let properties = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(rows))
            .build();
        let file = File::create(path).unwrap();
        let mut writer =
            parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        InputFile {
            path: path.to_path_buf(),
            format: FileFormat::Parquet,
            compression: Compression::None,
            size: std::fs::metadata(path).unwrap().len(),
            stream: false,
        }
    }

    /// A row group is read a batch at a time (read whole, one row group of 200,000 documents
    /// took 440 MB under `--memory 256MiB`), in order, from any record (a resumed sketch).
    #[test]
    fn a_row_group_is_read_a_batch_at_a_time_from_any_record() {
        let dir = crate::test_dir::TestDir::new("parquet-batches");
        let rows = 3 * BATCH_ROWS + 5;
        let file = one_row_group(&dir.join("one.parquet"), rows);
        assert_eq!(
            ParquetInput::open(&file.path).unwrap().row_groups(),
            [rows as u64]
        );
        for from in [0, BATCH_ROWS + 7] {
            let mut lines = Vec::new();
            let start = ReadPosition {
                records: from as u64,
                ..ReadPosition::START
            };
            let names = FieldNames {
                text: "text",
                id: "id",
                keep: None,
                page: false,
            };
            for_each_block(&file, start, names, |block, after| {
                assert!(block.len() <= BATCH_ROWS, "a block of {} rows", block.len());
                for r in &block {
                    assert_eq!(r.text, format!("t{}", r.line));
                    assert_eq!(r.id.as_deref(), Some(format!("d{}", r.line).as_str()));
                    lines.push(r.line);
                }
                assert_eq!(after.records, *lines.last().unwrap());
                Ok(())
            })
            .unwrap();
            let want: Vec<u64> = (from as u64 + 1..=rows as u64).collect();
            assert_eq!(lines, want, "from record {from}");
        }
    }

    /// The field `--keep max:FIELD` names may hold floats, dates or timestamps: each read as a
    /// number that orders as the values do.
    #[test]
    fn keep_values_come_from_numbers_dates_and_timestamps() {
        use arrow_array::{Date32Array, Float64Array, TimestampMillisecondArray};
        let dir = crate::test_dir::TestDir::new("parquet-keep");
        let path = dir.join("k.parquet");
        let texts = StringArray::from_iter_values(["a", "b", "c"]);
        let score = Float64Array::from(vec![Some(2.5), None, Some(-1.0)]);
        let day = Date32Array::from(vec![Some(19_000), Some(19_002), None]);
        let at = TimestampMillisecondArray::from(vec![Some(5_000), Some(-3_000), Some(0)]);
        let batch = RecordBatch::try_from_iter([
            ("text", Arc::new(texts) as Arc<dyn Array>),
            ("score", Arc::new(score) as Arc<dyn Array>),
            ("day", Arc::new(day) as Arc<dyn Array>),
            ("at", Arc::new(at) as Arc<dyn Array>),
        ])
        .unwrap();
        let f = File::create(&path).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let file = InputFile {
            size: std::fs::metadata(&path).unwrap().len(),
            path,
            format: FileFormat::Parquet,
            compression: Compression::None,
            stream: false,
        };
        let read = |field: &str| {
            let mut values = Vec::new();
            let names = FieldNames {
                text: "text",
                id: "id",
                keep: Some(field),
                page: false,
            };
            for_each_block(&file, ReadPosition::START, names, |block, _| {
                values.extend(block.iter().map(|r| r.keep));
                Ok(())
            })
            .unwrap();
            values
        };
        let shown = |v: Vec<f64>| format!("{v:?}");
        assert_eq!(shown(read("score")), "[2.5, NaN, -1.0]");
        assert_eq!(shown(read("day")), "[19000.0, 19002.0, NaN]");
        assert_eq!(shown(read("at")), "[5000.0, -3000.0, 0.0]");
        let e = for_each_block(
            &file,
            ReadPosition::START,
            FieldNames {
                text: "text",
                id: "id",
                keep: Some("when"),
                page: false,
            },
            |_, _| Ok(()),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no column `when`"), "{e}");
    }
}
