//! Opening a corpus file whole for the lab's loaders: decompressed by its extension (gzip,
//! zstd: the same decompressors as the pipeline's), the SHA-256 of the raw bytes computed while
//! reading, a progress bar on the bytes read.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

use indicatif::ProgressBar;
use sha2::{Digest, Sha256};

use super::Compression;
use crate::error::{Error, Result};

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
    /// How the file is compressed.
    pub compression: Compression,
    hasher: Arc<Mutex<Sha256>>,
    bar: ProgressBar,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input").finish_non_exhaustive()
    }
}

impl Input {
    /// Opens `path`, decompressing `.gz` and `.zst`.
    pub fn open(path: &Path) -> Result<Input> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let hasher = Arc::new(Mutex::new(Sha256::new()));
        let bar = crate::progress::bytes(len, format!("reading {}", super::stem(path)));
        let tee = Tee {
            inner: file,
            hasher: Arc::clone(&hasher),
            bar: bar.clone(),
        };
        let compression = super::compression_of(path);
        let reader = super::decompressed(tee, compression, path)?;
        Ok(Input {
            reader,
            compression,
            hasher,
            bar,
        })
    }

    /// Reads whatever is left (so the checksum covers the whole file) and returns the hex
    /// SHA-256 of the raw bytes.
    pub fn finish(mut self) -> io::Result<String> {
        io::copy(&mut self.reader, &mut io::sink()).map_err(|e| {
            if let Some(kind) = self.compressed() {
                io::Error::new(e.kind(), format!("corrupt {kind} data ({e})"))
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
    /// The compression's name in error messages, if the content is decompressed.
    pub fn compressed(&self) -> Option<&'static str> {
        match self.compression {
            Compression::None => None,
            Compression::Gzip => Some("gzip"),
            Compression::Zstd => Some("zstd"),
        }
    }

    /// A read error on `path`, called what it is for compressed input.
    pub fn read_error(&self, path: &Path, e: io::Error) -> Error {
        if let Some(kind) = self.compressed() {
            Error::file(path, format!("corrupt {kind} data ({e})"))
        } else {
            Error::io(path, e)
        }
    }
}

/// A malformed record in a compressed input may be the damage of a corrupt stream: read the rest,
/// and when the decompressor fails, report the stream, not the record. Returns `record_error`
/// otherwise.
pub fn damaged_or(input: &mut Input, path: &Path, record_error: Error) -> Error {
    let Some(kind) = input.compressed() else {
        return record_error;
    };
    match io::copy(&mut input.reader, &mut io::sink()) {
        Err(e) => Error::file(
            path,
            format!("corrupt {kind} data ({e}); {record_error} is likely part of the damage"),
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
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    sha256_of(file).map_err(|e| Error::io(path, e))
}

/// Hex SHA-256 of everything `reader` gives (a file, a decompressed stream, bytes), streamed.
pub fn sha256_of(mut reader: impl Read) -> io::Result<String> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}
