//! WARC (ISO 28500) and WET files read with the `fastwarc` crate (ChatNoir's FastWARC,
//! Bevendorff et al. ECIR 2018), one record at a time: the HTML pages of `response` and
//! `resource` records, and the text of WET `conversion` records. Every other record is
//! counted by reason and skipped.
//!
//! Positions are in the inflated stream: a record's number (1-based, every record counted)
//! is its *line*, and its inflated byte offset is where a resumed read starts. The
//! decompressing reader is fastwarc's own (zlib-rs, zstd), wrapped so that fastwarc sees an
//! uncompressed stream and reports inflated offsets.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};

use fastwarc::stream_io::bufread::RawReaderAdapter;
use fastwarc::stream_io::gzip::GzipReader;
use fastwarc::stream_io::traits::{IntoWarcReader, WarcRead};
use fastwarc::stream_io::zstd::ZstdReader;
use fastwarc::warc::header::WarcHeader;
use fastwarc::warc::iter::{ArchiveIterator, ArchiveIteratorOptions};
use fastwarc::warc::record::{AutoDecode, WarcRecord, WarcRecordType};

use super::extract::MAX_PAGE_BYTES;
use super::tally::PageTally;
use crate::error::{Error, Result};
use crate::input::files::{Compression, InputFile};
use crate::input::position::ReadPosition;

/// What a kept record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// An HTML page's bytes, as served (after transfer and content decoding).
    Html,
    /// Text already (a WET conversion record): UTF-8, taken as it is.
    Text,
}

/// One page of a WARC file, undecoded.
#[derive(Debug, Clone)]
pub struct RawPage {
    /// The record's number in its file (1-based; every record counted).
    pub record: u64,
    /// `WARC-Record-ID`.
    pub id: String,
    /// `WARC-Target-URI`.
    pub url: Option<String>,
    /// `WARC-Date`.
    pub date: Option<String>,
    /// The HTTP `Content-Type`'s charset label.
    pub http_charset: Option<String>,
    /// The payload.
    pub bytes: Vec<u8>,
    /// What the payload is.
    pub body: Body,
}

/// A record's place in the inflated stream: where each record starts (the outputs stage's
/// byte-for-byte copy).
#[derive(Debug, Clone)]
pub struct RecordSpan {
    /// The record's number (1-based).
    pub record: u64,
    /// Its first byte in the inflated stream.
    pub start: u64,
    /// `WARC-Record-ID`.
    pub id: String,
    /// `WARC-Concurrent-To` (a request or metadata record's response).
    pub concurrent_to: Vec<String>,
}

/// The inflated stream of a WARC file from inflated byte `from`, as fastwarc reads it.
fn open_inflated(file: &InputFile, from: u64) -> Result<Box<dyn WarcRead>> {
    let raw = File::open(&file.path).map_err(|e| Error::io(&file.path, e))?;
    let raw = BufReader::with_capacity(1 << 20, raw);
    let mut reader: Box<dyn WarcRead> = match file.compression {
        Compression::None => RawReaderAdapter::new(raw).into_warc_reader(),
        Compression::Gzip => RawReaderAdapter::new(GzipReader::new(raw)).into_warc_reader(),
        Compression::Zstd => RawReaderAdapter::new(ZstdReader::new(raw)).into_warc_reader(),
    };
    if from > 0 {
        let at = reader
            .seek(SeekFrom::Start(from))
            .map_err(|e| damaged(file, None, from, e))?;
        if at != from {
            return Err(Error::file(
                &file.path,
                format!("shorter than inflated byte {from}, where an earlier sketch of it stopped"),
            ));
        }
    }
    Ok(reader)
}

/// fastwarc's records of an inflated stream; with `parse_http`, each HTTP payload decoded
/// (transfer and content encodings) for reading, else only the WARC headers (record spans).
fn archive(reader: Box<dyn WarcRead>, parse_http: bool) -> ArchiveIterator {
    ArchiveIterator::with_options(
        reader,
        ArchiveIteratorOptions {
            stream_detect: false,
            parse_http,
            decode_http_payload: AutoDecode::All,
            ..ArchiveIteratorOptions::default()
        },
    )
}

/// The error of a record that cannot be read: the file, the record and the inflated offset.
fn damaged(file: &InputFile, record: Option<u64>, byte: u64, e: std::io::Error) -> Error {
    let which = record.map_or(String::new(), |r| format!("record {r}, "));
    Error::file(
        &file.path,
        format!(
            "cannot read the WARC at {which}inflated byte {byte} (damaged, truncated, or not a \
             WARC file?): {e}"
        ),
    )
}

/// A WARC whose reading stops at damage (a truncated record, a `Content-Length` that lies, a
/// damaged gzip member): the pages before it are kept, the rest of the file is not read, and
/// this is said on the terminal, naming the file and the inflated offset, and counted in the
/// run's summary. One damaged file of a crawl does not stop the crawl's run; the deduplicated
/// copy keeps the damaged bytes after the last good record (`copy_records`).
fn cut_short(file: &InputFile, good: u64, byte: u64, e: &std::io::Error, tally: &PageTally) {
    tally.add("WARC files cut short by damage (the records after it not read)");
    crate::progress::say(format_args!(
        "{}: damaged or truncated after record {good} (which starts at inflated byte {byte}): \
         {e}; the {good} records before are read, the rest of the file is not",
        file.path.display()
    ));
}

/// Every page of `file` from `from`, in blocks of about `block_bytes` bytes of payload, each
/// with the position after it; skipped records counted in `tally`.
pub fn for_each_page_block(
    file: &InputFile,
    from: ReadPosition,
    block_bytes: usize,
    tally: &PageTally,
    mut each: impl FnMut(Vec<RawPage>, ReadPosition) -> Result<()>,
) -> Result<()> {
    let mut records = archive(open_inflated(file, from.byte)?, true);
    let (mut number, mut pages) = (from.line.max(1) - 1, from.records);
    let mut block: Vec<RawPage> = Vec::new();
    let mut bytes = 0usize;
    let mut last_start = from.byte;
    loop {
        let record = match records.next() {
            None => break,
            Some(Ok(record)) => record,
            Some(Err(e)) => {
                cut_short(file, number, last_start, &e, tally);
                break;
            }
        };
        number += 1;
        let mut record = record.borrow_mut();
        last_start = record.stream_pos();
        if bytes >= block_bytes {
            let at = ReadPosition {
                records: pages,
                line: number,
                byte: last_start,
            };
            each(std::mem::take(&mut block), at)?;
            bytes = 0;
        }
        match page_of(&mut record, number, tally) {
            Ok(Some(page)) => {
                bytes += page.bytes.len();
                pages += 1;
                block.push(page);
            }
            Ok(None) => {}
            Err(e) => {
                cut_short(file, number - 1, last_start, &e, tally);
                break;
            }
        }
    }
    let end = ReadPosition {
        records: pages,
        line: number + 1,
        byte: u64::MAX,
    };
    each(block, end)
}

/// The page a record holds, or `None` (counted in `tally`) when it holds none.
fn page_of(
    record: &mut WarcRecord,
    number: u64,
    tally: &PageTally,
) -> std::io::Result<Option<RawPage>> {
    let header = |h: WarcHeader| record.headers().get(h).map(|v| v.trim().to_string());
    let (body, content_type) = match record.record_type() {
        WarcRecordType::Response if !record.is_http() => {
            return skip(tally, "response without HTTP (dns:, ftp:…)");
        }
        WarcRecordType::Response => {
            let status = record.http_headers().and_then(|h| h.status_code());
            if status.is_some_and(|s| (300..400).contains(&s)) {
                return skip(tally, "redirect (HTTP 3xx)");
            }
            (Body::Html, record.http_content_type())
        }
        WarcRecordType::Resource => (Body::Html, header(WarcHeader::ContentType)),
        WarcRecordType::Conversion => (Body::Text, None),
        other => return skip(tally, record_kind(other)),
    };
    let id = header(WarcHeader::WarcRecordId).unwrap_or_else(|| format!("record-{number}"));
    let url = header(WarcHeader::WarcTargetUri).map(|u| u.trim_matches(['<', '>']).to_string());
    let date = header(WarcHeader::WarcDate);
    let http_charset = record.http_charset().map(|c| c.into_owned());
    let mut bytes = Vec::new();
    let reader = record
        .reader_mut()
        .ok_or_else(|| std::io::Error::other("no payload"))?;
    reader
        .take(MAX_PAGE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > MAX_PAGE_BYTES {
        return skip(tally, "payload larger than 16 MiB");
    }
    if body == Body::Html
        && let Some(reason) = not_html(content_type.as_deref(), &bytes)
    {
        return skip(tally, reason);
    }
    Ok(Some(RawPage {
        record: number,
        id,
        url,
        date,
        http_charset,
        bytes,
        body,
    }))
}

fn skip(tally: &PageTally, reason: &str) -> std::io::Result<Option<RawPage>> {
    tally.add(&format!("skipped: {reason}"));
    Ok(None)
}

fn record_kind(kind: WarcRecordType) -> &'static str {
    match kind {
        WarcRecordType::WarcInfo => "warcinfo record",
        WarcRecordType::Request => "request record",
        WarcRecordType::Metadata => "metadata record",
        WarcRecordType::Revisit => "revisit record (a duplicate by the crawler's own digest)",
        WarcRecordType::Continuation => "continuation record",
        _ => "record of unknown type",
    }
}

/// Why a payload is not an HTML page, if it is not: its declared type (HTML and XHTML are
/// pages; a missing or generic type is sniffed), or binary bytes under an HTML label.
fn not_html(content_type: Option<&str>, bytes: &[u8]) -> Option<&'static str> {
    let declared = content_type.map(|t| {
        t.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    });
    let head = &bytes[..bytes.len().min(1024)];
    match declared.as_deref() {
        Some("text/html" | "application/xhtml+xml") => {
            if head.contains(&0) {
                Some("binary payload labelled HTML")
            } else {
                None
            }
        }
        None | Some("" | "application/octet-stream" | "unknown/unknown" | "text/plain")
            if sniffs_as_html(head) =>
        {
            None
        }
        Some(t) if t.starts_with("image/") => Some("not HTML: image"),
        Some("application/pdf") => Some("not HTML: PDF"),
        Some(t) if t.contains("javascript") || t == "text/css" => Some("not HTML: script or style"),
        Some(t) if t.contains("json") || t.contains("xml") => Some("not HTML: JSON or XML"),
        _ => Some("not HTML: other type"),
    }
}

/// The WHATWG MIME sniffing rule for HTML: after whitespace, a tag that starts an HTML page.
pub fn sniffs_as_html(head: &[u8]) -> bool {
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let rest = &head[start..];
    const STARTS: &[&[u8]] = &[
        b"<!doctype html",
        b"<html",
        b"<head",
        b"<body",
        b"<script",
        b"<iframe",
        b"<h1",
        b"<div",
        b"<font",
        b"<table",
        b"<a",
        b"<style",
        b"<title",
        b"<b",
        b"<br",
        b"<p",
        b"<!--",
    ];
    STARTS.iter().any(|s| {
        rest.len() > s.len()
            && rest[..s.len()].eq_ignore_ascii_case(s)
            && (s.ends_with(b"--") || matches!(rest[s.len()], b' ' | b'>' | b'\t' | b'\n' | b'\r'))
    })
}

/// Every record's span in `file`, in order, and the inflated stream's length.
pub fn record_spans(file: &InputFile) -> Result<(Vec<RecordSpan>, u64)> {
    let mut spans = Vec::new();
    let mut records = archive(open_inflated(file, 0)?, false);
    let mut number = 0;
    // Spans stop where reading stops (see `cut_short`); the damaged bytes after the last good
    // record travel with it.
    while let Some(Ok(record)) = records.next() {
        number += 1;
        let record = record.borrow();
        let header = |h: WarcHeader| record.headers().get(h).map(|v| v.trim().to_string());
        spans.push(RecordSpan {
            record: number,
            start: record.stream_pos(),
            id: header(WarcHeader::WarcRecordId).unwrap_or_else(|| format!("record-{number}")),
            concurrent_to: record
                .headers()
                .get_multiple(WarcHeader::WarcConcurrentTo.as_str())
                .into_iter()
                .map(|v| v.trim().to_string())
                .collect(),
        });
    }
    drop(records);
    let inflated = open_inflated(file, 0)?;
    Ok((spans, readable_length(inflated)))
}

/// How many inflated bytes can be read before the end or the first damage.
fn readable_length(mut inflated: Box<dyn WarcRead>) -> u64 {
    let mut buffer = vec![0u8; 1 << 16];
    let mut length = 0u64;
    while let Ok(n @ 1..) = inflated.read(&mut buffer) {
        length += n as u64;
    }
    length
}

/// Writes `file`'s records whose numbers `keep` accepts to `out`, each record's inflated
/// bytes exactly as in the input, each as its own gzip member (the `.warc.gz` convention, so
/// that a reader can start at any record).
pub fn copy_records(
    file: &InputFile,
    spans: &[RecordSpan],
    length: u64,
    mut keep: impl FnMut(&RecordSpan) -> bool,
    out: &mut dyn Write,
) -> Result<u64> {
    let mut inflated = open_inflated(file, 0)?;
    let mut at = 0u64;
    let mut kept = 0u64;
    let mut buffer = Vec::new();
    for (i, span) in spans.iter().enumerate() {
        let end = spans.get(i + 1).map_or(length, |next| next.start);
        if !keep(span) {
            continue;
        }
        inflated
            .seek(SeekFrom::Current((span.start - at) as i64))
            .map_err(|e| damaged(file, Some(span.record), span.start, e))?;
        buffer.clear();
        (&mut inflated)
            .take(end - span.start)
            .read_to_end(&mut buffer)
            .map_err(|e| damaged(file, Some(span.record), span.start, e))?;
        at = end;
        let mut member = flate2::write::GzEncoder::new(&mut *out, flate2::Compression::new(6));
        member
            .write_all(&buffer)
            .map_err(|e| Error::io(&file.path, e))?;
        member.finish().map_err(|e| Error::io(&file.path, e))?;
        kept += 1;
    }
    Ok(kept)
}
