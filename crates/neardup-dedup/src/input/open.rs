//! Opening an input's content: decompressed (gzip, zstd, or as it is), hashed as stored
//! when asked, from its start or from a line start an earlier read recorded.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::content::ContentTap;
use super::files::{Compression, InputFile};
use crate::error::{Error, Result};

/// Opens a file's content, decompressed.
pub fn open(file: &InputFile) -> Result<Box<dyn BufRead + Send>> {
    open_tapped(file, None)
}

/// Opens a file's content, decompressed, its bytes as stored hashed into `tap` as they are read.
pub(super) fn open_tapped(
    file: &InputFile,
    tap: Option<&ContentTap>,
) -> Result<Box<dyn BufRead + Send>> {
    if file.stream {
        return open_stream(file, tap);
    }
    let raw = File::open(&file.path).map_err(|e| Error::io(&file.path, e))?;
    match tap {
        Some(tap) => decompressed(tap.reader(raw), file.compression, &file.path),
        None => decompressed(raw, file.compression, &file.path),
    }
}

/// Opens a stream input, decompressed as its first bytes say (gzip, zstd or none), hashed
/// into `tap`.
fn open_stream(file: &InputFile, tap: Option<&ContentTap>) -> Result<Box<dyn BufRead + Send>> {
    let path = &file.path;
    let raw: Box<dyn Read + Send> = if path == Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        Box::new(File::open(path).map_err(|e| Error::io(path, e))?)
    };
    let mut raw: Box<dyn Read + Send> = match tap {
        Some(tap) => Box::new(tap.reader(raw)),
        None => raw,
    };
    let mut magic = Vec::with_capacity(4);
    (&mut raw)
        .take(4)
        .read_to_end(&mut magic)
        .map_err(|e| read_error(path, e))?;
    let compression = match magic.as_slice() {
        [0x1f, 0x8b, ..] => Compression::Gzip,
        [0x28, 0xb5, 0x2f, 0xfd] => Compression::Zstd,
        _ => Compression::None,
    };
    let whole = std::io::Cursor::new(magic).chain(raw);
    decompressed(whole, compression, path)
}

/// `raw` decompressed and buffered: the one place every reader of a corpus file (the pipeline's
/// and the lab's loaders) gets its decompressor.
pub fn decompressed<R: Read + Send + 'static>(
    raw: R,
    compression: Compression,
    path: &Path,
) -> Result<Box<dyn BufRead + Send>> {
    Ok(match compression {
        Compression::None => Box::new(BufReader::with_capacity(1 << 20, raw)),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 20, raw)),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            1 << 20,
            zstd::stream::read::Decoder::new(raw).map_err(|e| Error::io(path, e))?,
        )),
    })
}

/// Opens a file's content, decompressed, at inflated byte `byte` (a line start recorded by an
/// earlier read): a plain file is sought there, a compressed one inflated up to it. Only a
/// read from the start is hashed into `tap` (a resumed sketch hashed its file before).
pub(super) fn open_at(
    file: &InputFile,
    byte: u64,
    tap: Option<&ContentTap>,
) -> Result<Box<dyn BufRead + Send>> {
    if byte == 0 {
        return open_tapped(file, tap);
    }
    let shorter = || {
        Error::file(
            &file.path,
            format!("shorter than byte {byte}, where an earlier sketch of it stopped"),
        )
    };
    if file.compression == Compression::None {
        let mut raw = File::open(&file.path).map_err(|e| Error::io(&file.path, e))?;
        let len = raw
            .seek(SeekFrom::End(0))
            .map_err(|e| Error::io(&file.path, e))?;
        if len < byte {
            return Err(shorter());
        }
        raw.seek(SeekFrom::Start(byte))
            .map_err(|e| Error::io(&file.path, e))?;
        return Ok(Box::new(BufReader::with_capacity(1 << 20, raw)));
    }
    let mut reader = open(file)?;
    let skipped = std::io::copy(&mut (&mut reader).take(byte), &mut std::io::sink())
        .map_err(|e| read_error(&file.path, e))?;
    if skipped < byte {
        return Err(shorter());
    }
    Ok(reader)
}

/// The error of a read that failed part way: the file is probably damaged or truncated.
pub(super) fn read_error(path: &Path, e: std::io::Error) -> Error {
    Error::file(
        path,
        format!("cannot read (damaged or truncated file?): {e}"),
    )
}
