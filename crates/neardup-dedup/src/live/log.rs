//! The write-ahead log of a live index (`DIR/live.log`): every add and remove the lookup
//! service acknowledged since the log was last folded into a segment.
//!
//! An add is acknowledged only after its record is on disk: the record is written under the
//! writer's lock, and the acknowledging thread then waits until an `fdatasync` has covered its
//! end ([`Log::wait_durable`]). Concurrent writers share one sync: whoever finds no sync under
//! way starts one for everything written so far, the others wait for it (group commit, as
//! databases since IMS FastPath have done it), so a sync costs one disk flush per batch of
//! waiters, not per add.
//!
//! Layout (little-endian): `NDUPLOG1`, the header's length and JSON (the log's id, the index's
//! signature key and width), its XXH3-64; then records, each its payload's length, the XXH3-64
//! of the payload, the payload. A record that is short or fails its checksum ends the log:
//! everything before it is replayed, the tail is kept beside the log as
//! `live.log.damaged-OFFSET` and named, never silently dropped. Only a torn last write can be
//! damaged this way by a crash, and a torn write was never acknowledged.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"NDUPLOG1";
/// The largest record replay accepts (a signature of 2^20 words and a long id and URL).
const MAX_RECORD: usize = 16 << 20;

/// What the log belongs to: a log is replayed only into the index it was written for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogHeader {
    /// Random, fresh for every log file: the fold that consumed it names it as its segment's
    /// source, so a log folded before a crash is not replayed twice.
    pub log_id: String,
    /// The index's `sketch_key`.
    pub sketch_key: String,
    /// 32-bit words per signature.
    pub width: usize,
}

/// One logged change.
#[derive(Debug, Clone, PartialEq)]
pub enum LogRecord {
    /// A document added: its id, URL, when (ms since the epoch), signature, no-feature flag.
    Add {
        id: String,
        url: Option<String>,
        added_ms: u64,
        empty: bool,
        signature: Vec<u32>,
    },
    /// A document removed by id.
    Remove { id: String },
}

const ADD: u8 = 1;
const REMOVE: u8 = 2;
const NO_URL: u32 = u32::MAX;

impl LogRecord {
    fn encode(&self, out: &mut Vec<u8>) {
        out.clear();
        match self {
            LogRecord::Add {
                id,
                url,
                added_ms,
                empty,
                signature,
            } => {
                out.push(ADD);
                out.extend_from_slice(&added_ms.to_le_bytes());
                out.push(*empty as u8);
                put_str(out, id);
                match url {
                    Some(u) => put_str(out, u),
                    None => out.extend_from_slice(&NO_URL.to_le_bytes()),
                }
                out.extend_from_slice(&(signature.len() as u32).to_le_bytes());
                for w in signature {
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
            LogRecord::Remove { id } => {
                out.push(REMOVE);
                put_str(out, id);
            }
        }
    }

    fn decode(bytes: &[u8]) -> Option<LogRecord> {
        let mut r = Cursor { bytes, at: 0 };
        match r.u8()? {
            ADD => {
                let added_ms = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
                let empty = r.u8()? != 0;
                let id = r.string()?;
                let url = match r.peek_u32()? {
                    NO_URL => {
                        r.take(4)?;
                        None
                    }
                    _ => Some(r.string()?),
                };
                let words = r.u32()? as usize;
                let raw = r.take(words.checked_mul(4)?)?;
                let signature = raw
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                    .collect();
                (r.at == bytes.len()).then_some(LogRecord::Add {
                    id,
                    url,
                    added_ms,
                    empty,
                    signature,
                })
            }
            REMOVE => {
                let id = r.string()?;
                (r.at == bytes.len()).then_some(LogRecord::Remove { id })
            }
            _ => None,
        }
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn peek_u32(&self) -> Option<u32> {
        let b = self.bytes.get(self.at..self.at + 4)?;
        Some(u32::from_le_bytes(b.try_into().ok()?))
    }
    fn string(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

/// What replaying a log found.
#[derive(Debug)]
pub struct Replayed {
    pub header: LogHeader,
    pub records: Vec<LogRecord>,
    /// Bytes of a damaged tail, and where they were kept (`None`: the log was whole).
    pub damaged: Option<(u64, PathBuf)>,
    /// Bytes of the intact log.
    pub bytes: u64,
}

/// Reads the log at `path`: its header and every intact record. A damaged tail is copied to
/// `PATH.damaged-OFFSET` and cut off the log, so appends continue after the intact prefix.
pub fn replay(path: &Path) -> Result<Replayed> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| Error::io(path, e))?;
    let not_a_log = |why: &str| Error::file(path, format!("not a neardup live-index log: {why}"));
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(not_a_log("it does not start with NDUPLOG1"));
    }
    let header_len = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
    let header_end = 12 + header_len + 8;
    if bytes.len() < header_end {
        return Err(not_a_log("its header is cut short"));
    }
    let header_bytes = &bytes[12..12 + header_len];
    let sum = u64::from_le_bytes(bytes[12 + header_len..header_end].try_into().expect("8"));
    if xxh3_64(header_bytes) != sum {
        return Err(not_a_log("its header fails its checksum"));
    }
    let header: LogHeader =
        serde_json::from_slice(header_bytes).map_err(|e| not_a_log(&e.to_string()))?;
    let mut at = header_end;
    let mut records = Vec::new();
    while at < bytes.len() {
        match record_at(&bytes, at) {
            Some((record, end)) => {
                records.push(record);
                at = end;
            }
            None => break,
        }
    }
    let damaged = if at < bytes.len() {
        let kept = PathBuf::from(format!("{}.damaged-{at}", path.display()));
        crate::fsutil::write_bytes(&kept, &bytes[at..])?;
        let f = File::options()
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        f.set_len(at as u64)
            .and_then(|_| f.sync_all())
            .map_err(|e| Error::io(path, e))?;
        Some(((bytes.len() - at) as u64, kept))
    } else {
        None
    };
    Ok(Replayed {
        header,
        records,
        damaged,
        bytes: at as u64,
    })
}

/// The record starting at `at` and where it ends, if it is whole and intact.
fn record_at(bytes: &[u8], at: usize) -> Option<(LogRecord, usize)> {
    let len = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
    if len > MAX_RECORD {
        return None;
    }
    let sum = u64::from_le_bytes(bytes.get(at + 4..at + 12)?.try_into().ok()?);
    let payload = bytes.get(at + 12..at + 12 + len)?;
    if xxh3_64(payload) != sum {
        return None;
    }
    Some((LogRecord::decode(payload)?, at + 12 + len))
}

/// Writes a new, empty log at `path` atomically (a temporary name, synced, renamed, the folder
/// synced), replacing the one there.
pub fn create(path: &Path, header: &LogHeader) -> Result<()> {
    let json = serde_json::to_vec(header).expect("headers serialize");
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&(json.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&json);
    bytes.extend_from_slice(&xxh3_64(&json).to_le_bytes());
    crate::fsutil::write_bytes(path, &bytes)?;
    if let Some(dir) = path.parent() {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io(dir, e))?;
    }
    Ok(())
}

/// An open log, appended to under the caller's writer lock and synced by group commit.
#[derive(Debug)]
pub struct Log {
    path: PathBuf,
    /// Appends (the caller serializes them).
    append: Mutex<Appender>,
    sync: Mutex<SyncState>,
    synced: Condvar,
    /// A second handle to the file, for `fdatasync` outside the append lock.
    sync_file: File,
}

#[derive(Debug)]
struct Appender {
    file: File,
    /// Bytes in the file (intact prefix plus everything appended).
    len: u64,
    buffer: Vec<u8>,
    payload: Vec<u8>,
}

#[derive(Debug, Default)]
struct SyncState {
    /// Bytes written to the file (not necessarily on disk).
    written: u64,
    /// Bytes known to be on disk.
    durable: u64,
    syncing: bool,
    /// A sync failed: nothing written after `durable` can be acknowledged, ever (after a
    /// failed fsync the kernel may have dropped the dirty pages; PostgreSQL's "fsyncgate").
    failed: Option<String>,
}

impl Log {
    /// Opens the log at `path` for appending after its `len` intact bytes.
    pub fn open(path: &Path, len: u64) -> Result<Log> {
        let file = File::options()
            .append(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let sync_file = file.try_clone().map_err(|e| Error::io(path, e))?;
        Ok(Log {
            path: path.to_path_buf(),
            append: Mutex::new(Appender {
                file,
                len,
                buffer: Vec::new(),
                payload: Vec::new(),
            }),
            sync: Mutex::new(SyncState {
                written: len,
                durable: len,
                ..Default::default()
            }),
            synced: Condvar::new(),
            sync_file,
        })
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes in the log.
    pub fn len(&self) -> u64 {
        self.append.lock().expect("log lock").len
    }

    /// Whether the log holds no record (only its header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes `records` (not yet durable) and returns the log's end after them. A failed write
    /// (a full disk) writes nothing: the file is cut back to where it was, and the error says
    /// so; the log stays usable once there is room.
    pub fn append(&self, records: &[LogRecord]) -> Result<u64> {
        let mut a = self.append.lock().expect("log lock");
        let Appender {
            file,
            len,
            buffer,
            payload,
        } = &mut *a;
        buffer.clear();
        for record in records {
            record.encode(payload);
            buffer.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            buffer.extend_from_slice(&xxh3_64(payload).to_le_bytes());
            buffer.extend_from_slice(payload);
        }
        if crate::fault_injection::active("log-write-fails") {
            return Err(Error::io(&self.path, std::io::Error::other("injected")));
        }
        if let Err(e) = file.write_all(buffer) {
            // Cut a partial record off, so that a later append does not follow garbage.
            let cut = file.set_len(*len);
            return Err(Error::file(
                &self.path,
                match cut {
                    Ok(()) => format!("could not log the change ({e}); nothing was added"),
                    Err(c) => format!(
                        "could not log the change ({e}) nor cut the partial record off ({c}); \
                         restart the service: replay drops the partial record"
                    ),
                },
            ));
        }
        *len += buffer.len() as u64;
        let end = *len;
        let mut s = self.sync.lock().expect("sync lock");
        s.written = s.written.max(end);
        Ok(end)
    }

    /// Returns once everything up to `end` is on disk, syncing if no other thread is.
    pub fn wait_durable(&self, end: u64) -> Result<()> {
        let mut s = self.sync.lock().expect("sync lock");
        loop {
            if let Some(e) = &s.failed {
                return Err(Error::file(&self.path, e.clone()));
            }
            if s.durable >= end {
                return Ok(());
            }
            if s.syncing {
                s = self.synced.wait(s).expect("sync lock");
                continue;
            }
            s.syncing = true;
            let target = s.written;
            drop(s);
            let result = if crate::fault_injection::active("skip-fsync") {
                Ok(())
            } else {
                self.sync_file.sync_data()
            };
            s = self.sync.lock().expect("sync lock");
            s.syncing = false;
            match result {
                Ok(()) => s.durable = s.durable.max(target),
                Err(e) => {
                    s.failed = Some(format!(
                        "syncing the log failed ({e}): changes after the last sync cannot be \
                         acknowledged; restart the service (replay keeps what reached the disk)"
                    ))
                }
            }
            self.synced.notify_all();
        }
    }

    /// Writes and syncs `records`: what an acknowledged change takes.
    pub fn append_durable(&self, records: &[LogRecord]) -> Result<()> {
        let end = self.append(records)?;
        self.wait_durable(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> LogHeader {
        LogHeader {
            log_id: "l1".into(),
            sketch_key: "k".into(),
            width: 2,
        }
    }

    fn add(id: &str) -> LogRecord {
        LogRecord::Add {
            id: id.into(),
            url: (id != "b").then(|| format!("https://example.org/{id}")),
            added_ms: 7,
            empty: false,
            signature: vec![1, u32::MAX],
        }
    }

    /// A new, empty log in `dir`, open for appending.
    fn new_log(dir: &Path) -> (PathBuf, Log) {
        let path = dir.join("live.log");
        create(&path, &header()).unwrap();
        let start = std::fs::metadata(&path).unwrap().len();
        let log = Log::open(&path, start).unwrap();
        (path, log)
    }

    #[test]
    fn records_replay_as_written_and_a_torn_tail_is_kept_aside() {
        let dir = crate::test_dir::TestDir::new("live-log");
        let (path, log) = new_log(&dir);
        let written = vec![add("a"), add("b"), LogRecord::Remove { id: "a".into() }];
        log.append_durable(&written).unwrap();
        let whole = log.len();
        drop(log);
        let r = replay(&path).unwrap();
        assert_eq!(
            (r.header, r.records, r.bytes),
            (header(), written.clone(), whole)
        );
        assert!(r.damaged.is_none());
        // A torn write: half a record after the intact ones.
        let mut f = File::options().append(true).open(&path).unwrap();
        f.write_all(&[40, 0, 0, 0, 1, 2, 3]).unwrap();
        drop(f);
        let r = replay(&path).unwrap();
        assert_eq!(r.records, written);
        let (bytes, kept) = r.damaged.unwrap();
        assert_eq!(bytes, 7);
        assert_eq!(std::fs::read(&kept).unwrap(), [40, 0, 0, 0, 1, 2, 3]);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
    }

    #[test]
    fn a_flipped_byte_ends_the_log_at_the_record_before_it() {
        let dir = crate::test_dir::TestDir::new("live-log-flip");
        let (path, log) = new_log(&dir);
        log.append_durable(&[add("a")]).unwrap();
        let first = log.len();
        log.append_durable(&[add("c")]).unwrap();
        drop(log);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let r = replay(&path).unwrap();
        assert_eq!(r.records, vec![add("a")]);
        assert_eq!(r.bytes, first);
    }

    #[test]
    fn concurrent_writers_share_syncs_and_all_become_durable() {
        let dir = crate::test_dir::TestDir::new("live-log-group");
        let (path, log) = new_log(&dir);
        std::thread::scope(|s| {
            for t in 0..8 {
                let log = &log;
                s.spawn(move || {
                    for i in 0..50 {
                        log.append_durable(&[add(&format!("{t}-{i}"))]).unwrap();
                    }
                });
            }
        });
        let r = replay(&path).unwrap();
        assert_eq!(r.records.len(), 400);
        assert_eq!(log.sync.lock().unwrap().durable, log.len());
    }

    #[test]
    fn other_files_are_not_logs() {
        let dir = crate::test_dir::TestDir::new("live-log-other");
        let path = dir.join("live.log");
        std::fs::write(&path, b"{\"id\": 1}\n").unwrap();
        let e = replay(&path).unwrap_err().to_string();
        assert!(
            e.contains("live.log") && e.contains("not a neardup live-index log"),
            "{e}"
        );
    }
}
