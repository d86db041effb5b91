//! Where a read starts: the place between two records an earlier, interrupted read stopped
//! at, and how a read goes from there.

use serde::{Deserialize, Serialize};

use super::content::ContentTap;

/// Bytes of whole lines handed to the parser at a time.
pub const BLOCK_BYTES: usize = 8 << 20;

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
