//! The outputs of `neardup dedup`, written from the clusters:
//!
//! * `clusters.<parquet|csv|jsonl>` (`--clusters-format`) — one row per document in input
//!   order: `id`, `cluster` (numbered by first member), `cluster_size` (with `--index`:
//!   indexed members included), `kept`, `representative` (the id of the document kept in its
//!   place; its own when kept) and `similarity_to_representative`;
//! * `pairs.<parquet|csv|jsonl>` — every verified pair (`stage` = `verify`) and every
//!   comparison with a representative that removed a document without a verified pair between
//!   them (`stage` = `clusters`): `id_a`, `id_b`, `similarity`, `stage`, sorted by document;
//! * `removed.txt` — the id of every removed document, one per line, in input order;
//! * the deduplicated corpus in the input's format with every field as it was: one input →
//!   `deduplicated.<jsonl|csv|parquet>`; several → `deduplicated/NNNNN-<name>` per input
//!   (compressed inputs are written uncompressed);
//! * `summary.json` and `README.md` — counts, the cluster sizes and the largest clusters, time
//!   per stage, peak memory.
//!
//! They are written into `stages/outputs/` and published as one set (`publish`), with
//! `summary.json` last.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::audit_tables::{CHUNK_ROWS, Column, Kind, write_table};
use super::clusters::Clusters;
use super::documents::Documents;
use super::options::{ClusterMode, Keep, Stage, StageReport, TableFormat};
use super::publish;
use super::stage::{pairs_path, run_stage};
use super::stage_files::{self, key};
use super::state::Run;
use crate::error::{Error, Result};
use crate::fsutil;
use crate::index::segment::Segment;
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
    /// How verified pairs became clusters.
    pub cluster_mode: ClusterMode,
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
    /// Removed documents whose similarity to the document kept in their place is below the
    /// threshold (0 with `--clusters verified`; what chaining costs with `connected`). `None`
    /// when the algorithm cannot judge an arbitrary pair (its similarities are then null).
    pub removed_below_threshold: Option<u64>,
    /// Documents kept.
    pub kept: u64,
    /// Verified pairs.
    pub pairs: u64,
    /// Clusters of two or more documents by size: sizes 2, 3–4, 5–8, … up to the largest.
    pub cluster_sizes: Vec<SizeBucket>,
    /// The largest clusters (at most ten), largest first.
    pub largest_clusters: Vec<LargeCluster>,
    /// Time and rows per stage (this run).
    pub stages: Vec<StageReport>,
    /// Wall seconds of this run.
    pub seconds: f64,
    /// Peak resident memory of this process (VmHWM), bytes.
    pub peak_rss_bytes: Option<u64>,
    /// Worker threads.
    pub threads: usize,
    /// The audit tables, relative to the output directory.
    pub tables: Vec<String>,
    /// The deduplicated corpus, relative to the output directory.
    pub deduplicated: Vec<String>,
}

/// Clusters whose size is in `min..=max`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeBucket {
    /// Smallest size counted.
    pub min: u32,
    /// Largest size counted.
    pub max: u32,
    /// Clusters of these sizes.
    pub clusters: u64,
    /// Documents in them.
    pub documents: u64,
}

/// One of the largest clusters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LargeCluster {
    /// Its number in `clusters.*`.
    pub cluster: u32,
    /// Members (with `--index`: indexed members included).
    pub size: u32,
    /// The id of the document kept for it.
    pub representative: String,
}

/// Which new documents stay and how large their clusters are.
struct Decisions {
    /// Members per cluster holding a new document (with `--index`: indexed members included).
    sizes: Vec<u32>,
    /// Per new document: whether it is kept (it is its own representative).
    kept: Vec<bool>,
    /// New documents removed because the document kept for them is an indexed one.
    duplicates_of_index: u64,
    /// Removed documents not within the threshold of their representative.
    removed_below_threshold: u64,
    /// Indexed documents the components spanned.
    indexed: usize,
}

impl Decisions {
    /// Clusters are numbered by first member and new documents come first, so the clusters
    /// holding a new document are `0..clusters`.
    fn new(docs: &Documents, clusters: &Clusters) -> Decisions {
        let n = docs.len();
        let labels = &clusters.labels;
        let count = labels[..n].iter().max().map_or(0, |&m| m as usize + 1);
        let mut sizes = vec![0u32; count];
        for &c in labels.iter().filter(|&&c| (c as usize) < count) {
            sizes[c as usize] += 1;
        }
        let kept: Vec<bool> = (0..n)
            .map(|d| clusters.representative[d] as usize == d)
            .collect();
        let removed = || (0..n).filter(|&d| !kept[d]);
        Decisions {
            duplicates_of_index: removed()
                .filter(|&d| clusters.representative[d] as usize >= n)
                .count() as u64,
            removed_below_threshold: removed().filter(|&d| !clusters.within_threshold[d]).count()
                as u64,
            sizes,
            kept,
            indexed: labels.len() - n,
        }
    }

    fn removed(&self) -> u64 {
        self.kept.iter().filter(|&&k| !k).count() as u64
    }

    /// Clusters of two or more by size, in buckets 2, 3–4, 5–8, … up to the largest.
    fn size_buckets(&self) -> Vec<SizeBucket> {
        let largest = self.sizes.iter().copied().max().unwrap_or(0);
        let mut buckets = Vec::new();
        let (mut min, mut max) = (2u32, 2u32);
        while min <= largest {
            let inside = self.sizes.iter().filter(|&&s| s >= min && s <= max);
            buckets.push(SizeBucket {
                min,
                max,
                clusters: inside.clone().count() as u64,
                documents: inside.map(|&s| s as u64).sum(),
            });
            (min, max) = (max + 1, max.saturating_mul(2));
        }
        buckets
    }
}

/// Document ids, new and indexed (`--index`: numbered after the new ones, segment after
/// segment). Of the indexed documents only those the tables name are read: representatives of
/// new documents and members of verified pairs.
struct Ids<'a> {
    docs: &'a Documents,
    /// Indexed documents named (sorted) and their ids.
    indexed: Vec<u32>,
    indexed_ids: Vec<String>,
}

impl<'a> Ids<'a> {
    /// `verified`: the verified pairs (packed), read only when there is an index.
    fn new(
        docs: &'a Documents,
        segments: &[Segment],
        width: usize,
        clusters: &Clusters,
        verified: Option<&[u64]>,
    ) -> Result<Ids<'a>> {
        let n = docs.len() as u32;
        let mut indexed: Vec<u32> = Vec::new();
        if let Some(pairs) = verified {
            indexed.extend(
                clusters.representative[..n as usize]
                    .iter()
                    .filter(|&&r| r >= n),
            );
            for &p in pairs {
                let (a, b) = neardup::pairs::unpack(p);
                indexed.extend([a, b].into_iter().filter(|&d| d >= n));
            }
            indexed.sort_unstable();
            indexed.dedup();
        }
        let numbers: Vec<u32> = indexed.iter().map(|&d| d - n).collect();
        let indexed_ids = crate::index::segment::fetch_ids(segments, &numbers, width)?;
        Ok(Ids {
            docs,
            indexed,
            indexed_ids,
        })
    }

    fn id(&self, doc: u32) -> String {
        let d = doc as usize;
        if d < self.docs.len() {
            return self.docs.id(d);
        }
        let i = self
            .indexed
            .binary_search(&doc)
            .expect("an indexed document the tables name");
        self.indexed_ids[i].clone()
    }
}

impl Run<'_> {
    /// Clusters → the audit tables, `removed.txt` and the deduplicated corpus, staged
    /// (skipped when the outputs stage finished with the same key and its files exist), then
    /// published with `README.md` and `summary.json`, which it returns.
    pub(super) fn outputs_stage(
        &mut self,
        docs: &Documents,
        clusters: &Clusters,
        components_key: &str,
        started: Instant,
    ) -> Result<Summary> {
        let output = &self.options.output;
        let format = self.options.clusters_format;
        let deduplicated = deduplicated_names(&self.files);
        let stage_key = key(&("outputs", components_key, format, &deduplicated));
        let decisions = Decisions::new(docs, clusters);
        let staged = publish::staged_dir(output);
        let set = publish::staged_names(format, &deduplicated);
        let present = || set.iter().all(|f| staged.join(f).is_file());
        if let (Some(indexed), Some(stream)) = (&mut self.indexed, &self.stream) {
            Self::index_segments(indexed, stream.as_ref())?;
        }
        let segments = self.indexed.as_ref().and_then(|i| i.segments.as_deref());
        let segments = segments.unwrap_or_default();
        // The verified pairs name the indexed documents whose ids the tables need: read once
        // here for both when there is an index, else by the pairs table alone.
        let verified = match segments.is_empty() {
            true => None,
            false => Some(stage_files::read_pairs(&pairs_path(output, Stage::Verify))?),
        };
        let ids = Ids::new(
            docs,
            segments,
            self.width(),
            clusters,
            verified.as_ref().map(|v| v.0.as_slice()),
        )?;
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
                let written = Written {
                    output,
                    format,
                    ids: &ids,
                    clusters,
                    decisions: &decisions,
                    verified: verified.as_ref(),
                };
                written.write(files, &deduplicated)?;
                Ok(((), decisions.removed()))
            },
        )?;
        // The inflated copies have served (and a rerun that finds the outputs done has no use
        // for them either): their disk is given back.
        for f in 0..self.files.len() {
            fsutil::remove_if_present(&stage_files::inflated_copy_path(output, f))?;
        }
        let summary = self.summary(docs, &ids, clusters, &decisions, deduplicated, started);
        let json = serde_json::to_vec_pretty(&summary).expect("summary serializes");
        publish::publish(output, &set, &readme(&summary), &json)?;
        Ok(summary)
    }

    /// What `summary.json` says of this run.
    fn summary(
        &self,
        docs: &Documents,
        ids: &Ids<'_>,
        clusters: &Clusters,
        decisions: &Decisions,
        deduplicated: Vec<String>,
        started: Instant,
    ) -> Summary {
        let labels = &clusters.labels[..docs.len()];
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
            cluster_mode: self.cluster_mode,
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
            removed_below_threshold: self
                .compares_any_pair()
                .then_some(decisions.removed_below_threshold),
            kept: docs.len() as u64 - removed,
            pairs,
            cluster_sizes: decisions.size_buckets(),
            largest_clusters: largest_clusters(labels, clusters, sizes, ids),
            stages: self.reports.clone(),
            seconds: started.elapsed().as_secs_f64(),
            peak_rss_bytes: crate::machine::peak_rss_bytes(),
            threads: rayon::current_num_threads(),
            tables: publish::table_names(self.options.clusters_format).to_vec(),
            deduplicated,
        }
    }
}

/// The ten largest clusters of two or more (the first among equals first).
fn largest_clusters(
    labels: &[u32],
    clusters: &Clusters,
    sizes: &[u32],
    ids: &Ids<'_>,
) -> Vec<LargeCluster> {
    let mut order: Vec<u32> = (0..sizes.len() as u32)
        .filter(|&c| sizes[c as usize] > 1)
        .collect();
    order.sort_by_key(|&c| (std::cmp::Reverse(sizes[c as usize]), c));
    order.truncate(10);
    order
        .into_iter()
        .map(|c| {
            // The first new member of each cluster shows its representative.
            let first = labels.iter().position(|&l| l == c).expect("a new member");
            LargeCluster {
                cluster: c,
                size: sizes[c as usize],
                representative: ids.id(clusters.representative[first]),
            }
        })
        .collect()
}

/// What the outputs stage writes into `stages/outputs/`.
struct Written<'a> {
    output: &'a Path,
    format: TableFormat,
    ids: &'a Ids<'a>,
    clusters: &'a Clusters,
    decisions: &'a Decisions,
    /// The verified pairs and their scores, when already read (`--index`).
    verified: Option<&'a (Vec<u64>, Option<Vec<f64>>)>,
}

impl Written<'_> {
    /// The audit tables and `removed.txt` while the deduplicated corpus is copied (the tables
    /// are CPU: ids and compression; the copy I/O).
    fn write(&self, files: &[InputFile], deduplicated: &[String]) -> Result<()> {
        let staged = publish::staged_dir(self.output);
        let (tables, corpus) = rayon::join(
            || -> Result<()> {
                let [clusters_name, pairs_name] = publish::table_names(self.format);
                self.write_clusters(&staged.join(clusters_name))?;
                self.write_pairs(&staged.join(pairs_name))?;
                crate::fault_injection::reached(crate::fault_injection::KillPoint::Staged);
                let docs = self.ids.docs;
                fsutil::write_atomic(&staged.join("removed.txt"), |w| {
                    for (doc, &k) in self.decisions.kept.iter().enumerate() {
                        if !k {
                            writeln!(w, "{}", docs.id(doc))?;
                        }
                    }
                    Ok(())
                })
            },
            || self.write_corpus(files, deduplicated),
        );
        tables?;
        corpus
    }

    fn write_corpus(&self, files: &[InputFile], deduplicated: &[String]) -> Result<()> {
        let (docs, kept) = (self.ids.docs, &self.decisions.kept);
        let staged = publish::staged_dir(self.output);
        for (f, file) in files.iter().enumerate() {
            let removed: Vec<u64> = (0..docs.shards[f].len())
                .filter(|&i| !kept[docs.offsets[f] + i])
                .map(|i| docs.shards[f].lines[i])
                .collect();
            let target = staged.join(&deduplicated[f]);
            fsutil::check_output(&target, &[file.path.as_path()])?;
            let inflated = stage_files::inflated_copy_path(self.output, f);
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
    }

    /// `clusters.*`: one row per new document, in input order.
    fn write_clusters(&self, path: &Path) -> Result<()> {
        let (ids, c, d) = (self.ids, self.clusters, self.decisions);
        let n = ids.docs.len();
        let mut from = 0;
        write_table(
            path,
            self.format,
            &[
                ("id", Kind::Str),
                ("cluster", Kind::U32),
                ("cluster_size", Kind::U32),
                ("kept", Kind::Bool),
                ("representative", Kind::Str),
                ("similarity_to_representative", Kind::F64),
            ],
            || {
                if from >= n {
                    return None;
                }
                let rows = from..(from + CHUNK_ROWS).min(n);
                from = rows.end;
                let labels = &c.labels[rows.clone()];
                Some(vec![
                    Column::Str(rows.clone().map(|i| ids.docs.id(i)).collect()),
                    Column::U32(labels.to_vec()),
                    Column::U32(labels.iter().map(|&l| d.sizes[l as usize]).collect()),
                    Column::Bool(d.kept[rows.clone()].to_vec()),
                    Column::Str(rows.clone().map(|i| ids.id(c.representative[i])).collect()),
                    Column::F64(c.similarity[rows].to_vec()),
                ])
            },
        )
    }

    /// `pairs.*`: the verified pairs merged with the representative comparisons that removed
    /// a document without one, sorted by (a, b).
    fn write_pairs(&self, path: &Path) -> Result<()> {
        let read;
        let (verified, scores) = match self.verified {
            Some(v) => v,
            None => {
                read = stage_files::read_pairs(&pairs_path(self.output, Stage::Verify))?;
                &read
            }
        };
        let score = |i: usize| scores.as_ref().map_or(f64::NAN, |s| s[i]);
        let c = self.clusters;
        // Indexed documents are never removed: only new documents' comparisons are listed.
        let mut extra: Vec<(u64, f64)> = (0..self.ids.docs.len() as u32)
            .filter_map(|d| {
                let r = c.representative[d as usize];
                let p = neardup::pairs::pack(d.min(r), d.max(r));
                (r != d && verified.binary_search(&p).is_err())
                    .then_some((p, c.similarity[d as usize]))
            })
            .collect();
        extra.sort_unstable_by_key(|e| e.0);
        let (mut i, mut j) = (0, 0);
        write_table(
            path,
            self.format,
            &[
                ("id_a", Kind::Str),
                ("id_b", Kind::Str),
                ("similarity", Kind::F64),
                ("stage", Kind::Str),
            ],
            || {
                if i >= verified.len() && j >= extra.len() {
                    return None;
                }
                let mut rows: Vec<(u64, f64, &'static str)> = Vec::with_capacity(CHUNK_ROWS);
                while rows.len() < CHUNK_ROWS && (i < verified.len() || j < extra.len()) {
                    if j >= extra.len() || (i < verified.len() && verified[i] < extra[j].0) {
                        rows.push((verified[i], score(i), "verify"));
                        i += 1;
                    } else {
                        rows.push((extra[j].0, extra[j].1, "clusters"));
                        j += 1;
                    }
                }
                let unpacked = || rows.iter().map(|r| neardup::pairs::unpack(r.0));
                Some(vec![
                    Column::Str(unpacked().map(|(a, _)| self.ids.id(a)).collect()),
                    Column::Str(unpacked().map(|(_, b)| self.ids.id(b)).collect()),
                    Column::F64(rows.iter().map(|r| r.1).collect()),
                    Column::Str(rows.iter().map(|r| r.2.to_string()).collect()),
                ])
            },
        )
    }
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
    out.push_str(&clusters_said(s));
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
        "\nTotal {:.2} s ({:.1} MB/s of text), peak RSS {}, {} threads. Outputs: {}, \
         `removed.txt`, {}.\n",
        s.seconds,
        mb / s.seconds.max(1e-9),
        s.peak_rss_bytes
            .map_or("unknown".into(), neardup::resources::human_bytes),
        s.threads,
        s.tables
            .iter()
            .map(|d| format!("`{d}`"))
            .collect::<Vec<_>>()
            .join(", "),
        s.deduplicated
            .iter()
            .map(|d| format!("`{d}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out
}

/// The README's account of the clusters: counts, how they were formed, sizes, the largest.
fn clusters_said(s: &Summary) -> String {
    let mut out = String::new();
    out.push_str(match s.cluster_mode {
        ClusterMode::Verified => {
            "Clusters are **verified**: a document is removed only in the name of the kept \
             document it is within the threshold of (chains of near duplicates are cut).\n\n"
        }
        ClusterMode::Connected => {
            "Clusters are **connected** components of the verified pairs: a chain of near \
             duplicates is one cluster, and a removed document may be far from the kept one \
             (`similarity_to_representative` in the clusters table says how far).\n\n"
        }
    });
    out.push_str(
        "| documents | clusters (≥ 2) | in clusters | removed | removed below the threshold | \
         kept | verified pairs |\n|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    out.push_str(&format!(
        "| {} | {} | {} | {} | {} | {} | {} |\n\n",
        s.documents,
        s.clusters,
        s.documents_in_clusters,
        s.removed,
        s.removed_below_threshold
            .map_or("unknown".to_string(), |n| n.to_string()),
        s.kept,
        s.pairs
    ));
    if s.cluster_sizes.is_empty() {
        return out;
    }
    out.push_str("| cluster size | clusters | documents |\n|---|---:|---:|\n");
    for b in &s.cluster_sizes {
        let size = if b.min == b.max {
            b.min.to_string()
        } else {
            format!("{}–{}", b.min, b.max)
        };
        out.push_str(&format!("| {size} | {} | {} |\n", b.clusters, b.documents));
    }
    out.push_str("\nLargest clusters:\n\n| cluster | size | kept document |\n|---:|---:|---|\n");
    for c in &s.largest_clusters {
        out.push_str(&format!(
            "| {} | {} | `{}` |\n",
            c.cluster,
            c.size,
            c.representative.replace('`', "'")
        ));
    }
    out.push('\n');
    out
}
