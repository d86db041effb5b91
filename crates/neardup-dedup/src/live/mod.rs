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

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use neardup::streaming::{SketchScratch, StreamingDetector};

use crate::error::{Error, Result};
use crate::index::IncrementalIndex;
use folded_meta::{read_folded_meta, write_folded_meta};
use frozen::Frozen;
use log::{Log, LogRecord};
use opening::{now_ms, replay_log, start_log};
use view::View;

mod doc;
mod folded_meta;
mod frozen;
pub mod log;
mod matching;
mod opening;
pub mod query;
mod recent;
mod view;

pub use doc::{
    AddMode, DocInfo, DocMeta, LiveConfig, Match, NewDoc, Outcome, Probe, Refusal, Replay, Stats,
};
pub use opening::LOG_FILE;
use opening::folded_source;

/// The writer's side: the index folder (locked) and the log, held by one add or fold at a
/// time.
#[derive(Debug)]
struct Writer {
    index: IncrementalIndex,
    log: Arc<Log>,
    log_id: String,
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
        let (empty, _) = crate::pipeline::short_texts::sketch_document(
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
        folded_meta.extend(meta);
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

fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

#[cfg(test)]
mod tests;
