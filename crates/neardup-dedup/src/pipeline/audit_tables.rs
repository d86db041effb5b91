//! The audit tables (`clusters.*`, `pairs.*`) written chunk by chunk in the format
//! `--clusters-format` asks: Parquet through arrow-rs (plain `string` columns, zstd), CSV with
//! a header line, or one JSON object per line. A similarity the algorithm could not give
//! (NaN) is a null, an empty CSV field.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Float64Array, RecordBatch, StringArray, UInt32Array};
use arrow_schema::{DataType, Field, Schema};

use super::options::TableFormat;
use crate::error::{Error, Result};
use crate::fsutil;

/// Rows built and written at a time, each chunk a Parquet row group: the tables never hold a
/// whole corpus's ids. (Chunks of 2^18 rows, buffered by the writer up to its default
/// million-row group, took 1.5 million pairs' outputs stage to 342 MB under `--memory
/// 256MiB`.)
pub(super) const CHUNK_ROWS: usize = 1 << 16;

/// The columns of `clusters.*`: one row per new document.
pub(super) const CLUSTERS_COLUMNS: [(&str, Kind); 6] = [
    ("id", Kind::Str),
    ("cluster", Kind::U32),
    ("cluster_size", Kind::U32),
    ("kept", Kind::Bool),
    ("representative", Kind::Str),
    ("similarity_to_representative", Kind::F64),
];

/// The columns of `pairs.*`: one row per verified pair or kept-for comparison.
pub(super) const PAIRS_COLUMNS: [(&str, Kind); 4] = [
    ("id_a", Kind::Str),
    ("id_b", Kind::Str),
    ("similarity", Kind::F64),
    ("stage", Kind::Str),
];

/// A column's type.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    Str,
    U32,
    F64,
    Bool,
}

impl Kind {
    fn data_type(self) -> DataType {
        match self {
            Kind::Str => DataType::Utf8,
            Kind::U32 => DataType::UInt32,
            Kind::F64 => DataType::Float64,
            Kind::Bool => DataType::Boolean,
        }
    }
}

/// One column of a chunk.
pub(super) enum Column {
    Str(Vec<String>),
    U32(Vec<u32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::Str(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
        }
    }

    fn to_arrow(&self) -> ArrayRef {
        match self {
            Column::Str(v) => Arc::new(StringArray::from_iter_values(v)),
            Column::U32(v) => Arc::new(UInt32Array::from(v.clone())),
            Column::F64(v) => Arc::new(Float64Array::from_iter(
                v.iter().map(|&x| (!x.is_nan()).then_some(x)),
            )),
            Column::Bool(v) => Arc::new(BooleanArray::from(v.clone())),
        }
    }

    /// Appends `other`'s rows (of the same type).
    pub(super) fn extend(&mut self, other: Column) {
        match (self, other) {
            (Column::Str(a), Column::Str(b)) => a.extend(b),
            (Column::U32(a), Column::U32(b)) => a.extend(b),
            (Column::F64(a), Column::F64(b)) => a.extend(b),
            (Column::Bool(a), Column::Bool(b)) => a.extend(b),
            _ => unreachable!("chunks of one schema"),
        }
    }

    /// Row `i` as CSV text (empty for a missing similarity).
    fn csv_field(&self, i: usize) -> String {
        match self {
            Column::Str(v) => v[i].clone(),
            Column::U32(v) => v[i].to_string(),
            Column::F64(v) if v[i].is_nan() => String::new(),
            Column::F64(v) => v[i].to_string(),
            Column::Bool(v) => v[i].to_string(),
        }
    }

    /// Row `i` as a JSON value.
    fn json(&self, i: usize) -> serde_json::Value {
        match self {
            Column::Str(v) => v[i].clone().into(),
            Column::U32(v) => v[i].into(),
            Column::F64(v) => {
                serde_json::Number::from_f64(v[i]).map_or(serde_json::Value::Null, Into::into)
            }
            Column::Bool(v) => v[i].into(),
        }
    }
}

/// Writes `path` atomically: the columns `schema` names, from the chunks `next` yields
/// (`None`: done; none at all is an empty table), each holding those columns in that order.
pub(super) fn write_table(
    path: &Path,
    format: TableFormat,
    schema: &[(&'static str, Kind)],
    mut next: impl FnMut() -> Option<Vec<Column>>,
) -> Result<()> {
    let names: Vec<&str> = schema.iter().map(|c| c.0).collect();
    let mut failure = None;
    let result = fsutil::write_atomic_file(path, |file| {
        let mut fail = |e: String| {
            failure = Some(e);
            std::io::Error::other("write failed")
        };
        let mut sink = Sink::new(file, format, schema).map_err(&mut fail)?;
        while let Some(chunk) = next() {
            sink.write(&names, &chunk).map_err(&mut fail)?;
        }
        sink.finish().map_err(fail)
    });
    match failure {
        Some(e) => Err(Error::file(path, e)),
        None => result,
    }
}

enum Sink<'f> {
    Parquet(parquet::arrow::ArrowWriter<&'f mut File>, Arc<Schema>),
    Csv(csv::Writer<BufWriter<&'f mut File>>),
    Jsonl(BufWriter<&'f mut File>),
}

impl<'f> Sink<'f> {
    /// A writer of `format` into `file`, its header (CSV) or schema (Parquet) written.
    fn new(
        file: &'f mut File,
        format: TableFormat,
        schema: &[(&'static str, Kind)],
    ) -> std::result::Result<Sink<'f>, String> {
        match format {
            TableFormat::Parquet => {
                let schema = Arc::new(Schema::new(
                    schema
                        .iter()
                        .map(|&(name, kind)| Field::new(name, kind.data_type(), true))
                        .collect::<Vec<_>>(),
                ));
                let properties = parquet::file::properties::WriterProperties::builder()
                    .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
                    .build();
                let writer =
                    parquet::arrow::ArrowWriter::try_new(file, schema.clone(), Some(properties))
                        .map_err(|e| e.to_string())?;
                Ok(Sink::Parquet(writer, schema))
            }
            TableFormat::Csv => {
                let mut w = csv::Writer::from_writer(BufWriter::new(file));
                w.write_record(schema.iter().map(|c| c.0))
                    .map_err(|e| e.to_string())?;
                Ok(Sink::Csv(w))
            }
            TableFormat::Jsonl => Ok(Sink::Jsonl(BufWriter::new(file))),
        }
    }

    fn write(&mut self, names: &[&str], chunk: &[Column]) -> std::result::Result<(), String> {
        let rows = chunk.first().map_or(0, Column::len);
        match self {
            Sink::Parquet(writer, schema) => {
                let batch = RecordBatch::try_new(
                    schema.clone(),
                    chunk.iter().map(Column::to_arrow).collect(),
                )
                .map_err(|e| e.to_string())?;
                writer.write(&batch).map_err(|e| e.to_string())?;
                writer.flush().map_err(|e| e.to_string())
            }
            Sink::Csv(w) => (0..rows).try_for_each(|i| {
                w.write_record(chunk.iter().map(|c| c.csv_field(i)))
                    .map_err(|e| e.to_string())
            }),
            Sink::Jsonl(w) => (0..rows).try_for_each(|i| {
                let row: serde_json::Map<String, serde_json::Value> = names
                    .iter()
                    .zip(chunk)
                    .map(|(n, c)| (n.to_string(), c.json(i)))
                    .collect();
                serde_json::to_writer(&mut *w, &row).map_err(|e| e.to_string())?;
                w.write_all(b"\n").map_err(|e| e.to_string())
            }),
        }
    }

    fn finish(self) -> std::result::Result<(), String> {
        match self {
            Sink::Parquet(writer, _) => writer.close().map(|_| ()).map_err(|e| e.to_string()),
            Sink::Csv(mut w) => w.flush().map_err(|e| e.to_string()),
            Sink::Jsonl(mut w) => w.flush().map_err(|e| e.to_string()),
        }
    }
}
