//! The index's segments as a live index holds them: key tables and ids in memory, signature
//! rows memory-mapped from the segment files, so an index larger than memory still answers
//! (each candidate's row is a page the kernel keeps or reads back) and memory grows with the
//! keys, not the signatures.

use std::collections::HashMap;
use std::fs::File;
use std::sync::Arc;

use memmap2::Mmap;
use neardup::streaming::StreamingDetector;

use crate::error::{Error, Result};
use crate::index::IncrementalIndex;
use crate::index::segment::{Contents, KeyTable, key_tables};

/// One segment.
#[derive(Debug)]
pub(super) struct FrozenSegment {
    pub file: String,
    pub ids: Vec<String>,
    pub empty: Vec<bool>,
    pub tables: Vec<KeyTable>,
    /// One guide per table: where each run of keys sharing their top bits starts.
    guides: Vec<Guide>,
    rows: Mmap,
    /// Where the first row is in `rows`.
    offset: usize,
    width: usize,
}

impl FrozenSegment {
    pub fn len(&self) -> usize {
        self.empty.len()
    }

    /// Document `d`'s signature row, copied into `out` (`width` words).
    pub fn row(&self, d: usize, out: &mut [u32]) {
        let at = self.offset + d * self.width * 4;
        let bytes = &self.rows[at..at + self.width * 4];
        for (w, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes(c.try_into().expect("4 bytes"));
        }
    }

    /// The documents whose key at `position` is `key`, ascending.
    pub fn lookup(&self, position: usize, key: u64) -> &[u32] {
        let table = &self.tables[position];
        let (lo, hi) = self.guides[position].range(key);
        let keys = &table.keys[lo..hi];
        let first = keys.partition_point(|&k| k < key);
        let end = first + keys[first..].partition_point(|&k| k == key);
        &table.docs[lo + first..lo + end]
    }

    /// Bytes held in memory (not the mapped rows).
    pub fn heap_bytes(&self) -> usize {
        let ids: usize = self.ids.iter().map(|s| s.capacity() + 24).sum();
        let tables: usize = self.tables.iter().map(|t| t.keys.len() * 12).sum();
        let guides: usize = self.guides.iter().map(|g| g.starts.len() * 4).sum();
        ids + tables + guides + self.empty.len()
    }
}

/// A radix guide over a sorted key table: `starts[p]` is the first key whose top `bits` bits
/// are `p`, so a lookup binary-searches a run of about one key instead of the whole table.
/// Join keys are hashes, spread evenly over their top bits; without the guide a check spent
/// 43 % of its time in the ~18 cache misses of each table's binary search (a perf profile of
/// 32 clients on a 169k-document index).
#[derive(Debug)]
struct Guide {
    shift: u32,
    starts: Vec<u32>,
}

impl Guide {
    fn new(keys: &[u64]) -> Guide {
        // About one key a slot: log2(len) bits, at least 1, at most 24.
        let bits = (usize::BITS - keys.len().leading_zeros()).clamp(1, 24);
        let shift = 64 - bits;
        let mut starts = vec![0u32; (1 << bits) + 1];
        let mut at = 0usize;
        for (slot, start) in starts.iter_mut().enumerate() {
            while at < keys.len() && ((keys[at] >> shift) as usize) < slot {
                at += 1;
            }
            *start = at as u32;
        }
        Guide { shift, starts }
    }

    fn range(&self, key: u64) -> (usize, usize) {
        let slot = (key >> self.shift) as usize;
        (self.starts[slot] as usize, self.starts[slot + 1] as usize)
    }
}

/// Every segment of the index, in manifest order, numbered one after the other.
#[derive(Debug, Default)]
pub(super) struct Frozen {
    pub segments: Vec<Arc<FrozenSegment>>,
    /// The first document number of each segment.
    pub offsets: Vec<u32>,
    pub documents: u32,
}

impl Frozen {
    /// Loads the index's segments, reusing those of `previous` that are unchanged (same file:
    /// segment files are immutable). Key tables built for other join parameters than
    /// `tables_key` are rebuilt from the signatures, as `dedup --index` rebuilds them.
    pub fn load(
        index: &IncrementalIndex,
        stream: &dyn StreamingDetector,
        tables_key: &str,
        previous: Option<&Frozen>,
    ) -> Result<Frozen> {
        let reuse: HashMap<&str, &Arc<FrozenSegment>> = previous
            .map(|p| p.segments.iter().map(|s| (s.file.as_str(), s)).collect())
            .unwrap_or_default();
        let mut frozen = Frozen::default();
        for entry in &index.manifest().segments {
            let segment = match reuse.get(entry.file.as_str()) {
                Some(s) => Arc::clone(s),
                None => Arc::new(load_one(index, entry, stream, tables_key)?),
            };
            frozen.offsets.push(frozen.documents);
            frozen.documents = frozen
                .documents
                .checked_add(segment.len() as u32)
                .ok_or_else(|| {
                    Error::file(index.dir(), "the index holds more than 2^32 − 1 documents")
                })?;
            frozen.segments.push(segment);
        }
        Ok(frozen)
    }

    /// The segment holding document `d` and its number within it.
    pub fn locate(&self, d: u32) -> (&FrozenSegment, usize) {
        let s = self.offsets.partition_point(|&o| o <= d) - 1;
        (&self.segments[s], (d - self.offsets[s]) as usize)
    }
}

fn load_one(
    index: &IncrementalIndex,
    entry: &crate::index::SegmentEntry,
    stream: &dyn StreamingDetector,
    tables_key: &str,
) -> Result<FrozenSegment> {
    let segment = index.read_entry(entry, Contents::Everything)?;
    let mut segment = segment;
    let tables = if segment.tables_key == tables_key {
        std::mem::take(&mut segment.tables)
    } else {
        key_tables(stream, &segment.table)
    };
    let stored = segment
        .stored_rows
        .as_ref()
        .expect("a segment read from a file");
    let file = File::open(&stored.path).map_err(|e| Error::io(&stored.path, e))?;
    // Safety: segment files are immutable once committed, and the index's lock keeps every
    // other neardup process from replacing them while this one maps them (a removal writes a
    // new file and unlinks the old one, whose pages the map keeps).
    let rows = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(&stored.path, e))?;
    let width = segment.table.width();
    let offset = stored.offset as usize;
    if rows.len() < offset + segment.len() * width * 4 {
        return Err(Error::file(&stored.path, "shorter than its signatures"));
    }
    Ok(FrozenSegment {
        file: entry.file.clone(),
        ids: segment.ids,
        empty: segment.table.empty_flags().to_vec(),
        guides: tables.iter().map(|t| Guide::new(&t.keys)).collect(),
        tables,
        rows,
        offset,
        width,
    })
}

#[cfg(test)]
mod tests {
    use super::Guide;
    use neardup::hash::SplitMix64;

    /// Oracle: the guide's range then a search finds exactly what a search of the whole
    /// table finds, for keys present, absent, at the ends and in long runs.
    #[test]
    fn a_guided_lookup_finds_what_a_full_search_finds() {
        let mut rng = SplitMix64::new(3);
        for len in [0usize, 1, 2, 5, 1000, 70_000] {
            let mut keys: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
            keys.extend([0, 0, u64::MAX, u64::MAX, 1 << 63]);
            keys.extend(std::iter::repeat_n(42u64 << 40, 300));
            keys.sort_unstable();
            let guide = Guide::new(&keys);
            let probes: Vec<u64> = keys
                .iter()
                .copied()
                .chain((0..2000).map(|_| rng.next_u64()))
                .collect();
            for key in probes {
                let lo = keys.partition_point(|&k| k < key);
                let hi = lo + keys[lo..].partition_point(|&k| k == key);
                let (a, b) = guide.range(key);
                let first = a + keys[a..b].partition_point(|&k| k < key);
                let end = a + keys[a..b].partition_point(|&k| k <= key);
                assert_eq!((first, end), (lo, hi), "key {key:#x} of {len}");
            }
        }
    }
}
