//! Opening a live index's log: a new one under a fresh id, or the one there replayed into the
//! view (unless a fold had committed it before a crash).

use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use neardup::streaming::StreamingDetector;

use super::doc::Replay;
use super::log::{self, Log, LogHeader};
use super::view::View;
use crate::error::{Error, Result};
use crate::index::IncrementalIndex;

/// The log's file name under the index folder.
pub const LOG_FILE: &str = "live.log";
/// A segment's source when a fold of log `id` committed it.
pub(super) fn folded_source(log_id: &str) -> String {
    format!("live-log:{log_id}")
}

pub(super) fn now_ms() -> u64 {
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

/// Writes a new, empty log under a fresh id at `DIR/live.log` and opens it.
pub(super) fn start_log(dir: &Path, sketch_key: &str, width: usize) -> Result<(Arc<Log>, String)> {
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
pub(super) fn replay_log(
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
