//! The shared state of one run ([`Run`]): its options, input files, detector, stage reports
//! and, with `--index`, the index it joins against ([`Indexed`]). Each stage is a method of
//! `Run` in its own file; this file holds what they share.

use std::path::Path;
use std::time::Instant;

use neardup::detector::Detector;
use neardup::streaming::StreamingDetector;

use super::clusters::Clusters;
use super::documents::Documents;
use super::memory_plan::MemoryPlan;
use super::options::{ClusterMode, DedupOptions, StageReport};
use super::stage_files::{SketchShard, key};
use crate::error::{Error, Result};
use crate::index::IncrementalIndex;
use crate::index::segment::{self, Segment};
use crate::input::{self, InputFile};

/// The shared state of one run.
pub(super) struct Run<'a> {
    pub(super) options: &'a DedupOptions,
    pub(super) files: Vec<InputFile>,
    pub(super) detector: Box<dyn Detector>,
    /// How the run uses `--memory`.
    pub(super) memory: MemoryPlan,
    pub(super) stream: Option<Box<dyn StreamingDetector>>,
    pub(super) reports: Vec<StageReport>,
    /// Shards sketched by this run, by file index.
    pub(super) fresh: std::collections::HashMap<usize, SketchShard>,
    /// The index, with `--index`.
    pub(super) indexed: Option<Indexed>,
    /// How verified pairs become clusters (`--clusters`, its default resolved).
    pub(super) cluster_mode: ClusterMode,
    /// What is read of each record, with the count of what happened to web pages.
    pub(super) fields: crate::input::Fields,
    /// Held while the run lives ([`super::stage_files::lock_output`]).
    _output_lock: std::fs::File,
}

/// The index of an `--index` run and what this run reads from it.
pub(super) struct Indexed {
    pub(super) index: IncrementalIndex,
    /// Key of this run's inputs: the segment they become.
    pub(super) source: String,
    /// Key of the join parameters the key tables depend on.
    pub(super) tables_key: String,
    /// Key of the segments joined against (every one but `source`'s).
    pub(super) fingerprint: String,
    /// Documents in them.
    pub(super) documents: usize,
    /// Their contents, read when a stage first needs them.
    pub(super) segments: Option<Vec<Segment>>,
}

impl<'a> Run<'a> {
    /// Everything a run checks before any work: the inputs exist and have known formats, the
    /// outputs can be written, the algorithm and its parameters are valid (and stream, with
    /// `--index`).
    pub(super) fn open(options: &'a DedupOptions) -> Result<Run<'a>> {
        let files = input::expand(&options.inputs)?;
        check_keep_field(options, &files)?;
        check_outputs(options, &files)?;
        let detector = neardup::registry::detector(&options.algorithm, &options.params)?;
        let stream = detector.streaming();
        if let (Some(index), None) = (&options.index, &stream) {
            return Err(Error::file(
                index,
                format!(
                    "--index needs an algorithm that streams (fixed-size signatures); `{}` runs in memory \
                     (`neardup algorithms` says which stream)",
                    options.algorithm
                ),
            ));
        }
        if let (true, None) = (options.min_words > 0, &stream) {
            return Err(neardup::Error::BadParamValue {
                algorithm: options.algorithm.clone(),
                reason: "--min-words needs an algorithm that streams (a short document's \
                         signature is replaced by its exact fingerprint); this one runs in \
                         memory (`neardup algorithms` says which stream)"
                    .into(),
            }
            .into());
        }
        if options.memory.is_some() {
            crate::machine::map_large_blocks_apart();
        }
        let memory = MemoryPlan::new(
            options.memory,
            files.len(),
            stream.as_deref(),
            &options.algorithm,
        );
        memory.check_floor(files.len(), &options.output)?;
        let cluster_mode = cluster_mode(options, detector.as_ref(), stream.is_some())?;
        // Every refusal above comes first: the folder is touched only by a run that will work.
        super::stage_files::claim_stages(&options.output)?;
        let output_lock =
            super::stage_files::lock_output(&options.output, options.shard.is_some())?;
        // What killed runs left: their temporary files (the output directory, its stages and
        // their folders) and, when this run declines them, inflated copies that take disk
        // (a run that failed on a full disk is rerun with --no-inflated-copy). The stages are
        // swept through their own path: they may be a link, which the sweep does not follow.
        crate::temp_files::sweep_and_say(&options.output, 1)?;
        crate::temp_files::sweep_and_say(&options.output.join("stages"), 2)?;
        if !options.inflated_copy {
            for f in 0..files.len() {
                let copy = super::stage_files::inflated_copy_path(&options.output, f);
                crate::fsutil::remove_if_present(&copy)?;
            }
        }
        Ok(Run {
            options,
            files,
            detector,
            memory,
            stream,
            reports: Vec::new(),
            fresh: Default::default(),
            indexed: None,
            cluster_mode,
            fields: options.fields(),
            _output_lock: output_lock,
        })
    }

    /// The key of the candidates stage: the sketches, the parameters of the join and, with
    /// `--index`, the segments joined against. (Each later stage's key is its name and the
    /// key before it.)
    pub(super) fn candidates_key(&self, sketch_keys: &[String]) -> String {
        let own = key(&(
            sketch_keys,
            self.detector.build_params(),
            self.detector.query_params(),
        ));
        match &self.indexed {
            Some(indexed) => key(&(own, "index", &indexed.fingerprint)),
            None => own,
        }
    }
}

/// Whether members can be compared with their representative: on signatures (the algorithm
/// `streams`), or by the built index of an algorithm that judges any pair.
fn compares_any_pair(detector: &dyn Detector, streams: bool) -> bool {
    streams || detector.compares_any_pair()
}

/// `--clusters` resolved: verified unless asked otherwise, when the algorithm can compare any
/// two documents (on signatures, or by its built index); otherwise connected, and asking for
/// verified is an error before any work.
fn cluster_mode(
    options: &DedupOptions,
    detector: &dyn Detector,
    streams: bool,
) -> Result<ClusterMode> {
    let can = compares_any_pair(detector, streams);
    match options.clusters {
        Some(ClusterMode::Verified) if !can => Err(Error::file(
            &options.output,
            format!(
                "--clusters verified compares every member of a cluster with the document kept \
                 for it, and `{}` cannot score an arbitrary pair: use --clusters connected",
                options.algorithm
            ),
        )),
        Some(mode) => Ok(mode),
        None if can => Ok(ClusterMode::Verified),
        None => Ok(ClusterMode::Connected),
    }
}

/// Every output refusal, before any work: the output directory is not an input directory
/// nor inside one (its stage files would be read as corpora), and no output of the set is an
/// input, a symbolic link or anything but a regular file.
fn check_outputs(options: &DedupOptions, files: &[InputFile]) -> Result<()> {
    let output = &options.output;
    if let Some(stream) = files.iter().find(|f| f.stream)
        && !options.inflated_copy
    {
        return Err(Error::file(
            &stream.path,
            "a stream input is read once, so the outputs stage reads the copy the sketch keeps \
             of it: --no-inflated-copy cannot be honoured (give a regular file instead)",
        ));
    }
    crate::fsutil::check_dir(output)?;
    let canonical_output = std::fs::canonicalize(output).map_err(|e| Error::io(output, e))?;
    for input in options.inputs.iter().filter(|i| i.is_dir()) {
        let canonical = std::fs::canonicalize(input).map_err(|e| Error::io(input, e))?;
        if canonical_output.starts_with(&canonical) {
            return Err(Error::file(
                output,
                format!(
                    "the output directory is inside the input directory {}: a rerun would read \
                     its outputs and stage files as corpora; choose an output outside it",
                    input.display()
                ),
            ));
        }
    }
    let folder = output.join("deduplicated");
    if files.len() > 1 && std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_symlink()) {
        return Err(Error::file(
            &folder,
            "refusing to write here: it is a symbolic link; outputs only replace regular files",
        ));
    }
    let inputs: Vec<&Path> = files.iter().map(|f| f.path.as_path()).collect();
    let deduplicated = super::deduplicated::deduplicated_names(files);
    let names = super::publish::names(options.clusters_format, &deduplicated);
    let paths: Vec<std::path::PathBuf> = names.iter().map(|n| output.join(n)).collect();
    crate::fsutil::check_outputs(paths.iter().map(|p| p.as_path()), &inputs)
}

impl Run<'_> {
    /// Opens `--index` (locking it) for a join of `new_documents` documents.
    pub(super) fn open_index(
        &mut self,
        sketch_keys: &[String],
        new_documents: usize,
    ) -> Result<()> {
        let (Some(dir), Some(stream)) = (&self.options.index, &self.stream) else {
            return Ok(());
        };
        // What `neardup serve` logged and did not fold (it was killed) joins the index first.
        crate::live::fold_leftover_log(
            dir,
            &crate::live::LiveConfig {
                algorithm: self.options.algorithm.clone(),
                params: self.options.params.clone(),
                min_words: self.options.min_words,
                ..Default::default()
            },
        )?;
        let index =
            IncrementalIndex::open_for_sketch(dir, stream.as_ref(), self.options.min_words)?;
        crate::temp_files::sweep_and_say(dir, 1)?;
        let source = key(&("index source", sketch_keys));
        let documents = index.documents_excluding(&source) as usize;
        if self
            .memory
            .join(new_documents, documents, &self.options.output)?
            .is_some()
        {
            return Err(Error::file(
                dir,
                "the new documents' signatures do not fit --memory, and a join against an index \
                 does not spill yet: raise --memory or add the corpus in smaller batches",
            ));
        }
        if documents + new_documents > u32::MAX as usize {
            return Err(Error::file(
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

    /// The kept documents of this batch already in the index: sent again under their id with
    /// the same signature (an empty document re-sent is kept, never being anyone's
    /// duplicate), they are the indexed document and are not added twice. Refuses a batch that
    /// keeps a *different* document under an id the index holds from another batch: the id
    /// would name two documents (`index remove --ids` removed both). A re-sent document that
    /// is a duplicate is removed, not added, so it never reaches this check. Refused, the
    /// stages are kept, and a rerun with other ids is quick.
    fn already_indexed(&self, docs: &Documents, removed: &[bool]) -> Result<Vec<usize>> {
        let Some(indexed) = &self.indexed else {
            return Ok(Vec::new());
        };
        let mut ids = docs.given_ids();
        ids.retain(|_, doc| !removed[*doc]);
        let mut again = Vec::new();
        for found in indexed.index.indexed_under_ids(&indexed.source, &ids)? {
            let doc = found.doc;
            if docs.table.row(doc) == found.row.as_slice()
                && docs.table.is_empty_doc(doc) == found.empty
            {
                again.push(doc);
                continue;
            }
            let (f, _) = docs.locate(doc);
            return Err(Error::line(
                &self.files[f].path,
                docs.line(doc),
                format!(
                    "the id {:?} is in the index already, for another document (segment {} of \
                     {}): an id names one document across an index's batches; give this batch \
                     other ids (or another --id-field), or remove the indexed one first \
                     (`neardup index remove --ids`)",
                    docs.id(doc),
                    found.segment,
                    self.options
                        .index
                        .as_deref()
                        .unwrap_or(Path::new(""))
                        .display()
                ),
            ));
        }
        Ok(again)
    }

    /// The indexed segments this run joins against (read on first use).
    pub(super) fn index_segments<'i>(
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

    /// Adds the documents this run kept to the index (once per source); reported as stage
    /// `index`. Only the kept ones: a later batch's document near one this run removed is
    /// then judged against the document kept in its place, as one run over both batches
    /// judges it. (With every document indexed, 637 documents of a second batch were removed
    /// "for" first-batch documents that were themselves removed, in no output.)
    pub(super) fn add_to_index(&mut self, docs: &mut Documents, clusters: &Clusters) -> Result<()> {
        let Some(indexed) = &self.indexed else {
            return Ok(());
        };
        let t = Instant::now();
        let removed: Vec<bool> = (0..docs.len())
            .map(|d| clusters.representative[d] as usize != d)
            .collect();
        let mut not_added = removed;
        if !indexed.index.contains_source(&indexed.source) {
            for doc in self.already_indexed(docs, &not_added)? {
                not_added[doc] = true;
            }
        }
        let (Some(indexed), Some(stream)) = (&mut self.indexed, &self.stream) else {
            return Ok(());
        };
        let added = if indexed.index.contains_source(&indexed.source) {
            None
        } else {
            let segment = kept_segment(docs, &not_added, stream.as_ref(), &indexed.tables_key);
            let rows = segment.len() as u64;
            indexed
                .index
                .add(&indexed.source, &segment)?
                .then_some(rows)
        };
        self.reports.push(StageReport {
            stage: "index".into(),
            seconds: t.elapsed().as_secs_f64(),
            reused: added.is_none(),
            rows: added.unwrap_or(0),
        });
        Ok(())
    }

    /// Documents the components span: the new ones, then the indexed ones.
    pub(super) fn all_documents(&self, docs: &Documents) -> usize {
        docs.len() + self.indexed.as_ref().map_or(0, |i| i.documents)
    }

    /// Whether members can be compared with their representative: on signatures, or by the
    /// built index of an algorithm that judges any pair.
    pub(super) fn compares_any_pair(&self) -> bool {
        compares_any_pair(self.detector.as_ref(), self.stream.is_some())
    }

    pub(super) fn width(&self) -> usize {
        self.stream.as_ref().map_or(0, |s| s.width())
    }

    pub(super) fn sketch_key_base(&self) -> String {
        match &self.stream {
            Some(s) => format!("{}:{}", s.name(), s.sketch_key()),
            None => "documents only".to_string(),
        }
    }
}

/// The segment of the documents of `docs` that are not `removed`: their ids, signatures and
/// key tables.
fn kept_segment(
    docs: &Documents,
    removed: &[bool],
    stream: &dyn StreamingDetector,
    tables_key: &str,
) -> Segment {
    let mut table = neardup::streaming::SignatureTable::new(docs.table.width());
    let mut ids = Vec::new();
    for d in (0..docs.len()).filter(|&d| !removed[d]) {
        ids.push(docs.id(d));
        table.push(docs.table.row(d), docs.table.is_empty_doc(d));
    }
    Segment {
        ids,
        tables: segment::key_tables(stream, &table),
        table,
        tables_key: tables_key.to_string(),
        stored_rows: None,
    }
}

/// `--keep max:FIELD` on WARC and HTML files: a page has no fields but when it was fetched.
fn check_keep_field(options: &DedupOptions, files: &[input::InputFile]) -> Result<()> {
    let Some(field) = options.keep.field() else {
        return Ok(());
    };
    let page_file = files
        .iter()
        .find(|f| matches!(f.format, input::FileFormat::Warc | input::FileFormat::Html));
    match page_file {
        Some(f) if field != "date" => Err(Error::file(
            &f.path,
            format!(
                "--keep {}: a WARC or HTML file's pages have no field `{field}`; they can be \
                 kept by `date` (when the page was fetched: max:date keeps the newest)",
                options.keep.name()
            ),
        )),
        _ => Ok(()),
    }
}
