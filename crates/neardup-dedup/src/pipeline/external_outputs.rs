//! The outputs of a run made by another engine (`neardup.ray.dedup`), published in
//! `neardup dedup`'s layout by `neardup dedup`'s own writers: the same `clusters.parquet`
//! bytes, `pairs.parquet`, `removed.txt`, `summary.json` schema and `README.md`.
//!
//! The engine writes, per input file, a clusters shard and a pairs shard (Parquet, any
//! writer) and the deduplicated file already under its staged name. Here the shards are
//! streamed in file order, re-chunked as `neardup dedup` chunks its tables (so the Parquet row
//! groups and bytes are the same) and counted for the summary; memory holds one chunk and one
//! number per cluster, never the corpus's ids. The set is then published as one
//! (`publish`), `summary.json` last.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, UInt32Type};
use arrow_array::{Array, RecordBatch};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use serde::Deserialize;

use super::audit_tables::{CHUNK_ROWS, CLUSTERS_COLUMNS, Column, Kind, PAIRS_COLUMNS, write_table};
use super::options::{ClusterMode, Keep, StageReport, TableFormat};
use super::publish;
use super::run_readme::readme;
use super::summary::{Engine, LargeCluster, Summary, size_buckets};
use crate::error::{Error, Result};
use crate::fsutil;

/// What the engine knows of its run (the rest of the summary is counted from the shards).
#[derive(Debug, Deserialize)]
pub struct ExternalRun {
    /// Input files (or blocks), in document order.
    pub inputs: Vec<String>,
    pub text_field: String,
    pub id_field: String,
    pub algorithm: String,
    /// Resolved parameters, as `neardup dedup` records them.
    pub params: neardup::detector::ParamMap,
    pub keep: String,
    pub cluster_mode: String,
    pub documents: u64,
    pub text_bytes: u64,
    /// Verified pairs.
    pub pairs: u64,
    pub stages: Vec<ExternalStage>,
    pub seconds: f64,
    pub threads: usize,
    pub engine: Engine,
    /// Per input, in order: its clusters shard and pairs shard.
    pub clusters_shards: Vec<PathBuf>,
    pub pairs_shards: Vec<PathBuf>,
    /// The deduplicated files, relative to the output directory, already staged.
    pub deduplicated: Vec<String>,
    /// The kept records' text files (`write_text`), relative to the output directory,
    /// already staged.
    #[serde(default)]
    pub kept_text: Vec<String>,
    /// The field holding pages' HTML, if one was read.
    #[serde(default)]
    pub html_field: Option<String>,
    /// Which text of web pages was compared, when the inputs held pages.
    #[serde(default)]
    pub extract: Option<String>,
    /// What happened to web pages, summed over the inputs: records skipped by reason,
    /// extraction outcomes.
    #[serde(default)]
    pub pages: std::collections::BTreeMap<String, u64>,
    /// The deduplicated files and kept text are in place already, elsewhere (an object
    /// store the engine uploaded them to): named in the summary, not published from the
    /// staging directory.
    #[serde(default)]
    pub corpus_elsewhere: bool,
    /// Where the set is published, as its README names it (an object store's URI) when that
    /// is not the directory it is written in.
    #[serde(default)]
    pub output_name: Option<String>,
}

/// One stage of the engine's run.
#[derive(Debug, Deserialize)]
pub struct ExternalStage {
    pub stage: String,
    pub seconds: f64,
    pub rows: u64,
}

/// A clusters shard: the clusters table's columns, then whether each document is within the
/// threshold of the one kept for it (what `removed_below_threshold` counts).
const CLUSTERS_SHARD: [(&str, Kind); 7] = [
    CLUSTERS_COLUMNS[0],
    CLUSTERS_COLUMNS[1],
    CLUSTERS_COLUMNS[2],
    CLUSTERS_COLUMNS[3],
    CLUSTERS_COLUMNS[4],
    CLUSTERS_COLUMNS[5],
    ("within", Kind::Bool),
];

/// Publishes `run`'s shards under `output` in `neardup dedup`'s layout; returns the summary.
pub fn publish_external(output: &Path, run: &ExternalRun) -> Result<Summary> {
    let invalid = |e: String| Error::file(output, e);
    let keep: Keep = run.keep.parse().map_err(invalid)?;
    let cluster_mode: ClusterMode = run.cluster_mode.parse().map_err(invalid)?;
    let staged = publish::staged_dir(output);
    let format = TableFormat::Parquet;
    let [clusters_name, pairs_name] = publish::table_names(format);
    let mut counts = Counts::default();
    let mut rows = Shards::new(&run.clusters_shards, &CLUSTERS_SHARD);
    write_table(
        &staged.join(&clusters_name),
        format,
        &CLUSTERS_COLUMNS,
        || {
            let mut chunk = rows.next_chunk()?;
            counts.add(&chunk);
            chunk.truncate(CLUSTERS_COLUMNS.len());
            Some(chunk)
        },
    )?;
    rows.failure()?;
    let mut pairs = Shards::new(&run.pairs_shards, &PAIRS_COLUMNS);
    write_table(&staged.join(&pairs_name), format, &PAIRS_COLUMNS, || {
        pairs.next_chunk()
    })?;
    pairs.failure()?;
    let largest = removed_and_largest(&staged.join(&clusters_name), &staged, &counts)?;
    let summary = summary(run, keep, cluster_mode, &counts, largest);
    let json = serde_json::to_vec_pretty(&summary).expect("summary serializes");
    let mut set = publish::staged_names(format, &[]);
    if !run.corpus_elsewhere {
        set.extend(run.deduplicated.iter().chain(&run.kept_text).cloned());
    }
    let named = run.output_name.as_deref().map_or(output, Path::new);
    publish::publish(output, &set, &readme(&summary, named), &json)?;
    Ok(summary)
}

/// What the clusters table says, counted chunk by chunk.
#[derive(Default)]
struct Counts {
    /// Members per cluster number.
    sizes: Vec<u32>,
    removed: u64,
    removed_below_threshold: u64,
    rows: u64,
}

impl Counts {
    /// Counts a chunk of the clusters shards (the clusters columns, then `within`).
    fn add(&mut self, chunk: &[Column]) {
        let (Column::U32(labels), Column::Bool(kept)) = (&chunk[1], &chunk[3]) else {
            unreachable!("the clusters schema")
        };
        for &l in labels {
            let l = l as usize;
            if l >= self.sizes.len() {
                self.sizes.resize(l + 1, 0);
            }
            self.sizes[l] += 1;
        }
        self.rows += labels.len() as u64;
        self.removed += kept.iter().filter(|&&k| !k).count() as u64;
        let Column::Bool(within) = &chunk[6] else {
            unreachable!("the clusters shard schema")
        };
        self.removed_below_threshold +=
            kept.iter().zip(within).filter(|&(&k, &w)| !k && !w).count() as u64;
    }
}

/// Writes `removed.txt` from the published clusters table and names the ten largest
/// clusters (the first member's representative, as `neardup dedup` does).
fn removed_and_largest(
    clusters: &Path,
    staged: &Path,
    counts: &Counts,
) -> Result<Vec<LargeCluster>> {
    let mut order: Vec<u32> = (0..counts.sizes.len() as u32)
        .filter(|&c| counts.sizes[c as usize] > 1)
        .collect();
    order.sort_by_key(|&c| (std::cmp::Reverse(counts.sizes[c as usize]), c));
    order.truncate(10);
    let mut named: Vec<Option<String>> = vec![None; order.len()];
    let files = [clusters.to_path_buf()];
    let mut rows = Shards::new(&files, &CLUSTERS_COLUMNS[..5]);
    fsutil::write_atomic(&staged.join("removed.txt"), |w| {
        while let Some(chunk) = rows.next_chunk() {
            write_removed(w, &chunk, &order, &mut named)?;
        }
        Ok(())
    })?;
    rows.failure()?;
    Ok(order
        .iter()
        .zip(named)
        .map(|(&c, representative)| LargeCluster {
            cluster: c,
            size: counts.sizes[c as usize],
            representative: representative.unwrap_or_default(),
        })
        .collect())
}

fn write_removed(
    w: &mut dyn Write,
    chunk: &[Column],
    largest: &[u32],
    named: &mut [Option<String>],
) -> std::io::Result<()> {
    let (Column::Str(ids), Column::U32(labels), Column::Bool(kept), Column::Str(reps)) =
        (&chunk[0], &chunk[1], &chunk[3], &chunk[4])
    else {
        unreachable!("the clusters schema")
    };
    for i in 0..ids.len() {
        if !kept[i] {
            writeln!(w, "{}", ids[i])?;
        }
        if let Some(at) = largest.iter().position(|&c| c == labels[i])
            && named[at].is_none()
        {
            named[at] = Some(reps[i].clone());
        }
    }
    Ok(())
}

fn summary(
    run: &ExternalRun,
    keep: Keep,
    cluster_mode: ClusterMode,
    counts: &Counts,
    largest_clusters: Vec<LargeCluster>,
) -> Summary {
    let in_clusters: Vec<u32> = counts.sizes.iter().copied().filter(|&s| s > 1).collect();
    Summary {
        version: crate::version::VERSION.to_string(),
        inputs: run.inputs.clone(),
        text_field: run.text_field.clone(),
        id_field: run.id_field.clone(),
        html_field: run.html_field.clone(),
        extract: run.extract.clone(),
        pages: run.pages.clone(),
        algorithm: run.algorithm.clone(),
        params: run.params.clone(),
        streamed: true,
        spilled: false,
        without_keep_value: None,
        keep,
        cluster_mode,
        documents: run.documents,
        indexed_documents: 0,
        duplicates_of_index: 0,
        text_bytes: run.text_bytes,
        min_words: 0,
        short_documents: 0,
        invalid_records: 0,
        clusters: in_clusters.len() as u64,
        documents_in_clusters: in_clusters.iter().map(|&s| s as u64).sum(),
        removed: counts.removed,
        removed_below_threshold: Some(counts.removed_below_threshold),
        kept: run.documents - counts.removed,
        pairs: run.pairs,
        cluster_sizes: size_buckets(&in_clusters),
        largest_clusters,
        stages: run
            .stages
            .iter()
            .map(|s| StageReport {
                stage: Cow::Owned(s.stage.clone()),
                seconds: s.seconds,
                reused: false,
                rows: s.rows,
            })
            .collect(),
        seconds: run.seconds,
        peak_rss_bytes: None,
        threads: run.threads,
        tables: publish::table_names(TableFormat::Parquet).to_vec(),
        deduplicated: run.deduplicated.clone(),
        engine: run.engine.clone(),
    }
}

/// The rows of several Parquet files, in order, as chunks of `CHUNK_ROWS` rows of the
/// columns `schema` names. A read error ends the chunks and is kept for [`Shards::failure`].
struct Shards<'a> {
    files: std::slice::Iter<'a, PathBuf>,
    schema: &'a [(&'a str, Kind)],
    current: Option<(PathBuf, ParquetRecordBatchReader)>,
    pending: Option<(PathBuf, RecordBatch, usize)>,
    failed: Option<Error>,
}

impl<'a> Shards<'a> {
    fn new(files: &'a [PathBuf], schema: &'a [(&'a str, Kind)]) -> Self {
        Shards {
            files: files.iter(),
            schema,
            current: None,
            pending: None,
            failed: None,
        }
    }

    /// The error that ended the chunks early, if any.
    fn failure(&mut self) -> Result<()> {
        self.failed.take().map_or(Ok(()), Err)
    }

    /// The next chunk; `None` at the end or on an error.
    fn next_chunk(&mut self) -> Option<Vec<Column>> {
        self.fill().unwrap_or_else(|e| {
            self.failed = Some(e);
            None
        })
    }

    fn fill(&mut self) -> Result<Option<Vec<Column>>> {
        let mut chunk: Option<Vec<Column>> = None;
        let mut rows = 0;
        while rows < CHUNK_ROWS {
            let Some((path, batch, from)) = self.next_batch()? else {
                break;
            };
            let take = (batch.num_rows() - from).min(CHUNK_ROWS - rows);
            let part = columns(&path, &batch.slice(from, take), self.schema)?;
            match &mut chunk {
                None => chunk = Some(part),
                Some(c) => c.iter_mut().zip(part).for_each(|(c, p)| c.extend(p)),
            }
            rows += take;
            if from + take < batch.num_rows() {
                self.pending = Some((path, batch, from + take));
            }
        }
        Ok(chunk)
    }

    /// The batch to read next and where to start in it.
    fn next_batch(&mut self) -> Result<Option<(PathBuf, RecordBatch, usize)>> {
        if let Some(p) = self.pending.take() {
            return Ok(Some(p));
        }
        loop {
            if let Some((path, reader)) = &mut self.current {
                match reader.next() {
                    Some(batch) => {
                        let batch = batch.map_err(|e| Error::file(path, e.to_string()))?;
                        return Ok(Some((path.clone(), batch, 0)));
                    }
                    None => self.current = None,
                }
            }
            let Some(path) = self.files.next() else {
                return Ok(None);
            };
            let file = File::open(path).map_err(|e| Error::io(path, e))?;
            let reader = ParquetRecordBatchReaderBuilder::try_new(file)
                .and_then(|b| b.with_batch_size(CHUNK_ROWS).build())
                .map_err(|e| Error::file(path, e.to_string()))?;
            self.current = Some((path.clone(), reader));
        }
    }
}

/// `batch`'s columns named by `schema`, checked for their types.
fn columns(path: &Path, batch: &RecordBatch, schema: &[(&str, Kind)]) -> Result<Vec<Column>> {
    schema
        .iter()
        .map(|&(name, kind)| {
            batch
                .column_by_name(name)
                .and_then(|array| column(array.as_ref(), kind))
                .ok_or_else(|| Error::file(path, format!("column {name:?}: missing or mistyped")))
        })
        .collect()
}

fn column(array: &dyn Array, kind: Kind) -> Option<Column> {
    Some(match kind {
        Kind::Str => Column::Str(
            array
                .as_string_opt::<i32>()?
                .iter()
                .map(|s| s.unwrap_or_default().to_string())
                .collect(),
        ),
        Kind::U32 => Column::U32(array.as_primitive_opt::<UInt32Type>()?.values().to_vec()),
        Kind::F64 => Column::F64(
            array
                .as_primitive_opt::<Float64Type>()?
                .iter()
                .map(|x| x.unwrap_or(f64::NAN))
                .collect(),
        ),
        Kind::Bool => Column::Bool(
            array
                .as_boolean_opt()?
                .iter()
                .map(|b| b == Some(true))
                .collect(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{ArrayRef, BooleanArray, Float64Array, StringArray, UInt32Array};
    use arrow_schema::{Field, Schema};

    fn scratch(name: &str) -> crate::test_dir::TestDir {
        crate::test_dir::TestDir::new(&format!("external-{name}"))
    }

    /// Rows `from..to` of a synthetic clusters shard: cluster = row / 3, the first of each
    /// three kept, every fifth removed one below the threshold.
    fn shard_rows(from: usize, to: usize) -> RecordBatch {
        let rows = from..to;
        let kept = |i: usize| i.is_multiple_of(3);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from_iter_values(
                rows.clone().map(|i| format!("d{i}")),
            )),
            Arc::new(UInt32Array::from_iter_values(
                rows.clone().map(|i| (i / 3) as u32),
            )),
            Arc::new(UInt32Array::from_iter_values(rows.clone().map(|_| 3))),
            Arc::new(BooleanArray::from_iter(rows.clone().map(|i| Some(kept(i))))),
            Arc::new(StringArray::from_iter_values(
                rows.clone().map(|i| format!("d{}", i / 3 * 3)),
            )),
            Arc::new(Float64Array::from_iter_values(
                rows.clone().map(|i| if kept(i) { 1.0 } else { 0.9 }),
            )),
            Arc::new(BooleanArray::from_iter(
                rows.map(|i| Some(kept(i) || !i.is_multiple_of(5))),
            )),
        ];
        let fields: Vec<Field> = CLUSTERS_SHARD
            .iter()
            .zip(&columns)
            .map(|((n, _), c)| Field::new(*n, c.data_type().clone(), true))
            .collect();
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
    }

    /// A shard of rows `from..to` written in batches of `batch` rows.
    fn write_shard(path: &Path, from: usize, to: usize, batch: usize) {
        let schema = shard_rows(0, 0).schema();
        let mut w = parquet::arrow::ArrowWriter::try_new(File::create(path).unwrap(), schema, None)
            .unwrap();
        let mut at = from;
        while at < to {
            let end = (at + batch).min(to);
            w.write(&shard_rows(at, end)).unwrap();
            at = end;
        }
        w.close().unwrap();
    }

    /// The oracle: the clusters table as `neardup dedup` writes it, one chunk of
    /// `CHUNK_ROWS` rows at a time over all rows.
    fn written_in_one_process(path: &Path, rows: usize) {
        let mut from = 0;
        write_table(path, TableFormat::Parquet, &CLUSTERS_COLUMNS, || {
            (from < rows).then(|| {
                let to = (from + CHUNK_ROWS).min(rows);
                let batch = shard_rows(from, to);
                from = to;
                columns(Path::new("oracle"), &batch, &CLUSTERS_COLUMNS).unwrap()
            })
        })
        .unwrap();
    }

    #[test]
    fn shards_become_the_table_one_process_writes_byte_for_byte() {
        let dir = scratch("bytes");
        // Shard sizes that cross the chunk size inside a file, at a file's end and with an
        // empty shard; batches of odd sizes.
        let bounds = [
            0,
            CHUNK_ROWS - 5,
            CHUNK_ROWS + 2,
            CHUNK_ROWS + 2,
            2 * CHUNK_ROWS + 17,
        ];
        let mut shards = Vec::new();
        for (i, w) in bounds.windows(2).enumerate() {
            let path = dir.join(format!("{i:05}.parquet"));
            write_shard(&path, w[0], w[1], 70_001);
            shards.push(path);
        }
        let rows = *bounds.last().unwrap();
        let run = ExternalRun {
            inputs: vec!["a".into()],
            text_field: "text".into(),
            id_field: "id".into(),
            algorithm: "minhash-lsh".into(),
            params: Default::default(),
            keep: "first".into(),
            cluster_mode: "connected".into(),
            documents: rows as u64,
            text_bytes: 0,
            pairs: 0,
            stages: vec![],
            seconds: 0.0,
            threads: 1,
            engine: Engine::process(),
            clusters_shards: shards,
            pairs_shards: vec![],
            deduplicated: vec![],
            kept_text: vec![],
            html_field: None,
            extract: None,
            pages: Default::default(),
            corpus_elsewhere: false,
            output_name: None,
        };
        let output = dir.join("out");
        let summary = publish_external(&output, &run).unwrap();
        let oracle = dir.join("oracle.parquet");
        written_in_one_process(&oracle, rows);
        assert_eq!(
            std::fs::read(output.join("clusters.parquet")).unwrap(),
            std::fs::read(&oracle).unwrap()
        );
        let removed: Vec<usize> = (0..rows).filter(|i| i % 3 != 0).collect();
        let listed = std::fs::read_to_string(output.join("removed.txt")).unwrap();
        assert_eq!(listed.lines().count(), removed.len());
        assert_eq!(listed.lines().nth(1), Some("d2"));
        assert_eq!(summary.removed, removed.len() as u64);
        let below = removed.iter().filter(|&&i| i % 5 == 0).count() as u64;
        assert_eq!(summary.removed_below_threshold, Some(below));
        assert_eq!(
            summary.clusters,
            rows.div_ceil(3) as u64 - u64::from(rows % 3 == 1)
        );
        assert_eq!(summary.largest_clusters[0].representative, "d0");
        assert!(output.join("summary.json").is_file());
    }

    #[test]
    fn a_shard_with_a_missing_column_is_an_error_naming_it() {
        let dir = scratch("missing");
        let path = dir.join("00000.parquet");
        let batch = shard_rows(0, 10);
        let batch = batch.project(&[0, 1, 2, 3, 4, 5]).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(
            File::create(&path).unwrap(),
            batch.schema(),
            None,
        )
        .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let mut shards = Shards::new(std::slice::from_ref(&path), &CLUSTERS_SHARD);
        assert!(shards.next_chunk().is_none());
        let e = shards.failure().unwrap_err().to_string();
        assert!(
            e.contains("00000.parquet") && e.contains("\"within\""),
            "{e}"
        );
    }
}
