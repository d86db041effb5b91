//! The stage files' Parquet, written and read with arrow-rs (the crate that reads users'
//! Parquet inputs), so the product crate needs one Parquet stack and the Python wheel builds
//! without polars. Every failure, a panic of the reader on a corrupt file included, is an
//! error naming the file.
//!
//! Columns are read by the types their Parquet logical types give (`UINT_64` → `UInt64`,
//! `UTF8` → `Utf8`, plain byte arrays → `Binary`), not by the Arrow schema a writer embeds,
//! so a file reads the same whoever wrote it.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Float64Array, RecordBatch, StringArray,
    UInt32Array, UInt64Array,
};
use arrow_schema::{ArrowError, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::error::{Error, Result};
use crate::input::parquet::guarded;

/// Stage files are uncompressed: signatures and pair ids are random-looking integers that
/// compression only slows down. A row group holds up to `rows_per_group` rows (at least 1).
pub fn writer_properties(rows_per_group: usize) -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .set_max_row_group_row_count(Some(rows_per_group.max(1)))
        .build()
}

/// A batch of `columns` (name, values), every column nullable.
pub fn batch(columns: Vec<(&str, ArrayRef)>) -> std::result::Result<RecordBatch, ArrowError> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, values)| Field::new(*name, values.data_type().clone(), true))
        .collect();
    let arrays = columns.into_iter().map(|(_, values)| values).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

/// Writes `batch` as the whole file at `path`, atomically.
pub fn write_file(path: &Path, batch: &RecordBatch) -> Result<()> {
    crate::fsutil::write_atomic_file(path, |file| {
        let out = std::io::BufWriter::new(file);
        let properties = writer_properties(batch.num_rows());
        let mut writer = ArrowWriter::try_new(out, batch.schema(), Some(properties))
            .map_err(std::io::Error::other)?;
        writer.write(batch).map_err(std::io::Error::other)?;
        let mut out = writer.into_inner().map_err(std::io::Error::other)?;
        std::io::Write::flush(&mut out)
    })
}

/// Which part of a file to read.
#[derive(Debug, Default, Clone)]
pub struct Selection<'a> {
    /// Only these columns (all: `None`); a column the file lacks is left out.
    pub columns: Option<&'a [&'a str]>,
    /// Only this row group (all: `None`).
    pub row_group: Option<usize>,
}

/// Reads the selected part of a Parquet file as one batch.
pub fn read_file(path: &Path, selection: Selection<'_>) -> Result<RecordBatch> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    guarded(path, || {
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let mut builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
            .map_err(|e| e.to_string())?;
        // The fields the selection keeps, in the file's order (a column it lacks is left out).
        let fields = builder.schema().fields();
        let kept: Vec<usize> = (0..fields.len())
            .filter(|&i| {
                let name = fields[i].name().as_str();
                selection.columns.is_none_or(|c| c.contains(&name))
            })
            .collect();
        let schema = Arc::new(builder.schema().project(&kept).map_err(|e| e.to_string())?);
        if selection.columns.is_some() {
            let mask = ProjectionMask::roots(builder.parquet_schema(), kept);
            builder = builder.with_projection(mask);
        }
        if let Some(group) = selection.row_group {
            if group >= builder.metadata().num_row_groups() {
                return Err(format!("no row group {group}"));
            }
            builder = builder.with_row_groups(vec![group]);
        }
        let reader = builder.build().map_err(|e| e.to_string())?;
        let batches = reader.collect::<std::result::Result<Vec<_>, _>>();
        let batches = batches.map_err(|e| e.to_string())?;
        arrow_select::concat::concat_batches(&schema, &batches).map_err(|e| e.to_string())
    })
}

/// The rows of each row group of a Parquet file.
pub fn row_group_rows(path: &Path) -> Result<Vec<usize>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    guarded(path, || {
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| e.to_string())?;
        Ok(builder
            .metadata()
            .row_groups()
            .iter()
            .map(|g| g.num_rows() as usize)
            .collect())
    })
}

/// A damaged stage file's error.
pub fn corrupt(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::file(
        path,
        format!("stage file is damaged ({what}); delete it and rerun to recompute it"),
    )
}

/// Column `name` of `batch` as an array of type `A`, if the batch has it.
pub fn optional<'b, A: Array + 'static>(
    path: &Path,
    batch: &'b RecordBatch,
    name: &str,
) -> Result<Option<&'b A>> {
    let Some(column) = batch.column_by_name(name) else {
        return Ok(None);
    };
    column
        .as_any()
        .downcast_ref::<A>()
        .map(Some)
        .ok_or_else(|| corrupt(path, format!("column {name} holds {}", column.data_type())))
}

/// Column `name` of `batch` as an array of type `A`.
pub fn required<'b, A: Array + 'static>(
    path: &Path,
    batch: &'b RecordBatch,
    name: &str,
) -> Result<&'b A> {
    optional(path, batch, name)?.ok_or_else(|| corrupt(path, format!("no column {name}")))
}

/// A column without nulls as a vector (a null is a damaged file).
pub fn values<T: Copy>(
    path: &Path,
    name: &str,
    len: usize,
    nulls: usize,
    at: impl Fn(usize) -> T,
) -> Result<Vec<T>> {
    if nulls > 0 {
        return Err(corrupt(path, format!("nulls in column {name}")));
    }
    Ok((0..len).map(at).collect())
}

/// `UInt64` column `name`, no nulls.
pub fn u64s(path: &Path, batch: &RecordBatch, name: &str) -> Result<Vec<u64>> {
    let c: &UInt64Array = required(path, batch, name)?;
    values(path, name, c.len(), c.null_count(), |i| c.value(i))
}

/// `UInt32` column `name`, no nulls.
pub fn u32s(path: &Path, batch: &RecordBatch, name: &str) -> Result<Vec<u32>> {
    let c: &UInt32Array = required(path, batch, name)?;
    values(path, name, c.len(), c.null_count(), |i| c.value(i))
}

/// `Float64` column `name`; nulls become `null_as`.
pub fn f64s(path: &Path, batch: &RecordBatch, name: &str, null_as: f64) -> Result<Vec<f64>> {
    let c: &Float64Array = required(path, batch, name)?;
    Ok(c.iter().map(|v| v.unwrap_or(null_as)).collect())
}

/// `Boolean` column `name`; nulls become `null_as`.
pub fn bools(path: &Path, batch: &RecordBatch, name: &str, null_as: bool) -> Result<Vec<bool>> {
    let c: &BooleanArray = required(path, batch, name)?;
    Ok(c.iter().map(|v| v.unwrap_or(null_as)).collect())
}

/// `Utf8` column `name`.
pub fn strings(path: &Path, batch: &RecordBatch, name: &str) -> Result<Vec<Option<String>>> {
    let c: &StringArray = required(path, batch, name)?;
    Ok(c.iter().map(|v| v.map(str::to_string)).collect())
}

/// `Binary` column `name`.
pub fn binaries<'b>(path: &Path, batch: &'b RecordBatch, name: &str) -> Result<&'b BinaryArray> {
    required(path, batch, name)
}
