//! How a run uses `--memory`: one [`MemoryPlan`], computed once from the limit, the detector
//! and the thread count, and handed to every stage — what the sketch stage may keep for the
//! join, and whether the join runs in memory or spills (and with how many bytes at a time).

use std::path::Path;

use neardup::resources::human_bytes;
use neardup::streaming::StreamingDetector;

use crate::error::{Error, Result};

/// Memory per document a spilled join keeps: its line (8 bytes), length (4), id (24 and the
/// id's bytes) and cluster label and union–find entries (12).
const SPILLED_BYTES_PER_DOCUMENT: u64 = 64;

/// The least a spilled join's pieces may use. (Whatever the budget, reading one row group of a
/// shard holds about 2 × `SKETCH_ROWS_PER_GROUP` signatures — 16 MB at 128 permutations — and
/// the input's line blocks about 32 MB more, so a `--memory` below about 128 MB is not kept to
/// (200k documents with `--memory 64MiB` peaked at 104 MB); tests use tiny limits to force
/// many pieces.)
const MIN_SPILL_BUDGET: u64 = 64 << 10;

/// The run's memory decisions.
#[derive(Debug, Clone)]
pub(super) struct MemoryPlan {
    /// `--memory`, if given.
    limit: Option<u64>,
    /// See [`MemoryPlan::join_bytes_per_doc`].
    join_bytes_per_doc: u64,
    /// Join keys per document of the algorithm's streamable split (0 without one).
    keys_per_doc: u64,
    /// Why the join cannot spill, if it cannot: the algorithm runs in memory.
    runs_in_memory: Option<String>,
}

impl MemoryPlan {
    /// The plan for `limit` and `stream` (the algorithm's streamable split, if it has one).
    pub(super) fn new(
        limit: Option<u64>,
        stream: Option<&dyn StreamingDetector>,
        algorithm: &str,
    ) -> Self {
        let width = stream.map_or(0, |s| s.width()).max(1) as u64;
        MemoryPlan {
            limit,
            // Its signature, one band's (key, doc) per worker, and its place and id.
            join_bytes_per_doc: width * 4 + 16 * rayon::current_num_threads() as u64 + 48,
            keys_per_doc: stream.map_or(0, |s| s.keys_per_doc()) as u64,
            runs_in_memory: stream
                .is_none()
                .then(|| format!("`{algorithm}` runs in memory")),
        }
    }

    /// Memory the in-memory join needs per document.
    pub(super) fn join_bytes_per_doc(&self) -> u64 {
        self.join_bytes_per_doc
    }

    /// While the join would need at most this many bytes for them, the sketch stage keeps the
    /// documents it sketches for the join instead of reading them back: three quarters of the
    /// limit, because the sketch's own blocks and buffers (100–200 MB) come on top. (Keeping up
    /// to the whole limit, 5·10^6 documents with `--memory 1GiB` peaked at 1,142 MB before the
    /// join spilled.)
    pub(super) fn keep_for_join(&self) -> u64 {
        self.limit.map_or(u64::MAX, |m| m / 4 * 3)
    }

    /// How the join of `docs` new documents (and the key tables of `indexed` ones) runs:
    /// `None` in memory (no limit, or it fits), else the bytes the spilled join may hold at a
    /// time (`spilled_join`). Refuses, naming `output`, what cannot fit either way.
    pub(super) fn join(&self, docs: usize, indexed: usize, output: &Path) -> Result<Option<u64>> {
        let Some(limit) = self.limit else {
            return Ok(None);
        };
        let need = docs as u64 * self.join_bytes_per_doc;
        let index_need = indexed as u64 * (self.keys_per_doc * 12 + 1);
        if need + index_need <= limit {
            return Ok(None);
        }
        if indexed > 0 || self.runs_in_memory.is_some() {
            let index = if indexed > 0 {
                format!(
                    " and the key tables of {indexed} indexed documents ({})",
                    human_bytes(index_need)
                )
            } else {
                String::new()
            };
            let why = self
                .runs_in_memory
                .clone()
                .unwrap_or_else(|| "a join against an index does not spill yet".to_string());
            return Err(Error::file(
                output,
                format!(
                    "the join needs about {} for {docs} documents{index}, more than --memory {}, \
                     and {why}: raise --memory or split the corpus",
                    human_bytes(need + index_need),
                    human_bytes(limit)
                ),
            ));
        }
        // Spilled, memory still holds every document's place, id and length and the
        // union–find; the rest is split between the join's pieces and what the pieces' readers
        // allocate besides (Parquet pages, the pairs).
        let fixed = docs as u64 * SPILLED_BYTES_PER_DOCUMENT;
        let budget = limit.saturating_sub(fixed) / 2;
        if budget < MIN_SPILL_BUDGET {
            return Err(Error::file(
                output,
                format!(
                    "--memory {} is too small for {docs} documents even when the join spills: \
                     their places and ids alone take about {}; give at least {}",
                    human_bytes(limit),
                    human_bytes(fixed),
                    human_bytes(fixed + 2 * MIN_SPILL_BUDGET)
                ),
            ));
        }
        Ok(Some(budget))
    }
}
