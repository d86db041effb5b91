//! What `neardup dedup` keeps under `DIR/stages/`: Parquet shards (signatures with their
//! documents' places, candidate and verified pairs, cluster labels) and the JSON markers that
//! say a shard or stage finished and from which inputs.
//!
//! Every file is written atomically (temporary file, then rename), and a marker is written
//! only after its data, so a process killed at any moment leaves either a finished shard with
//! its marker or something the rerun recomputes — never a half-written file taken as done.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Float64Array, RecordBatch, StringArray, UInt32Array,
    UInt64Array,
};
use arrow_schema::ArrowError;
use neardup::streaming::SignatureTable;
use parquet::arrow::ArrowWriter;
use serde::{Deserialize, Serialize};

use super::clusters::Clusters;
use super::stage_columns::{self as columns, Selection};
use crate::error::{Error, Result};
use crate::fsutil;

/// Version of the stage files' layout; part of every key, so files of an older layout are
/// recomputed rather than misread. (4: written by arrow-rs instead of polars — the same
/// columns, but a run does not trust files another writer made.)
pub const LAYOUT_VERSION: u32 = 4;

/// A key: the XXH3-128 of what a stage's output depends on, as hex.
pub fn key(parts: &impl Serialize) -> String {
    let json = serde_json::to_vec(&(LAYOUT_VERSION, parts)).expect("keys serialize");
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&json))
}

/// The marker of a finished shard or stage.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
    /// A sketched input file: the rows of each of its pieces (`NNNNN-PPPP.parquet`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pieces: Vec<u64>,
    /// A sketched input file: its documents shorter than `--min-words`; a piece: those of
    /// the file up to its end.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub short_documents: u64,
    /// Malformed records skipped (`--skip-invalid`), counted as `short_documents` is.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invalid_records: u64,
    /// A piece of an input file not finished yet: where the piece after it starts reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<crate::input::ReadPosition>,
    /// A sketched input file: the hash of its bytes; a piece: the hash of a prefix of the
    /// file that covers what the piece read (`pipeline::sketched`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<crate::input::content::ContentHash>,
    /// A stage after the sketch: the XXH3-64 of each of its Parquet files, checked before
    /// the stage is reused (a damaged `pairs.parquet` was read as document numbers past the
    /// corpus, and the run panicked).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub checksums: std::collections::BTreeMap<String, String>,
}

/// The XXH3-64 (hex) of every Parquet file in `dir`, by name.
pub fn parquet_checksums(dir: &Path) -> Result<std::collections::BTreeMap<String, String>> {
    let mut sums = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".parquet") && entry.file_type().is_ok_and(|t| t.is_file()) {
            sums.insert(name, file_checksum(&entry.path())?);
        }
    }
    Ok(sums)
}

fn file_checksum(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = std::io::Read::read(&mut file, &mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:016x}", hasher.digest()))
}

/// Whether the files of `dir` that `marker` vouches for are the bytes `writer` wrote (markers
/// written before checksums were recorded vouch for none); the first damaged one is said,
/// with what happens `then` (its work is done again).
pub fn intact(dir: &Path, marker: &Marker, writer: impl std::fmt::Display, then: &str) -> bool {
    let damaged = marker.checksums.iter().find_map(|(name, sum)| {
        let path = dir.join(name);
        (file_checksum(&path).ok().as_ref() != Some(sum)).then_some(path)
    });
    if let Some(file) = &damaged {
        crate::progress::warn(format_args!(
            "{}: its bytes differ from what {writer} wrote (damaged); {then}",
            file.display()
        ));
    }
    damaged.is_none()
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
    /// The keep field's value of each document, for `--keep max:FIELD` / `min:FIELD` only
    /// (`input::keep_value`; NaN: none). A shard without them has no `keep` column.
    pub keep: Option<Vec<f64>>,
    /// The signatures (`width` 0 for algorithms that run in memory).
    pub table: SignatureTable,
    /// Documents shorter than `--min-words`, matched by their exact text (counted when
    /// sketched; a shard read back takes the count from its marker).
    pub short: u64,
    /// Malformed records skipped among its lines (`--skip-invalid`; counted likewise).
    pub invalid: u64,
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

fn write_frame(path: &Path, batch: std::result::Result<RecordBatch, ArrowError>) -> Result<()> {
    columns::write_file(path, &batch.map_err(|e| corrupt(path, e))?)
}

fn read(path: &Path) -> Result<RecordBatch> {
    columns::read_file(path, Selection::default())
}

fn corrupt(path: &Path, what: impl std::fmt::Display) -> Error {
    columns::corrupt(path, what)
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Rows per row group of a sketch shard: the sketch stage writes a file's documents one row
/// group at a time as it reads them (with `--memory`, nothing more of the file is held), and a
/// spilled join reads them back one row group at a time.
/// (16,384 rows are 8 MB of signatures at 128 permutations.)
pub const SKETCH_ROWS_PER_GROUP: usize = 1 << 14;

impl SketchShard {
    /// An empty shard of signatures `width` words wide.
    pub fn new(width: usize) -> Self {
        SketchShard {
            table: SignatureTable::new(width),
            ..SketchShard::default()
        }
    }

    /// An empty shard of signatures `width` words wide, with keep values if `with_keep`.
    pub fn with_keep(width: usize, with_keep: bool) -> Self {
        SketchShard {
            keep: with_keep.then(Vec::new),
            ..SketchShard::new(width)
        }
    }

    /// Makes room for exactly `rows` more documents.
    pub fn reserve_exact(&mut self, rows: usize) {
        self.lines.reserve_exact(rows);
        self.ids.reserve_exact(rows);
        self.bytes.reserve_exact(rows);
        if let Some(keep) = &mut self.keep {
            keep.reserve_exact(rows);
        }
        self.table.reserve_exact(rows);
    }

    /// Appends `other`'s documents after this shard's.
    pub fn append(&mut self, other: SketchShard) {
        if self.is_empty() && self.table.is_empty() {
            *self = other;
            return;
        }
        self.lines.extend(other.lines);
        self.ids.extend(other.ids);
        self.bytes.extend(other.bytes);
        if let (Some(keep), Some(more)) = (&mut self.keep, other.keep) {
            keep.extend(more);
        }
        self.table.extend(&other.table);
        self.short += other.short;
        self.invalid += other.invalid;
    }

    /// Rows `from..to` as a batch of the sketch shard layout.
    fn frame(&self, from: usize, to: usize) -> std::result::Result<RecordBatch, ArrowError> {
        let width = self.table.width();
        let words = &self.table.words()[from * width..to * width];
        // Little-endian words are their stored bytes: viewed in place, not copied.
        let copied: Vec<u8>;
        let bytes: &[u8] = if cfg!(target_endian = "little") {
            bytemuck::cast_slice(words)
        } else {
            copied = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            &copied
        };
        let signatures = BinaryArray::from_iter_values(
            (0..to - from).map(|i| &bytes[i * width * 4..(i + 1) * width * 4]),
        );
        let ids: StringArray = self.ids[from..to].iter().map(Option::as_deref).collect();
        let mut all: Vec<(&str, ArrayRef)> = vec![
            (
                "line",
                Arc::new(UInt64Array::from(self.lines[from..to].to_vec())),
            ),
            ("id", Arc::new(ids)),
            (
                "bytes",
                Arc::new(UInt32Array::from(self.bytes[from..to].to_vec())),
            ),
            (
                "empty",
                Arc::new(BooleanArray::from(
                    self.table.empty_flags()[from..to].to_vec(),
                )),
            ),
            ("signature", Arc::new(signatures)),
        ];
        if let Some(keep) = &self.keep {
            all.push((
                "keep",
                Arc::new(Float64Array::from(keep[from..to].to_vec())),
            ));
        }
        columns::batch(all)
    }
}

/// A sketch shard being written part by part (each part converted to Parquet at most
/// [`SKETCH_ROWS_PER_GROUP`] rows at a time, so the conversion needs 32 MB at 128
/// permutations, not copies of the signatures); nothing is in place at its path until
/// [`commit`](SketchWriter::commit).
pub struct SketchWriter {
    path: PathBuf,
    /// Buffered: the writer writes a page's header and a row group's small columns
    /// separately. (Its footer write flushes.)
    writer: ArrowWriter<Hashing<fsutil::DirectWriter<std::fs::File>>>,
    pending: fsutil::PendingFile,
    /// The XXH3-64 of the bytes written, shared with the writer arrow-rs owns.
    hash: std::sync::Arc<std::sync::Mutex<xxhash_rust::xxh3::Xxh3>>,
}

/// A writer that hashes what passes through it: a shard's checksum without reading it back.
struct Hashing<W> {
    inner: W,
    hash: std::sync::Arc<std::sync::Mutex<xxhash_rust::xxh3::Xxh3>>,
}

impl<W: std::io::Write> std::io::Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl std::fmt::Debug for SketchWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SketchWriter")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SketchWriter {
    /// Starts the shard at `path`, of signatures `width` words wide (and keep values if
    /// `with_keep`); written past the page cache when `direct` (no one reads it back soon: the
    /// join keeps the signatures).
    pub fn create(path: &Path, width: usize, with_keep: bool, direct: bool) -> Result<Self> {
        let mut pending = fsutil::PendingFile::create(path)?;
        let schema = SketchShard::with_keep(width, with_keep)
            .frame(0, 0)
            .map_err(|e| corrupt(path, e))?
            .schema();
        let hash = std::sync::Arc::new(std::sync::Mutex::new(xxhash_rust::xxh3::Xxh3::new()));
        let hashing = Hashing {
            inner: pending.writer(direct)?,
            hash: hash.clone(),
        };
        let properties = columns::writer_properties(SKETCH_ROWS_PER_GROUP);
        let writer = ArrowWriter::try_new(hashing, schema, Some(properties))
            .map_err(|e| Error::io(path, std::io::Error::other(e)))?;
        Ok(SketchWriter {
            path: path.to_path_buf(),
            writer,
            pending,
            hash,
        })
    }

    /// Appends `part`'s documents.
    pub fn write(&mut self, part: &SketchShard) -> Result<()> {
        for from in (0..part.len()).step_by(SKETCH_ROWS_PER_GROUP) {
            let to = part.len().min(from + SKETCH_ROWS_PER_GROUP);
            let batch = part.frame(from, to).map_err(|e| corrupt(&self.path, e))?;
            let io = |e| Error::io(&self.path, std::io::Error::other(e));
            self.writer.write(&batch).map_err(io)?;
            // One row group per part written, as a spilled join reads them.
            self.writer.flush().map_err(io)?;
        }
        Ok(())
    }

    /// Finishes the file and puts it in place; the XXH3-64 (hex) of its bytes.
    pub fn commit(self) -> Result<String> {
        self.writer
            .close()
            .map_err(|e| Error::io(&self.path, std::io::Error::other(e)))?;
        self.pending.commit()?;
        let digest = self.hash.lock().unwrap_or_else(|e| e.into_inner()).digest();
        Ok(format!("{digest:016x}"))
    }
}

/// Writes a sketch shard.
pub fn write_sketch(path: &Path, shard: &SketchShard) -> Result<()> {
    let mut writer = SketchWriter::create(path, shard.table.width(), shard.keep.is_some(), false)?;
    writer.write(shard)?;
    writer.commit().map(|_| ())
}

/// Reads a sketch shard of signatures `width` words wide.
pub fn read_sketch(path: &Path, width: usize) -> Result<SketchShard> {
    let batch = read(path)?;
    let mut shard = places(path, &batch, width)?;
    shard.table = signatures(path, &batch, width)?;
    if shard.table.len() != shard.len() {
        return Err(corrupt(path, "columns of different lengths"));
    }
    Ok(shard)
}

/// Reads a sketch shard's documents without their signatures (`table` left empty): what a
/// join that does not fit in memory keeps.
pub fn read_sketch_places(path: &Path, width: usize) -> Result<SketchShard> {
    let wanted = ["line", "id", "bytes", "keep"];
    let selection = Selection {
        columns: Some(&wanted),
        row_group: None,
    };
    places(path, &columns::read_file(path, selection)?, width)
}

/// One row group of a sketch shard: its number in the file, its first row and its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowGroup {
    /// Its number in the file.
    pub index: usize,
    /// Its first row within the shard.
    pub first: usize,
    /// Its rows.
    pub rows: usize,
}

/// The row groups of a sketch shard, in order.
pub fn sketch_row_groups(path: &Path) -> Result<Vec<RowGroup>> {
    let mut first = 0;
    Ok(columns::row_group_rows(path)?
        .into_iter()
        .enumerate()
        .map(|(index, rows)| {
            let group = RowGroup { index, first, rows };
            first += rows;
            group
        })
        .collect())
}

/// Reads the signatures of one row group of a sketch shard (as [`sketch_row_groups`] gave it:
/// the file's footer is not read again to find it).
pub fn read_sketch_signatures(
    path: &Path,
    width: usize,
    group: RowGroup,
) -> Result<SignatureTable> {
    let wanted = ["empty", "signature"];
    let selection = Selection {
        columns: Some(&wanted),
        row_group: Some(group.index),
    };
    let table = signatures(path, &columns::read_file(path, selection)?, width)?;
    if table.len() != group.rows {
        return Err(corrupt(
            path,
            format!(
                "{} rows in row group {} from row {}, expected {}",
                table.len(),
                group.index,
                group.first,
                group.rows
            ),
        ));
    }
    Ok(table)
}

/// The place columns of a sketch shard batch.
fn places(path: &Path, batch: &RecordBatch, width: usize) -> Result<SketchShard> {
    let lines = columns::u64s(path, batch, "line")?;
    let ids = columns::strings(path, batch, "id")?;
    let bytes = columns::u32s(path, batch, "bytes")?;
    let keep = match batch.column_by_name("keep") {
        Some(_) => Some(columns::f64s(path, batch, "keep", f64::NAN)?),
        None => None,
    };
    if ids.len() != lines.len()
        || bytes.len() != lines.len()
        || keep.as_ref().is_some_and(|k| k.len() != lines.len())
    {
        return Err(corrupt(path, "columns of different lengths"));
    }
    Ok(SketchShard {
        lines,
        ids,
        bytes,
        keep,
        table: SignatureTable::new(width),
        short: 0,
        invalid: 0,
    })
}

/// The signature columns of a sketch shard batch.
fn signatures(path: &Path, batch: &RecordBatch, width: usize) -> Result<SignatureTable> {
    let empty = columns::bools(path, batch, "empty", true)?;
    let sigs = columns::binaries(path, batch, "signature")?;
    let mut words = Vec::with_capacity(empty.len() * width);
    for sig in sigs.iter() {
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
    if words.len() != empty.len() * width {
        return Err(corrupt(path, "columns of different lengths"));
    }
    Ok(SignatureTable::from_parts(width, words, empty))
}

/// Writes pairs (packed, `neardup::pairs::pack`), with scores when given.
pub fn write_pairs(path: &Path, pairs: &[u64], scores: Option<&[f64]>) -> Result<()> {
    let a: Vec<u32> = pairs.iter().map(|&p| (p >> 32) as u32).collect();
    let b: Vec<u32> = pairs.iter().map(|&p| p as u32).collect();
    let mut all: Vec<(&str, ArrayRef)> = vec![
        ("a", Arc::new(UInt32Array::from(a))),
        ("b", Arc::new(UInt32Array::from(b))),
    ];
    if let Some(s) = scores {
        all.push(("score", Arc::new(Float64Array::from(s.to_vec()))));
    }
    write_frame(path, columns::batch(all))
}

/// Reads pairs written by [`write_pairs`] (packed) and their scores, if any.
pub fn read_pairs(path: &Path) -> Result<(Vec<u64>, Option<Vec<f64>>)> {
    let batch = read(path)?;
    let a = columns::u32s(path, &batch, "a")?;
    let b = columns::u32s(path, &batch, "b")?;
    let pairs = a
        .into_iter()
        .zip(b)
        .map(|(a, b)| ((a as u64) << 32) | b as u64)
        .collect();
    let scores = match batch.column_by_name("score") {
        Some(_) => Some(columns::f64s(path, &batch, "score", f64::NAN)?),
        None => None,
    };
    Ok((pairs, scores))
}

/// Writes every document's cluster, representative and similarity to it.
pub fn write_clusters(path: &Path, clusters: &Clusters) -> Result<()> {
    let all: Vec<(&str, ArrayRef)> = vec![
        (
            "cluster",
            Arc::new(UInt32Array::from(clusters.labels.clone())),
        ),
        (
            "representative",
            Arc::new(UInt32Array::from(clusters.representative.clone())),
        ),
        (
            "similarity",
            Arc::new(Float64Array::from(clusters.similarity.clone())),
        ),
        (
            "within_threshold",
            Arc::new(BooleanArray::from(clusters.within_threshold.clone())),
        ),
    ];
    write_frame(path, columns::batch(all))
}

/// Reads [`write_clusters`].
pub fn read_clusters(path: &Path) -> Result<Clusters> {
    let batch = read(path)?;
    Ok(Clusters {
        labels: columns::u32s(path, &batch, "cluster")?,
        representative: columns::u32s(path, &batch, "representative")?,
        similarity: columns::f64s(path, &batch, "similarity", f64::NAN)?,
        within_threshold: columns::bools(path, &batch, "within_threshold", false)?,
    })
}

/// Where the sketch stage keeps input file `file`'s inflated bytes when it is compressed
/// JSONL, for the outputs stage (which removes it once done).
pub fn inflated_copy_path(output: &Path, file: usize) -> PathBuf {
    stage_dir(output, "sketch").join(format!("{file:05}.inflated.jsonl"))
}

/// The files of one stage: `DIR/stages/<stage>/`.
pub fn stage_dir(output: &Path, stage: &str) -> PathBuf {
    output.join(STAGES).join(stage)
}

const STAGES: &str = "stages";

/// The file that says a `stages` folder is neardup's (so that it may write and delete there).
const STAGES_MARK: &str = ".neardup-stages";

/// What a run may find in a `stages` folder an earlier neardup made before it was marked.
/// (`ray`: `neardup.ray`'s shards.)
const STAGE_NAMES: [&str; 6] = [
    "sketch",
    "candidates",
    "verify",
    "components",
    "outputs",
    "ray",
];

/// Locks `OUT` for this run: shared by `--shard` runs (each sketches files of its own, and
/// shards on several machines share the folder by design), exclusive otherwise. Two runs
/// into one folder published a complete-looking set that mixed them (the second's summary,
/// the first's outputs). Held while the returned file lives; `flock` works across containers
/// and, on NFS, across machines.
pub(super) fn lock_output(output: &Path, shard: bool) -> Result<std::fs::File> {
    let path = output.join(STAGES).join("lock");
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    let taken = match shard {
        true => file.try_lock_shared(),
        false => file.try_lock(),
    };
    if taken.is_err() {
        return Err(Error::file(
            output,
            format!(
                "another neardup run is using this output folder ({} is locked): wait for it \
                 to finish, or give -o another folder{}",
                path.display(),
                match shard {
                    true => "",
                    false => " (shards may run together; the run that joins them runs alone)",
                }
            ),
        ));
    }
    Ok(file)
}

/// Makes sure `OUT/stages` is this tool's before a run writes or deletes anything there, and
/// marks it so. It may be a symbolic link to a folder elsewhere (stages on a bigger disk): the
/// run then writes into that folder, which must be empty or marked, so that a link to a
/// folder of the user's never has its files replaced or its `outputs/` emptied.
pub(super) fn claim_stages(output: &Path) -> Result<()> {
    let stages = output.join(STAGES);
    let mark = stages.join(STAGES_MARK);
    if !stages.exists() {
        if std::fs::symlink_metadata(&stages).is_ok() {
            return Err(Error::file(
                &stages,
                "a symbolic link to nothing: point it at a folder",
            ));
        }
        std::fs::create_dir_all(&stages).map_err(|e| Error::io(&stages, e))?;
    } else if !stages.is_dir() {
        return Err(Error::file(
            &stages,
            "not a folder: the run keeps its stage files there",
        ));
    }
    if mark.is_file() {
        return Ok(());
    }
    let linked = std::fs::symlink_metadata(&stages).is_ok_and(|m| m.is_symlink());
    let foreign: Vec<String> = std::fs::read_dir(&stages)
        .map_err(|e| Error::io(&stages, e))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| linked || !STAGE_NAMES.contains(&name.as_str()))
        // A run killed while it wrote the mark left its temporary file and no mark: the folder
        // is this tool's (the sweep after the claim removes that file).
        .filter(|name| !crate::temp_files::is_temporary_of(name, STAGES_MARK))
        .collect();
    if let Some(first) = foreign.first() {
        return Err(Error::file(
            &stages,
            format!(
                "holds files neardup did not write ({first}{}) and no {STAGES_MARK}: a run \
                 writes and deletes stage files there, so it must be an empty folder (or a \
                 link to one) or one a run made",
                if foreign.len() > 1 { ", …" } else { "" }
            ),
        ));
    }
    fsutil::write_bytes(
        &mark,
        b"This folder holds the stage files of a `neardup dedup` run, which may replace or \
          delete any file in it.\n",
    )
}
