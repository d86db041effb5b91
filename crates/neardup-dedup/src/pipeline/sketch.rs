//! The sketch stage of `neardup dedup`: every input file becomes one shard of its documents'
//! places, ids, lengths and signatures (`stages/sketch/NNNNN.parquet` with its marker), texts
//! streamed block by block; then every shard is read into [`Documents`] for the join.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use neardup::streaming::{SignatureTable, StreamingDetector};
use rayon::prelude::*;

use super::documents::Documents;
use super::inflated_copy::InflatedCopy;
use super::options::{DedupOptions, Stage, StageReport};
use super::sketch_file::{Checkpoint, DocumentLimit, sketch_file_parts};
use super::sketched::{Earlier, check_earlier, marker_path, piece_marker_path, sketch_key};
use super::spilled_join::ShardFiles;
use super::stage_files::{self, Marker, SketchShard, SketchWriter, key, mark, stage_dir};
use super::state::Run;
use crate::error::{Error, Result};
use crate::fsutil;
use crate::input::content::{self, ContentHash, ContentTap};
use crate::input::{self, Compression, FileFormat, InputFile, ReadFrom, ReadPosition};

/// Every input file's finished sketch: its marker and its sketch key (`sketched::sketch_key`).
pub(super) struct Sketched {
    pub(super) markers: Vec<Marker>,
    pub(super) keys: Vec<String>,
}

impl Run<'_> {
    /// The sketch stage: one shard per input file, unless an earlier run's shard is there for
    /// the file's present contents. Returns every file's sketch (`None` when this process only
    /// sketches its `--shard`); the shards it computed stay in `self.fresh` so the join does
    /// not read them back.
    pub(super) fn sketch_stage(&mut self, run_it: bool) -> Result<Option<Sketched>> {
        let dir = stage_dir(&self.options.output, Stage::Sketch.name());
        let params_keys = self.sketch_params_keys();
        let t = Instant::now();
        let files = self.files.len();
        let mine: Vec<usize> = (0..files)
            .filter(|i| run_it && self.options.shard.is_none_or(|(s, n)| i % n == s))
            .collect();
        // A process that sketches a shard checks only its own files.
        let checked: Vec<usize> = match self.options.shard {
            Some(_) => mine.clone(),
            None => (0..files).collect(),
        };
        let mut done: Vec<Option<Marker>> = vec![None; files];
        let mut resumable = std::collections::HashMap::new();
        for (i, earlier) in check_earlier(&dir, &self.files, &params_keys, &checked)? {
            match earlier {
                Earlier::Finished(m) => done[i] = Some(m),
                Earlier::Resumable(pieces, whole) => {
                    resumable.insert(i, (pieces, whole));
                }
                Earlier::Nothing => {}
            }
        }
        let todo: Vec<(usize, Option<Resume>)> = mine
            .into_iter()
            .filter(|&i| done[i].is_none())
            .map(|i| (i, resumable.remove(&i)))
            .collect();
        let pages = self.reads_any_pages();
        if let (Some(k), false, true) = (self.options.boilerplate_lines, todo.is_empty(), pages) {
            // Every file's pages, even with --shard: a host's template spans files.
            let template =
                crate::web::host_templates::count_boilerplate(&self.files, &self.fields, k)?;
            self.fields.boilerplate = Some(std::sync::Arc::new(template));
        }
        let sketched = self.sketch_files(&dir, &params_keys, todo)?;
        let pages = self.fields.tally.lines();
        if !pages.is_empty() {
            crate::progress::say(format_args!("web pages read:\n{}", pages.join("\n")));
        }
        let reused = sketched.is_empty();
        let mut rows = 0;
        for (i, marker, kept) in sketched {
            rows += marker.rows;
            done[i] = Some(marker);
            if let Some(shard) = kept {
                self.fresh.insert(i, shard);
            }
        }
        self.reports.push(StageReport {
            stage: "sketch".into(),
            seconds: t.elapsed().as_secs_f64(),
            reused,
            rows,
        });
        if self.options.shard.is_some() {
            return Ok(None);
        }
        self.all_sketched(&params_keys, done).map(Some)
    }

    /// Sketches files `todo` (each from the start, or resumed where an earlier run stopped);
    /// their markers, and their documents where kept.
    fn sketch_files(
        &self,
        dir: &Path,
        params_keys: &[String],
        todo: Vec<(usize, Option<Resume>)>,
    ) -> Result<Vec<(usize, Marker, Option<SketchShard>)>> {
        let total: u64 = todo.iter().map(|(i, _)| self.files[*i].size).sum();
        let bar = crate::progress::bytes(total, "sketch");
        // Files are sketched concurrently (each also parallel inside, by blocks): one file
        // at a time left a core idle between blocks (133 % CPU on 8 files of 1M documents).
        // Every file writes its own shard and marker, so a failure loses no other file's
        // work; the error reported is the first failing file's in input order.
        // Each file's documents are written a row group at a time as they are sketched; they
        // are also kept for the join unless this process only sketches a shard, or until the
        // join would need more than most of `--memory` for what is kept (it then spills, and
        // reads back only the places). Dropping them all under any `--memory` and reading the
        // signatures back held them twice while pieces were decoded: 10^6 documents with
        // `--memory 1GiB` peaked at 1,241 MB.
        let kept_bytes = AtomicU64::new(0);
        let job = SketchJob {
            dir,
            keys: params_keys,
            options: self.options,
            fields: &self.fields,
            stream: self.stream.as_deref(),
            width: self.width(),
            keep: self
                .options
                .shard
                .is_none()
                .then(|| self.memory.keep_for_join()),
            kept_bytes: &kept_bytes,
            join_bytes_per_doc: self.memory.join_bytes_per_doc(),
            document_limit: self.memory.document_limit(),
            bar: &bar,
            files: &FileLines::new(todo.len()),
        };
        let results = one_file_per_thread(todo, |(i, resume)| {
            let (marker, kept) = job.sketch_input(&self.files[i], i, resume)?;
            Ok((i, marker, kept))
        });
        bar.finish_and_clear();
        results.into_iter().collect()
    }

    /// The key of each file's sketch parameters (its sketch key adds its contents).
    fn sketch_params_keys(&self) -> Vec<String> {
        let mut base = self.sketch_key_base();
        if self.options.min_words > 0 {
            // Only then: the keys of runs without it, and the shards they name, stay.
            base.push_str(&format!(" min_words={}", self.options.min_words));
        }
        if let Some(field) = self.options.keep.field() {
            // Shards then hold the field's values (max and min read the same ones).
            base.push_str(&format!(" keep_field={field}"));
        }
        self.files
            .iter()
            .map(|f| {
                key(&(
                    &base,
                    &self.options.text_field,
                    &self.options.id_field,
                    format!("{:?} {:?}", f.format, f.compression),
                    // What a page's text is: only where there are pages, so that the keys of
                    // text corpora, and the shards they name, stay as they were.
                    self.fields.reads_pages(f).then(|| {
                        let o = self.options;
                        (&o.html_field, o.extract.name(), o.boilerplate_lines)
                    }),
                ))
            })
            .collect()
    }

    /// Whether any input's records are web pages.
    pub(super) fn reads_any_pages(&self) -> bool {
        self.files.iter().any(|f| self.fields.reads_pages(f))
    }

    /// Every file's finished sketch, or an error naming the files not sketched yet.
    fn all_sketched(&self, params_keys: &[String], done: Vec<Option<Marker>>) -> Result<Sketched> {
        let missing: Vec<String> = (0..self.files.len())
            .filter(|&i| done[i].is_none())
            .map(|i| self.files[i].path.display().to_string())
            .collect();
        if !missing.is_empty() {
            return Err(Error::file(
                &self.options.output,
                format!(
                    "{} of {} input files are not sketched yet (first: {}); run the sketch stage for every shard first",
                    missing.len(),
                    self.files.len(),
                    missing[0]
                ),
            ));
        }
        let markers: Vec<Marker> = done.into_iter().flatten().collect();
        let keys = markers
            .iter()
            .zip(params_keys)
            .map(|(m, params)| match &m.content {
                Some(content) => sketch_key(params, content),
                None => unreachable!("a checked or new marker records its file's hash"),
            })
            .collect();
        Ok(Sketched { markers, keys })
    }

    /// Reads every sketch shard (all must be finished): whole, or without the signatures when
    /// the join does not fit `--memory` and spills.
    pub(super) fn load_documents(&mut self, sketched: &Sketched) -> Result<Documents> {
        let dir = stage_dir(&self.options.output, Stage::Sketch.name());
        let markers = &sketched.markers;
        let mut offsets = Vec::with_capacity(self.files.len());
        let mut total = 0;
        for m in markers {
            offsets.push(total);
            total += m.rows as usize;
        }
        if total == 0 {
            return Err(Error::file(
                &self.options.inputs[0],
                "the inputs hold no document",
            ));
        }
        if total > u32::MAX as usize {
            return Err(Error::file(
                &self.options.output,
                "more than 2^32 − 1 documents: split the corpus",
            ));
        }
        let spill_budget = self.memory.join(total, 0, &self.options.output)?;
        let mut shards = self.read_shards(&dir, markers, spill_budget.is_some())?;
        for (shard, marker) in shards.iter_mut().zip(markers) {
            shard.short = marker.short_documents;
            shard.invalid = marker.invalid_records;
        }

        let read: usize = shards.iter().map(SketchShard::len).sum();
        if read != total {
            return Err(Error::file(
                &dir,
                format!("the sketch shards hold {read} documents, their markers {total}; rerun"),
            ));
        }
        let width = self.width();
        if let Some(budget) = spill_budget {
            // The join reads the signatures piece by piece.
            let (mut paths, mut piece_offsets) = (Vec::new(), Vec::new());
            for (i, m) in markers.iter().enumerate() {
                let mut first = offsets[i];
                for (p, &rows) in m.pieces.iter().enumerate() {
                    paths.push(piece_path(&dir, i, p));
                    piece_offsets.push(first);
                    first += rows as usize;
                }
            }
            return Ok(Documents {
                shards,
                table: SignatureTable::new(width),
                offsets,
                len: total,
                spill: Some((
                    ShardFiles {
                        paths,
                        offsets: piece_offsets,
                        documents: total,
                        width,
                    },
                    budget,
                )),
            });
        }
        let table = one_table(&mut shards, width, total);
        Ok(Documents {
            shards,
            table,
            offsets,
            len: total,
            spill: None,
        })
    }

    /// Every file's shard: kept from this run's sketch, or read back from its pieces (without
    /// the signatures when the join spills).
    fn read_shards(
        &mut self,
        dir: &Path,
        markers: &[Marker],
        places_only: bool,
    ) -> Result<Vec<SketchShard>> {
        let width = self.width();
        let mut fresh = std::mem::take(&mut self.fresh);
        if places_only {
            // Kept while they fitted; the spilled join reads the signatures from the pieces.
            for shard in fresh.values_mut() {
                shard.table = SignatureTable::new(width);
            }
        }
        // Every piece of the files not sketched by this process, read a few at a time in
        // parallel and appended per file in order: a file's shard is allocated once, and only
        // as many decoded pieces as threads are held besides it.
        let pieces: Vec<(usize, usize, u64)> = markers
            .iter()
            .enumerate()
            .filter(|(i, _)| !fresh.contains_key(i))
            .flat_map(|(i, m)| m.pieces.iter().enumerate().map(move |(p, &r)| (i, p, r)))
            .collect();
        let mut shards: Vec<SketchShard> = (0..self.files.len())
            .map(|i| fresh.remove(&i).unwrap_or_else(|| SketchShard::new(width)))
            .collect();
        for chunk in pieces.chunks(rayon::current_num_threads().max(1)) {
            let read: Vec<SketchShard> = chunk
                .par_iter()
                .map(|&(i, p, _)| match places_only {
                    true => stage_files::read_sketch_places(&piece_path(dir, i, p), width),
                    false => stage_files::read_sketch(&piece_path(dir, i, p), width),
                })
                .collect::<Result<_>>()?;
            for (&(i, p, rows), piece) in chunk.iter().zip(read) {
                if piece.len() as u64 != rows {
                    return Err(Error::file(
                        &piece_path(dir, i, p),
                        format!(
                            "holds {} documents, its marker says {rows}; delete it and rerun",
                            piece.len()
                        ),
                    ));
                }
                shards[i].append(piece);
                if p == 0 {
                    // The first piece was moved in: room for the others at once.
                    shards[i]
                        .reserve_exact((markers[i].rows as usize).saturating_sub(rows as usize));
                }
            }
        }
        Ok(shards)
    }
}

/// One copy of the signatures, in document order: the first shard's table is moved (one input
/// file: no copy at all), the others' rows appended and freed one by one.
fn one_table(shards: &mut [SketchShard], width: usize, total: usize) -> SignatureTable {
    let mut table = SignatureTable::new(width);
    for (i, s) in shards.iter_mut().enumerate() {
        let rows = std::mem::replace(&mut s.table, SignatureTable::new(width));
        if i == 0 {
            table = rows;
            // The final size is known: one allocation, not a doubling that held 1.5× the
            // signatures while it copied (10^6 documents in 8 files: 1.5 GB peak).
            table.reserve_exact(total - table.len());
        } else {
            table.extend(&rows);
        }
    }
    table
}

/// What sketching one input file needs from the run.
struct SketchJob<'a> {
    dir: &'a Path,
    keys: &'a [String],
    options: &'a DedupOptions,
    fields: &'a input::Fields,
    stream: Option<&'a dyn StreamingDetector>,
    width: usize,
    /// Whether the files' documents are kept for the join (else it reads them back), and
    /// while the join would need at most how many bytes for them.
    keep: Option<u64>,
    /// What the join would need for the documents kept so far, over every file.
    kept_bytes: &'a AtomicU64,
    /// See [`super::memory_plan::MemoryPlan::join_bytes_per_doc`].
    join_bytes_per_doc: u64,
    /// See [`super::memory_plan::MemoryPlan::document_limit`].
    document_limit: Option<DocumentLimit>,
    bar: &'a indicatif::ProgressBar,
    /// The lines that stand for the bar where it is hidden.
    files: &'a FileLines,
}

/// Where the bar is hidden (not a terminal), the sketch's progress lines: one per file when
/// there are few; with many (a crawl's thousands of WARC files), one every
/// [`FileLines::EVERY`] with the count, the rate and the time left, not 100,000 lines.
struct FileLines {
    total: usize,
    done: std::sync::atomic::AtomicUsize,
    started: std::time::Instant,
    last: std::sync::Mutex<std::time::Instant>,
}

impl FileLines {
    /// Files up to which each gets its own line.
    const FEW: usize = 50;
    const EVERY: std::time::Duration = std::time::Duration::from_secs(10);

    fn new(total: usize) -> Self {
        let now = std::time::Instant::now();
        FileLines {
            total,
            done: Default::default(),
            started: now,
            last: std::sync::Mutex::new(now),
        }
    }

    /// Notes that `file` is sketched: `rows` documents, `bytes` read in `seconds`.
    fn sketched(&self, file: &Path, rows: u64, bytes: u64, seconds: f64) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if self.total <= Self::FEW {
            crate::progress::say(format_args!(
                "sketched {} ({rows} documents, {:.1} MB/s)",
                file.display(),
                bytes as f64 / 1e6 / seconds.max(1e-9)
            ));
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.elapsed() < Self::EVERY && done < self.total {
            return;
        }
        *last = std::time::Instant::now();
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = done as f64 / elapsed.max(1e-9);
        crate::progress::say(format_args!(
            "sketched {done} of {} files ({rate:.0} files/s, {:.0} s left)",
            self.total,
            (self.total - done) as f64 / rate.max(1e-9)
        ));
    }
}

impl SketchJob<'_> {
    /// Sketches input `i` into its shard's pieces (from the start, or from the last checkpoint
    /// an interrupted run left for the file as it is) and marks it finished; its marker, and
    /// its documents if kept.
    fn sketch_input(
        &self,
        file: &InputFile,
        i: usize,
        resume: Option<Resume>,
    ) -> Result<(Marker, Option<SketchShard>)> {
        self.bar
            .set_message(format!("sketch {}", crate::input::stem(&file.path)));
        // A finished marker of other contents goes before any piece is rewritten: should the
        // file get those contents back, the marker must not vouch for pieces of these.
        fsutil::remove_if_present(&marker_path(self.dir, i))?;
        let (done, content) = Content::for_sketch(file, resume)?;
        let from = done.last().and_then(|m| m.position);
        say_how_read(file, from.as_ref(), done.len());
        let (text_bytes, seconds) = done.last().map_or((0, 0.0), |m| (m.text_bytes, m.seconds));
        let mut sketch = FileSketch {
            job: self,
            i,
            start: Instant::now(),
            pieces: done.iter().map(|m| m.rows).collect(),
            checksums: done.iter().flat_map(|m| m.checksums.clone()).collect(),
            piece_rows: 0,
            writer: None,
            // A resumed file's first pieces are on disk only: the join reads them back.
            kept: (self.keep.is_some() && from.is_none()).then(|| SketchShard::new(self.width)),
            text_bytes,
            seconds,
            short_before: done.last().map_or(0, |m| m.short_documents),
            short: 0,
            invalid_before: done.last().map_or(0, |m| m.invalid_records),
            invalid: 0,
            content,
        };
        let mut inflated = InflatedCopy::start(self.options, file, i, from.is_some())?;
        // Progress inside the file where its bytes as read are its bytes on disk (plain
        // JSONL: a single large file is not one jump at its end); else when it is done.
        let plain = file.format == FileFormat::Jsonl && file.compression == Compression::None;
        let mut shown = if plain { from.map_or(0, |p| p.byte) } else { 0 };
        self.bar.inc(shown);
        let read_from = ReadFrom {
            position: from.unwrap_or(ReadPosition::START),
            block: input::BLOCK_BYTES,
            tap: sketch.content.tap(),
        };
        let read = sketch_file_parts(
            file,
            self.stream,
            self.fields,
            (
                read_from,
                self.options.checkpoint_bytes,
                self.document_limit.as_ref(),
            ),
            |bytes| {
                inflated.write(bytes);
                if plain {
                    self.bar.inc(bytes.len() as u64);
                    shown += bytes.len() as u64;
                }
            },
            |part, checkpoint| sketch.part(part, checkpoint),
        )?;
        sketch.commit_last_piece()?;
        // Before the marker: a marker always comes after its file's copy.
        inflated.finish()?;
        self.bar.inc(file.size.saturating_sub(shown));
        let start = sketch.start;
        let (marker, kept) = sketch.finish(file, read)?;
        if self.bar.is_hidden() {
            let seconds = start.elapsed().as_secs_f64();
            self.files.sketched(&file.path, marker.rows, read, seconds);
        }
        Ok((marker, kept))
    }
}

/// Says when a sketch resumes inside a file, or reads a stream.
fn say_how_read(file: &InputFile, from: Option<&ReadPosition>, pieces: usize) {
    if let Some(from) = from {
        crate::progress::say(format_args!(
            "resuming the sketch of {} at line {} ({} documents in {pieces} pieces were \
             sketched before; the file's first bytes are unchanged)",
            file.path.display(),
            from.line,
            from.records,
        ));
    }
    if file.stream {
        crate::progress::say(format_args!(
            "reading {} as a stream: sketched from its start whenever given (no \
             resume inside it), its bytes kept in stages/sketch for the outputs stage",
            file.path.display()
        ));
    }
}

/// Pieces an interrupted sketch finished for a file as it is, and the file's hash.
type Resume = (Vec<Marker>, ContentHash);

/// Where a file sketch gets the hash of the file's bytes: a tap on the read (a read from the
/// start), or known before it (a resumed read, Parquet).
enum Content {
    Tapped(ContentTap),
    Known(ContentHash),
}

impl Content {
    /// The pieces a sketch of `file` keeps and where it gets the file's hash: from the check
    /// that allowed resuming, from a read of its own (arrow-rs reads Parquet by its path), or
    /// from a tap on the sketch's read.
    fn for_sketch(file: &InputFile, resume: Option<Resume>) -> Result<(Vec<Marker>, Content)> {
        Ok(match resume {
            Some((pieces, whole)) => (pieces, Content::Known(whole)),
            None if file.format == FileFormat::Parquet => {
                let (whole, _) = content::hash_file(&file.path, None)?;
                (Vec::new(), Content::Known(whole))
            }
            None => (Vec::new(), Content::Tapped(ContentTap::default())),
        })
    }

    fn tap(&self) -> Option<ContentTap> {
        match self {
            Content::Tapped(tap) => Some(tap.clone()),
            Content::Known(_) => None,
        }
    }

    /// What a piece's marker records: a prefix of the file covering what was read.
    fn at_checkpoint(&self) -> ContentHash {
        match self {
            Content::Tapped(tap) => tap.prefix(),
            Content::Known(whole) => whole.clone(),
        }
    }

    fn whole(&self, file: &InputFile) -> Result<ContentHash> {
        match self {
            // A stream was read to its end, and cannot be opened again.
            Content::Tapped(tap) if file.stream => Ok(tap.prefix()),
            Content::Tapped(tap) => tap.finish(&file.path),
            Content::Known(whole) => Ok(whole.clone()),
        }
    }
}

/// One input file's sketch in progress: the pieces written so far, the piece being written,
/// and the documents kept for the join.
struct FileSketch<'j, 'a> {
    job: &'j SketchJob<'a>,
    /// The file's index.
    i: usize,
    start: Instant,
    /// Rows of each finished piece.
    pieces: Vec<u64>,
    /// The XXH3-64 of each finished piece's file, by name.
    checksums: std::collections::BTreeMap<String, String>,
    /// Rows of the piece being written.
    piece_rows: u64,
    writer: Option<SketchWriter>,
    /// The documents kept for the join (`None`: it reads them back).
    kept: Option<SketchShard>,
    /// Text bytes and seconds of the pieces sketched before this run.
    text_bytes: u64,
    seconds: f64,
    /// Documents shorter than `--min-words`: before this run, and since.
    short_before: u64,
    short: u64,
    /// Malformed records skipped: before this run, and since.
    invalid_before: u64,
    invalid: u64,
    /// The hash of the file's bytes.
    content: Content,
}

impl FileSketch<'_, '_> {
    /// Writes a part of the file's documents into the current piece (and keeps them while the
    /// join would fit); at a checkpoint, commits the piece and then its marker.
    fn part(&mut self, part: SketchShard, checkpoint: Option<Checkpoint>) -> Result<()> {
        let (dir, i, job) = (self.job.dir, self.i, self.job);
        let piece = self.pieces.len();
        if self.writer.is_none() && !part.is_empty() {
            remove_piece_markers_from(dir, i, piece)?;
            self.writer = Some(SketchWriter::create(
                &piece_path(dir, i, piece),
                job.width,
                job.fields.keep.is_some(),
                self.kept.is_some(),
            )?);
        }
        if let Some(w) = &mut self.writer {
            w.write(&part)?;
        }
        self.piece_rows += part.len() as u64;
        self.short += part.short;
        self.invalid += part.invalid;
        if let Some(k) = &mut self.kept {
            let added = part.len() as u64 * job.join_bytes_per_doc;
            k.append(part);
            let before = job.kept_bytes.fetch_add(added, Ordering::Relaxed);
            if before.saturating_add(added) > job.keep.unwrap_or(u64::MAX) {
                // The join will spill: it reads the places back, not these.
                self.kept = None;
            }
        }
        if let Some(c) = checkpoint
            && let Some(w) = self.writer.take()
        {
            // The piece, then its marker: a marker always has its piece.
            let sum = w.commit()?;
            let name = piece_name(i, piece);
            self.checksums.insert(name.clone(), sum.clone());
            mark(
                &piece_marker_path(dir, i, piece),
                &Marker {
                    key: job.keys[i].clone(),
                    rows: self.piece_rows,
                    seconds: self.seconds + self.start.elapsed().as_secs_f64(),
                    text_bytes: self.text_bytes + c.text_bytes,
                    short_documents: self.short_before + self.short,
                    invalid_records: self.invalid_before + self.invalid,
                    pieces: Vec::new(),
                    position: Some(c.position),
                    content: Some(self.content.at_checkpoint()),
                    checksums: [(name, sum)].into(),
                },
            )?;
            self.pieces.push(std::mem::take(&mut self.piece_rows));
            crate::fault_injection::reached(crate::fault_injection::KillPoint::Pieces);
        }
        Ok(())
    }

    /// Commits the piece being written, the file's last.
    fn commit_last_piece(&mut self) -> Result<()> {
        if let Some(w) = self.writer.take() {
            let sum = w.commit()?;
            self.checksums
                .insert(piece_name(self.i, self.pieces.len()), sum);
            self.pieces.push(self.piece_rows);
        }
        Ok(())
    }

    /// Marks `file` sketched (`read`: its text bytes read now); its marker, and its documents
    /// if kept.
    fn finish(self, file: &InputFile, read: u64) -> Result<(Marker, Option<SketchShard>)> {
        let marker = Marker {
            key: self.job.keys[self.i].clone(),
            rows: self.pieces.iter().sum(),
            seconds: self.seconds + self.start.elapsed().as_secs_f64(),
            text_bytes: self.text_bytes + read,
            short_documents: self.short_before + self.short,
            invalid_records: self.invalid_before + self.invalid,
            pieces: self.pieces,
            position: None,
            content: Some(self.content.whole(file)?),
            checksums: self.checksums,
        };
        mark(&marker_path(self.job.dir, self.i), &marker)?;
        Ok((marker, self.kept))
    }
}

/// Piece `piece` of input `file`'s sketch shard.
pub(super) fn piece_path(dir: &Path, file: usize, piece: usize) -> PathBuf {
    dir.join(piece_name(file, piece))
}

fn piece_name(file: usize, piece: usize) -> String {
    format!("{file:05}-{piece:05}.parquet")
}

/// Removes the markers of input `file`'s pieces from `piece` on, before piece `piece` is
/// written anew: a marker left by an older run must not follow it.
fn remove_piece_markers_from(dir: &Path, file: usize, piece: usize) -> Result<()> {
    let mut p = piece;
    loop {
        let path = piece_marker_path(dir, file, p);
        if !path.exists() {
            return Ok(());
        }
        fsutil::remove_if_present(&path)?;
        p += 1;
    }
}

/// Runs `work` on every item, one item at a time on each thread of the current pool, and
/// returns the results in the items' order.
///
/// Not `into_par_iter()`: a file's task waits inside rayon (its blocks are sketched in
/// parallel), and a waiting worker steals whatever is queued, which there was the next
/// file's whole task, nested on the same stack. With 1,000 input files the nesting held
/// every file's buffers at once (2.8 GB) and then overflowed the stack (SIGABRT). A
/// broadcast runs one loop per worker that takes the next item from a shared counter; no
/// item is ever queued, so a waiting worker can only steal the leaf jobs of a block.
fn one_file_per_thread<T: Send, R: Send>(items: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let items: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    rayon::broadcast(|_| {
        loop {
            let n = next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = items.get(n) else { break };
            let item = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(item) = item {
                let result = work(item);
                *results[n].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            }
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item is taken by one loop")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};

    thread_local! {
        /// File tasks open on this thread, one inside another.
        static DEPTH: Cell<usize> = const { Cell::new(0) };
    }

    /// A task that waits inside rayon the way a file's task does: a block is sketched in
    /// parallel while this thread appends the one before it, then it waits for the block.
    /// `deepest` records the most tasks ever open on one thread at once.
    fn file_task(n: usize, deepest: &AtomicUsize) -> usize {
        let depth = DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get()
        });
        deepest.fetch_max(depth, Ordering::SeqCst);
        let mut sum = 0;
        rayon::in_place_scope(|s| {
            s.spawn(|_| {
                sum = (0..8usize)
                    .into_par_iter()
                    .map(|x| {
                        std::thread::sleep(std::time::Duration::from_micros(100));
                        x * n
                    })
                    .sum()
            });
            std::thread::sleep(std::time::Duration::from_micros((n * 37 % 5) as u64 * 100));
        });
        DEPTH.with(|d| d.set(d.get() - 1));
        sum
    }

    #[test]
    fn files_are_not_nested_on_a_waiting_thread() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let items: Vec<usize> = (0..300).collect();
        let deepest = AtomicUsize::new(0);
        let out = pool.install(|| one_file_per_thread(items.clone(), |n| file_task(n, &deepest)));
        let want: Vec<usize> = items.iter().map(|&n| (0..8).map(|x| x * n).sum()).collect();
        assert_eq!(out, want, "results in the items' order");
        // (`into_par_iter()` here nested 2 or 3 tasks on one thread, in three runs of three.)
        let deepest = deepest.load(Ordering::SeqCst);
        assert_eq!(deepest, 1, "{deepest} file tasks nested on one thread");
    }
}
