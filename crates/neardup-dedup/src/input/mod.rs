//! The inputs of `neardup dedup`: files, directories and globs expanded into a sorted list of
//! corpus files, and their records streamed in blocks so texts are never all in memory.
//!
//! JSON Lines (`.jsonl`, `.json`, optionally `.gz` / `.zst`) is read by a reader thread in
//! blocks of whole lines and parsed in parallel by the caller (`json_fields`: only the text
//! and id fields are decoded). CSV is parsed in order
//! (quoted fields may span lines) and Parquet is read a row group at a time.
//!
//! Reading can start at a [`ReadPosition`] recorded by an earlier, interrupted read (the
//! sketch stage's checkpoints): a plain JSONL file is sought to its byte, a compressed one
//! inflated up to it, and CSV and Parquet skip the records before it.
//!
//! A record's *line* is its 1-based line number (JSONL, CSV) or row number (Parquet), the
//! position error messages name and the deduplicated output is selected by.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub mod carrying_reader;
pub mod checksummed;
pub mod content;
mod csv;
pub mod json_fields;
pub mod parquet;

use crate::error::{Error, Result};
use content::ContentTap;
pub use json_fields::id_string;
use json_fields::parse_json_line;

/// Bytes of whole lines handed to the parser at a time.
pub const BLOCK_BYTES: usize = 8 << 20;

/// The UTF-8 byte-order mark (skipped at the start of a file by every reader).
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A corpus file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// One JSON object per line.
    Jsonl,
    /// CSV with a header row.
    Csv,
    /// Apache Parquet.
    Parquet,
}

impl FileFormat {
    /// The extension of this format's output files.
    pub fn extension(self) -> &'static str {
        match self {
            FileFormat::Jsonl => "jsonl",
            FileFormat::Csv => "csv",
            FileFormat::Parquet => "parquet",
        }
    }
}

/// How a file is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// Zstandard (`.zst`).
    Zstd,
}

/// One input file.
#[derive(Debug, Clone)]
pub struct InputFile {
    /// Its path as given (or as found under a directory).
    pub path: PathBuf,
    /// Its format.
    pub format: FileFormat,
    /// Its compression.
    pub compression: Compression,
    /// Size in bytes (as stored; 0 for a stream).
    pub size: u64,
    /// Read once, as it comes: standard input (`-`), a FIFO, a process substitution
    /// (`<(…)`). Its compression is told by its first bytes, its format is JSONL unless its
    /// name says otherwise, and it cannot be sought, reread or checked against an earlier run.
    pub stream: bool,
}

impl InputFile {
    /// The same input read from `copy`, its inflated bytes (an uncompressed file).
    pub fn inflated(&self, copy: PathBuf) -> InputFile {
        InputFile {
            path: copy,
            compression: Compression::None,
            stream: false,
            ..self.clone()
        }
    }

    /// A stream input at `path` (`-`: standard input).
    fn stream(path: &Path) -> Result<InputFile> {
        let (format, compression) = detect(path).unwrap_or((FileFormat::Jsonl, Compression::None));
        if format != FileFormat::Jsonl {
            return Err(Error::file(
                path,
                "a stream (standard input, a FIFO, <(…)) is read once, as JSON Lines \
                 (optionally gzip or zstd): CSV and Parquet need a regular file",
            ));
        }
        Ok(InputFile {
            path: path.to_path_buf(),
            format,
            compression,
            size: 0,
            stream: true,
        })
    }
}

/// Whether `path` is standard input (`-`) or something that exists but is neither a regular
/// file nor a directory (a FIFO, `/dev/fd/N` of a process substitution, a character device).
fn is_stream(path: &Path) -> bool {
    path == Path::new("-") || std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// A place in an input file between two records: where a read that stopped there resumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadPosition {
    /// Records before it.
    pub records: u64,
    /// JSONL: the line it starts (1-based). CSV, Parquet: the line or row after the last
    /// record read (informative: they resume by skipping `records`).
    pub line: u64,
    /// JSONL: its offset in the (inflated) bytes, where line `line` starts.
    pub byte: u64,
}

impl ReadPosition {
    /// The start of a file.
    pub const START: ReadPosition = ReadPosition {
        records: 0,
        line: 1,
        byte: 0,
    };
}

/// How a read goes: from where, in blocks of about how many bytes, and with which tap hashing
/// the file's bytes as stored (JSONL and CSV read from their start; see [`content`]).
#[derive(Debug, Clone)]
pub struct ReadFrom {
    pub position: ReadPosition,
    pub block: usize,
    pub tap: Option<ContentTap>,
}

impl ReadFrom {
    /// The whole file, in blocks of [`BLOCK_BYTES`], not hashed.
    pub fn start() -> ReadFrom {
        ReadFrom {
            position: ReadPosition::START,
            block: BLOCK_BYTES,
            tap: None,
        }
    }
}

/// A corpus name from a path: the file name without its extensions.
pub fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    name.split('.').next().unwrap_or(&name).to_string()
}

/// Format and compression from a file name, if it is a corpus file.
pub fn detect(path: &Path) -> Option<(FileFormat, Compression)> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let compression = compression_of(path);
    let stem = match compression {
        Compression::Gzip => name.strip_suffix(".gz")?,
        Compression::Zstd => name.strip_suffix(".zst")?,
        Compression::None => name.as_str(),
    };
    let format = if stem.ends_with(".jsonl") || stem.ends_with(".json") || stem.ends_with(".ndjson")
    {
        FileFormat::Jsonl
    } else if stem.ends_with(".csv") {
        FileFormat::Csv
    } else if stem.ends_with(".parquet") && compression == Compression::None {
        FileFormat::Parquet
    } else {
        return None;
    };
    Some((format, compression))
}

/// Expands files, directories (recursively, corpus files only) and glob patterns into a
/// sorted list without repeats. A named file with an unknown extension, a pattern matching
/// nothing or an empty directory is an error.
pub fn expand(inputs: &[PathBuf]) -> Result<Vec<InputFile>> {
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut streams: Vec<PathBuf> = Vec::new();
    for input in inputs {
        let text = input.to_string_lossy();
        if !input.exists() && text.contains(['*', '?', '[']) {
            let matches = glob::glob(&text)
                .map_err(|e| Error::file(input, format!("not a valid glob pattern: {e}")))?;
            let mut found: Vec<PathBuf> = matches
                .filter_map(|m| m.ok())
                .filter(|p| p.is_file() && detect(p).is_some())
                .collect();
            if found.is_empty() {
                return Err(Error::file(input, "the pattern matches no corpus file"));
            }
            found.sort();
            paths.extend(found);
        } else if input.is_dir() {
            let mut found = Vec::new();
            walk(input, &mut found)?;
            if found.is_empty() {
                return Err(Error::file(
                    input,
                    "the directory holds no corpus file (.jsonl, .json, .csv, .parquet, optionally .gz / .zst)",
                ));
            }
            found.sort();
            paths.extend(found);
        } else if is_stream(input) {
            streams.push(input.clone());
            paths.push(input.clone());
        } else if input.is_file() {
            if detect(input).is_none() {
                return Err(Error::file(
                    input,
                    "unknown format: expected .jsonl, .json, .ndjson, .csv (each optionally .gz or .zst) or .parquet",
                ));
            }
            paths.push(input.clone());
        } else {
            // An I/O error, so that callers (the Python package) can tell it from bad data.
            return Err(Error::Io {
                path: input.clone(),
                io: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or directory"),
            });
        }
    }
    if let Some(twice) = streams
        .iter()
        .find(|&s| streams.iter().filter(|&t| t == s).count() > 1)
    {
        return Err(Error::file(
            twice,
            "a stream can be read only once: given twice",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    paths.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    paths
        .into_iter()
        .map(|path| {
            if streams.contains(&path) {
                return InputFile::stream(&path);
            }
            let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
            let (format, compression) = detect(&path).expect("filtered");
            Ok(InputFile {
                path,
                format,
                compression,
                size: meta.len(),
                stream: false,
            })
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        } else if path.is_dir() {
            walk(&path, out)?;
        } else if detect(&path).is_some() {
            out.push(path);
        }
    }
    Ok(())
}

/// Opens a file's content, decompressed.
pub fn open(file: &InputFile) -> Result<Box<dyn BufRead + Send>> {
    open_tapped(file, None)
}

/// Opens a file's content, decompressed, its bytes as stored hashed into `tap` as they are read.
fn open_tapped(file: &InputFile, tap: Option<&ContentTap>) -> Result<Box<dyn BufRead + Send>> {
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

/// The compression a file name says (`.gz`, `.zst`; case-insensitive).
pub fn compression_of(path: &Path) -> Compression {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".gz") {
        Compression::Gzip
    } else if name.ends_with(".zst") {
        Compression::Zstd
    } else {
        Compression::None
    }
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
fn open_at(
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

/// A block of whole lines of a JSONL file.
#[derive(Debug, Default)]
pub struct LineBlock {
    /// The bytes, ending with a newline (or at the end of the file).
    pub data: Vec<u8>,
    /// The line number of the first line.
    pub first_line: u64,
    /// The offset of the first byte in the file's (inflated) bytes.
    pub first_byte: u64,
    /// Newlines in `data`.
    pub newlines: u64,
}

/// The record held by JSONL line `number` (without its newline): the line without the
/// byte-order mark line 1 may start with, or `None` for a blank line, which holds none.
pub fn line_record(line: &[u8], number: u64) -> Option<&[u8]> {
    let line = match line.strip_prefix(BOM) {
        Some(rest) if number == 1 => rest,
        _ => line,
    };
    (!line.iter().all(u8::is_ascii_whitespace)).then_some(line)
}

impl LineBlock {
    /// Where the block ends, `records` being the records read up to it.
    pub fn end(&self, records: u64) -> ReadPosition {
        ReadPosition {
            records,
            line: self.first_line + self.newlines,
            byte: self.first_byte + self.data.len() as u64,
        }
    }

    /// The records with their line numbers (see [`line_record`]).
    pub fn lines(&self) -> Vec<(u64, &[u8])> {
        let mut out = Vec::with_capacity(self.data.len() / 512 + 1);
        let mut start = 0;
        let mut number = self.first_line;
        for end in memchr::memchr_iter(b'\n', &self.data) {
            out.extend(line_record(&self.data[start..end], number).map(|l| (number, l)));
            number += 1;
            start = end + 1;
        }
        if start < self.data.len() {
            out.extend(line_record(&self.data[start..], number).map(|l| (number, l)));
        }
        out
    }
}

/// Reads `file` in blocks of whole lines on a separate thread (decompression overlaps the
/// caller's parsing) and calls `each` on them in order. Stops at the first error.
///
/// Blocks are read straight into their buffer (`BufReader` passes a read larger than its
/// own buffer through), and a buffer `each` is done with goes back to the reader: fresh
/// 8 MB buffers page-faulted on every page, and the copy out of the `BufReader` was a
/// second pass over the text.
pub fn for_each_line_block(
    file: &InputFile,
    each: impl FnMut(&LineBlock) -> Result<()>,
) -> Result<()> {
    for_each_line_block_from(file, &ReadFrom::start(), each)
}

/// [`for_each_line_block`] as `read` says (from a line start, in blocks of about its bytes).
pub fn for_each_line_block_from(
    file: &InputFile,
    read: &ReadFrom,
    mut each: impl FnMut(&LineBlock) -> Result<()>,
) -> Result<()> {
    let (from, block) = (read.position, read.block.max(1));
    let mut reader = open_at(file, from.byte, read.tap.as_ref())?;
    let path = file.path.clone();
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<LineBlock>>(2);
        let (recycle, recycled) = std::sync::mpsc::channel::<Vec<u8>>();
        scope.spawn(move || {
            let (mut line, mut byte) = (from.line, from.byte);
            let mut carry: Vec<u8> = Vec::new();
            loop {
                let mut data = recycled.try_recv().unwrap_or_default();
                // The buffer keeps its length from its last block: only what lies beyond
                // is zeroed here, not the whole buffer.
                data.resize(block.max(carry.len()) + (1 << 16), 0);
                data[..carry.len()].copy_from_slice(&carry);
                let mut filled = carry.len();
                let mut eof = false;
                while filled < block {
                    match reader.read(&mut data[filled..]) {
                        Ok(0) => {
                            eof = true;
                            break;
                        }
                        Ok(n) => filled += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            let _ = tx.send(Err(read_error(&path, e)));
                            return;
                        }
                    }
                }
                data.truncate(filled);
                carry.clear();
                if !eof {
                    // Keep the partial last line for the next block.
                    match memchr::memrchr(b'\n', &data) {
                        Some(i) => {
                            carry.extend_from_slice(&data[i + 1..]);
                            data.truncate(i + 1);
                        }
                        None => continue_reading_line(&mut reader, &mut data, &path, &tx),
                    }
                }
                let newlines = memchr::memchr_iter(b'\n', &data).count() as u64;
                let block = LineBlock {
                    first_line: line,
                    first_byte: byte,
                    newlines,
                    data,
                };
                line += newlines;
                byte += block.data.len() as u64;
                if block.data.is_empty() && eof {
                    return;
                }
                if tx.send(Ok(block)).is_err() || eof {
                    return;
                }
            }
        });
        for block in rx {
            let block = block?;
            each(&block)?;
            // The reader may be gone (end of file): then the buffer is just dropped.
            let _ = recycle.send(block.data);
        }
        Ok(())
    })
}

/// A line longer than a block: read on to its end.
fn continue_reading_line(
    reader: &mut Box<dyn BufRead + Send>,
    data: &mut Vec<u8>,
    path: &Path,
    tx: &std::sync::mpsc::SyncSender<Result<LineBlock>>,
) {
    if let Err(e) = reader.read_until(b'\n', data) {
        let _ = tx.send(Err(read_error(path, e)));
    }
}

fn read_error(path: &Path, e: std::io::Error) -> Error {
    Error::file(
        path,
        format!("cannot read (damaged or truncated file?): {e}"),
    )
}

/// One record: where it is, its id and its text (borrowed from the line when it can be).
#[derive(Debug, Clone)]
pub struct Record<'a> {
    /// Line (JSONL, CSV) or row (Parquet) number, 1-based.
    pub line: u64,
    /// The id, if the record has one.
    pub id: Option<String>,
    /// The text.
    pub text: Cow<'a, str>,
}

/// Every record of `file` in order, in blocks (JSONL lines are parsed in parallel; the first
/// bad line in file order is the error, naming file and line).
pub fn for_each_record_block(
    file: &InputFile,
    text_field: &str,
    id_field: &str,
    mut each: impl FnMut(Vec<Record<'_>>) -> Result<()>,
) -> Result<()> {
    let from = ReadFrom::start();
    for_each_record_block_and_bytes(file, &from, text_field, id_field, |_| {}, |b, _| each(b))
}

/// The records of `file` from `from` on, in blocks of about `block` bytes of text (Parquet:
/// a row group), each handed to `each` with the position after it; also hands `bytes` a JSONL file's bytes as read (inflated, every line from
/// `from` on, in order, before its records): what the sketch stage keeps of a compressed
/// file so that the outputs stage need not inflate it again. Not called for CSV or Parquet.
pub fn for_each_record_block_and_bytes(
    file: &InputFile,
    from: &ReadFrom,
    text_field: &str,
    id_field: &str,
    mut bytes: impl FnMut(&[u8]),
    mut each: impl FnMut(Vec<Record<'_>>, ReadPosition) -> Result<()>,
) -> Result<()> {
    use rayon::prelude::*;
    match file.format {
        FileFormat::Jsonl => {
            let mut records = from.position.records;
            for_each_line_block_from(file, from, |lines| {
                bytes(&lines.data);
                let parsed = lines
                    .lines()
                    .par_iter()
                    .map(|&(line, bytes)| {
                        parse_json_line(bytes, text_field, id_field)
                            .map(|f| Record {
                                line,
                                id: f.id,
                                text: f.text,
                            })
                            .map_err(|reason| Error::line(&file.path, line as usize, reason))
                    })
                    .collect::<Result<Vec<_>>>()?;
                records += parsed.len() as u64;
                each(parsed, lines.end(records))
            })
        }
        FileFormat::Csv => csv::for_each_block(file, from, text_field, id_field, each),
        FileFormat::Parquet => {
            parquet::for_each_block(file, from.position, text_field, id_field, each)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_longer_than_a_block_is_read_whole() {
        // Short lines around one of 1.5 blocks, then enough short lines for two more blocks
        // (read into recycled buffers): every line whole, numbered, in order.
        let dir = crate::test_dir::TestDir::new("long");
        let path = dir.join("long.jsonl");
        let mut want: Vec<Vec<u8>> = vec![b"{\"text\": \"a\"}".to_vec()];
        want.push(format!("{{\"text\": \"{}\"}}", "b".repeat(BLOCK_BYTES * 3 / 2)).into_bytes());
        for i in 0..(BLOCK_BYTES * 2 / 40) {
            want.push(format!("{{\"text\": \"c {i:>20}\"}}").into_bytes());
        }
        std::fs::write(&path, want.join(&b'\n')).unwrap();
        let file = &expand(std::slice::from_ref(&path)).unwrap()[0];
        let mut seen: Vec<(u64, Vec<u8>)> = Vec::new();
        for_each_line_block(file, |b| {
            seen.extend(b.lines().into_iter().map(|(n, l)| (n, l.to_vec())));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), want.len());
        for (i, ((n, line), w)) in seen.iter().zip(&want).enumerate() {
            assert_eq!(*n, i as u64 + 1);
            assert!(line == w, "line {n} differs");
        }
    }

    #[test]
    fn blocks_keep_line_numbers_across_boundaries() {
        let dir = crate::test_dir::TestDir::new("inputs");
        let path = dir.join("many.jsonl");
        let mut content = Vec::new();
        for i in 0..300_000u64 {
            if i % 1000 == 7 {
                content.extend_from_slice(b"\n");
            }
            content.extend_from_slice(
                format!(
                    "{{\"id\": {i}, \"text\": \"{}\"}}\n",
                    "w ".repeat((i % 50) as usize)
                )
                .as_bytes(),
            );
        }
        std::fs::write(&path, &content).unwrap();
        let file = &expand(std::slice::from_ref(&path)).unwrap()[0];
        let mut seen = Vec::new();
        for_each_line_block(file, |b| {
            for (n, line) in b.lines() {
                let f = parse_json_line(line, "text", "id").unwrap();
                seen.push((n, f.id.unwrap()));
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 300_000);
        let text = String::from_utf8(content).unwrap();
        for (n, id) in seen.iter().step_by(997) {
            let line = text.lines().nth(*n as usize - 1).unwrap();
            assert!(line.contains(&format!("\"id\": {id},")), "line {n}: {line}");
        }
    }
}
