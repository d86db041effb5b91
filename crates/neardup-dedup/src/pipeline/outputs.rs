//! The outputs of `neardup dedup`, written from the cluster labels:
//!
//! * `clusters.parquet` — one row per document in input order: `id`, `cluster` (numbered by
//!   first member), `cluster_size` (with `--index`: indexed members included), `kept` (false
//!   for every new document whose cluster holds an indexed one);
//! * `removed.txt` — the id of every removed document, one per line, in input order;
//! * the deduplicated corpus in the input's format with every field as it was: one input →
//!   `deduplicated.<jsonl|csv|parquet>`; several → `deduplicated/NNNNN-<name>` per input
//!   (compressed inputs are written uncompressed);
//! * `summary.json` and `README.md` — counts, time per stage, peak memory.
//!
//! They are written into `stages/outputs/` and published as one set (`publish`), with
//! `summary.json` last.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use polars::prelude::*;
use serde::Serialize;

use super::documents::Documents;
use super::options::{Keep, Stage, StageReport};
use super::publish;
use super::stage::run_stage;
use super::stage_files::{self, key};
use super::state::Run;
use crate::error::{Error, Result};
use crate::fsutil;
use crate::input::{self, Compression, FileFormat, InputFile};

/// What `summary.json` holds.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// neardup version and revision.
    pub version: String,
    /// Input files, in document order.
    pub inputs: Vec<String>,
    /// Algorithm name.
    pub algorithm: String,
    /// Its parameters (defaults filled in).
    pub params: neardup::detector::ParamMap,
    /// Whether it streamed (texts never all in memory).
    pub streamed: bool,
    /// Whether the join spilled to disk (the signatures did not fit `--memory`).
    pub spilled: bool,
    /// Which member of a cluster is kept.
    pub keep: Keep,
    /// Documents read.
    pub documents: u64,
    /// Documents of the index joined against (`--index`; 0 without).
    pub indexed_documents: u64,
    /// Documents removed because their cluster holds an indexed document.
    pub duplicates_of_index: u64,
    /// Text bytes read.
    pub text_bytes: u64,
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Documents in those clusters.
    pub documents_in_clusters: u64,
    /// Documents removed (in a cluster and not its kept member).
    pub removed: u64,
    /// Documents kept.
    pub kept: u64,
    /// Verified pairs.
    pub pairs: u64,
    /// Time and rows per stage (this run).
    pub stages: Vec<StageReport>,
    /// Wall seconds of this run.
    pub seconds: f64,
    /// Peak resident memory of this process (VmHWM), bytes.
    pub peak_rss_bytes: Option<u64>,
    /// Worker threads.
    pub threads: usize,
    /// The deduplicated corpus, relative to the output directory.
    pub deduplicated: Vec<String>,
}

/// Which documents are kept: one per cluster, chosen by `keep`.
pub fn kept(labels: &[u32], bytes: impl Fn(usize) -> u32, keep: Keep) -> Vec<bool> {
    let clusters = labels.iter().max().map_or(0, |&m| m as usize + 1);
    let mut best: Vec<u32> = vec![u32::MAX; clusters];
    for (doc, &c) in labels.iter().enumerate() {
        let b = &mut best[c as usize];
        let better = match keep {
            Keep::First => *b == u32::MAX,
            Keep::Longest => *b == u32::MAX || bytes(doc) > bytes(*b as usize),
        };
        if better {
            *b = doc as u32;
        }
    }
    let mut kept = vec![false; labels.len()];
    for b in best {
        kept[b as usize] = true;
    }
    kept
}

/// Which documents stay and how large their clusters are, from the cluster labels.
struct Decisions {
    /// Members per cluster of the new documents (with `--index`: indexed members included).
    sizes: Vec<u32>,
    /// Per new document: whether it is kept.
    kept: Vec<bool>,
    /// New documents removed because their cluster holds an indexed document.
    duplicates_of_index: u64,
    /// Indexed documents the components spanned.
    indexed: usize,
}

impl Decisions {
    /// `labels` holds the new documents' labels, then the indexed documents' (`--index`).
    /// Clusters are numbered by first member and new documents come first, so the clusters
    /// holding a new document are `0..clusters`.
    fn new(docs: &Documents, labels: &[u32], keep: Keep) -> Decisions {
        let bytes = |doc: usize| {
            let (f, i) = docs.locate(doc);
            docs.shards[f].bytes[i]
        };
        let (labels, indexed_labels) = labels.split_at(docs.len());
        let clusters = labels.iter().max().map_or(0, |&m| m as usize + 1);
        let mut sizes = vec![0u32; clusters];
        for &c in labels {
            sizes[c as usize] += 1;
        }
        let mut holds_indexed = vec![false; clusters];
        for &c in indexed_labels.iter().filter(|&&c| (c as usize) < clusters) {
            sizes[c as usize] += 1;
            holds_indexed[c as usize] = true;
        }
        let mut kept = kept(labels, bytes, keep);
        let mut duplicates_of_index = 0u64;
        for (k, &c) in kept.iter_mut().zip(labels) {
            if holds_indexed[c as usize] {
                *k = false;
                duplicates_of_index += 1;
            }
        }
        Decisions {
            sizes,
            kept,
            duplicates_of_index,
            indexed: indexed_labels.len(),
        }
    }

    fn removed(&self) -> u64 {
        self.kept.iter().filter(|&&k| !k).count() as u64
    }
}

impl Run<'_> {
    /// Clusters → `clusters.parquet`, `removed.txt` and the deduplicated corpus, staged
    /// (skipped when the outputs stage finished with the same key and its files exist), then
    /// published with `README.md` and `summary.json`, which it returns. `labels` holds the new
    /// documents' labels, then the indexed documents'.
    pub(super) fn outputs_stage(
        &mut self,
        docs: &Documents,
        labels: &[u32],
        components_key: &str,
        started: Instant,
    ) -> Result<Summary> {
        let output = &self.options.output;
        let deduplicated = deduplicated_names(&self.files);
        let stage_key = key(&("outputs", components_key, self.options.keep, &deduplicated));
        let decisions = Decisions::new(docs, labels, self.options.keep);
        let staged = publish::staged_dir(output);
        let set = publish::staged_names(&deduplicated);
        let present = || set.iter().all(|f| staged.join(f).is_file());
        let files = &self.files;
        run_stage(
            output,
            &mut self.reports,
            Stage::Outputs,
            &stage_key,
            true,
            present,
            |_| {
                publish::clear_staged(output)?;
                write_outputs(
                    output,
                    files,
                    docs,
                    &labels[..docs.len()],
                    &decisions,
                    &deduplicated,
                )?;
                Ok(((), decisions.removed()))
            },
        )?;
        // The inflated copies have served (and a rerun that finds the outputs done has no use
        // for them either): their disk is given back.
        for f in 0..self.files.len() {
            fsutil::remove_if_present(&stage_files::inflated_copy_path(output, f))?;
        }
        let summary = self.summary(docs, labels, &decisions, deduplicated, started);
        let json = serde_json::to_vec_pretty(&summary).expect("summary serializes");
        publish::publish(output, &set, &readme(&summary), &json)?;
        Ok(summary)
    }

    /// What `summary.json` says of this run.
    fn summary(
        &self,
        docs: &Documents,
        labels: &[u32],
        decisions: &Decisions,
        deduplicated: Vec<String>,
        started: Instant,
    ) -> Summary {
        let labels = &labels[..docs.len()];
        let sizes = &decisions.sizes;
        let removed = decisions.removed();
        let pairs = self
            .reports
            .iter()
            .find(|r| r.stage == "verify")
            .map_or(0, |r| r.rows);
        Summary {
            version: crate::VERSION.to_string(),
            inputs: self
                .files
                .iter()
                .map(|f| f.path.display().to_string())
                .collect(),
            algorithm: self.detector.name().to_string(),
            params: {
                let mut p = self.detector.build_params();
                p.extend(self.detector.query_params());
                p
            },
            streamed: self.stream.is_some(),
            spilled: docs.spill.is_some(),
            keep: self.options.keep,
            documents: docs.len() as u64,
            indexed_documents: decisions.indexed as u64,
            duplicates_of_index: decisions.duplicates_of_index,
            text_bytes: docs
                .shards
                .iter()
                .flat_map(|s| s.bytes.iter())
                .map(|&b| b as u64)
                .sum(),
            clusters: sizes.iter().filter(|&&s| s > 1).count() as u64,
            documents_in_clusters: labels.iter().filter(|&&c| sizes[c as usize] > 1).count() as u64,
            removed,
            kept: docs.len() as u64 - removed,
            pairs,
            stages: self.reports.clone(),
            seconds: started.elapsed().as_secs_f64(),
            peak_rss_bytes: crate::machine::peak_rss_bytes(),
            threads: rayon::current_num_threads(),
            deduplicated,
        }
    }
}

/// Writes `clusters.parquet` and `removed.txt` while the deduplicated corpus is copied (the
/// cluster table is CPU: ids and compression; the copy I/O), all staged for publishing.
fn write_outputs(
    output: &Path,
    files: &[InputFile],
    docs: &Documents,
    labels: &[u32],
    decisions: &Decisions,
    deduplicated: &[String],
) -> Result<()> {
    let kept = &decisions.kept;
    let staged = publish::staged_dir(output);
    let (tables, corpus) = rayon::join(
        || -> Result<()> {
            write_clusters(
                &staged.join("clusters.parquet"),
                docs,
                labels,
                &decisions.sizes,
                kept,
            )?;
            crate::fault_injection::reached(crate::fault_injection::KillPoint::Staged);
            fsutil::write_atomic(&staged.join("removed.txt"), |w| {
                for (doc, &k) in kept.iter().enumerate() {
                    if !k {
                        writeln!(w, "{}", docs.id(doc))?;
                    }
                }
                Ok(())
            })
        },
        || -> Result<()> {
            for (f, file) in files.iter().enumerate() {
                let removed: Vec<u64> = (0..docs.shards[f].len())
                    .filter(|&i| !kept[docs.offsets[f] + i])
                    .map(|i| docs.shards[f].lines[i])
                    .collect();
                let target = staged.join(&deduplicated[f]);
                fsutil::check_output(&target, &[file.path.as_path()])?;
                let inflated = stage_files::inflated_copy_path(output, f);
                if file.stream && !inflated.is_file() {
                    return Err(Error::file(
                        &inflated,
                        "the copy of this stream input is gone, and a stream cannot be read \
                         again: rerun the whole command",
                    ));
                }
                if inflated.is_file() {
                    // The sketch stage's inflated copy of a compressed file: the same bytes,
                    // read without inflating them again.
                    write_deduplicated(&file.inflated(inflated), &target, &removed)?;
                } else {
                    write_deduplicated(file, &target, &removed)?;
                }
            }
            Ok(())
        },
    );
    tables?;
    corpus
}

/// Names of the deduplicated files, relative to the output directory.
pub(super) fn deduplicated_names(files: &[InputFile]) -> Vec<String> {
    if let [file] = files {
        return vec![format!("deduplicated.{}", file.format.extension())];
    }
    files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let name = f
                .path
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            let name = name
                .strip_suffix(".gz")
                .or_else(|| name.strip_suffix(".zst"))
                .unwrap_or(&name);
            format!("deduplicated/{i:05}-{name}")
        })
        .collect()
}

fn write_clusters(
    path: &Path,
    docs: &Documents,
    labels: &[u32],
    sizes: &[u32],
    kept: &[bool],
) -> Result<()> {
    let ids: Vec<String> = (0..docs.len()).map(|d| docs.id(d)).collect();
    let size: Vec<u32> = labels.iter().map(|&c| sizes[c as usize]).collect();
    let mut df = DataFrame::new(
        labels.len(),
        vec![
            Column::new("id".into(), ids),
            Column::new("cluster".into(), labels),
            Column::new("cluster_size".into(), size),
            Column::new("kept".into(), kept),
        ],
    )
    .map_err(|e| Error::file(path, e.to_string()))?;
    fsutil::write_atomic(path, |w| {
        ParquetWriter::new(w)
            .with_compression(ParquetCompression::Zstd(None))
            .finish(&mut df)
            .map(|_| ())
            .map_err(std::io::Error::other)
    })
}

/// Copies `file` to `target` without the records at the `removed` lines (sorted).
fn write_deduplicated(file: &InputFile, target: &Path, removed: &[u64]) -> Result<()> {
    // Asked with increasing line numbers.
    let mut next = 0;
    let mut is_removed = |line: u64| {
        while next < removed.len() && removed[next] < line {
            next += 1;
        }
        next < removed.len() && removed[next] == line
    };
    if file.format == FileFormat::Jsonl && file.compression == Compression::None {
        return copy_jsonl_spans(file, target, &mut is_removed);
    }
    // The reader's own error (naming the input and line) rather than its I/O wrapper.
    let mut failure: Option<Error> = None;
    let mut keep_error = |r: Result<()>| {
        r.map_err(|e| {
            let io = std::io::Error::other(e.to_string());
            failure = Some(e);
            io
        })
    };
    let result = match file.format {
        FileFormat::Parquet => fsutil::write_atomic_file(target, |out| {
            keep_error(copy_parquet(file, out, &mut is_removed))
        }),
        FileFormat::Csv => fsutil::write_atomic(target, |w| {
            keep_error(copy_csv(file, w, &mut is_removed, target))
        }),
        FileFormat::Jsonl => fsutil::write_atomic(target, |w| {
            keep_error(copy_jsonl_blocks(file, w, &mut is_removed, target))
        }),
    };
    failure.map_or(result, Err)
}

/// A compressed JSONL file's kept lines, inflated block by block.
fn copy_jsonl_blocks(
    file: &InputFile,
    w: &mut dyn Write,
    is_removed: &mut dyn FnMut(u64) -> bool,
    target: &Path,
) -> Result<()> {
    let mut out = Vec::new();
    input::for_each_line_block(file, |block| {
        out.clear();
        for (n, line) in block.lines() {
            if !is_removed(n) {
                out.extend_from_slice(line);
                out.push(b'\n');
            }
        }
        w.write_all(&out).map_err(|e| Error::io(target, e))
    })
}

/// An uncompressed JSONL file without its removed lines and what is not a record
/// (`input::line_record`) — what the block copy of a compressed file writes. The file is
/// read into one reused buffer and the kept runs of lines are gathered into the aligned
/// buffer of a [`fsutil::DirectWriter`], which writes them past the page cache. (Through the
/// block reader the text was copied four times, into fresh buffers that page-faulted;
/// `copy_file_range` per kept run cost as much, in per-call checks; `writev` through the page
/// cache spent most of the stage copying into fresh cache pages.)
fn copy_jsonl_spans(
    file: &InputFile,
    target: &Path,
    is_removed: &mut dyn FnMut(u64) -> bool,
) -> Result<()> {
    use std::io::Read;
    let mut input = std::fs::File::open(&file.path).map_err(|e| Error::io(&file.path, e))?;
    let mut failure: Option<Error> = None;
    let result = fsutil::write_atomic_file(target, |pending| {
        let mut out = fsutil::DirectWriter::new(pending);
        let mut buf = vec![0u8; 4 << 20];
        // buf[..filled] holds unprocessed bytes: the start of a line at buf[0].
        let mut filled = 0;
        let mut line = 1u64;
        let mut kept: Vec<(usize, usize)> = Vec::new();
        loop {
            if filled == buf.len() {
                // One line longer than the buffer: grow it.
                buf.resize(buf.len() * 2, 0);
            }
            let n = match input.read(&mut buf[filled..]) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    failure = Some(Error::io(&file.path, e));
                    return Err(std::io::Error::other("read failed"));
                }
            };
            let eof = n == 0;
            filled += n;
            let data = &buf[..filled];
            // Complete lines, and at the end of the file the last one without its newline.
            let end = if eof {
                filled
            } else {
                match memchr::memrchr(b'\n', data) {
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            kept.clear();
            let mut start = 0;
            while start < end {
                let newline = memchr::memchr(b'\n', &data[start..end]).map(|i| start + i);
                let (content_end, stop) = newline.map_or((end, end), |i| (i, i + 1));
                let record = input::line_record(&data[start..content_end], line);
                if let Some(record) = record.filter(|_| !is_removed(line)) {
                    // The record ends the line's content (only a mark before it is cut).
                    let from = content_end - record.len();
                    match kept.last_mut() {
                        Some(run) if run.1 == from => run.1 = stop,
                        _ => kept.push((from, stop)),
                    }
                }
                line += 1;
                start = stop;
            }
            for &(a, b) in &kept {
                out.write_all(&data[a..b])?;
            }
            if eof {
                if kept.last().is_some_and(|run| data[run.1 - 1] != b'\n') {
                    out.write_all(b"\n")?;
                }
                return out.finish().map(|_| ());
            }
            buf.copy_within(end..filled, 0);
            filled -= end;
        }
    });
    failure.map_or(result, Err)
}

fn copy_csv(
    file: &InputFile,
    w: &mut dyn Write,
    is_removed: &mut dyn FnMut(u64) -> bool,
    target: &Path,
) -> Result<()> {
    let mut reader = csv::ReaderBuilder::new().from_reader(input::open(file)?);
    let mut writer = csv::Writer::from_writer(w);
    let headers = reader
        .byte_headers()
        .map_err(|e| Error::file(&file.path, e.to_string()))?
        .clone();
    writer
        .write_byte_record(&headers)
        .map_err(|e| Error::file(target, e.to_string()))?;
    let mut record = csv::ByteRecord::new();
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(Error::file(&file.path, format!("malformed CSV: {e}"))),
        }
        let line = record.position().map_or(0, |p| p.line());
        if !is_removed(line) {
            writer
                .write_byte_record(&record)
                .map_err(|e| Error::file(target, e.to_string()))?;
        }
    }
    writer.flush().map_err(|e| Error::io(target, e))
}

/// The kept rows of a Parquet input, with its schema (read by arrow-rs: see `input::parquet`).
fn copy_parquet(
    file: &InputFile,
    out: &mut std::fs::File,
    is_removed: &mut dyn FnMut(u64) -> bool,
) -> Result<()> {
    let parquet = input::parquet::ParquetInput::open(&file.path)?;
    parquet.copy_rows(out, &mut |row| !is_removed(row))
}

fn readme(s: &Summary) -> String {
    let mut out = String::new();
    let mb = s.text_bytes as f64 / 1e6;
    out.push_str("# Deduplication summary\n\n");
    out.push_str(&format!(
        "`{}` ({}) on {} input file{}: {} documents, {:.1} MB of text.\n\n",
        s.algorithm,
        if s.streamed {
            "streamed: texts never all in memory"
        } else {
            "in memory"
        },
        s.inputs.len(),
        if s.inputs.len() == 1 { "" } else { "s" },
        s.documents,
        mb
    ));
    if s.spilled {
        out.push_str(
            "The signatures did not fit `--memory`: the join spilled its keys to disk and read \
             the candidates' signatures back from the sketch shards.\n\n",
        );
    }
    if s.indexed_documents > 0 {
        out.push_str(&format!(
            "Deduplicated against an index of {} documents: {} new documents duplicate one of them \
             (removed, counted below); every new document was then added to the index.\n\n",
            s.indexed_documents, s.duplicates_of_index
        ));
    }
    out.push_str("| documents | clusters (≥ 2) | in clusters | removed | kept | verified pairs |\n|---:|---:|---:|---:|---:|---:|\n");
    out.push_str(&format!(
        "| {} | {} | {} | {} | {} | {} |\n\n",
        s.documents, s.clusters, s.documents_in_clusters, s.removed, s.kept, s.pairs
    ));
    out.push_str("| stage | seconds | rows | |\n|---|---:|---:|---|\n");
    for st in &s.stages {
        out.push_str(&format!(
            "| {} | {:.2} | {} | {} |\n",
            st.stage,
            st.seconds,
            st.rows,
            if st.reused { "reused" } else { "" }
        ));
    }
    out.push_str(&format!(
        "\nTotal {:.2} s ({:.1} MB/s of text), peak RSS {}, {} threads. Outputs: \
         `clusters.parquet`, `removed.txt`, {}.\n",
        s.seconds,
        mb / s.seconds.max(1e-9),
        s.peak_rss_bytes
            .map_or("unknown".into(), neardup::resources::human_bytes),
        s.threads,
        s.deduplicated
            .iter()
            .map(|d| format!("`{d}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out
}
