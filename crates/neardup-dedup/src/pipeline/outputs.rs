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
//!   (compressed inputs are written uncompressed; a WARC as `.warc.gz`, a record a member);
//! * `kept-text.jsonl` (`--write-text`) — each kept record's text as compared, with a web
//!   page's `url`, `host`, `date`, `charset` and `title`;
//! * `summary.json` and `README.md` — counts, the cluster sizes and the largest clusters, time
//!   per stage, peak memory.
//!
//! They are written into `stages/outputs/` and published as one set (`publish`), with
//! `summary.json` last.

use std::path::Path;
use std::time::Instant;

use super::audit_tables::{CHUNK_ROWS, CLUSTERS_COLUMNS, Column, PAIRS_COLUMNS, write_table};
use super::clusters::Clusters;
use super::deduplicated::{
    deduplicated_names, deduplicated_targets, write_deduplicated, write_deduplicated_from_copy,
};
use super::documents::Documents;
use super::options::{Stage, TableFormat};
use super::publish;
use super::run_readme::readme;
use super::stage::{pairs_path, run_stage};
use super::stage_files::{self, key};
use super::state::Run;
pub use super::summary::{LargeCluster, SizeBucket, Summary};
use crate::error::{Error, Result};
use crate::fsutil;
use crate::index::segment::Segment;
use crate::input::InputFile;

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

    /// Clusters of two or more by size (see [`super::summary::size_buckets`]).
    fn size_buckets(&self) -> Vec<SizeBucket> {
        super::summary::size_buckets(&self.sizes)
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
        let mut deduplicated = deduplicated_names(&self.files);
        if self.options.write_text {
            deduplicated.push(KEPT_TEXT.to_string());
        }
        let text_fields = match self.options.write_text {
            true => Some(super::verify::texts_fields(
                &self.files,
                self.options,
                &self.fields,
            )?),
            false => None,
        };
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
                    text_fields: text_fields.as_ref(),
                };
                written.write(files)?;
                Ok(((), decisions.removed()))
            },
        )?;
        // The inflated copies have served (and a rerun that finds the outputs done has no use
        // for them either): their disk is given back.
        for f in 0..self.files.len() {
            fsutil::remove_if_present(&stage_files::inflated_copy_path(output, f))?;
        }
        let summary = self.summary(docs, &ids, clusters, &decisions, deduplicated, started);
        warn_if_no_keep_values(&summary);
        let json = serde_json::to_vec_pretty(&summary).expect("summary serializes");
        publish::publish(output, &set, &readme(&summary, output), &json)?;
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
            version: crate::version::VERSION.to_string(),
            inputs: self
                .files
                .iter()
                .map(|f| f.path.display().to_string())
                .collect(),
            text_field: self.options.text_field.clone(),
            id_field: self.options.id_field.clone(),
            html_field: self.options.html_field.clone(),
            extract: self
                .reads_any_pages()
                .then(|| self.options.extract.name().to_string()),
            pages: self.fields.tally.counts(),
            algorithm: self.detector.name().to_string(),
            params: self.detector.resolved_params(),
            streamed: self.stream.is_some(),
            spilled: docs.spill.is_some(),
            keep: self.options.keep.clone(),
            without_keep_value: self.options.keep.field().map(|_| {
                let missing = |s: &stage_files::SketchShard| match &s.keep {
                    Some(values) => values.iter().filter(|v| v.is_nan()).count(),
                    None => s.len(),
                };
                docs.shards.iter().map(|s| missing(s) as u64).sum()
            }),
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
            min_words: self.options.min_words,
            short_documents: docs.shards.iter().map(|s| s.short).sum(),
            invalid_records: docs.shards.iter().map(|s| s.invalid).sum(),
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
            engine: super::summary::Engine::process(),
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
    /// How records are read again for `kept-text.jsonl` (`--write-text`).
    text_fields: Option<&'a crate::input::Fields>,
}

/// The kept records' text (`--write-text`), beside the deduplicated corpus.
pub const KEPT_TEXT: &str = "kept-text.jsonl";

impl Written<'_> {
    /// The audit tables and `removed.txt` while the deduplicated corpus is copied (the tables
    /// are CPU: ids and compression; the copy I/O).
    fn write(&self, files: &[InputFile]) -> Result<()> {
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
            || self.write_corpus(files, &deduplicated_targets(files)),
        );
        tables?;
        corpus
    }

    fn write_corpus(&self, files: &[InputFile], targets: &[Option<String>]) -> Result<()> {
        let (docs, kept) = (self.ids.docs, &self.decisions.kept);
        let staged = publish::staged_dir(self.output);
        for (f, file) in files.iter().enumerate() {
            let Some(name) = &targets[f] else {
                continue;
            };
            let removed: Vec<u64> = (0..docs.shards[f].len())
                .filter(|&i| !kept[docs.offsets[f] + i])
                .map(|i| docs.shards[f].lines[i])
                .collect();
            let target = staged.join(name);
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
                write_deduplicated_from_copy(file, inflated, &target, &removed)?;
            } else {
                write_deduplicated(file, &target, &removed)?;
            }
        }
        if let Some(fields) = self.text_fields {
            self.write_kept_text(files, fields, &staged.join(KEPT_TEXT))?;
        }
        Ok(())
    }

    /// `kept-text.jsonl`: every kept record's text as compared, read again with the run's
    /// fields (web pages extracted again, template lines dropped), a block at a time.
    fn write_kept_text(
        &self,
        files: &[InputFile],
        fields: &crate::input::Fields,
        path: &Path,
    ) -> Result<()> {
        let (docs, kept) = (self.ids.docs, &self.decisions.kept);
        fsutil::write_atomic(path, |w| {
            for (f, file) in files.iter().enumerate() {
                let lines = &docs.shards[f].lines;
                let is_kept = |line: u64| {
                    lines
                        .binary_search(&line)
                        .is_ok_and(|i| kept[docs.offsets[f] + i])
                };
                crate::input::for_each_record_block(file, fields, |block| {
                    let block: Vec<_> = block.into_iter().filter(|r| is_kept(r.line)).collect();
                    crate::web::export::write_jsonl(w, &block).map_err(|e| Error::io(path, e))
                })
                .map_err(std::io::Error::other)?;
            }
            Ok(())
        })
    }

    /// `clusters.*`: one row per new document, in input order.
    fn write_clusters(&self, path: &Path) -> Result<()> {
        let (ids, c, d) = (self.ids, self.clusters, self.decisions);
        let n = ids.docs.len();
        let mut from = 0;
        write_table(path, self.format, &CLUSTERS_COLUMNS, || {
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
        })
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
        write_table(path, self.format, &PAIRS_COLUMNS, || {
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
        })
    }
}

/// `--keep max:FIELD` where no document has the field is almost surely a misspelt name.
fn warn_if_no_keep_values(summary: &Summary) {
    if summary.documents > 0 && summary.without_keep_value == Some(summary.documents) {
        crate::progress::warn(format_args!(
            "--keep {}: no document has a value in that field (a misspelt name?): each \
             cluster kept its first member",
            summary.keep.name()
        ));
    }
}
