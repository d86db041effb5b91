//! Opening input files: gzip by extension, SHA-256 of the raw bytes computed while reading,
//! a progress bar on the bytes read.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

use flate2::read::MultiGzDecoder;
use indicatif::ProgressBar;
use sha2::{Digest, Sha256};

use crate::error::{LabError, Result};

/// Hashes and counts every byte read through it.
struct Tee<R> {
    inner: R,
    hasher: Arc<Mutex<Sha256>>,
    bar: ProgressBar,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.lock().expect("hasher lock").update(&buf[..n]);
        self.bar.inc(n as u64);
        Ok(n)
    }
}

/// An open input: a buffered reader of the (decompressed) content, and the checksum of the
/// raw bytes, available once the content has been read to the end.
pub struct Input {
    /// The content.
    pub reader: Box<dyn BufRead>,
    /// Whether the content is gzip-decompressed.
    pub gzip: bool,
    hasher: Arc<Mutex<Sha256>>,
    bar: ProgressBar,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input").finish_non_exhaustive()
    }
}

impl Input {
    /// Opens `path`, decompressing `.gz`.
    pub fn open(path: &Path) -> Result<Input> {
        let file = File::open(path).map_err(|e| LabError::io(path, e))?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let hasher = Arc::new(Mutex::new(Sha256::new()));
        let bar = crate::progress::bytes(len, format!("reading {}", super::stem(path)));
        let tee = Tee {
            inner: file,
            hasher: Arc::clone(&hasher),
            bar: bar.clone(),
        };
        let gz = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
        let reader: Box<dyn BufRead> = if gz {
            Box::new(BufReader::with_capacity(
                1 << 16,
                MultiGzDecoder::new(BufReader::new(tee)),
            ))
        } else {
            Box::new(BufReader::with_capacity(1 << 16, tee))
        };
        Ok(Input {
            reader,
            gzip: gz,
            hasher,
            bar,
        })
    }

    /// Reads whatever is left (so the checksum covers the whole file) and returns the hex
    /// SHA-256 of the raw bytes.
    pub fn finish(mut self) -> io::Result<String> {
        io::copy(&mut self.reader, &mut io::sink()).map_err(|e| {
            if self.gzip {
                io::Error::new(e.kind(), format!("corrupt gzip data ({e})"))
            } else {
                e
            }
        })?;
        self.bar.finish_and_clear();
        let digest = self.hasher.lock().expect("hasher lock").clone().finalize();
        Ok(hex(&digest))
    }
}

impl Input {
    /// A read error on `path`, called what it is for gzip input.
    pub fn read_error(&self, path: &Path, e: io::Error) -> LabError {
        if self.gzip {
            LabError::file(path, format!("corrupt gzip data ({e})"))
        } else {
            LabError::io(path, e)
        }
    }
}

/// A malformed record in a gzip input may be the damage of a corrupt stream: read the rest,
/// and when the decompressor fails, report the stream, not the record. Returns `record_error`
/// otherwise.
pub fn damaged_or(input: &mut Input, path: &Path, record_error: LabError) -> LabError {
    if !input.gzip {
        return record_error;
    }
    match io::copy(&mut input.reader, &mut io::sink()) {
        Err(e) => LabError::file(
            path,
            format!("corrupt gzip data ({e}); {record_error} is likely part of the damage"),
        ),
        Ok(_) => record_error,
    }
}

/// Lower-case hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of a whole file, streamed.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = File::open(path).map_err(|e| LabError::io(path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| LabError::io(path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}
