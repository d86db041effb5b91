//! How a run uses `--memory`: one [`MemoryPlan`], computed once from the limit, the detector
//! and the thread count, and handed to every stage — what the sketch stage may keep for the
//! join, and whether the join runs in memory or spills (and with how many bytes at a time).

use std::path::Path;

use neardup::resources::human_bytes;
use neardup::streaming::StreamingDetector;

use super::sketch_file::DocumentLimit;
use crate::error::{Error, Result};

/// Memory per document a spilled join keeps: its line (8 bytes), length (4), id (24 and the
/// id's bytes, with the allocator's rounding) and cluster label and union–find entries, more
/// while the components are built. Measured: 10^7 documents with 10-byte ids peaked at
/// 1,015 MiB in the components stage (1,064 MB less the base: 103 bytes a document; 64
/// were counted, and the least limit named peaked 28 % above itself).
const SPILLED_BYTES_PER_DOCUMENT: u64 = 104;

/// The least a spilled join's pieces may use (tests use tiny limits to force many pieces).
const MIN_SPILL_BUDGET: u64 = 64 << 10;

/// What a run holds whatever the corpus, beside what the plan counts per document: the code
/// and libraries, the pairs and the outputs stage's buffers…
const BASE_BYTES: u64 = 32 << 20;
/// …and, for each input file sketched at a time, its line blocks (8 MB each, a few in
/// flight), the part being converted and written, and the writers' buffers. Measured at 2
/// threads on the kit's corpus, one file: 100 documents peak at 30 MB, 20,000 at 62 MB;
/// 200,000 and 10^6 documents without a limit at 213 and 725 MB, i.e. about 85 MB plus
/// 640 bytes a document — the overhead these two constants add up to, and
/// [`MemoryPlan::join_bytes_per_doc`].
const FILE_IN_FLIGHT_BYTES: u64 = 64 << 20;

/// What each input file costs for the whole run, whatever its size: its path, its shard's
/// name, marker and key, its place among the offsets. Measured: 100,000 one-document files
/// grew the sketch from 148 to 288 MiB (1.47 kB a file), uncounted, so `--memory 256MiB`
/// peaked at 296 MiB.
const PER_INPUT_FILE_BYTES: u64 = 1536;

/// What sketching a document holds at once per byte of its text (its normalized copy, and per
/// token its hash, span and halves and its features' hashes). Measured with 50 MB documents,
/// above the run's base: English words 10, Chinese 15, alternating Chinese and Latin 18,
/// one-letter words 21 — the worst, and this bound above it.
const SKETCH_BYTES_PER_TEXT_BYTE: u64 = 24;

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
    /// What the run holds whatever the corpus while it sketches (see [`BASE_BYTES`] and
    /// [`FILE_IN_FLIGHT_BYTES`]).
    overhead: u64,
    /// What it holds whatever the corpus once the sketch is done ([`BASE_BYTES`]).
    base: u64,
}

impl MemoryPlan {
    /// The plan for `limit`, `files` input files and `stream` (the algorithm's streamable
    /// split, if it has one).
    pub(super) fn new(
        limit: Option<u64>,
        files: usize,
        stream: Option<&dyn StreamingDetector>,
        algorithm: &str,
    ) -> Self {
        let width = stream.map_or(0, |s| s.width()).max(1) as u64;
        let threads = rayon::current_num_threads();
        let in_flight = files.clamp(1, threads) as u64;
        let per_file = PER_INPUT_FILE_BYTES * files as u64;
        MemoryPlan {
            limit,
            // Its signature, one band's (key, doc) per worker, its place and id, and the
            // verified pairs and labels (fitted to the measurements above).
            join_bytes_per_doc: width * 4 + 16 * threads as u64 + 96,
            keys_per_doc: stream.map_or(0, |s| s.keys_per_doc()) as u64,
            runs_in_memory: stream
                .is_none()
                .then(|| format!("`{algorithm}` runs in memory")),
            overhead: crate::fault_injection::memory_overhead(
                BASE_BYTES + FILE_IN_FLIGHT_BYTES * in_flight + per_file,
            ),
            base: crate::fault_injection::memory_overhead(BASE_BYTES + per_file),
        }
    }

    /// Refuses, before any work, a limit below what any corpus of these inputs needs, naming
    /// the smallest workable one (below the overhead; how much more a corpus needs is known
    /// once it is sketched: [`MemoryPlan::join`]).
    pub(super) fn check_floor(&self, files: usize, output: &Path) -> Result<()> {
        match self.limit {
            Some(limit) if limit < self.overhead => Err(Error::file(
                output,
                format!(
                    "--memory {} is below the {} any run of {files} input file{} needs (the \
                     process, its bookkeeping per input file, and the blocks and buffers of each \
                     file sketched at a time on {} \
                     threads); give at least {} (--memory, or --max-memory when --memory is not \
                     given)",
                    human_bytes(limit),
                    human_bytes(self.overhead),
                    if files == 1 { "" } else { "s" },
                    rayon::current_num_threads(),
                    whole_mib_above(self.overhead)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The longest document the sketch takes under the limit: every thread may be sketching
    /// one, each holding [`SKETCH_BYTES_PER_TEXT_BYTE`] per byte of its text (one 200 MB
    /// document took 1.6 GB under `--memory 512MiB`). No bound without a limit.
    pub(super) fn document_limit(&self) -> Option<DocumentLimit> {
        let limit = self.limit?;
        let threads = rayon::current_num_threads() as u64;
        Some(DocumentLimit {
            max_text_bytes: self.usable(limit) / (SKETCH_BYTES_PER_TEXT_BYTE * threads),
            advice: too_long,
            limit,
            base: self.overhead,
            per_text_byte: SKETCH_BYTES_PER_TEXT_BYTE,
            threads,
        })
    }

    /// What the per-document memory of a run may use: the limit less the overhead.
    fn usable(&self, limit: u64) -> u64 {
        limit.saturating_sub(self.overhead)
    }

    /// Memory the in-memory join needs per document.
    pub(super) fn join_bytes_per_doc(&self) -> u64 {
        self.join_bytes_per_doc
    }

    /// While the join would need at most this many bytes for them, the sketch stage keeps the
    /// documents it sketches for the join instead of reading them back: the limit less the
    /// overhead, which the sketch's own blocks and buffers are part of — the same bound as the
    /// in-memory join's, so that documents dropped for it are never read back whole (with
    /// three quarters of the limit kept and the whole limit allowed to the join, 200,000
    /// documents with `--memory 128MiB` peaked at 285 MB, above the run without a limit).
    pub(super) fn keep_for_join(&self) -> u64 {
        self.limit.map_or(u64::MAX, |m| self.usable(m))
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
        if need + index_need <= self.usable(limit) {
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
        // allocate besides (Parquet pages, the pairs). The sketch's blocks and buffers are
        // given back by then: only the base stays beside them.
        let fixed = spilled_held(docs);
        let budget = limit.saturating_sub(self.base + fixed) / 2;
        if budget < MIN_SPILL_BUDGET {
            return Err(Error::file(
                output,
                format!(
                    "--memory {} is too small for {docs} documents even when the join spills: \
                     their places and ids alone take about {}; give at least {} (and {} bytes \
                     more per candidate pair, which a run with it counts first; the sketch is \
                     kept)",
                    human_bytes(limit),
                    human_bytes(fixed),
                    whole_mib_above((self.base + fixed + 2 * MIN_SPILL_BUDGET).max(self.overhead)),
                    BYTES_PER_CANDIDATE
                ),
            ));
        }
        Ok(Some(budget))
    }
}

/// What the stages after the candidates hold per candidate pair: the candidate (8 bytes), its
/// verified pair and score (16) and the clusters' copies of them (16), with the allocator's
/// slack. Measured on 200 clusters of 1,000 near copies (5.2 million candidates, 4.8 million
/// verified pairs, 115 MB of signatures): 29 bytes a candidate above the signatures when the
/// run goes on from its candidates, 40 when a rerun reads them back from the stage file.
const BYTES_PER_CANDIDATE: u64 = 40;

impl MemoryPlan {
    /// The most distinct candidate pairs the spilled join may hold for `docs` documents:
    /// those that [`MemoryPlan::check_candidates`] would take (unbounded without a limit).
    pub(super) fn candidate_cap(&self, docs: usize) -> usize {
        let Some(limit) = self.limit else {
            return usize::MAX;
        };
        let held = self.held_beside_pairs(docs, true);
        (limit.saturating_sub(self.base + held) / BYTES_PER_CANDIDATE) as usize
    }

    /// Checks, once the candidates are known, that they fit beside what the join holds, and
    /// returns the spilled verification's budget (`spill`: the join's budget) shrunk by them;
    /// refuses naming the least `--memory` that takes them (the sketch and candidates stay
    /// on disk: a rerun with it starts at the verification). Pairs were not counted: 200
    /// clusters of 1,000 near copies under `--memory 102MB` peaked at 283 MiB.
    pub(super) fn check_candidates(
        &self,
        docs: usize,
        candidates: u64,
        spill: Option<u64>,
        output: &Path,
    ) -> Result<Option<u64>> {
        let Some(limit) = self.limit else {
            return Ok(spill);
        };
        let pairs = candidates * BYTES_PER_CANDIDATE;
        let room = limit.saturating_sub(self.base + self.held_beside_pairs(docs, spill.is_some()));
        if pairs <= room {
            return Ok(spill.map(|_| ((room - pairs) / 2).max(MIN_SPILL_BUDGET)));
        }
        let spilled = spill.is_some();
        Err(self.candidates_refused(docs, candidates, false, spilled, output))
    }

    /// What the join holds beside the pairs: spilled, each document's entries and the
    /// pieces; in memory, the signatures and keys.
    fn held_beside_pairs(&self, docs: usize, spilled: bool) -> u64 {
        if spilled {
            spilled_held(docs) + 2 * MIN_SPILL_BUDGET
        } else {
            docs as u64 * self.join_bytes_per_doc
        }
    }

    /// The refusal of `candidates` pairs (`estimated`: a bound counted by the spilled join
    /// past its cap, [`MemoryPlan::candidate_cap`]) too many for the limit, naming the least
    /// that takes them in the mode it chooses: spilled while the signatures do not fit what
    /// the sketch leaves, else in memory.
    pub(super) fn candidates_refused(
        &self,
        docs: usize,
        candidates: u64,
        estimated: bool,
        spilled: bool,
        output: &Path,
    ) -> Error {
        let pairs = candidates * BYTES_PER_CANDIDATE;
        let in_memory = self.held_beside_pairs(docs, false);
        let spilled_least = self.base + self.held_beside_pairs(docs, true) + pairs;
        let least = if spilled_least < self.overhead + in_memory && self.runs_in_memory.is_none() {
            spilled_least.max(self.overhead + (1 << 20))
        } else {
            (self.overhead + in_memory).max(self.base + in_memory + pairs)
        };
        Error::file(
            output,
            format!(
                "the join {} {candidates} candidate pairs among {docs} documents: with \
                 them, the verification and the clusters need about {}, more than --memory {}; \
                 give --memory {}MiB or more ({})",
                if estimated { "gives at most" } else { "found" },
                human_bytes(self.base + self.held_beside_pairs(docs, spilled) + pairs),
                human_bytes(self.limit.unwrap_or_default()),
                mib_rounded_up(least),
                if estimated {
                    "counted without holding them; the sketch is kept: the rerun starts at the \
                     candidates"
                } else {
                    "the sketch and the candidates are kept: the rerun starts at the verification"
                }
            ),
        )
    }
}

/// `bytes` in whole MiB, rounded up: a limit named is one that works ("1.1 GB" named 1,100 MB
/// for a need of 1,141).
fn mib_rounded_up(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// A limit to name above `bytes` (a floor the limit must pass): one MiB more than
/// [`mib_rounded_up`].
fn whole_mib_above(bytes: u64) -> String {
    format!("{}MiB", mib_rounded_up(bytes) + 1)
}

/// What a spilled join of `docs` documents holds whatever its budget: each document's place,
/// id and cluster entries, and the spill files' write buffers.
fn spilled_held(docs: usize) -> u64 {
    // (Tests that force spilling with tiny limits set the fixed costs to 0.)
    docs as u64 * SPILLED_BYTES_PER_DOCUMENT
        + crate::fault_injection::memory_overhead(super::spilled_join::SPILL_WRITE_BYTES)
}

/// The refusal of a document of `bytes` text bytes, with the least `--memory` that takes it.
fn too_long(limit: &DocumentLimit, bytes: u64) -> String {
    let need = limit.base + bytes * limit.per_text_byte * limit.threads;
    let (threads, fewer) = match limit.threads {
        1 => ("one thread".to_string(), ""),
        n => (format!("each of {n} threads"), " (or fewer --threads)"),
    };
    format!(
        "a document of {} of text, longer than the {} a document may have under --memory {}: \
         sketching holds about {} bytes per byte of a document's text on {threads}; give \
         --memory {}MiB or more{fewer}, or leave such documents out",
        human_bytes(bytes),
        human_bytes(limit.max_text_bytes),
        human_bytes(limit.limit),
        limit.per_text_byte,
        mib_rounded_up(need),
    )
}
