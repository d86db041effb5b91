//! `neardup dedup`: deduplicate a real corpus in stages.
//!
//! ```text
//! inputs ──sketch (one shard per input file, streamed)──▶ stages/sketch/NNNNN.parquet
//!        ──candidates (band keys → pairs, per band)─────▶ stages/candidates/pairs.parquet
//!        ──verify (full-signature estimate)─────────────▶ stages/verify/pairs.parquet
//!        ──components (union–find)───────────────────────▶ stages/components/clusters.parquet
//!        ──outputs──▶ clusters.parquet, removed.txt, deduplicated.<ext>, summary.json, README.md
//! ```
//!
//! Each stage is skipped when its marker carries the key of its current inputs (input files'
//! size and modification time, the parameters it depends on, the keys of the stages before),
//! so a rerun after a kill resumes from the last finished shard or stage, and a rerun with a
//! new threshold reuses the signatures. Documents are numbered by input file, then by record,
//! whatever the sharding or thread count, so every output is byte-identical across runs.
//!
//! Algorithms with a streamable split (`neardup::streaming`) never hold texts: the sketch
//! stage keeps one block of lines in memory. The others read every text into memory in the
//! verify stage and run `build` + `query`.

pub mod inputs;
pub mod outputs;
pub mod stage_files;

use std::path::{Path, PathBuf};
use std::time::Instant;

use neardup::detector::{Detector, ParamMap};
use neardup::streaming::{SignatureTable, SketchScratch, StreamingDetector};
use rayon::prelude::*;
use serde::Serialize;

use crate::error::{LabError, Result};
use inputs::{FileFormat, InputFile};
use stage_files::{Marker, SketchShard, finished, key, mark, stage_dir};

/// Which document of a cluster is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Keep {
    /// The first in input order.
    First,
    /// The longest text (the first among equals).
    Longest,
}

/// The stages, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Text → signatures, one shard per input file.
    Sketch,
    /// Signatures → candidate pairs.
    Candidates,
    /// Candidates → verified pairs.
    Verify,
    /// Verified pairs → clusters.
    Components,
    /// Clusters → clusters.parquet, removed.txt, the deduplicated corpus, summary.
    Outputs,
}

impl Stage {
    /// Its directory name under `stages/`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Sketch => "sketch",
            Stage::Candidates => "candidates",
            Stage::Verify => "verify",
            Stage::Components => "components",
            Stage::Outputs => "outputs",
        }
    }
}

/// What `neardup dedup` was asked to do.
#[derive(Debug, Clone)]
pub struct DedupOptions {
    /// Files, directories and globs.
    pub inputs: Vec<PathBuf>,
    /// The output directory.
    pub output: PathBuf,
    /// Registered algorithm name.
    pub algorithm: String,
    /// Its parameters.
    pub params: ParamMap,
    /// The text field (JSONL) or column (CSV, Parquet).
    pub text_field: String,
    /// The id field or column (optional in the data: row numbers when absent).
    pub id_field: String,
    /// Which member of a cluster is kept.
    pub keep: Keep,
    /// Memory the in-memory stages may use (signatures, band keys, pairs).
    pub memory: Option<u64>,
    /// Run only this stage.
    pub stage: Option<Stage>,
    /// Sketch only shard `i` of `n` (input files `i`, `i + n`, …).
    pub shard: Option<(usize, usize)>,
}

/// Time and size of one stage in this run.
#[derive(Debug, Clone, Serialize)]
pub struct StageReport {
    /// Stage name.
    pub stage: &'static str,
    /// Wall seconds spent in this run (0 when skipped).
    pub seconds: f64,
    /// Whether the stored result was reused.
    pub reused: bool,
    /// Rows produced (documents, pairs, clusters).
    pub rows: u64,
}

/// The shared state of one run.
struct Run<'a> {
    options: &'a DedupOptions,
    files: Vec<InputFile>,
    detector: Box<dyn Detector>,
    stream: Option<Box<dyn StreamingDetector>>,
    reports: Vec<StageReport>,
    /// Shards sketched by this run, by file index.
    fresh: std::collections::HashMap<usize, SketchShard>,
}

/// Runs `neardup dedup`; returns the summary written to `summary.json` (`None` when only a
/// sketch shard or one stage ran).
pub fn run(options: &DedupOptions) -> anyhow::Result<Option<outputs::Summary>> {
    let files = inputs::expand(&options.inputs)?;
    crate::fsutil::check_dir(&options.output)?;
    let inputs: Vec<&Path> = files.iter().map(|f| f.path.as_path()).collect();
    for name in [
        "clusters.parquet",
        "removed.txt",
        "summary.json",
        "README.md",
    ] {
        crate::fsutil::check_output(&options.output.join(name), &inputs)?;
    }
    let detector = neardup::registry::detector(&options.algorithm, &options.params)?;
    let stream = detector.streaming();
    let mut run = Run {
        options,
        files,
        detector,
        stream,
        reports: Vec::new(),
        fresh: Default::default(),
    };
    let started = Instant::now();
    let only = options.stage;
    let wants = |s: Stage| only.is_none_or(|o| o == s);

    let sketch_keys = run.sketch_stage(wants(Stage::Sketch))?;
    if options.shard.is_some() || only == Some(Stage::Sketch) {
        return Ok(None);
    }
    let docs = run.load_documents(&sketch_keys)?;
    let candidates_key = key(&(
        &sketch_keys,
        run.detector.build_params(),
        run.detector.query_params(),
    ));
    let candidates = run.candidates_stage(&docs, &candidates_key, wants(Stage::Candidates))?;
    if only == Some(Stage::Candidates) {
        return Ok(None);
    }
    let verify_key = key(&("verify", &candidates_key));
    let verified = run.verify_stage(&docs, candidates, &verify_key, wants(Stage::Verify))?;
    if only == Some(Stage::Verify) {
        return Ok(None);
    }
    let components_key = key(&("components", &verify_key));
    let labels = run.components_stage(&docs, verified.as_deref(), &components_key)?;
    if only == Some(Stage::Components) {
        return Ok(None);
    }
    let summary = outputs::write_all(
        &run.options.output,
        &run.files,
        &docs,
        &labels,
        options,
        run.detector.as_ref(),
        run.stream.is_some(),
        &mut run.reports,
        &components_key,
        started,
    )?;
    Ok(Some(summary))
}

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
    fn width(&self) -> usize {
        self.stream.as_ref().map_or(0, |s| s.width())
    }

    fn sketch_key_base(&self) -> String {
        match &self.stream {
            Some(s) => format!("{}:{}", s.name(), s.sketch_key()),
            None => "documents only".to_string(),
        }
    }

    /// The sketch stage: one shard per input file. Returns every file's key; the shards it
    /// computed stay in `self.fresh` so the join does not read them back.
    fn sketch_stage(&mut self, run_it: bool) -> Result<Vec<String>> {
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
        let mut rows = 0;
        for &i in &mine {
            let start = Instant::now();
            let file = &self.files[i];
            bar.set_message(format!("sketch {}", crate::corpus::stem(&file.path)));
            let (shard, text_bytes) = sketch_file(file, self.stream.as_deref(), self.options)?;
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
            rows += shard.len() as u64;
            let len = shard.len();
            if self.options.shard.is_none() {
                self.fresh.insert(i, shard);
            }
            if bar.is_hidden() {
                eprintln!(
                    "neardup: sketched {} ({} documents, {:.1} MB/s)",
                    file.path.display(),
                    len,
                    text_bytes as f64 / 1e6 / start.elapsed().as_secs_f64().max(1e-9)
                );
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
    fn load_documents(&mut self, keys: &[String]) -> Result<Documents> {
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
        self.check_memory(total)?;
        // One copy of the signatures: each shard's rows move into the table.
        let mut table = SignatureTable::new(width);
        for s in &mut shards {
            table.extend(&s.table);
            s.table = SignatureTable::new(width);
        }
        Ok(Documents {
            shards,
            table,
            offsets,
        })
    }

    /// Refuses a join whose signatures and keys would not fit `--memory`.
    fn check_memory(&self, docs: usize) -> Result<()> {
        let Some(limit) = self.options.memory else {
            return Ok(());
        };
        let width = self.width().max(1) as u64;
        // The signatures, one band's (key, doc) per document per worker, and the places and
        // ids (about 48 bytes a document).
        let need = docs as u64 * (width * 4 + 16 * rayon::current_num_threads() as u64 + 48);
        if need > limit {
            return Err(LabError::file(
                &self.options.output,
                format!(
                    "the join needs about {} for {docs} documents, more than --memory {}; \
                     spilling to disk is not implemented yet: raise --memory or split the corpus",
                    neardup::resources::human_bytes(need),
                    neardup::resources::human_bytes(limit)
                ),
            ));
        }
        Ok(())
    }

    fn candidates_stage(
        &mut self,
        docs: &Documents,
        stage_key: &str,
        run_it: bool,
    ) -> Result<Option<Vec<u64>>> {
        let Some(stream) = &self.stream else {
            return Ok(None);
        };
        let dir = stage_dir(&self.options.output, Stage::Candidates.name());
        let (data, marker) = (dir.join("pairs.parquet"), dir.join("done.json"));
        if let Some(m) = finished(&marker, stage_key) {
            self.reports.push(StageReport {
                stage: "candidates",
                seconds: 0.0,
                reused: true,
                rows: m.rows,
            });
            return Ok(Some(stage_files::read_pairs(&data)?.0));
        }
        if !run_it {
            return Err(missing_stage(&self.options.output, Stage::Candidates));
        }
        let t = Instant::now();
        let pairs = stream.candidates(&docs.table)?;
        stage_files::write_pairs(&data, &pairs, None)?;
        let seconds = t.elapsed().as_secs_f64();
        mark(
            &marker,
            &Marker {
                key: stage_key.to_string(),
                rows: pairs.len() as u64,
                seconds,
                text_bytes: 0,
            },
        )?;
        self.reports.push(StageReport {
            stage: "candidates",
            seconds,
            reused: false,
            rows: pairs.len() as u64,
        });
        Ok(Some(pairs))
    }

    fn verify_stage(
        &mut self,
        docs: &Documents,
        candidates: Option<Vec<u64>>,
        stage_key: &str,
        run_it: bool,
    ) -> Result<Option<Vec<u64>>> {
        let dir = stage_dir(&self.options.output, Stage::Verify.name());
        let (data, marker) = (dir.join("pairs.parquet"), dir.join("done.json"));
        if let Some(m) = finished(&marker, stage_key) {
            self.reports.push(StageReport {
                stage: "verify",
                seconds: 0.0,
                reused: true,
                rows: m.rows,
            });
            return Ok(None);
        }
        if !run_it {
            return Err(missing_stage(&self.options.output, Stage::Verify));
        }
        let t = Instant::now();
        let (pairs, scores): (Vec<u64>, Vec<f64>) = match (&self.stream, candidates) {
            (Some(stream), Some(candidates)) => candidates
                .par_iter()
                .filter_map(|&p| {
                    let (a, b) = neardup::pairs::unpack(p);
                    stream.verify(&docs.table, a, b).map(|s| (p, s))
                })
                .unzip(),
            _ => {
                let texts = read_texts(&self.files, self.options, docs)?;
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let index = self.detector.build(&refs)?;
                drop(refs);
                index
                    .query(&ParamMap::new())?
                    .into_iter()
                    .map(|p| (neardup::pairs::pack(p.a, p.b), p.score))
                    .unzip()
            }
        };
        stage_files::write_pairs(&data, &pairs, Some(&scores))?;
        let seconds = t.elapsed().as_secs_f64();
        mark(
            &marker,
            &Marker {
                key: stage_key.to_string(),
                rows: pairs.len() as u64,
                seconds,
                text_bytes: 0,
            },
        )?;
        self.reports.push(StageReport {
            stage: "verify",
            seconds,
            reused: false,
            rows: pairs.len() as u64,
        });
        Ok(Some(pairs))
    }

    fn components_stage(
        &mut self,
        docs: &Documents,
        verified: Option<&[u64]>,
        stage_key: &str,
    ) -> Result<Vec<u32>> {
        let dir = stage_dir(&self.options.output, Stage::Components.name());
        let (data, marker) = (dir.join("clusters.parquet"), dir.join("done.json"));
        if let Some(m) = finished(&marker, stage_key) {
            self.reports.push(StageReport {
                stage: "components",
                seconds: 0.0,
                reused: true,
                rows: m.rows,
            });
            return stage_files::read_labels(&data);
        }
        let t = Instant::now();
        let loaded;
        let pairs = match verified {
            Some(p) => p,
            None => {
                let path =
                    stage_dir(&self.options.output, Stage::Verify.name()).join("pairs.parquet");
                loaded = stage_files::read_pairs(&path)?.0;
                &loaded
            }
        };
        let labels = neardup::cluster::connected_components(
            docs.len(),
            pairs.iter().map(|&p| neardup::pairs::unpack(p)),
        );
        stage_files::write_labels(&data, &labels)?;
        let clusters = labels.iter().max().map_or(0, |&m| m as u64 + 1);
        let seconds = t.elapsed().as_secs_f64();
        mark(
            &marker,
            &Marker {
                key: stage_key.to_string(),
                rows: clusters,
                seconds,
                text_bytes: 0,
            },
        )?;
        self.reports.push(StageReport {
            stage: "components",
            seconds,
            reused: false,
            rows: clusters,
        });
        Ok(labels)
    }
}

fn missing_stage(output: &Path, stage: Stage) -> LabError {
    LabError::file(
        output,
        format!(
            "stage `{}` has no finished result for these inputs and parameters; run it first (--stage {})",
            stage.name(),
            stage.name()
        ),
    )
}

fn shard_path(dir: &Path, file: usize) -> PathBuf {
    dir.join(format!("{file:05}.parquet"))
}

fn marker_path(dir: &Path, file: usize) -> PathBuf {
    dir.join(format!("{file:05}.json"))
}

/// Sketches one input file: its documents' places, ids, lengths and signatures, and the text
/// bytes read.
fn sketch_file(
    file: &InputFile,
    stream: Option<&dyn StreamingDetector>,
    options: &DedupOptions,
) -> Result<(SketchShard, u64)> {
    let width = stream.map_or(0, |s| s.width());
    let mut shard = SketchShard {
        table: SignatureTable::new(width),
        ..SketchShard::default()
    };
    let mut text_bytes = 0u64;
    let (tf, idf) = (options.text_field.as_str(), options.id_field.as_str());
    let mut append = |block: &mut [(u64, Option<String>, &str)]| {
        text_bytes += append_block(&mut shard, stream, block);
    };
    match file.format {
        FileFormat::Jsonl => inputs::for_each_line_block(file, |block| {
            let lines = block.lines();
            let parsed: Vec<_> = lines
                .par_iter()
                .map(|(n, line)| {
                    inputs::parse_json_line(line, tf, idf)
                        .map(|f| (*n, f.id, f.text))
                        .map_err(|reason| (*n, reason))
                })
                .collect();
            let mut ok = Vec::with_capacity(parsed.len());
            for p in parsed {
                match p {
                    Ok(r) => ok.push(r),
                    Err((n, reason)) => {
                        return Err(LabError::line(&file.path, n as usize, reason));
                    }
                }
            }
            append(
                &mut ok
                    .iter_mut()
                    .map(|(n, id, t)| (*n, id.take(), &**t))
                    .collect::<Vec<_>>(),
            );
            Ok(())
        })?,
        FileFormat::Csv => inputs::for_each_csv_block(file, tf, idf, |records| {
            append(
                &mut records
                    .iter()
                    .map(|r| (r.line, r.id.clone(), r.text.as_str()))
                    .collect::<Vec<_>>(),
            );
            Ok(())
        })?,
        FileFormat::Parquet => {
            let records = inputs::read_parquet(file, tf, idf)?;
            append(
                &mut records
                    .iter()
                    .map(|r| (r.line, r.id.clone(), r.text.as_str()))
                    .collect::<Vec<_>>(),
            );
        }
    }
    Ok((shard, text_bytes))
}

/// Sketches one block of (line, id, text) in parallel and appends it to `shard` in order;
/// returns its text bytes.
fn append_block(
    shard: &mut SketchShard,
    stream: Option<&dyn StreamingDetector>,
    block: &mut [(u64, Option<String>, &str)],
) -> u64 {
    let width = shard.table.width();
    let mut words = vec![0u32; block.len() * width.max(1)];
    let empty: Vec<bool> = words
        .par_chunks_mut(width.max(1))
        .zip(block.par_iter())
        .map_init(
            SketchScratch::default,
            |s, (row, (_, _, text))| match stream {
                Some(st) => !st.sketch(text, s, &mut row[..width]),
                None => text.trim().is_empty(),
            },
        )
        .collect();
    if width == 0 {
        words.clear();
    }
    let mut bytes = 0;
    for (line, id, text) in block {
        bytes += text.len() as u64;
        shard.lines.push(*line);
        shard.ids.push(id.take());
        shard.bytes.push(text.len().min(u32::MAX as usize) as u32);
    }
    shard
        .table
        .extend(&SignatureTable::from_parts(width, words, empty));
    bytes
}

/// Every document's text, in document order (algorithms that run in memory).
fn read_texts(
    files: &[InputFile],
    options: &DedupOptions,
    docs: &Documents,
) -> Result<Vec<String>> {
    let (tf, idf) = (options.text_field.as_str(), options.id_field.as_str());
    let mut texts = Vec::with_capacity(docs.len());
    for file in files {
        match file.format {
            FileFormat::Jsonl => inputs::for_each_line_block(file, |block| {
                for (n, line) in block.lines() {
                    let f = inputs::parse_json_line(line, tf, idf)
                        .map_err(|r| LabError::line(&file.path, n as usize, r))?;
                    texts.push(f.text.into_owned());
                }
                Ok(())
            })?,
            FileFormat::Csv => inputs::for_each_csv_block(file, tf, idf, |records| {
                texts.extend(records.into_iter().map(|r| r.text));
                Ok(())
            })?,
            FileFormat::Parquet => {
                texts.extend(
                    inputs::read_parquet(file, tf, idf)?
                        .into_iter()
                        .map(|r| r.text),
                );
            }
        }
    }
    if texts.len() != docs.len() {
        return Err(LabError::file(
            &options.output,
            "the inputs changed while dedup ran (a different number of documents); rerun",
        ));
    }
    Ok(texts)
}
