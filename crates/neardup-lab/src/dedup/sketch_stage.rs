//! The sketch stage of `neardup dedup`: every input file becomes one shard of its documents'
//! places, ids, lengths and signatures (`stages/sketch/NNNNN.parquet` with its marker), texts
//! streamed block by block; then every shard is read into [`Documents`] for the join.

use std::path::{Path, PathBuf};
use std::time::Instant;

use neardup::streaming::{SignatureTable, SketchScratch, StreamingDetector};
use rayon::prelude::*;

use super::inputs::{self, InputFile, Record};
use super::stage_files::{self, Marker, SketchShard, finished, key, mark, stage_dir};
use super::{Run, Stage, StageReport};
use crate::error::{LabError, Result};

/// Every document's place and signature, in document order.
#[derive(Debug)]
pub struct Documents {
    /// Per input file: its documents.
    pub shards: Vec<SketchShard>,
    /// All signatures, in document order.
    pub table: SignatureTable,
    /// Index of each file's first document.
    pub offsets: Vec<usize>,
}

impl Documents {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Document `doc`'s (file index, index within the file).
    pub fn locate(&self, doc: usize) -> (usize, usize) {
        let f = self.offsets.partition_point(|&o| o <= doc) - 1;
        (f, doc - self.offsets[f])
    }

    /// Document `doc`'s id (its 0-based document number when it has none).
    pub fn id(&self, doc: usize) -> String {
        let (f, i) = self.locate(doc);
        self.shards[f].ids[i]
            .clone()
            .unwrap_or_else(|| doc.to_string())
    }
}

impl Run<'_> {
    /// The sketch stage: one shard per input file. Returns every file's key; the shards it
    /// computed stay in `self.fresh` so the join does not read them back.
    pub(super) fn sketch_stage(&mut self, run_it: bool) -> Result<Vec<String>> {
        let dir = stage_dir(&self.options.output, Stage::Sketch.name());
        let base = self.sketch_key_base();
        let keys: Vec<String> = self
            .files
            .iter()
            .map(|f| {
                let canonical = std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone());
                key(&(
                    &base,
                    &self.options.text_field,
                    &self.options.id_field,
                    canonical,
                    f.size,
                    f.mtime_ns,
                ))
            })
            .collect();
        if !run_it {
            return Ok(keys);
        }
        let mine: Vec<usize> = (0..self.files.len())
            .filter(|i| self.options.shard.is_none_or(|(s, n)| i % n == s))
            .filter(|&i| finished(&marker_path(&dir, i), &keys[i]).is_none())
            .collect();
        let t = Instant::now();
        let total: u64 = mine.iter().map(|&i| self.files[i].size).sum();
        let bar = crate::progress::bytes(total, "sketch");
        // Files are sketched concurrently (each also parallel inside, by blocks): one file
        // at a time left a core idle between blocks (133 % CPU on 8 files of 1M documents).
        // Every file writes its own shard and marker, so a failure loses no other file's
        // work; the error reported is the first failing file's in input order.
        let stream = self.stream.as_deref();
        let options = self.options;
        let files = &self.files;
        let results: Vec<Result<(usize, SketchShard)>> = mine
            .par_iter()
            .map(|&i| {
                let start = Instant::now();
                let file = &files[i];
                bar.set_message(format!("sketch {}", crate::corpus::stem(&file.path)));
                let (shard, text_bytes) =
                    sketch_file(file, stream, &options.text_field, &options.id_field)?;
                bar.inc(file.size);
                stage_files::write_sketch(&shard_path(&dir, i), &shard)?;
                mark(
                    &marker_path(&dir, i),
                    &Marker {
                        key: keys[i].clone(),
                        rows: shard.len() as u64,
                        seconds: start.elapsed().as_secs_f64(),
                        text_bytes,
                    },
                )?;
                if bar.is_hidden() {
                    eprintln!(
                        "neardup: sketched {} ({} documents, {:.1} MB/s)",
                        file.path.display(),
                        shard.len(),
                        text_bytes as f64 / 1e6 / start.elapsed().as_secs_f64().max(1e-9)
                    );
                }
                Ok((i, shard))
            })
            .collect();
        let mut rows = 0;
        for result in results {
            let (i, shard) = result?;
            rows += shard.len() as u64;
            if self.options.shard.is_none() {
                self.fresh.insert(i, shard);
            }
        }
        bar.finish_and_clear();
        self.reports.push(StageReport {
            stage: "sketch",
            seconds: t.elapsed().as_secs_f64(),
            reused: mine.is_empty(),
            rows,
        });
        Ok(keys)
    }

    /// Reads every sketch shard (all must be finished).
    pub(super) fn load_documents(&mut self, keys: &[String]) -> Result<Documents> {
        let dir = stage_dir(&self.options.output, Stage::Sketch.name());
        let missing: Vec<String> = (0..self.files.len())
            .filter(|&i| finished(&marker_path(&dir, i), &keys[i]).is_none())
            .map(|i| self.files[i].path.display().to_string())
            .collect();
        if !missing.is_empty() {
            return Err(LabError::file(
                &self.options.output,
                format!(
                    "{} of {} input files are not sketched yet (first: {}); run the sketch stage for every shard first",
                    missing.len(),
                    self.files.len(),
                    missing[0]
                ),
            ));
        }
        let width = self.width();
        let mut fresh = std::mem::take(&mut self.fresh);
        let stored: Vec<Option<SketchShard>> =
            (0..self.files.len()).map(|i| fresh.remove(&i)).collect();
        let mut shards: Vec<SketchShard> = stored
            .into_par_iter()
            .enumerate()
            .map(|(i, s)| match s {
                Some(s) => Ok(s),
                None => stage_files::read_sketch(&shard_path(&dir, i), width),
            })
            .collect::<Result<_>>()?;
        let mut offsets = Vec::with_capacity(shards.len());
        let mut total = 0;
        for s in &shards {
            offsets.push(total);
            total += s.len();
        }
        if total == 0 {
            return Err(LabError::file(
                &self.options.inputs[0],
                "the inputs hold no document",
            ));
        }
        if total > u32::MAX as usize {
            return Err(LabError::file(
                &self.options.output,
                "more than 2^32 − 1 documents: split the corpus",
            ));
        }
        self.check_memory(total, 0)?;
        // One copy of the signatures: the first shard's table is moved (one input file: no
        // copy at all), the others' rows appended and freed one by one.
        let mut table = SignatureTable::new(width);
        for (i, s) in shards.iter_mut().enumerate() {
            let rows = std::mem::replace(&mut s.table, SignatureTable::new(width));
            if i == 0 {
                table = rows;
                // The final size is known: one allocation, not a doubling that held 1.5×
                // the signatures while it copied (10^6 documents in 8 files: 1.5 GB peak).
                table.reserve_exact(total - table.len());
            } else {
                table.extend(&rows);
            }
        }
        Ok(Documents {
            shards,
            table,
            offsets,
        })
    }

    /// Refuses a join whose signatures and keys would not fit `--memory`: `docs` new
    /// documents and, with `--index`, `indexed` documents of which only the key tables are
    /// held.
    pub(super) fn check_memory(&self, docs: usize, indexed: usize) -> Result<()> {
        let Some(limit) = self.options.memory else {
            return Ok(());
        };
        let width = self.width().max(1) as u64;
        // The signatures, one band's (key, doc) per document per worker, and the places and
        // ids (about 48 bytes a document); an indexed document's (key, doc) per key position
        // and its empty flag.
        let need = docs as u64 * (width * 4 + 16 * rayon::current_num_threads() as u64 + 48);
        let keys = self.stream.as_ref().map_or(0, |s| s.keys_per_doc()) as u64;
        let index_need = indexed as u64 * (keys * 12 + 1);
        if need + index_need > limit {
            let index = if indexed > 0 {
                format!(
                    " and the key tables of {indexed} indexed documents ({})",
                    neardup::resources::human_bytes(index_need)
                )
            } else {
                String::new()
            };
            return Err(LabError::file(
                &self.options.output,
                format!(
                    "the join needs about {} for {docs} documents{index}, more than --memory {}; \
                     spilling to disk is not implemented yet: raise --memory or split the corpus",
                    neardup::resources::human_bytes(need + index_need),
                    neardup::resources::human_bytes(limit)
                ),
            ));
        }
        Ok(())
    }
}

fn shard_path(dir: &Path, file: usize) -> PathBuf {
    dir.join(format!("{file:05}.parquet"))
}

fn marker_path(dir: &Path, file: usize) -> PathBuf {
    dir.join(format!("{file:05}.json"))
}

/// Sketches one input file: its documents' places, ids, lengths and signatures, and the text
/// bytes read. (Also what the Python package's Ray pipeline runs per file.)
pub fn sketch_file(
    file: &InputFile,
    stream: Option<&dyn StreamingDetector>,
    text_field: &str,
    id_field: &str,
) -> Result<(SketchShard, u64)> {
    let width = stream.map_or(0, |s| s.width());
    let mut shard = SketchShard {
        table: SignatureTable::new(width),
        ..SketchShard::default()
    };
    let mut text_bytes = 0u64;
    inputs::for_each_record_block(file, text_field, id_field, |block| {
        text_bytes += append_block(&mut shard, stream, block);
        Ok(())
    })?;
    Ok((shard, text_bytes))
}

/// Sketches one block of records in parallel and appends it to `shard` in order; returns its
/// text bytes.
fn append_block(
    shard: &mut SketchShard,
    stream: Option<&dyn StreamingDetector>,
    block: Vec<Record<'_>>,
) -> u64 {
    let width = shard.table.width();
    let mut words = vec![0u32; block.len() * width.max(1)];
    let empty: Vec<bool> = words
        .par_chunks_mut(width.max(1))
        .zip(block.par_iter())
        .map_init(SketchScratch::default, |s, (row, r)| match stream {
            Some(st) => !st.sketch(&r.text, s, &mut row[..width]),
            None => r.text.trim().is_empty(),
        })
        .collect();
    if width == 0 {
        words.clear();
    }
    let mut bytes = 0;
    for r in block {
        bytes += r.text.len() as u64;
        shard.lines.push(r.line);
        shard.ids.push(r.id);
        shard.bytes.push(r.text.len().min(u32::MAX as usize) as u32);
    }
    shard
        .table
        .extend(&SignatureTable::from_parts(width, words, empty));
    bytes
}
