//! What a file holds, as a key: the XXH3-128 of its bytes as stored (compressed bytes for a
//! compressed file). `dedup` keys its sketch shards, and through them every later stage and
//! the index's batches, by this hash, not by the file's size and modification time: a file
//! rewritten with the same size and time (`tac`, `touch -r`) is sketched anew, and a file
//! only touched is not.
//!
//! The hash costs no extra read where it can be had while reading: a [`ContentTap`] on the
//! raw reader of a JSONL or CSV file hashes the bytes as the sketch reads them, and takes
//! [`ContentTap::prefix`] snapshots at the sketch's checkpoints, so that a resumed sketch can
//! check that the part it keeps is still what the file holds. Checking a finished sketch
//! against its file on a rerun is one read of the file ([`hash_file`]: XXH3 hashes much
//! faster than a disk or the page cache delivers).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3Default;

use crate::error::{Error, Result};

/// The hash of a file's first `bytes` bytes (all of them, for a whole file's hash).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentHash {
    /// Bytes hashed.
    pub bytes: u64,
    /// Their XXH3-128, as hex.
    pub xxh3: String,
}

impl ContentHash {
    fn of(hasher: &Xxh3Default, bytes: u64) -> ContentHash {
        ContentHash {
            bytes,
            xxh3: format!("{:032x}", hasher.digest128()),
        }
    }
}

/// A hash being computed from the bytes a reader reads, shared between that reader (often on
/// a thread of its own) and whoever asks for snapshots.
#[derive(Clone, Default)]
pub struct ContentTap(Arc<Mutex<Tapped>>);

#[derive(Default)]
struct Tapped {
    bytes: u64,
    hasher: Xxh3Default,
}

impl std::fmt::Debug for ContentTap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContentTap")
            .field("bytes", &self.lock().bytes)
            .finish()
    }
}

impl ContentTap {
    fn lock(&self) -> std::sync::MutexGuard<'_, Tapped> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `raw` with every byte read from it hashed into this tap (a file read from its start).
    pub fn reader<R: Read>(&self, raw: R) -> TappedReader<R> {
        TappedReader {
            inner: raw,
            tap: self.clone(),
        }
    }

    /// The hash of the bytes read so far: a prefix of the file that covers everything read
    /// from it (a reader may have read ahead of what its caller consumed, never behind).
    pub fn prefix(&self) -> ContentHash {
        let t = self.lock();
        ContentHash::of(&t.hasher, t.bytes)
    }

    /// The hash of the whole file at `path`: what was read so far, then the rest of the file
    /// (a decompressor may stop before the end of what it was given).
    pub fn finish(&self, path: &Path) -> Result<ContentHash> {
        let mut t = self.lock();
        let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
        file.seek(SeekFrom::Start(t.bytes))
            .map_err(|e| Error::io(path, e))?;
        let Tapped { bytes, hasher } = &mut *t;
        *bytes += hash_into(&mut file, hasher, u64::MAX, path)?;
        Ok(ContentHash::of(hasher, *bytes))
    }
}

/// A reader that hashes what it reads (see [`ContentTap::reader`]).
#[derive(Debug)]
pub struct TappedReader<R> {
    inner: R,
    tap: ContentTap,
}

impl<R: Read> Read for TappedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut t = self.tap.lock();
        t.hasher.update(&buf[..n]);
        t.bytes += n as u64;
        Ok(n)
    }
}

/// Hashes up to `limit` bytes of `reader` into `hasher`; the bytes hashed.
fn hash_into(
    reader: &mut impl Read,
    hasher: &mut Xxh3Default,
    limit: u64,
    path: &Path,
) -> Result<u64> {
    let mut buffer = vec![0u8; 1 << 20];
    let mut total = 0u64;
    while total < limit {
        let want = buffer
            .len()
            .min((limit - total).try_into().unwrap_or(usize::MAX));
        let n = match reader.read(&mut buffer[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        };
        hasher.update(&buffer[..n]);
        total += n as u64;
    }
    Ok(total)
}

/// The hash of the file at `path`, and the hash of its first `prefix` bytes when asked (from
/// the same read; `None` when the file is shorter).
pub fn hash_file(path: &Path, prefix: Option<u64>) -> Result<(ContentHash, Option<ContentHash>)> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = Xxh3Default::new();
    let mut bytes = 0;
    let mut at_prefix = None;
    if let Some(p) = prefix {
        bytes = hash_into(&mut file, &mut hasher, p, path)?;
        at_prefix = (bytes == p).then(|| ContentHash::of(&hasher, bytes));
    }
    bytes += hash_into(&mut file, &mut hasher, u64::MAX, path)?;
    Ok((ContentHash::of(&hasher, bytes), at_prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Oracle: the one-shot XXH3-128 of the bytes.
    fn oracle(bytes: &[u8]) -> ContentHash {
        ContentHash {
            bytes: bytes.len() as u64,
            xxh3: format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes)),
        }
    }

    #[test]
    fn a_tap_hashes_what_is_read_and_finishes_the_rest() {
        let dir = crate::test_dir::TestDir::new("content");
        let path = dir.join("f.bin");
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();

        let tap = ContentTap::default();
        let mut reader = tap.reader(File::open(&path).unwrap());
        let mut first = vec![0u8; 1_234_567];
        reader.read_exact(&mut first).unwrap();
        assert_eq!(tap.prefix(), oracle(&bytes[..1_234_567]));
        // The rest is read by `finish`, not by the reader.
        assert_eq!(tap.finish(&path).unwrap(), oracle(&bytes));

        let (whole, prefix) = hash_file(&path, Some(1_234_567)).unwrap();
        assert_eq!(whole, oracle(&bytes));
        assert_eq!(prefix, Some(oracle(&bytes[..1_234_567])));
        let (_, beyond) = hash_file(&path, Some(bytes.len() as u64 + 1)).unwrap();
        assert_eq!(beyond, None, "a prefix longer than the file");
    }
}
