//! The live index: the store behind `neardup serve`, answering "is this a near-duplicate of
//! anything indexed, and of what?" one document at a time, and adding documents as they come,
//! durably, in the same folder and format as `neardup dedup --index`.
//!
//! ```text
//! DIR/index.json, DIR/segments/   the index (`crate::index`): what every fold committed
//! DIR/live.log                    the write-ahead log (`log`): changes since the last fold
//! DIR/live-meta/LOG_ID.jsonl      the URL and time of each document a fold committed
//! ```
//!
//! **Concepts.** The *frozen* part is the index's segments (`frozen`): key tables in memory,
//! signatures memory-mapped. The *recent* part (`recent`) holds the documents added since the
//! last fold, in hash tables. Documents are numbered across both, segments first, so "the
//! document a copy is a duplicate of" is the first match in that order — the document
//! `dedup --index` keeps for a cluster (an indexed one, ties to the smaller number).
//!
//! **Invariants.**
//! - *An answer is the batch answer.* A check finds candidates by the same join keys and heavy-
//!   run rule as `dedup --index` (`index::segment::candidates_against`) and verifies them with
//!   the algorithm's own `verify`, so adding documents one by one decides as running
//!   `dedup --index` on each of them in turn (the tests' oracle).
//! - *Acknowledged means on disk.* An add or remove returns only after its log record is
//!   synced (group commit, `log`). A record that is not acknowledged may be lost; none that
//!   is.
//! - *Check-then-add is one step.* Adds hold the writer's lock from their check to their log
//!   write and the update of the recent part, so two clients adding one page get one "added"
//!   and one "duplicate of" it. Checks never take that lock: they read the recent part under a
//!   read lock that a writer holds only while it inserts into memory, never across a disk
//!   write or sync.
//! - *Folding loses and repeats nothing.* A fold commits the recent documents as a segment
//!   whose source names the log (`live-log:LOG_ID`) and then replaces the log; a log whose id
//!   a segment already names was folded before a crash and is not replayed again.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use neardup::detector::ParamMap;
use neardup::streaming::{SignatureTable, SketchScratch, StreamingDetector};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::index::IncrementalIndex;
use crate::index::segment::{Segment, key_tables};
use frozen::Frozen;
use log::{Log, LogHeader, LogRecord};
use recent::Recent;

mod frozen;
pub mod log;
mod matching;
pub mod query;
mod recent;

/// The log's file name under the index folder.
pub const LOG_FILE: &str = "live.log";
/// The folder of the folded documents' URLs and times.
const META_DIR: &str = "live-meta";
/// A segment's source when a fold of log `id` committed it.
fn folded_source(log_id: &str) -> String {
    format!("live-log:{log_id}")
}

/// How a live index is opened: the algorithm and parameters of its signatures (as
/// `dedup --index` takes them) and when the recent part is folded into a segment.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    pub algorithm: String,
    pub params: ParamMap,
    pub min_words: usize,
    /// Recent documents that make a fold due.
    pub fold_after: usize,
}

impl Default for LiveConfig {
    fn default() -> Self {
        LiveConfig {
            algorithm: "minhash-lsh".into(),
            params: ParamMap::new(),
            min_words: 0,
            fold_after: 200_000,
        }
    }
}

/// A document's URL and when it was added (milliseconds since the Unix epoch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocMeta {
    pub url: Option<String>,
    pub added_ms: u64,
}

/// A document's signature, ready to check or add.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub row: Vec<u32>,
    /// No feature (an empty text): never anyone's duplicate.
    pub empty: bool,
}

/// An indexed document a probe is a near-duplicate of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    pub id: String,
    pub similarity: f64,
}

/// Whether an add first checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddMode {
    /// Added only when it is no near-duplicate of an indexed document.
    IfNew,
    /// Added whatever it matches (a re-crawl that must be recorded); the matches are said.
    Always,
}

/// A document to add.
#[derive(Debug, Clone)]
pub struct NewDoc {
    pub id: String,
    pub url: Option<String>,
    pub probe: Probe,
}

/// What an add did. `matches` are in document order: the first is the one `dedup --index`
/// would keep for it.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Added {
        matches: Vec<Match>,
    },
    Duplicate {
        matches: Vec<Match>,
    },
    /// The id is indexed already with this very signature: nothing to add.
    AlreadyIndexed,
}

/// Why a change was refused.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The request contradicts the index (an id that names another document).
    #[error("{0}")]
    Conflict(String),
    /// The change could not be made durable (a full disk, a failed sync): nothing was added.
    #[error("{0}")]
    Storage(#[from] Error),
}

/// A document as `GET /v1/docs/{id}` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocInfo {
    pub id: String,
    pub number: u32,
    pub url: Option<String>,
    pub host: Option<String>,
    pub added_ms: Option<u64>,
    /// `log` (added since the last fold) or the segment file holding it.
    pub stored_in: String,
}

/// Counts `stats` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub algorithm: String,
    pub sketch_key: String,
    pub documents: u64,
    pub segments: usize,
    pub recent_documents: usize,
    pub removed_pending: usize,
    pub log_bytes: u64,
    pub memory_bytes: u64,
}

/// What opening found in the log.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    pub records: usize,
    pub seconds: f64,
    /// Bytes of a damaged tail, and where they were kept.
    pub damaged: Option<(u64, PathBuf)>,
    /// The log had been folded before a crash (its records are in a segment).
    pub already_folded: bool,
}

/// The writer's side: the index folder (locked) and the log, held by one add or fold at a
/// time.
#[derive(Debug)]
struct Writer {
    index: IncrementalIndex,
    log: Arc<Log>,
    log_id: String,
}

/// What checks read.
#[derive(Debug)]
struct View {
    frozen: Arc<Frozen>,
    recent: Recent,
    by_id: HashMap<String, u32>,
    /// Removed documents still in a segment or the recent part (until the next fold).
    removed: HashSet<u32>,
    folded_meta: HashMap<String, DocMeta>,
}

/// A live index over a folder; see the module's documentation.
#[derive(Debug)]
pub struct LiveIndex {
    dir: PathBuf,
    algorithm: String,
    stream: Box<dyn StreamingDetector>,
    min_words: usize,
    tables_key: String,
    sketch_key: String,
    fold_after: usize,
    writer: Mutex<Writer>,
    view: RwLock<View>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A fresh log id: the time and the process, hashed with a counter (unique per folder: one
/// process holds a folder at a time).
fn fresh_log_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{:032x}",
        xxhash_rust::xxh3::xxh3_128(format!("{nanos} {} {n}", std::process::id()).as_bytes())
    )
}

impl LiveIndex {
    /// Opens (creating when missing) the index at `dir` for `config`'s signatures, refusing an
    /// index of other signatures as `dedup --index` does, and replays its log.
    pub fn open(dir: &Path, config: &LiveConfig) -> Result<(LiveIndex, Replay)> {
        let detector = neardup::registry::detector(&config.algorithm, &config.params)?;
        let stream = detector.streaming().ok_or_else(|| {
            Error::file(
                dir,
                format!(
                    "{} does not stream (its signatures are not fixed-size), so it cannot keep a \
                     live index: use minhash-lsh, simhash or exact (`neardup algorithms`)",
                    config.algorithm
                ),
            )
        })?;
        let index = IncrementalIndex::open_for_sketch(dir, stream.as_ref(), config.min_words)?;
        crate::temp_files::sweep_and_say(dir, 1)?;
        let base = format!("{}:{}", stream.name(), stream.sketch_key());
        let tables_key = crate::pipeline::stage_files::key(&(
            &base,
            detector.build_params(),
            detector.query_params(),
        ));
        let sketch_key = index.manifest().sketch_key.clone();
        let frozen = Frozen::load(&index, stream.as_ref(), &tables_key, None)?;
        let mut view = View::of(frozen, stream.as_ref(), read_folded_meta(dir)?);
        let started = Instant::now();
        let (log, log_id, mut replay) =
            replay_log(dir, &index, &mut view, stream.as_ref(), &sketch_key)?;
        replay.seconds = started.elapsed().as_secs_f64();
        let live = LiveIndex {
            dir: dir.to_path_buf(),
            algorithm: config.algorithm.clone(),
            stream,
            min_words: config.min_words,
            tables_key,
            sketch_key,
            fold_after: config.fold_after.max(1),
            writer: Mutex::new(Writer { index, log, log_id }),
            view: RwLock::new(view),
        };
        Ok((live, replay))
    }

    /// The index folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The algorithm's name.
    pub fn algorithm(&self) -> &str {
        &self.algorithm
    }

    /// 32-bit words per signature.
    pub fn width(&self) -> usize {
        self.stream.width()
    }

    /// Sketches `text` as `dedup` sketches a record (`--min-words` included).
    pub fn sketch(&self, text: &str, scratch: &mut SketchScratch) -> Probe {
        let mut row = vec![0u32; self.stream.width()];
        let empty = crate::pipeline::short_texts::sketch_document(
            self.stream.as_ref(),
            text,
            self.min_words,
            scratch,
            &mut row,
        );
        Probe { row, empty }
    }

    /// The indexed documents `probe` is a near-duplicate of, in document order.
    pub fn check(&self, probe: &Probe) -> Vec<Match> {
        let view = self.view.read().expect("view lock");
        let found = matching::matches(self.stream.as_ref(), &view, probe);
        view.named(&found)
    }

    /// Adds documents in order, each checked against the index and the ones before it
    /// (`mode`), in one step no other add interleaves with; returns once every added one is
    /// on disk. A conflicting id refuses that document only; a storage failure refuses all.
    pub fn add(
        &self,
        docs: Vec<NewDoc>,
        mode: AddMode,
    ) -> std::result::Result<Vec<std::result::Result<Outcome, Refusal>>, Refusal> {
        let mut writer = self.writer.lock().expect("writer lock");
        let log = Arc::clone(&writer.log);
        let mut outcomes = Vec::with_capacity(docs.len());
        let mut records = Vec::new();
        let recent_before = self.view.read().expect("view lock").recent.len();
        for doc in docs {
            let outcome = self.decide_and_apply(doc, mode, &mut records);
            outcomes.push(outcome);
        }
        let end = if records.is_empty() || crate::fault_injection::active("ack-before-log") {
            log.len()
        } else {
            match log.append(&records) {
                Ok(end) => end,
                Err(e) => {
                    self.view
                        .write()
                        .expect("view lock")
                        .truncate_recent(self.stream.as_ref(), recent_before);
                    return Err(Refusal::Storage(e));
                }
            }
        };
        let due = self.view.read().expect("view lock").recent.len() >= self.fold_after;
        drop(writer);
        // Also a duplicate waits: it may name a document whose add is not yet on disk.
        log.wait_durable(end)?;
        if due {
            writer = self.writer.lock().expect("writer lock");
            if self.view.read().expect("view lock").recent.len() >= self.fold_after {
                self.fold_locked(&mut writer)?;
            }
        }
        Ok(outcomes)
    }

    /// One document of [`add`](Self::add): decided against the view, applied to it, its
    /// record queued.
    fn decide_and_apply(
        &self,
        doc: NewDoc,
        mode: AddMode,
        records: &mut Vec<LogRecord>,
    ) -> std::result::Result<Outcome, Refusal> {
        // The writer's lock is held: nothing changes the view between this read and the write
        // below, and checks are not held up while candidates are verified.
        let view = self.view.read().expect("view lock");
        let found = matching::matches(self.stream.as_ref(), &view, &doc.probe);
        let matches = view.named(&found);
        if mode == AddMode::IfNew && !matches.is_empty() {
            return Ok(Outcome::Duplicate { matches });
        }
        if let Some(&number) = view.by_id.get(&doc.id) {
            if view.row_equals(number, &doc.probe) {
                return Ok(Outcome::AlreadyIndexed);
            }
            return Err(Refusal::Conflict(format!(
                "the id {:?} is indexed already, for another document: an id names one \
                 document; give another id, or remove the indexed one first",
                doc.id
            )));
        }
        let meta = DocMeta {
            url: doc.url.clone(),
            added_ms: now_ms(),
        };
        records.push(LogRecord::Add {
            id: doc.id.clone(),
            url: doc.url,
            added_ms: meta.added_ms,
            empty: doc.probe.empty,
            signature: doc.probe.row.clone(),
        });
        drop(view);
        let mut view = self.view.write().expect("view lock");
        view.push(self.stream.as_ref(), doc.id, meta, &doc.probe);
        Ok(Outcome::Added { matches })
    }

    /// Removes the document `id`; returns whether it was indexed. Durable when it returns.
    pub fn remove(&self, id: &str) -> std::result::Result<bool, Refusal> {
        let writer = self.writer.lock().expect("writer lock");
        if !self.view.read().expect("view lock").by_id.contains_key(id) {
            return Ok(false);
        }
        let log = Arc::clone(&writer.log);
        let end = log.append(&[LogRecord::Remove { id: id.to_string() }])?;
        self.view.write().expect("view lock").remove(id);
        drop(writer);
        log.wait_durable(end)?;
        Ok(true)
    }

    /// A document's stored facts.
    pub fn doc(&self, id: &str) -> Option<DocInfo> {
        let view = self.view.read().expect("view lock");
        let &number = view.by_id.get(id)?;
        let (meta, stored_in) = if number >= view.frozen.documents {
            let r = (number - view.frozen.documents) as usize;
            (Some(view.recent.meta[r].clone()), "log".to_string())
        } else {
            let (segment, _) = view.frozen.locate(number);
            (view.folded_meta.get(id).cloned(), segment.file.clone())
        };
        let url = meta.as_ref().and_then(|m| m.url.clone());
        Some(DocInfo {
            id: id.to_string(),
            number,
            host: url.as_deref().and_then(crate::input::host_of),
            url,
            added_ms: meta.map(|m| m.added_ms),
            stored_in,
        })
    }

    /// Counts for `stats` and `metrics`.
    pub fn stats(&self) -> Stats {
        let writer = self.writer.lock().expect("writer lock");
        let log_bytes = writer.log.len();
        let segments = writer.index.manifest().segments.len();
        drop(writer);
        let view = self.view.read().expect("view lock");
        let frozen_bytes: usize = view.frozen.segments.iter().map(|s| s.heap_bytes()).sum();
        let ids_bytes =
            view.by_id.capacity() * 40 + view.by_id.keys().map(|k| k.capacity()).sum::<usize>();
        Stats {
            algorithm: self.algorithm.clone(),
            sketch_key: self.sketch_key.clone(),
            documents: view.by_id.len() as u64,
            segments,
            recent_documents: view.recent.len(),
            removed_pending: view.removed.len(),
            log_bytes,
            memory_bytes: (frozen_bytes + ids_bytes + view.recent.heap_bytes()) as u64,
        }
    }

    /// Commits the recent part as a segment and starts a new log (nothing to do when the log
    /// holds no change).
    pub fn fold(&self) -> Result<()> {
        let mut writer = self.writer.lock().expect("writer lock");
        self.fold_locked(&mut writer)
    }

    fn fold_locked(&self, writer: &mut Writer) -> Result<()> {
        let log = Arc::clone(&writer.log);
        log.wait_durable(log.len())?;
        let (segment, meta, removed_ids) = {
            let view = self.view.read().expect("view lock");
            if view.recent.len() == 0 && view.removed.is_empty() {
                return Ok(());
            }
            view.fold_contents(self.stream.as_ref(), &self.tables_key)
        };
        // Removals first: a crash after them replays a log whose removals are no-ops.
        if !removed_ids.is_empty() {
            writer.index.remove_ids(&removed_ids)?;
        }
        if !segment.is_empty() {
            write_folded_meta(&self.dir, &writer.log_id, &meta)?;
            writer.index.add(&folded_source(&writer.log_id), &segment)?;
        }
        sync_dir(&self.dir)?;
        self.start_log(writer)?;
        let previous = Arc::clone(&self.view.read().expect("view lock").frozen);
        let frozen = Frozen::load(
            &writer.index,
            self.stream.as_ref(),
            &self.tables_key,
            Some(&previous),
        )?;
        let mut view = self.view.write().expect("view lock");
        let mut folded_meta = std::mem::take(&mut view.folded_meta);
        folded_meta.extend(meta.into_iter().map(|(id, m)| (id, m)));
        *view = View::of(frozen, self.stream.as_ref(), folded_meta);
        Ok(())
    }

    /// Folds and releases the folder: what a clean shutdown does.
    pub fn close(self) -> Result<()> {
        self.fold()
    }

    /// Replaces the log with a new, empty one under a fresh id.
    fn start_log(&self, writer: &mut Writer) -> Result<()> {
        (writer.log, writer.log_id) = start_log(&self.dir, &self.sketch_key, self.stream.width())?;
        Ok(())
    }
}

/// Writes a new, empty log under a fresh id at `DIR/live.log` and opens it.
fn start_log(dir: &Path, sketch_key: &str, width: usize) -> Result<(Arc<Log>, String)> {
    let header = LogHeader {
        log_id: fresh_log_id(),
        sketch_key: sketch_key.to_string(),
        width,
    };
    let path = dir.join(LOG_FILE);
    log::create(&path, &header)?;
    let len = std::fs::metadata(&path)
        .map_err(|e| Error::io(&path, e))?
        .len();
    Ok((Arc::new(Log::open(&path, len)?), header.log_id))
}

/// Reads `DIR/live.log` into `view`'s recent part and opens it for appending (or starts a new
/// log when there is none, or when a fold had committed this one before a crash).
fn replay_log(
    dir: &Path,
    index: &IncrementalIndex,
    view: &mut View,
    stream: &dyn StreamingDetector,
    sketch_key: &str,
) -> Result<(Arc<Log>, String, Replay)> {
    let path = dir.join(LOG_FILE);
    if std::fs::symlink_metadata(&path).is_err() {
        let (log, id) = start_log(dir, sketch_key, stream.width())?;
        return Ok((log, id, Replay::default()));
    }
    if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
        return Err(Error::file(
            &path,
            "not a regular file (a link or a folder): the live index keeps its log here and \
             neither follows nor replaces what is there",
        ));
    }
    let replayed = log::replay(&path)?;
    let h = &replayed.header;
    if h.sketch_key != sketch_key || h.width != stream.width() {
        return Err(Error::file(
            &path,
            format!(
                "a log of another index ({}, {} words a signature; this index: {}, {}): \
                 move it away to open this index",
                h.sketch_key,
                h.width,
                sketch_key,
                stream.width()
            ),
        ));
    }
    let already_folded = index.contains_source(&folded_source(&h.log_id));
    let replay = Replay {
        records: replayed.records.len(),
        damaged: replayed.damaged.clone(),
        already_folded,
        seconds: 0.0,
    };
    if already_folded {
        let (log, id) = start_log(dir, sketch_key, stream.width())?;
        return Ok((log, id, replay));
    }
    for record in replayed.records {
        view.apply(stream, record);
    }
    let log = Arc::new(Log::open(&path, replayed.bytes)?);
    Ok((log, replayed.header.log_id, replay))
}

/// Folds the log a killed `neardup serve` left in `dir` into the index, so a batch run
/// (`dedup --index`) sees every document the service acknowledged; nothing when there is no
/// log.
pub fn fold_leftover_log(dir: &Path, config: &LiveConfig) -> Result<()> {
    if !dir.join(LOG_FILE).exists() {
        return Ok(());
    }
    let (live, _) = LiveIndex::open(dir, config)?;
    live.close()
}

impl View {
    fn of(
        frozen: Frozen,
        stream: &dyn StreamingDetector,
        folded_meta: HashMap<String, DocMeta>,
    ) -> View {
        let mut by_id = HashMap::with_capacity(frozen.documents as usize);
        for (segment, &offset) in frozen.segments.iter().zip(&frozen.offsets) {
            for (d, id) in segment.ids.iter().enumerate() {
                by_id.entry(id.clone()).or_insert(offset + d as u32);
            }
        }
        View {
            frozen: Arc::new(frozen),
            recent: Recent::new(stream),
            by_id,
            removed: HashSet::new(),
            folded_meta,
        }
    }

    fn id(&self, number: u32) -> &str {
        if number >= self.frozen.documents {
            &self.recent.ids[(number - self.frozen.documents) as usize]
        } else {
            let (segment, d) = self.frozen.locate(number);
            &segment.ids[d]
        }
    }

    fn named(&self, found: &[(u32, f64)]) -> Vec<Match> {
        found
            .iter()
            .map(|&(number, similarity)| Match {
                id: self.id(number).to_string(),
                similarity,
            })
            .collect()
    }

    /// Whether document `number` has `probe`'s signature and emptiness.
    fn row_equals(&self, number: u32, probe: &Probe) -> bool {
        let mut row = vec![0u32; probe.row.len()];
        let empty = matching::row_of(self, number, &mut row);
        empty == probe.empty && row == probe.row
    }

    fn push(&mut self, stream: &dyn StreamingDetector, id: String, meta: DocMeta, probe: &Probe) {
        let number = self.frozen.documents
            + self
                .recent
                .push(stream, id.clone(), meta, &probe.row, probe.empty);
        self.by_id.insert(id, number);
    }

    fn remove(&mut self, id: &str) {
        if let Some(number) = self.by_id.remove(id) {
            self.removed.insert(number);
        }
    }

    fn apply(&mut self, stream: &dyn StreamingDetector, record: LogRecord) {
        match record {
            LogRecord::Add {
                id,
                url,
                added_ms,
                empty,
                signature,
            } => {
                if self.by_id.contains_key(&id) {
                    return;
                }
                let probe = Probe {
                    row: signature,
                    empty,
                };
                self.push(stream, id, DocMeta { url, added_ms }, &probe);
            }
            LogRecord::Remove { id } => self.remove(&id),
        }
    }

    /// Undoes the recent additions from `len` on (their log write failed).
    fn truncate_recent(&mut self, stream: &dyn StreamingDetector, len: usize) {
        let base = self.frozen.documents;
        for d in len..self.recent.len() {
            let id = &self.recent.ids[d];
            if self.by_id.get(id) == Some(&(base + d as u32)) {
                self.by_id.remove(id);
            }
            self.removed.remove(&(base + d as u32));
        }
        self.recent.truncate(stream, len);
    }

    /// What a fold commits: the segment of the recent documents still indexed, their URLs and
    /// times, and the ids of removed documents that a segment holds.
    fn fold_contents(
        &self,
        stream: &dyn StreamingDetector,
        tables_key: &str,
    ) -> (Segment, Vec<(String, DocMeta)>, HashSet<String>) {
        let base = self.frozen.documents;
        let mut table = SignatureTable::new(stream.width());
        let mut ids = Vec::new();
        let mut meta = Vec::new();
        for d in 0..self.recent.len() {
            if self.removed.contains(&(base + d as u32)) {
                continue;
            }
            ids.push(self.recent.ids[d].clone());
            meta.push((self.recent.ids[d].clone(), self.recent.meta[d].clone()));
            table.push(self.recent.table.row(d), self.recent.table.is_empty_doc(d));
        }
        let removed_ids = self
            .removed
            .iter()
            .filter(|&&n| n < base)
            .map(|&n| self.id(n).to_string())
            .collect();
        let segment = Segment {
            ids,
            tables: key_tables(stream, &table),
            table,
            tables_key: tables_key.to_string(),
            stored_rows: None,
        };
        (segment, meta, removed_ids)
    }
}

fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

/// Writes the folded documents' URLs and times as `DIR/live-meta/LOG_ID.jsonl`.
fn write_folded_meta(dir: &Path, log_id: &str, meta: &[(String, DocMeta)]) -> Result<()> {
    let folder = dir.join(META_DIR);
    std::fs::create_dir_all(&folder).map_err(|e| Error::io(&folder, e))?;
    let path = folder.join(format!("{log_id}.jsonl"));
    crate::fsutil::write_atomic(&path, |w| {
        for (id, m) in meta {
            let line = serde_json::json!({"id": id, "url": m.url, "added_ms": m.added_ms});
            serde_json::to_writer(&mut *w, &line)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// Every folded document's URL and time (the last one written for an id).
fn read_folded_meta(dir: &Path) -> Result<HashMap<String, DocMeta>> {
    let folder = dir.join(META_DIR);
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Ok(out);
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    #[derive(Deserialize)]
    struct Line {
        id: String,
        url: Option<String>,
        added_ms: u64,
    }
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        for (n, line) in text.lines().enumerate() {
            let l: Line = serde_json::from_str(line)
                .map_err(|e| Error::line(&path, n + 1, format!("not a document's facts: {e}")))?;
            out.insert(
                l.id,
                DocMeta {
                    url: l.url,
                    added_ms: l.added_ms,
                },
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
