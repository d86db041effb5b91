//! What `neardup dedup` keeps under `DIR/stages/`: Parquet shards (signatures with their
//! documents' places, candidate and verified pairs, cluster labels) and the JSON markers that
//! say a shard or stage finished and from which inputs.
//!
//! Every file is written atomically (temporary file, then rename), and a marker is written
//! only after its data, so a process killed at any moment leaves either a finished shard with
//! its marker or something the rerun recomputes — never a half-written file taken as done.

use std::path::{Path, PathBuf};

use neardup::streaming::SignatureTable;
use polars::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{LabError, Result};
use crate::fsutil;

/// Version of the stage files' layout; part of every key, so files of an older layout are
/// recomputed rather than misread.
pub const LAYOUT_VERSION: u32 = 1;

/// A key: the XXH3-128 of what a stage's output depends on, as hex.
pub fn key(parts: &impl Serialize) -> String {
    let json = serde_json::to_vec(&(LAYOUT_VERSION, parts)).expect("keys serialize");
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&json))
}

/// The marker of a finished shard or stage.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Marker {
    /// The key of its inputs.
    pub key: String,
    /// Rows written (documents or pairs).
    pub rows: u64,
    /// Wall seconds it took.
    pub seconds: f64,
    /// Text bytes read (sketch shards).
    #[serde(default)]
    pub text_bytes: u64,
}

/// The marker at `path` if it exists, parses and carries `key`.
pub fn finished(path: &Path, key: &str) -> Option<Marker> {
    let m: Marker = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    (m.key == key).then_some(m)
}

/// Writes a marker.
pub fn mark(path: &Path, marker: &Marker) -> Result<()> {
    let json = serde_json::to_vec_pretty(marker).expect("markers serialize");
    fsutil::write_bytes(path, &json)
}

/// The documents of one input file and their signatures.
#[derive(Debug, Clone, Default)]
pub struct SketchShard {
    /// Line (JSONL, CSV) or row (Parquet) of each record, 1-based.
    pub lines: Vec<u64>,
    /// Each record's id (`None`: no id field; the output names it by its row number).
    pub ids: Vec<Option<String>>,
    /// Text length in bytes (for `--keep longest`).
    pub bytes: Vec<u32>,
    /// The signatures (`width` 0 for algorithms that run in memory).
    pub table: SignatureTable,
}

impl SketchShard {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether the shard has no document.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// Stage files are uncompressed: signatures and pair ids are random-looking integers that
/// compression only slows down.
fn write_frame(path: &Path, df: &mut DataFrame) -> Result<()> {
    fsutil::write_atomic(path, |w| {
        ParquetWriter::new(w)
            .with_compression(ParquetCompression::Uncompressed)
            .finish(df)
            .map(|_| ())
            .map_err(std::io::Error::other)
    })
}

fn read(path: &Path) -> Result<DataFrame> {
    crate::corpus::parquet::read_frame(path)
}

fn corrupt(path: &Path, what: impl std::fmt::Display) -> LabError {
    LabError::file(
        path,
        format!("stage file is damaged ({what}); delete it and rerun to recompute it"),
    )
}

/// Rows per row group of a sketch shard: the shard is converted to Parquet one row group at a
/// time, so writing it needs 32 MB (at 128 permutations) beyond the signatures, not a second
/// and third copy of them (a 1M-document shard took the process from 0.6 to 1.7 GB).
const SKETCH_ROWS_PER_GROUP: usize = 1 << 16;

/// Writes a sketch shard.
pub fn write_sketch(path: &Path, shard: &SketchShard) -> Result<()> {
    let width = shard.table.width();
    let frame = |from: usize, to: usize| {
        let bytes: Vec<u8> = shard.table.words()[from * width..to * width]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let signatures = BinaryChunked::from_iter_values(
            "signature".into(),
            (0..to - from).map(|i| &bytes[i * width * 4..(i + 1) * width * 4]),
        );
        DataFrame::new(
            to - from,
            vec![
                Column::new("line".into(), &shard.lines[from..to]),
                Column::new("id".into(), &shard.ids[from..to]),
                Column::new("bytes".into(), &shard.bytes[from..to]),
                Column::new("empty".into(), &shard.table.empty_flags()[from..to]),
                signatures.into_series().into(),
            ],
        )
    };
    let n = shard.len();
    fsutil::write_atomic(path, |w| {
        let io = std::io::Error::other;
        let first = frame(0, n.min(SKETCH_ROWS_PER_GROUP)).map_err(io)?;
        let mut writer = ParquetWriter::new(w)
            .with_compression(ParquetCompression::Uncompressed)
            .batched(first.schema())
            .map_err(io)?;
        writer.write_batch(&first).map_err(io)?;
        drop(first);
        for from in (SKETCH_ROWS_PER_GROUP..n).step_by(SKETCH_ROWS_PER_GROUP) {
            let df = frame(from, n.min(from + SKETCH_ROWS_PER_GROUP)).map_err(io)?;
            writer.write_batch(&df).map_err(io)?;
        }
        writer.finish().map(|_| ()).map_err(io)
    })
}

/// Reads a sketch shard of signatures `width` words wide.
pub fn read_sketch(path: &Path, width: usize) -> Result<SketchShard> {
    let df = read(path)?;
    let col = |name: &str| df.column(name).map_err(|e| corrupt(path, e));
    let lines: Vec<u64> = col("line")?
        .u64()
        .map_err(|e| corrupt(path, e))?
        .into_no_null_iter()
        .collect();
    let ids: Vec<Option<String>> = col("id")?
        .str()
        .map_err(|e| corrupt(path, e))?
        .iter()
        .map(|s| s.map(str::to_string))
        .collect();
    let bytes: Vec<u32> = col("bytes")?
        .u32()
        .map_err(|e| corrupt(path, e))?
        .into_no_null_iter()
        .collect();
    let empty: Vec<bool> = col("empty")?
        .bool()
        .map_err(|e| corrupt(path, e))?
        .iter()
        .map(|b| b.unwrap_or(true))
        .collect();
    let mut words = Vec::with_capacity(lines.len() * width);
    for sig in col("signature")?
        .binary()
        .map_err(|e| corrupt(path, e))?
        .iter()
    {
        let sig = sig.unwrap_or_default();
        if sig.len() != width * 4 {
            return Err(corrupt(
                path,
                format!("a signature of {} bytes, expected {}", sig.len(), width * 4),
            ));
        }
        words.extend(
            sig.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
    }
    let n = lines.len();
    if ids.len() != n || bytes.len() != n || empty.len() != n || words.len() != n * width {
        return Err(corrupt(path, "columns of different lengths"));
    }
    Ok(SketchShard {
        lines,
        ids,
        bytes,
        table: SignatureTable::from_parts(width, words, empty),
    })
}

/// Writes pairs (packed, `neardup::pairs::pack`), with scores when given.
pub fn write_pairs(path: &Path, pairs: &[u64], scores: Option<&[f64]>) -> Result<()> {
    let a: Vec<u32> = pairs.iter().map(|&p| (p >> 32) as u32).collect();
    let b: Vec<u32> = pairs.iter().map(|&p| p as u32).collect();
    let mut columns = vec![Column::new("a".into(), a), Column::new("b".into(), b)];
    if let Some(s) = scores {
        columns.push(Column::new("score".into(), s));
    }
    let mut df = DataFrame::new(pairs.len(), columns).map_err(|e| corrupt(path, e))?;
    write_frame(path, &mut df)
}

/// Reads pairs written by [`write_pairs`] (packed) and their scores, if any.
pub fn read_pairs(path: &Path) -> Result<(Vec<u64>, Option<Vec<f64>>)> {
    let df = read(path)?;
    let col = |name: &str| df.column(name).map_err(|e| corrupt(path, e));
    let a = col("a")?.u32().map_err(|e| corrupt(path, e))?.clone();
    let b = col("b")?.u32().map_err(|e| corrupt(path, e))?.clone();
    let pairs = a
        .into_no_null_iter()
        .zip(b.into_no_null_iter())
        .map(|(a, b)| ((a as u64) << 32) | b as u64)
        .collect();
    let scores = match df.column("score") {
        Ok(c) => Some(
            c.f64()
                .map_err(|e| corrupt(path, e))?
                .into_no_null_iter()
                .collect(),
        ),
        Err(_) => None,
    };
    Ok((pairs, scores))
}

/// Writes one cluster label per document.
pub fn write_labels(path: &Path, labels: &[u32]) -> Result<()> {
    let mut df = DataFrame::new(labels.len(), vec![Column::new("cluster".into(), labels)])
        .map_err(|e| corrupt(path, e))?;
    write_frame(path, &mut df)
}

/// Reads [`write_labels`].
pub fn read_labels(path: &Path) -> Result<Vec<u32>> {
    let df = read(path)?;
    Ok(df
        .column("cluster")
        .map_err(|e| corrupt(path, e))?
        .u32()
        .map_err(|e| corrupt(path, e))?
        .into_no_null_iter()
        .collect())
}

/// The files of one stage: `DIR/stages/<stage>/`.
pub fn stage_dir(output: &Path, stage: &str) -> PathBuf {
    output.join("stages").join(stage)
}
