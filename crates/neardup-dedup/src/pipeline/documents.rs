//! What the join stages know of the documents ([`Documents`]): where each is, its id, and its
//! signature (or, when the join spills, where the signatures are on disk).

use neardup::streaming::SignatureTable;

use super::spilled_join::ShardFiles;
use super::stage_files::SketchShard;

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
        self.shards[f].ids[i]
            .clone()
            .unwrap_or_else(|| doc.to_string())
    }
}
