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
//! With `--index DIR` (`incremental_index`), the new documents are joined with each other and
//! with every indexed document (by key lookup, not a join of the whole index), the components
//! span both, a new document whose cluster holds an indexed one is removed, and the new
//! documents are then added to the index.
//!
//! Algorithms with a streamable split (`neardup::streaming`) never hold texts: the sketch
//! stage keeps one block of lines in memory. When the signatures do not fit `--memory`, the
//! candidates and verify stages run as an external join over the sketch shards
//! (`spilled_join`), with the same output. The others read every text into memory in the
//! verify stage and run `build` + `query`.

pub mod incremental_index;
pub mod index_segment;
pub mod inputs;
pub mod json_fields;
pub mod outputs;
mod sketch_stage;
pub mod spilled_join;
pub mod stage_files;

pub use sketch_stage::{Documents, sketch_file};

use std::path::{Path, PathBuf};
use std::time::Instant;

use neardup::detector::{Detector, ParamMap};
use neardup::streaming::{SignatureTable, StreamingDetector};
use rayon::prelude::*;
use serde::Serialize;

use crate::error::{LabError, Result};
use incremental_index::IncrementalIndex;
use index_segment::Segment;
use inputs::InputFile;
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
    /// The persistent index to deduplicate against and add to.
    pub index: Option<PathBuf>,
    /// Keep compressed JSONL inputs inflated between the sketch and outputs stages.
    pub inflated_copy: bool,
    /// Text bytes of an input file the sketch stage reads between two checkpoints (a killed
    /// run resumes inside the file from the last one).
    pub checkpoint_bytes: u64,
}

/// The default of `--checkpoint-every`: about a second or two of sketching per core, one
/// extra Parquet file and marker per 256 MiB of text.
pub const DEFAULT_CHECKPOINT_BYTES: u64 = 256 << 20;

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
    /// The index, with `--index`.
    indexed: Option<Indexed>,
}

/// The index of an `--index` run and what this run reads from it.
struct Indexed {
    index: IncrementalIndex,
    /// Key of this run's inputs: the segment they become.
    source: String,
    /// Key of the join parameters the key tables depend on.
    tables_key: String,
    /// Key of the segments joined against (every one but `source`'s).
    fingerprint: String,
    /// Documents in them.
    documents: usize,
    /// Their contents, read when a stage first needs them.
    segments: Option<Vec<Segment>>,
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
    if let (Some(index), None) = (&options.index, &stream) {
        return Err(LabError::file(
            index,
            format!(
                "--index needs an algorithm that streams (fixed-size signatures); `{}` runs in memory \
                 (`neardup algorithms` says which stream)",
                options.algorithm
            ),
        )
        .into());
    }
    let mut run = Run {
        options,
        files,
        detector,
        stream,
        reports: Vec::new(),
        fresh: Default::default(),
        indexed: None,
    };
    let started = Instant::now();
    let only = options.stage;
    let wants = |s: Stage| only.is_none_or(|o| o == s);

    let sketch_keys = run.sketch_stage(wants(Stage::Sketch))?;
    if options.shard.is_some() || only == Some(Stage::Sketch) {
        return Ok(None);
    }
    let mut docs = run.load_documents(&sketch_keys)?;
    run.open_index(&sketch_keys, docs.len())?;
    let mut candidates_key = key(&(
        &sketch_keys,
        run.detector.build_params(),
        run.detector.query_params(),
    ));
    if let Some(indexed) = &run.indexed {
        candidates_key = key(&(candidates_key, "index", &indexed.fingerprint));
    }
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
    let labels = run.components_stage(&docs, verified, &components_key)?;
    if only == Some(Stage::Components) {
        return Ok(None);
    }
    // Before the outputs: a rerun joins against every segment but its own, so adding first
    // loses nothing if the outputs are then interrupted.
    run.add_to_index(&mut docs)?;
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

impl Run<'_> {
    /// Opens `--index` (locking it) for a join of `new_documents` documents.
    fn open_index(&mut self, sketch_keys: &[String], new_documents: usize) -> Result<()> {
        let (Some(dir), Some(stream)) = (&self.options.index, &self.stream) else {
            return Ok(());
        };
        let index = IncrementalIndex::open_for(dir, stream.as_ref())?;
        let source = key(&("index source", sketch_keys));
        let documents = index.documents_excluding(&source) as usize;
        if self.plan_join(new_documents, documents)?.is_some() {
            return Err(LabError::file(
                dir,
                "the new documents' signatures do not fit --memory, and a join against an index \
                 does not spill yet: raise --memory or add the corpus in smaller batches",
            ));
        }
        if documents + new_documents > u32::MAX as usize {
            return Err(LabError::file(
                dir,
                "the index and the new documents hold more than 2^32 − 1 documents: start a new index",
            ));
        }
        self.indexed = Some(Indexed {
            tables_key: key(&(
                self.sketch_key_base(),
                self.detector.build_params(),
                self.detector.query_params(),
            )),
            fingerprint: index.fingerprint_excluding(&source),
            documents,
            source,
            index,
            segments: None,
        });
        Ok(())
    }

    /// The indexed segments this run joins against (read on first use).
    fn index_segments<'i>(
        indexed: &'i mut Indexed,
        stream: &dyn StreamingDetector,
    ) -> Result<&'i [Segment]> {
        if indexed.segments.is_none() {
            let segments =
                indexed
                    .index
                    .load_excluding(&indexed.source, stream, &indexed.tables_key)?;
            indexed.segments = Some(segments);
        }
        Ok(indexed.segments.as_deref().unwrap_or_default())
    }

    /// Adds this run's documents to the index (once per source); reported as stage `index`.
    fn add_to_index(&mut self, docs: &mut Documents) -> Result<()> {
        let (Some(indexed), Some(stream)) = (&mut self.indexed, &self.stream) else {
            return Ok(());
        };
        let t = Instant::now();
        let added = if indexed.index.contains_source(&indexed.source) {
            false
        } else {
            // The signatures move into the segment and back (no copy); ids first, while
            // `docs` still counts its documents by its table.
            let ids = (0..docs.len()).map(|d| docs.id(d)).collect();
            let table = std::mem::take(&mut docs.table);
            let segment = Segment {
                ids,
                tables: index_segment::key_tables(stream.as_ref(), &table),
                table,
                tables_key: indexed.tables_key.clone(),
                stored_rows: None,
            };
            let added = indexed.index.add(&indexed.source, &segment);
            docs.table = segment.table;
            added?
        };
        self.reports.push(StageReport {
            stage: "index",
            seconds: t.elapsed().as_secs_f64(),
            reused: !added,
            rows: if added { docs.len() as u64 } else { 0 },
        });
        Ok(())
    }

    /// Documents the components span: the new ones, then the indexed ones.
    fn all_documents(&self, docs: &Documents) -> usize {
        docs.len() + self.indexed.as_ref().map_or(0, |i| i.documents)
    }

    fn width(&self) -> usize {
        self.stream.as_ref().map_or(0, |s| s.width())
    }

    fn sketch_key_base(&self) -> String {
        match &self.stream {
            Some(s) => format!("{}:{}", s.name(), s.sketch_key()),
            None => "documents only".to_string(),
        }
    }

    /// Signatures → candidate pairs (`None`: the algorithm has no streamable split, or the
    /// stage had finished; its pairs are read back only if verification needs them).
    fn candidates_stage(
        &mut self,
        docs: &Documents,
        stage_key: &str,
        run_it: bool,
    ) -> Result<Option<Vec<u64>>> {
        let Some(stream) = &self.stream else {
            return Ok(None);
        };
        let out = &self.options.output;
        let indexed = &mut self.indexed;
        run_stage(
            out,
            &mut self.reports,
            Stage::Candidates,
            stage_key,
            run_it,
            |dir| {
                let pairs = if let Some((shards, budget)) = &docs.spill {
                    let spill_dir = dir.join("spill");
                    let pairs =
                        spilled_join::candidates(stream.as_ref(), shards, *budget, &spill_dir)?;
                    let _ = std::fs::remove_dir(&spill_dir);
                    pairs
                } else {
                    let mut pairs = stream.candidates(&docs.table)?;
                    if let Some(indexed) = indexed {
                        let segments = Self::index_segments(indexed, stream.as_ref())?;
                        let against = index_segment::candidates_against(
                            stream.as_ref(),
                            &docs.table,
                            segments,
                        )?;
                        // Both lists are sorted and disjoint (b < n against b ≥ n): one sort
                        // merges.
                        pairs.extend(against);
                        pairs.sort_unstable();
                    }
                    pairs
                };
                stage_files::write_pairs(&dir.join("pairs.parquet"), &pairs, None)?;
                let rows = pairs.len() as u64;
                Ok((pairs, rows))
            },
        )
    }

    /// Candidates → verified pairs with their scores; in memory (`build` + `query` over every
    /// text) for algorithms without a streamable split.
    fn verify_stage(
        &mut self,
        docs: &Documents,
        candidates: Option<Vec<u64>>,
        stage_key: &str,
        run_it: bool,
    ) -> Result<Option<Vec<u64>>> {
        let (out, stream) = (&self.options.output, &self.stream);
        let (files, options, detector) = (&self.files, self.options, &self.detector);
        let indexed = &mut self.indexed;
        run_stage(
            out,
            &mut self.reports,
            Stage::Verify,
            stage_key,
            run_it,
            |dir| {
                let (pairs, scores): (Vec<u64>, Vec<f64>) = match stream {
                    Some(stream) => {
                        let candidates = match candidates {
                            Some(c) => c,
                            None => stage_files::read_pairs(&pairs_path(out, Stage::Candidates))?.0,
                        };
                        match (&docs.spill, indexed) {
                            (Some((shards, budget)), _) => {
                                spilled_join::verify(stream.as_ref(), shards, &candidates, *budget)?
                            }
                            (None, Some(indexed)) => {
                                // A table of the candidates' signatures only — the new
                                // documents' from memory, the indexed ones' read from the
                                // segment files — so verification holds no more rows than there
                                // are candidates. New documents are numbered below n, indexed
                                // ones from n, so the table's rows follow `rows`' order.
                                let n = docs.len() as u32;
                                let rows = candidate_documents(&candidates);
                                let split = rows.partition_point(|&d| d < n);
                                let mut t = SignatureTable::new(stream.width());
                                t.reserve_exact(rows.len());
                                for &d in &rows[..split] {
                                    t.push(
                                        docs.table.row(d as usize),
                                        docs.table.is_empty_doc(d as usize),
                                    );
                                }
                                let indexed_rows: Vec<u32> =
                                    rows[split..].iter().map(|&d| d - n).collect();
                                let segments = Self::index_segments(indexed, stream.as_ref())?;
                                t.extend(&index_segment::fetch_rows(
                                    segments,
                                    &indexed_rows,
                                    stream.width(),
                                )?);
                                verify_candidates(stream.as_ref(), &t, Some(&rows), &candidates)
                            }
                            (None, None) => {
                                verify_candidates(stream.as_ref(), &docs.table, None, &candidates)
                            }
                        }
                    }
                    None => {
                        let texts = read_texts(files, options, docs)?;
                        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                        let index = detector.build(&refs)?;
                        drop(refs);
                        index
                            .query(&ParamMap::new())?
                            .into_iter()
                            .map(|p| (neardup::pairs::pack(p.a, p.b), p.score))
                            .unzip()
                    }
                };
                stage_files::write_pairs(&dir.join("pairs.parquet"), &pairs, Some(&scores))?;
                let rows = pairs.len() as u64;
                Ok((pairs, rows))
            },
        )
    }

    /// Verified pairs → one cluster label per document (union–find), new documents first,
    /// then the indexed ones.
    fn components_stage(
        &mut self,
        docs: &Documents,
        verified: Option<Vec<u64>>,
        stage_key: &str,
    ) -> Result<Vec<u32>> {
        let out = &self.options.output;
        let nodes = self.all_documents(docs);
        let labels = run_stage(
            out,
            &mut self.reports,
            Stage::Components,
            stage_key,
            true,
            |dir| {
                let pairs = match verified {
                    Some(p) => p,
                    None => stage_files::read_pairs(&pairs_path(out, Stage::Verify))?.0,
                };
                let labels = neardup::cluster::connected_components(
                    nodes,
                    pairs.iter().map(|&p| neardup::pairs::unpack(p)),
                );
                stage_files::write_labels(&dir.join("clusters.parquet"), &labels)?;
                let clusters = labels.iter().max().map_or(0, |&m| m as u64 + 1);
                Ok((labels, clusters))
            },
        )?;
        match labels {
            Some(labels) => Ok(labels),
            None => stage_files::read_labels(
                &stage_dir(out, Stage::Components.name()).join("clusters.parquet"),
            ),
        }
    }
}

/// Runs one join stage unless its marker carries `stage_key`: `compute` writes the stage's
/// files into its directory and returns its result and row count; then the marker is written
/// and the stage reported. A finished stage is reported as reused and gives `None` (its files
/// are read by whoever needs them); an unfinished one that may not run is an error.
fn run_stage<T>(
    output: &Path,
    reports: &mut Vec<StageReport>,
    stage: Stage,
    stage_key: &str,
    run_it: bool,
    compute: impl FnOnce(&Path) -> Result<(T, u64)>,
) -> Result<Option<T>> {
    let dir = stage_dir(output, stage.name());
    let marker = dir.join("done.json");
    if let Some(m) = finished(&marker, stage_key) {
        reports.push(StageReport {
            stage: stage.name(),
            seconds: 0.0,
            reused: true,
            rows: m.rows,
        });
        return Ok(None);
    }
    if !run_it {
        return Err(missing_stage(output, stage));
    }
    let t = Instant::now();
    let (result, rows) = compute(&dir)?;
    let seconds = t.elapsed().as_secs_f64();
    mark(
        &marker,
        &Marker {
            key: stage_key.to_string(),
            rows,
            seconds,
            ..Marker::default()
        },
    )?;
    reports.push(StageReport {
        stage: stage.name(),
        seconds,
        reused: false,
        rows,
    });
    Ok(Some(result))
}

/// The documents of `candidates` (packed pairs), sorted, each once.
fn candidate_documents(candidates: &[u64]) -> Vec<u32> {
    let mut docs: Vec<u32> = candidates
        .iter()
        .flat_map(|&p| {
            let (a, b) = neardup::pairs::unpack(p);
            [a, b]
        })
        .collect();
    docs.par_sort_unstable();
    docs.dedup();
    docs
}

/// Verifies `candidates` (packed pairs, sorted) against `table`, whose row `i` holds the
/// signature of document `rows[i]` (`rows` sorted, each once; `None`: of document `i`).
/// Returns the reported pairs and their scores, in candidate order.
fn verify_candidates(
    stream: &dyn StreamingDetector,
    table: &SignatureTable,
    rows: Option<&[u32]>,
    candidates: &[u64],
) -> (Vec<u64>, Vec<f64>) {
    let row_of = |d: u32| rows.map_or(d, |r| r.binary_search(&d).expect("gathered") as u32);
    candidates
        .par_iter()
        .filter_map(|&p| {
            let (a, b) = neardup::pairs::unpack(p);
            stream.verify(table, row_of(a), row_of(b)).map(|s| (p, s))
        })
        .unzip()
}

/// The pairs file of the candidates or verify stage.
fn pairs_path(output: &Path, stage: Stage) -> PathBuf {
    stage_dir(output, stage.name()).join("pairs.parquet")
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

/// Every document's text, in document order (algorithms that run in memory).
fn read_texts(
    files: &[InputFile],
    options: &DedupOptions,
    docs: &Documents,
) -> Result<Vec<String>> {
    let mut texts = Vec::with_capacity(docs.len());
    for file in files {
        inputs::for_each_record_block(file, &options.text_field, &options.id_field, |block| {
            texts.extend(block.into_iter().map(|r| r.text.into_owned()));
            Ok(())
        })?;
    }
    if texts.len() != docs.len() {
        return Err(LabError::file(
            &options.output,
            "the inputs changed while dedup ran (a different number of documents); rerun",
        ));
    }
    Ok(texts)
}
