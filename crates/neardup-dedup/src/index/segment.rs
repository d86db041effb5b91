//! One segment of the `neardup dedup --index` index (`super::incremental_index`): its ids,
//! signatures and per-position key tables, the candidates of new documents found by looking
//! their keys up, and the segment's file format.
//!
//! Layout (little-endian): magic, version, width, documents, key positions, the tables' key
//! (the join parameters they were built for), ids (length-prefixed UTF-8), empty flags,
//! signatures, then per position the sorted keys and their documents; last, the XXH3-64 of
//! everything before it.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use neardup::streaming::{SignatureTable, StreamingDetector};
use rayon::prelude::*;

use crate::error::{Error, Result};
use neardup::heavy::runs::HUBS;

/// Version of the manifest and segment layout.
pub const FORMAT_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"NDUPSEG\x01";

/// Sorted (key, document) pairs of one key position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyTable {
    /// Keys, ascending.
    pub keys: Vec<u64>,
    /// Document (within the segment) of each key; ascending among equal keys.
    pub docs: Vec<u32>,
}

impl KeyTable {
    /// Documents whose key equals `key`.
    pub fn lookup(&self, key: u64) -> &[u32] {
        let lo = self.keys.partition_point(|&k| k < key);
        let hi = lo + self.keys[lo..].partition_point(|&k| k == key);
        &self.docs[lo..hi]
    }
}

/// One segment's contents.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Document ids.
    pub ids: Vec<String>,
    /// Their signatures.
    pub table: SignatureTable,
    /// The join parameters the key tables were built for.
    pub tables_key: String,
    /// One table per key position (non-empty documents only).
    pub tables: Vec<KeyTable>,
    /// Where its signature rows are on disk (read from a file; with [`Contents::KeysOnly`]
    /// `table` holds only the empty flags).
    pub stored_rows: Option<StoredRows>,
}

impl Segment {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether it holds no document.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

/// The key tables of `table` under `stream`'s join parameters.
pub fn key_tables(stream: &dyn StreamingDetector, table: &SignatureTable) -> Vec<KeyTable> {
    let per_doc = stream.keys_per_doc();
    let docs: Vec<u32> = (0..table.len() as u32)
        .filter(|&d| !table.is_empty_doc(d as usize))
        .collect();
    let mut keys = vec![0u64; docs.len() * per_doc];
    keys.par_chunks_mut(per_doc.max(1))
        .zip(docs.par_iter())
        .for_each(|(out, &d)| stream.keys(table.row(d as usize), out));
    (0..per_doc)
        .into_par_iter()
        .map(|position| {
            let mut pairs: Vec<(u64, u32)> = docs
                .iter()
                .enumerate()
                .map(|(j, &d)| (keys[j * per_doc + position], d))
                .collect();
            pairs.sort_unstable();
            KeyTable {
                keys: pairs.iter().map(|p| p.0).collect(),
                docs: pairs.iter().map(|p| p.1).collect(),
            }
        })
        .collect()
}

/// Candidate pairs between the new documents of `table` (numbered `0..table.len()`) and the
/// indexed ones (numbered after them, segment after segment): two documents are candidates
/// when their keys agree at some position — the same rule as `StreamingDetector::keys`.
/// Packed (`neardup::pairs::pack`), sorted, each once; spends the pair budget.
pub fn candidates_against(
    stream: &dyn StreamingDetector,
    table: &SignatureTable,
    segments: &[Segment],
) -> Result<Vec<u64>> {
    let per_doc = stream.keys_per_doc();
    let mut offsets = Vec::with_capacity(segments.len());
    let mut next = table.len();
    for s in segments {
        offsets.push(next);
        next += s.len();
    }
    assert!(
        next <= u32::MAX as usize,
        "the caller checks the document count"
    );
    let budget = neardup::pairs::Budget::new("candidate pairs")?;
    let per_new: Vec<Vec<u64>> = (0..table.len())
        .into_par_iter()
        .map_init(
            || vec![0u64; per_doc],
            |keys, d| {
                if table.is_empty_doc(d) || budget.exceeded() {
                    return Vec::new();
                }
                stream.keys(table.row(d), keys);
                let mut found = Vec::new();
                for (position, &key) in keys.iter().enumerate() {
                    for (s, &offset) in segments.iter().zip(&offsets) {
                        let run = s.tables[position].lookup(key);
                        let pair = |o: u32| neardup::pairs::pack(d as u32, offset as u32 + o);
                        if run.len() > neardup::heavy::HEAVY {
                            // A heavy indexed cluster (thousands of copies of a page): the
                            // new document is a candidate of its first members only, as the
                            // spilled join pairs a heavy run (`heavy::run_candidates_to_hubs`).
                            found.extend(run.iter().take(HUBS).map(|&o| pair(o)));
                        } else {
                            found.extend(run.iter().map(|&o| pair(o)));
                        }
                    }
                }
                found.sort_unstable();
                found.dedup();
                if budget.spend(found.len() as u64).is_err() {
                    return Vec::new();
                }
                found
            },
        )
        .collect();
    if budget.exceeded() {
        return Err(budget.error().into());
    }
    // New documents are in order and each one's pairs sorted: the concatenation is sorted.
    Ok(per_new.concat())
}

/// `segment` without the documents flagged in `drop` (key tables filtered, not rebuilt).
pub fn without(segment: &Segment, drop: &[bool]) -> Segment {
    let mut renumber = vec![u32::MAX; drop.len()];
    let mut table = SignatureTable::new(segment.table.width());
    let mut ids = Vec::new();
    for (d, &gone) in drop.iter().enumerate() {
        if !gone {
            renumber[d] = ids.len() as u32;
            ids.push(segment.ids[d].clone());
            table.push(segment.table.row(d), segment.table.is_empty_doc(d));
        }
    }
    // Renumbering is monotone, so each table stays sorted by (key, document).
    let tables = segment
        .tables
        .iter()
        .map(|t| {
            let (keys, docs) = t
                .keys
                .iter()
                .zip(&t.docs)
                .filter(|(_, d)| !drop[**d as usize])
                .map(|(&k, &d)| (k, renumber[d as usize]))
                .unzip();
            KeyTable { keys, docs }
        })
        .collect();
    Segment {
        ids,
        table,
        tables_key: segment.tables_key.clone(),
        tables,
        stored_rows: None,
    }
}

/// A writer that hashes what passes through it.
struct Hashing<'a> {
    inner: &'a mut dyn Write,
    hasher: xxhash_rust::xxh3::Xxh3,
}

impl Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes a segment (little-endian): magic, header, ids, empty flags, signatures, key tables,
/// then the XXH3-64 of everything before it. Returns that checksum.
pub fn encode_segment(s: &Segment, w: &mut dyn Write) -> std::io::Result<u64> {
    let mut h = Hashing {
        inner: w,
        hasher: xxhash_rust::xxh3::Xxh3::new(),
    };
    h.write_all(MAGIC)?;
    h.write_all(&FORMAT_VERSION.to_le_bytes())?;
    h.write_all(&(s.table.width() as u32).to_le_bytes())?;
    h.write_all(&(s.len() as u64).to_le_bytes())?;
    h.write_all(&(s.tables.len() as u32).to_le_bytes())?;
    h.write_all(&(s.tables_key.len() as u32).to_le_bytes())?;
    h.write_all(s.tables_key.as_bytes())?;
    for id in &s.ids {
        h.write_all(&(id.len() as u32).to_le_bytes())?;
        h.write_all(id.as_bytes())?;
    }
    let flags: Vec<u8> = s.table.empty_flags().iter().map(|&e| e as u8).collect();
    h.write_all(&flags)?;
    write_le(&mut h, s.table.words(), u32::to_le_bytes)?;
    for t in &s.tables {
        h.write_all(&(t.keys.len() as u64).to_le_bytes())?;
        write_le(&mut h, &t.keys, u64::to_le_bytes)?;
        write_le(&mut h, &t.docs, u32::to_le_bytes)?;
    }
    let checksum = h.hasher.digest();
    h.inner.write_all(&checksum.to_le_bytes())?;
    Ok(checksum)
}

/// How much of a segment to keep in memory when reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contents {
    /// Ids, signatures and key tables (removing documents).
    Everything,
    /// Key tables and empty flags only (joining): signature rows are read from the file when
    /// a candidate needs them (`fetch_rows`), so memory holds the tables, not the signatures.
    KeysOnly,
}

/// Where a segment's signature rows are in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRows {
    /// The segment file.
    pub path: PathBuf,
    /// Byte offset of the first row.
    pub offset: u64,
}

/// Reads the segment at `path`, checking its checksum against its trailer and the manifest's
/// `expected` (hex), and its width against the manifest's.
pub fn read_segment(
    path: &Path,
    expected: &str,
    width: usize,
    contents: Contents,
) -> Result<Segment> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    decode_segment(
        path,
        BufReader::with_capacity(1 << 20, file),
        len,
        expected,
        width,
        contents,
    )
}

/// Reads [`encode_segment`]'s `len` bytes from `reader` in one pass, hashing as it goes (the
/// checksum is compared once everything is read; sizes are checked against `len` before
/// anything is allocated, so a corrupt header cannot ask for absurd memory).
pub fn decode_segment(
    path: &Path,
    reader: impl Read,
    len: u64,
    expected: &str,
    width: usize,
    contents: Contents,
) -> Result<Segment> {
    let mut d = SegmentDecoder::new(path, reader, len);
    let (docs, positions, tables_key) = d.header(width)?;
    let keep_all = contents == Contents::Everything;
    let ids = d.ids(docs, keep_all)?;
    let mut flags = vec![0u8; docs];
    d.r.exact(&mut flags).map_err(|e| d.io(e))?;
    let empty: Vec<bool> = flags.iter().map(|&b| b != 0).collect();
    drop(flags);
    let offset = d.r.at;
    let table = if keep_all {
        let mut bytes = vec![0u8; docs * width * 4];
        d.r.exact(&mut bytes).map_err(|e| d.io(e))?;
        SignatureTable::from_parts(width, read_le(&bytes, u32::from_le_bytes), empty)
    } else {
        d.r.skip((docs * width * 4) as u64).map_err(|e| d.io(e))?;
        SignatureTable::from_parts(0, Vec::new(), empty)
    };
    let tables = d.key_tables(positions, docs)?;
    d.check_trailer(expected)?;
    Ok(Segment {
        ids,
        table,
        tables_key,
        tables,
        stored_rows: Some(StoredRows {
            path: path.to_path_buf(),
            offset,
        }),
    })
}

/// Calls `each` with every id of the segment at `path`, in order, without keeping them (the
/// rest of the file is hashed and skipped, so its checksum is still checked): what the check
/// for ids reused across batches needs.
pub fn for_each_id(
    path: &Path,
    expected: &str,
    width: usize,
    mut each: impl FnMut(&str),
) -> Result<()> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut d = SegmentDecoder::new(path, BufReader::with_capacity(1 << 20, file), len);
    let (docs, _, _) = d.header(width)?;
    let mut id = Vec::new();
    for _ in 0..docs {
        let n = d.r.u32().map_err(|e| d.io(e))? as u64;
        if n > len {
            return Err(d.bad("an id is longer than the file"));
        }
        id.resize(n as usize, 0);
        d.r.exact(&mut id).map_err(|e| d.io(e))?;
        each(std::str::from_utf8(&id).map_err(|_| d.bad("an id is not UTF-8"))?);
    }
    let rest = len.saturating_sub(8).saturating_sub(d.r.at);
    d.r.skip(rest).map_err(|e| d.io(e))?;
    d.check_trailer(expected)
}

/// Reads a segment file's parts in order, hashing every byte, and checks each declared size
/// against the file's length before allocating it.
struct SegmentDecoder<'p, R> {
    path: &'p Path,
    len: u64,
    r: HashingReader<R>,
}

impl<'p, R: Read> SegmentDecoder<'p, R> {
    /// A decoder of `reader`, the `len` bytes of file `path`, hashing from its first byte.
    fn new(path: &'p Path, reader: R, len: u64) -> Self {
        SegmentDecoder {
            path,
            len,
            r: HashingReader {
                inner: reader,
                hasher: xxhash_rust::xxh3::Xxh3::new(),
                at: 0,
            },
        }
    }

    fn bad(&self, what: &str) -> Error {
        Error::file(self.path, format!("corrupt index segment: {what}"))
    }

    fn io(&self, e: std::io::Error) -> Error {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            self.bad("truncated")
        } else {
            Error::io(self.path, e)
        }
    }

    /// Magic, version, width (checked against the manifest's), then (documents, key-table
    /// positions, the tables' key).
    fn header(&mut self, width: usize) -> Result<(usize, u64, String)> {
        let mut magic = [0u8; 8];
        self.r.exact(&mut magic).map_err(|e| self.io(e))?;
        if &magic != MAGIC {
            return Err(self.bad("not a neardup index segment (wrong magic)"));
        }
        let version = self.r.u32().map_err(|e| self.io(e))?;
        if version != FORMAT_VERSION {
            return Err(self.bad(&format!(
                "segment version {version}, expected {FORMAT_VERSION}"
            )));
        }
        let seg_width = self.r.u32().map_err(|e| self.io(e))? as usize;
        if seg_width != width {
            return Err(self.bad(&format!("width {seg_width}, the manifest says {width}")));
        }
        let docs = self.r.u64().map_err(|e| self.io(e))?;
        let positions = self.r.u32().map_err(|e| self.io(e))? as u64;
        // Every document takes at least its id length, empty flag and row.
        if docs.saturating_mul(5 + 4 * width as u64) > self.len || positions > self.len {
            return Err(self.bad("its header claims more than the file holds"));
        }
        let key_len = self.r.u32().map_err(|e| self.io(e))? as u64;
        if key_len > self.len {
            return Err(self.bad("its header claims more than the file holds"));
        }
        let mut key = vec![0u8; key_len as usize];
        self.r.exact(&mut key).map_err(|e| self.io(e))?;
        let tables_key = String::from_utf8(key).map_err(|_| self.bad("tables key is not UTF-8"))?;
        Ok((docs as usize, positions, tables_key))
    }

    /// The documents' ids (checked, and kept only when `keep`).
    fn ids(&mut self, docs: usize, keep: bool) -> Result<Vec<String>> {
        let mut ids = Vec::with_capacity(if keep { docs } else { 0 });
        let mut id = Vec::new();
        for _ in 0..docs {
            let n = self.r.u32().map_err(|e| self.io(e))? as u64;
            if n > self.len {
                return Err(self.bad("an id is longer than the file"));
            }
            id.resize(n as usize, 0);
            self.r.exact(&mut id).map_err(|e| self.io(e))?;
            let text = std::str::from_utf8(&id).map_err(|_| self.bad("an id is not UTF-8"))?;
            if keep {
                ids.push(text.to_string());
            }
        }
        Ok(ids)
    }

    /// The ids of documents `wanted` (sorted local numbers) among the first `docs`.
    fn some_ids(&mut self, docs: usize, wanted: &[usize]) -> Result<Vec<String>> {
        let mut ids = Vec::with_capacity(wanted.len());
        let mut id = Vec::new();
        let mut next = 0;
        for doc in 0..docs {
            if next == wanted.len() {
                break;
            }
            let n = self.r.u32().map_err(|e| self.io(e))? as u64;
            if n > self.len {
                return Err(self.bad("an id is longer than the file"));
            }
            id.resize(n as usize, 0);
            self.r.exact(&mut id).map_err(|e| self.io(e))?;
            if wanted[next] == doc {
                let text = std::str::from_utf8(&id).map_err(|_| self.bad("an id is not UTF-8"))?;
                ids.push(text.to_string());
                next += 1;
            }
        }
        Ok(ids)
    }

    /// One sorted key table per signature position.
    fn key_tables(&mut self, positions: u64, docs: usize) -> Result<Vec<KeyTable>> {
        let mut tables = Vec::with_capacity(positions as usize);
        for _ in 0..positions {
            let n = self.r.u64().map_err(|e| self.io(e))?;
            if n.saturating_mul(12) > self.len {
                return Err(self.bad("a key table is longer than the file"));
            }
            let mut bytes = vec![0u8; n as usize * 12];
            self.r.exact(&mut bytes).map_err(|e| self.io(e))?;
            let (k, d) = bytes.split_at(n as usize * 8);
            let keys = read_le(k, u64::from_le_bytes);
            let docs_of = read_le(d, u32::from_le_bytes);
            if docs_of.iter().any(|&d| d as usize >= docs) {
                return Err(self.bad("a key table names a document it does not hold"));
            }
            tables.push(KeyTable {
                keys,
                docs: docs_of,
            });
        }
        Ok(tables)
    }

    /// The checksum of everything read against the trailer's and the manifest's, and nothing
    /// after the trailer.
    fn check_trailer(&mut self, expected: &str) -> Result<()> {
        let actual = self.r.hasher.digest();
        let mut trailer = [0u8; 8];
        self.r
            .inner
            .read_exact(&mut trailer)
            .map_err(|e| self.io(e))?;
        let stored = u64::from_le_bytes(trailer);
        if stored != actual || format!("{actual:016x}") != expected {
            return Err(self.bad(&format!(
                "checksum {actual:016x}, its trailer says {stored:016x} and the manifest {expected}; \
                 the file was truncated, changed or replaced"
            )));
        }
        if self.r.at + 8 != self.len {
            return Err(self.bad("trailing bytes after its checksum"));
        }
        Ok(())
    }
}

/// Indexed documents `docs` (sorted; numbered across `segments`, segment after segment) by
/// segment: each segment holding some of them, with their numbers inside it.
fn by_segment<'s>(segments: &'s [Segment], docs: &[u32]) -> Vec<(&'s Segment, Vec<usize>)> {
    let mut out = Vec::new();
    let (mut start, mut next) = (0usize, 0usize);
    for s in segments {
        let end = start + s.len();
        let mine = docs[next..].partition_point(|&d| (d as usize) < end);
        if mine > 0 {
            let local = docs[next..next + mine].iter().map(|&d| d as usize - start);
            out.push((s, local.collect()));
        }
        next += mine;
        start = end;
    }
    out
}

/// The signature rows of indexed documents `docs` (sorted; numbered across `segments`,
/// segment after segment), read from the segment files.
pub fn fetch_rows(segments: &[Segment], docs: &[u32], width: usize) -> Result<SignatureTable> {
    let mut out = SignatureTable::new(width);
    let mut row = vec![0u32; width];
    let mut bytes = vec![0u8; width * 4];
    for (s, wanted) in by_segment(segments, docs) {
        if s.table.width() == width {
            for &d in &wanted {
                out.push(s.table.row(d), s.table.is_empty_doc(d));
            }
            continue;
        }
        let stored = s.stored_rows.as_ref().expect("a segment read from a file");
        let mut file = File::open(&stored.path).map_err(|e| Error::io(&stored.path, e))?;
        for &d in &wanted {
            let at = stored.offset + (d * width * 4) as u64;
            file.seek(SeekFrom::Start(at))
                .and_then(|_| file.read_exact(&mut bytes))
                .map_err(|e| Error::io(&stored.path, e))?;
            for (w, c) in row.iter_mut().zip(bytes.chunks_exact(4)) {
                *w = u32::from_le_bytes(c.try_into().expect("4 bytes"));
            }
            out.push(&row, s.table.is_empty_doc(d));
        }
    }
    Ok(out)
}

/// The ids of indexed documents `docs` (sorted, distinct; numbered across `segments`, segment
/// after segment), read from the segment files' id sections (a segment read with its ids
/// answers from memory).
pub fn fetch_ids(segments: &[Segment], docs: &[u32], width: usize) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(docs.len());
    for (s, wanted) in by_segment(segments, docs) {
        if s.ids.len() == s.len() {
            out.extend(wanted.iter().map(|&d| s.ids[d].clone()));
            continue;
        }
        let stored = s.stored_rows.as_ref().expect("a segment read from a file");
        let file = File::open(&stored.path).map_err(|e| Error::io(&stored.path, e))?;
        let len = file
            .metadata()
            .map_err(|e| Error::io(&stored.path, e))?
            .len();
        let mut d = SegmentDecoder::new(&stored.path, std::io::BufReader::new(file), len);
        let (count, _, _) = d.header(width)?;
        out.extend(d.some_ids(count, &wanted)?);
    }
    Ok(out)
}

/// Writes `values` little-endian, 65,536 at a time (no copy of a whole column).
fn write_le<T: Copy, const N: usize>(
    w: &mut impl Write,
    values: &[T],
    le: fn(T) -> [u8; N],
) -> std::io::Result<()> {
    for chunk in values.chunks(1 << 16) {
        let bytes: Vec<u8> = chunk.iter().flat_map(|&v| le(v)).collect();
        w.write_all(&bytes)?;
    }
    Ok(())
}

/// The little-endian values of `bytes` (a whole number of them).
fn read_le<T, const N: usize>(bytes: &[u8], from: fn([u8; N]) -> T) -> Vec<T> {
    bytes
        .chunks_exact(N)
        .map(|c| from(c.try_into().expect("N bytes")))
        .collect()
}

/// A reader that hashes what it reads and counts the bytes.
struct HashingReader<R> {
    inner: R,
    hasher: xxhash_rust::xxh3::Xxh3,
    at: u64,
}

impl<R: Read> HashingReader<R> {
    fn exact(&mut self, buf: &mut [u8]) -> std::io::Result<()> {
        self.inner.read_exact(buf)?;
        self.hasher.update(buf);
        self.at += buf.len() as u64;
        Ok(())
    }
    fn u32(&mut self) -> std::io::Result<u32> {
        let mut b = [0u8; 4];
        self.exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn u64(&mut self) -> std::io::Result<u64> {
        let mut b = [0u8; 8];
        self.exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    /// Reads and hashes `n` bytes without keeping them.
    fn skip(&mut self, mut n: u64) -> std::io::Result<()> {
        let mut buf = vec![0u8; 1 << 16];
        while n > 0 {
            let take = n.min(buf.len() as u64) as usize;
            self.exact(&mut buf[..take])?;
            n -= take as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use neardup::detector::ParamMap;

    /// minhash-lsh with 32 permutations and threshold 0.5 (the index tests' detector).
    pub(crate) fn stream() -> Box<dyn StreamingDetector> {
        let mut p = ParamMap::new();
        p.insert("num_perm".into(), serde_json::json!(32));
        p.insert("threshold".into(), serde_json::json!(0.5));
        neardup::registry::detector("minhash-lsh", &p)
            .unwrap()
            .streaming()
            .unwrap()
    }

    fn texts(n: usize, seed: u64) -> Vec<String> {
        let mut rng = neardup::hash::SplitMix64::new(seed);
        (0..n)
            .map(|i| {
                let words: Vec<String> = (0..30).map(|_| format!("w{}", rng.below(50))).collect();
                // Every fourth text is empty: no feature, never a candidate.
                if i % 4 == 3 {
                    String::new()
                } else {
                    words.join(" ")
                }
            })
            .collect()
    }

    /// Candidates by lookup equal the brute-force rule "some key position agrees" (the oracle),
    /// and a segment survives a write and read unchanged.
    #[test]
    fn lookup_candidates_equal_brute_force_and_segments_round_trip() {
        let s = stream();
        let old: Vec<String> = texts(300, 7);
        // Copies of old texts (every other one with its first words changed) and fresh ones.
        let new: Vec<String> = texts(200, 7)
            .into_iter()
            .skip(100)
            .enumerate()
            .map(|(i, t)| {
                if i % 2 == 0 {
                    t.replacen("w", "changed", 3)
                } else {
                    t
                }
            })
            .chain(texts(100, 9))
            .collect();
        fn refs(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        let old_t = SignatureTable::sketch_all(s.as_ref(), &refs(&old));
        let new_t = SignatureTable::sketch_all(s.as_ref(), &refs(&new));
        // Two segments, to check the numbering across them.
        let split = |t: &SignatureTable, from: usize, to: usize| {
            let mut out = SignatureTable::new(t.width());
            for d in from..to {
                out.push(t.row(d), t.is_empty_doc(d));
            }
            out
        };
        let segs: Vec<Segment> = [(0, 120), (120, 300)]
            .into_iter()
            .map(|(a, b)| {
                let table = split(&old_t, a, b);
                Segment {
                    ids: (a..b).map(|i| format!("old{i}")).collect(),
                    tables: key_tables(s.as_ref(), &table),
                    table,
                    tables_key: "k".into(),
                    stored_rows: None,
                }
            })
            .collect();
        let got = candidates_against(s.as_ref(), &new_t, &segs).unwrap();
        let keys = |t: &SignatureTable, d: usize| {
            let mut k = vec![0; s.keys_per_doc()];
            s.keys(t.row(d), &mut k);
            k
        };
        let mut want = Vec::new();
        for a in 0..new_t.len() {
            for b in 0..old_t.len() {
                if new_t.is_empty_doc(a) || old_t.is_empty_doc(b) {
                    continue;
                }
                let (ka, kb) = (keys(&new_t, a), keys(&old_t, b));
                if ka.iter().zip(&kb).any(|(x, y)| x == y) {
                    want.push(neardup::pairs::pack(a as u32, (new_t.len() + b) as u32));
                }
            }
        }
        println!("{} candidates", want.len());
        assert!(want.len() >= 50, "the corpus must make candidates");
        assert_eq!(got, want);

        let mut bytes = Vec::new();
        let sum = encode_segment(&segs[1], &mut bytes).unwrap();
        let path = std::env::temp_dir().join(format!("neardup-segment-{}.seg", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let expected = format!("{sum:016x}");
        let mut back = read_segment(&path, &expected, 32, Contents::Everything).unwrap();
        assert_eq!(back.stored_rows.take().unwrap().path, path);
        assert_eq!(back, segs[1]);
        // Keys only: the same tables, and every row fetched from the file equals the stored
        // one (the second segment's documents are numbered after the first's).
        let keys_only = read_segment(&path, &expected, 32, Contents::KeysOnly).unwrap();
        assert_eq!(keys_only.tables, segs[1].tables);
        assert!(keys_only.ids.is_empty() && keys_only.table.words().is_empty());
        let both = [segs[0].clone(), keys_only];
        let wanted: Vec<u32> = (0..300).filter(|d| d % 7 == 0).collect();
        let rows = fetch_rows(&both, &wanted, 32).unwrap();
        for (i, &d) in wanted.iter().enumerate() {
            assert_eq!(rows.row(i), old_t.row(d as usize), "document {d}");
            assert_eq!(rows.is_empty_doc(i), old_t.is_empty_doc(d as usize));
        }
        // One flipped bit anywhere, or a lost byte, is an error naming the file.
        let decode = |b: &[u8]| {
            decode_segment(
                Path::new("x.seg"),
                b,
                b.len() as u64,
                &expected,
                32,
                Contents::Everything,
            )
            .unwrap_err()
            .to_string()
        };
        for at in [9, bytes.len() / 2, bytes.len() - 9] {
            let mut b = bytes.clone();
            b[at] ^= 1;
            let e = decode(&b);
            assert!(
                e.contains("x.seg") && e.contains("corrupt index segment"),
                "{e}"
            );
        }
        let e = decode(&bytes[..bytes.len() - 1]);
        assert!(e.contains("x.seg") && e.contains("truncated"), "{e}");
        let _ = std::fs::remove_file(&path);
        // Removing documents filters the tables exactly as rebuilding them would.
        let drop: Vec<bool> = (0..segs[1].len()).map(|d| d % 3 == 0).collect();
        let kept = without(&segs[1], &drop);
        assert_eq!(kept.tables, key_tables(s.as_ref(), &kept.table));
        assert_eq!(kept.len(), drop.iter().filter(|d| !**d).count());
    }
}
