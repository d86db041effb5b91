//! The deduplicated corpus: each input's kept records in its own format with every field as
//! it was — JSONL lines byte for byte (an uncompressed file's kept runs copied past the page
//! cache), CSV records, Parquet rows with the input's schema.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fsutil;
use crate::input::carrying_reader::CarryingReader;
use crate::input::{self, Compression, FileFormat, InputFile};

/// Names of the deduplicated files, relative to the output directory.
pub fn deduplicated_names(files: &[InputFile]) -> Vec<String> {
    deduplicated_targets(files).into_iter().flatten().collect()
}

/// Each input's deduplicated file, relative to the output directory; `None` for an HTML file
/// (one page: `removed.txt` names it when it is removed, and a crawl's pages are not copied
/// one by one).
pub fn deduplicated_targets(files: &[InputFile]) -> Vec<Option<String>> {
    if let [file] = files {
        let name = format!("deduplicated.{}", file.format.extension());
        return vec![(file.format != FileFormat::Html).then_some(name)];
    }
    files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if f.format == FileFormat::Html {
                return None;
            }
            let name = f
                .path
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            let name = name
                .strip_suffix(".gz")
                .or_else(|| name.strip_suffix(".zst"))
                .unwrap_or(&name);
            // A WARC's kept records are written gzipped, a record a member.
            let gz = if f.format == FileFormat::Warc {
                ".gz"
            } else {
                ""
            };
            Some(format!("deduplicated/{i:05}-{name}{gz}"))
        })
        .collect()
}

/// Copies `file` to `target` without the records at the `removed` lines (sorted), put in
/// place atomically: the outputs stage's copy, and `neardup.ray`'s for each input file.
pub fn write_deduplicated(file: &InputFile, target: &Path, removed: &[u64]) -> Result<()> {
    write_kept(file, target, removed, false)
}

/// [`write_deduplicated`] from `copy`, the sketch stage's inflated copy of a compressed JSONL
/// `file`, read past the page cache (it was written past it, and is read once).
pub(super) fn write_deduplicated_from_copy(
    file: &InputFile,
    copy: PathBuf,
    target: &Path,
    removed: &[u64],
) -> Result<()> {
    write_kept(&file.inflated(copy), target, removed, true)
}

fn write_kept(file: &InputFile, target: &Path, removed: &[u64], past_cache: bool) -> Result<()> {
    // Asked with increasing line numbers.
    let mut next = 0;
    let mut is_removed = |line: u64| {
        while next < removed.len() && removed[next] < line {
            next += 1;
        }
        next < removed.len() && removed[next] == line
    };
    if file.format == FileFormat::Jsonl && file.compression == Compression::None {
        return copy_jsonl_spans(file, target, &mut is_removed, past_cache);
    }
    // The reader's own error (naming the input and line) rather than its I/O wrapper.
    let mut failure: Option<Error> = None;
    let mut keep_error = |r: Result<()>| {
        r.map_err(|e| {
            let io = std::io::Error::other(e.to_string());
            failure = Some(e);
            io
        })
    };
    let result = match file.format {
        FileFormat::Parquet => fsutil::write_atomic_file(target, |out| {
            keep_error(copy_parquet(file, out, &mut is_removed))
        }),
        FileFormat::Csv => fsutil::write_atomic(target, |w| {
            keep_error(copy_csv(file, w, &mut is_removed, target))
        }),
        // Past the page cache, as an uncompressed input's copy: through it, copying into
        // fresh cache pages took as long as inflating (a 1.4 GB .jsonl.zst: 4 s of 6).
        FileFormat::Jsonl => fsutil::write_atomic_file(target, |pending| {
            let mut out = fsutil::DirectWriter::new(pending);
            keep_error(copy_jsonl_blocks(file, &mut out, &mut is_removed, target))?;
            out.finish().map(|_| ())
        }),
        FileFormat::Warc => {
            fsutil::write_atomic(target, |w| keep_error(copy_warc(file, w, &mut is_removed)))
        }
        // One page: its file, inflated, unless removed (then an empty file: the Ray
        // pipeline's per-file copies; `dedup` makes no copy of HTML files).
        FileFormat::Html => fsutil::write_atomic(target, |w| {
            if is_removed(1) {
                return Ok(());
            }
            let mut page = input::open(file).map_err(std::io::Error::other)?;
            std::io::copy(&mut page, w).map(|_| ())
        }),
    };
    failure.map_or(result, Err)
}

/// A WARC file's kept records, each byte for byte as inflated and gzipped as its own member:
/// every record but the removed pages and the records concurrent to them (their `request`
/// and `metadata` records, by `WARC-Concurrent-To`).
fn copy_warc(
    file: &InputFile,
    w: &mut dyn Write,
    is_removed: &mut dyn FnMut(u64) -> bool,
) -> Result<()> {
    let (spans, length) = crate::web::warc::record_spans(file)?;
    let removed_ids: std::collections::HashSet<&str> = spans
        .iter()
        .filter(|s| is_removed(s.record))
        .map(|s| s.id.as_str())
        .collect();
    let gone = |s: &crate::web::warc::RecordSpan| {
        removed_ids.contains(s.id.as_str())
            || s.concurrent_to
                .iter()
                .any(|c| removed_ids.contains(c.as_str()))
    };
    crate::web::warc::copy_records(file, &spans, length, |s| !gone(s), w)?;
    Ok(())
}

/// A compressed JSONL file's kept lines, inflated block by block.
fn copy_jsonl_blocks(
    file: &InputFile,
    w: &mut dyn Write,
    is_removed: &mut dyn FnMut(u64) -> bool,
    target: &Path,
) -> Result<()> {
    let mut out = Vec::new();
    input::for_each_line_block(file, |block| {
        out.clear();
        for (n, line) in block.lines() {
            if !is_removed(n) {
                out.extend_from_slice(line);
                out.push(b'\n');
            }
        }
        w.write_all(&out).map_err(|e| Error::io(target, e))
    })
}

/// An uncompressed JSONL file without its removed lines and what is not a record
/// (`input::line_record`) — what the block copy of a compressed file writes. The file is
/// read in large blocks into one reused buffer (past the page cache when `past_cache`: an
/// inflated copy, which is not in it) and the kept runs of lines are gathered into the aligned
/// buffer of a [`fsutil::DirectWriter`], which writes them past the page cache. (Through the
/// block reader the text was copied four times, into fresh buffers that page-faulted;
/// `copy_file_range` per kept run cost as much, in per-call checks; `writev` through the page
/// cache spent most of the stage copying into fresh cache pages.)
fn copy_jsonl_spans(
    file: &InputFile,
    target: &Path,
    is_removed: &mut dyn FnMut(u64) -> bool,
    past_cache: bool,
) -> Result<()> {
    let mut input =
        CarryingReader::open(&file.path, past_cache).map_err(|e| Error::io(&file.path, e))?;
    let mut failure: Option<Error> = None;
    let result = fsutil::write_atomic_file(target, |pending| {
        let mut out = fsutil::DirectWriter::new(pending);
        let mut line = 1u64;
        let mut kept: Vec<(usize, usize)> = Vec::new();
        // Bytes of the data before the first line not yet copied.
        let mut consumed = 0;
        loop {
            let eof = match input.refill(consumed) {
                Ok(n) => n == 0,
                Err(e) => {
                    failure = Some(Error::io(&file.path, e));
                    return Err(std::io::Error::other("read failed"));
                }
            };
            let data = input.data();
            // Complete lines, and at the end of the file the last one without its newline.
            let end = if eof {
                data.len()
            } else {
                match memchr::memrchr(b'\n', data) {
                    Some(i) => i + 1,
                    None => {
                        consumed = 0;
                        continue;
                    }
                }
            };
            line = kept_runs(&data[..end], line, is_removed, &mut kept);
            for &(a, b) in &kept {
                out.write_all(&data[a..b])?;
            }
            if eof {
                if kept.last().is_some_and(|run| data[run.1 - 1] != b'\n') {
                    out.write_all(b"\n")?;
                }
                return out.finish().map(|_| ());
            }
            consumed = end;
        }
    });
    failure.map_or(result, Err)
}

/// The runs of `data` (whole lines, numbered from `line`) to copy: the records that are not
/// removed, adjacent ones merged. Returns the number of the line after them.
fn kept_runs(
    data: &[u8],
    mut line: u64,
    is_removed: &mut dyn FnMut(u64) -> bool,
    kept: &mut Vec<(usize, usize)>,
) -> u64 {
    kept.clear();
    let (end, mut start) = (data.len(), 0);
    while start < end {
        let newline = memchr::memchr(b'\n', &data[start..end]).map(|i| start + i);
        let (content_end, stop) = newline.map_or((end, end), |i| (i, i + 1));
        let record = input::line_record(&data[start..content_end], line);
        if let Some(record) = record.filter(|_| !is_removed(line)) {
            // The record ends the line's content (only a mark before it is cut).
            let from = content_end - record.len();
            match kept.last_mut() {
                Some(run) if run.1 == from => run.1 = stop,
                _ => kept.push((from, stop)),
            }
        }
        line += 1;
        start = stop;
    }
    line
}

fn copy_csv(
    file: &InputFile,
    w: &mut dyn Write,
    is_removed: &mut dyn FnMut(u64) -> bool,
    target: &Path,
) -> Result<()> {
    let mut reader = csv::ReaderBuilder::new().from_reader(input::open(file)?);
    let mut writer = csv::Writer::from_writer(w);
    let headers = reader
        .byte_headers()
        .map_err(|e| Error::file(&file.path, e.to_string()))?
        .clone();
    writer
        .write_byte_record(&headers)
        .map_err(|e| Error::file(target, e.to_string()))?;
    let mut record = csv::ByteRecord::new();
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(Error::file(&file.path, format!("malformed CSV: {e}"))),
        }
        let line = record.position().map_or(0, |p| p.line());
        if !is_removed(line) {
            writer
                .write_byte_record(&record)
                .map_err(|e| Error::file(target, e.to_string()))?;
        }
    }
    writer.flush().map_err(|e| Error::io(target, e))
}

/// The kept rows of a Parquet input, with its schema (read by arrow-rs: see `input::parquet`).
fn copy_parquet(
    file: &InputFile,
    out: &mut std::fs::File,
    is_removed: &mut dyn FnMut(u64) -> bool,
) -> Result<()> {
    let parquet = input::parquet::ParquetInput::open(&file.path)?;
    parquet.copy_rows(out, &mut |row| !is_removed(row))
}
