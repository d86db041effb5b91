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

/// Rows built and written at a time: the tables never hold a whole corpus's ids.
pub(super) const CHUNK_ROWS: usize = 1 << 18;

/// One column of a chunk.
pub(super) enum Column {
    Str(Vec<String>),
    U32(Vec<u32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}

impl Column {
    fn data_type(&self) -> DataType {
        match self {
            Column::Str(_) => DataType::Utf8,
            Column::U32(_) => DataType::UInt32,
            Column::F64(_) => DataType::Float64,
            Column::Bool(_) => DataType::Boolean,
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

    /// Row `i` as CSV text (`None`: an empty field).
    fn csv_field(&self, i: usize) -> Option<String> {
        match self {
            Column::Str(v) => Some(v[i].clone()),
            Column::U32(v) => Some(v[i].to_string()),
            Column::F64(v) => (!v[i].is_nan()).then(|| v[i].to_string()),
            Column::Bool(v) => Some(v[i].to_string()),
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

/// Writes `path` atomically from the chunks `next` yields (`None`: done), each a list of
/// named columns of equal length (the same names and types every time).
pub(super) fn write_table(
    path: &Path,
    format: TableFormat,
    names: &[&'static str],
    mut next: impl FnMut() -> Option<Vec<Column>>,
) -> Result<()> {
    let mut failure = None;
    let result = fsutil::write_atomic_file(path, |file| {
        let mut sink = Sink::new(file, format);
        while let Some(chunk) = next() {
            if let Err(e) = sink.write(names, &chunk) {
                failure = Some(e.to_string());
                return Err(std::io::Error::other("write failed"));
            }
        }
        sink.finish().map_err(|e| {
            failure = Some(e.to_string());
            std::io::Error::other("write failed")
        })
    });
    match failure {
        Some(e) => Err(Error::file(path, e)),
        None => result,
    }
}

enum Sink<'f> {
    Parquet(Option<(parquet::arrow::ArrowWriter<&'f mut File>, Arc<Schema>)>),
    Csv(csv::Writer<BufWriter<&'f mut File>>, bool),
    Jsonl(BufWriter<&'f mut File>),
    // The Parquet writer is made with the first chunk's schema.
    Waiting(&'f mut File),
}

impl<'f> Sink<'f> {
    fn new(file: &'f mut File, format: TableFormat) -> Sink<'f> {
        match format {
            TableFormat::Parquet => Sink::Waiting(file),
            TableFormat::Csv => Sink::Csv(csv::Writer::from_writer(BufWriter::new(file)), false),
            TableFormat::Jsonl => Sink::Jsonl(BufWriter::new(file)),
        }
    }

    fn write(
        &mut self,
        names: &[&'static str],
        chunk: &[Column],
    ) -> std::result::Result<(), String> {
        let rows = chunk.first().map_or(0, |c| c.len());
        match self {
            Sink::Waiting(_) => {
                let Sink::Waiting(file) = std::mem::replace(self, Sink::Parquet(None)) else {
                    unreachable!("matched above")
                };
                let schema = Arc::new(Schema::new(
                    names
                        .iter()
                        .zip(chunk)
                        .map(|(n, c)| Field::new(*n, c.data_type(), true))
                        .collect::<Vec<_>>(),
                ));
                let properties = parquet::file::properties::WriterProperties::builder()
                    .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
                    .build();
                let writer =
                    parquet::arrow::ArrowWriter::try_new(file, schema.clone(), Some(properties))
                        .map_err(|e| e.to_string())?;
                *self = Sink::Parquet(Some((writer, schema)));
                self.write(names, chunk)
            }
            Sink::Parquet(writer) => {
                let (writer, schema) = writer.as_mut().expect("made with the first chunk");
                let batch = RecordBatch::try_new(
                    schema.clone(),
                    chunk.iter().map(Column::to_arrow).collect(),
                )
                .map_err(|e| e.to_string())?;
                writer.write(&batch).map_err(|e| e.to_string())
            }
            Sink::Csv(w, header) => {
                if !*header {
                    w.write_record(names).map_err(|e| e.to_string())?;
                    *header = true;
                }
                for i in 0..rows {
                    w.write_record(chunk.iter().map(|c| c.csv_field(i).unwrap_or_default()))
                        .map_err(|e| e.to_string())?;
                }
                Ok(())
            }
            Sink::Jsonl(w) => {
                for i in 0..rows {
                    let row: serde_json::Map<String, serde_json::Value> = names
                        .iter()
                        .zip(chunk)
                        .map(|(n, c)| (n.to_string(), c.json(i)))
                        .collect();
                    serde_json::to_writer(&mut *w, &row).map_err(|e| e.to_string())?;
                    w.write_all(b"\n").map_err(|e| e.to_string())?;
                }
                Ok(())
            }
        }
    }

    fn finish(self) -> std::result::Result<(), String> {
        match self {
            Sink::Waiting(_) => Err("no chunk was written (not even an empty one)".into()),
            Sink::Parquet(writer) => writer
                .expect("made with the first chunk")
                .0
                .close()
                .map(|_| ())
                .map_err(|e| e.to_string()),
            Sink::Csv(mut w, _) => w.flush().map_err(|e| e.to_string()),
            Sink::Jsonl(mut w) => w.flush().map_err(|e| e.to_string()),
        }
    }
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
}
