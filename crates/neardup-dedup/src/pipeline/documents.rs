//! What the join stages know of the documents ([`Documents`]): where each is, its id, and its
//! signature (or, when the join spills, where the signatures are on disk).

use std::borrow::Cow;

use neardup::streaming::SignatureTable;
use rayon::prelude::*;

use super::spilled_join::ShardFiles;
use super::stage_files::SketchShard;
use crate::error::{Error, Result};
use crate::index::segment::{self, Segment};
use crate::input::InputFile;

/// Every document's place and signature, in document order.
#[derive(Debug)]
pub struct Documents {
    /// Per input file: its documents.
    pub shards: Vec<SketchShard>,
    /// All signatures, in document order — empty when the join spills (`spill` is set):
    /// then they are read from the shards on disk.
    pub table: SignatureTable,
    /// Index of each file's first document.
    pub offsets: Vec<usize>,
    /// Number of documents.
    pub len: usize,
    /// With a join that does not fit `--memory`: the shards it reads and the bytes of keys or
    /// signatures it may hold at a time.
    pub spill: Option<(ShardFiles, u64)>,
}

impl Documents {
    /// The signatures of documents `rows` (sorted, distinct), in that order, when the index's
    /// documents follow the new ones (`--index`, whose join never spills): the new documents'
    /// rows from memory (numbered below `len`), the indexed ones' read from the segment files.
    pub(super) fn rows_with_indexed(
        &self,
        rows: &[u32],
        segments: &[Segment],
        width: usize,
    ) -> Result<SignatureTable> {
        let n = self.len as u32;
        let split = rows.partition_point(|&d| d < n);
        let mut t = SignatureTable::new(width);
        t.reserve_exact(rows.len());
        for &d in &rows[..split] {
            t.push(
                self.table.row(d as usize),
                self.table.is_empty_doc(d as usize),
            );
        }
        let indexed: Vec<u32> = rows[split..].iter().map(|&d| d - n).collect();
        t.extend(&segment::fetch_rows(segments, &indexed, width)?);
        Ok(t)
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Document `doc`'s (file index, index within the file).
    pub fn locate(&self, doc: usize) -> (usize, usize) {
        let f = self.offsets.partition_point(|&o| o <= doc) - 1;
        (f, doc - self.offsets[f])
    }

    /// Document `doc`'s id (its 0-based document number when it has none).
    pub fn id(&self, doc: usize) -> String {
        let (f, i) = self.locate(doc);
        self.id_in(f, i).into_owned()
    }

    /// The ids the inputs gave (document numbers stand in for the others, and mean nothing
    /// across batches), each with its document.
    pub fn given_ids(&self) -> std::collections::HashMap<&str, usize> {
        let mut ids = std::collections::HashMap::new();
        for (f, shard) in self.shards.iter().enumerate() {
            for (i, id) in shard.ids.iter().enumerate() {
                if let Some(id) = id {
                    ids.entry(id.as_str()).or_insert(self.offsets[f] + i);
                }
            }
        }
        ids
    }

    /// The input line of document `doc`.
    pub fn line(&self, doc: usize) -> usize {
        let (f, i) = self.locate(doc);
        self.shards[f].lines[i] as usize
    }

    /// The id of document `i` of file `f`.
    fn id_in(&self, f: usize, i: usize) -> Cow<'_, str> {
        match &self.shards[f].ids[i] {
            Some(id) => Cow::Borrowed(id),
            None => Cow::Owned((self.offsets[f] + i).to_string()),
        }
    }

    /// Checks that every id names one document and fits on a line (`removed.txt`, and
    /// `index remove --ids`, name documents by id, one per line): the first offender in
    /// document order is an error naming its file and line, and the other document.
    /// Costs 16 bytes a document (hashes sorted), not a set of the ids.
    pub fn check_ids(&self, files: &[InputFile]) -> Result<()> {
        let place = |f: usize, i: usize| (&files[f].path, self.shards[f].lines[i] as usize);
        let mut hashed: Vec<(u64, u32, u32)> = Vec::with_capacity(self.len);
        for (f, shard) in self.shards.iter().enumerate() {
            for i in 0..shard.len() {
                let id = self.id_in(f, i);
                if id.contains(['\n', '\r']) {
                    let (path, line) = place(f, i);
                    return Err(Error::line(
                        path,
                        line,
                        format!(
                            "the id {id:?} holds a line break: removed.txt lists one id a line; \
                             choose another --id-field or fix the ids"
                        ),
                    ));
                }
                hashed.push((
                    xxhash_rust::xxh3::xxh3_64(id.as_bytes()),
                    f as u32,
                    i as u32,
                ));
            }
        }
        hashed.par_sort_unstable();
        let mut first: Option<((usize, usize), (usize, usize))> = None;
        for w in hashed.windows(2) {
            let ((h, f, i), (g, f2, i2)) = (w[0], w[1]);
            let (a, b) = ((f as usize, i as usize), (f2 as usize, i2 as usize));
            if h == g && self.id_in(a.0, a.1) == self.id_in(b.0, b.1) {
                // The duplicate that comes first in document order: (later, earlier).
                let pair = if a < b { (b, a) } else { (a, b) };
                first = Some(first.map_or(pair, |x| x.min(pair)));
            }
        }
        let Some(((f, i), (f2, i2))) = first else {
            return Ok(());
        };
        let (path, line) = place(f, i);
        let (other, other_line) = place(f2, i2);
        Err(Error::line(
            path,
            line,
            format!(
                "the id {:?} names another document too ({}, line {other_line}): ids must be \
                 unique, as removed.txt and `index remove` name documents by id; choose another \
                 --id-field or fix the ids",
                self.id_in(f, i),
                other.display()
            ),
        ))
    }
}
