//! Memory estimates and the memory limit.
//!
//! Before building an index, each algorithm estimates the memory it will hold
//! ([`crate::detector::Algorithm::memory`]: signatures of `num_perm` × documents × 4 bytes,
//! fingerprints and the join's keyed copies, collection statistics…), and the build is refused
//! with the estimate and its formula in the message when the estimate passes the limit, so a
//! parameter typo (`num_perm=100000`) fails at once instead of after minutes and gigabytes.
//! The limit is [`set_memory_limit`] (the CLI's `--max-memory`, default half of the machine's
//! memory), else `$NEARDUP_MAX_MEMORY` (`4GiB`, `500MB`, bytes), else none.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result, parse_env};
pub use crate::units::{human_bytes, parse_bytes};

/// A memory estimate: bytes and how they were counted (for the error message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estimate {
    /// Bytes.
    pub bytes: u64,
    /// The formula with its values, e.g. `signatures 18,846 documents × 128 × 4 B`.
    pub how: String,
}

impl Estimate {
    /// An estimate of `bytes` counted as `how`.
    pub fn new(bytes: u64, how: impl Into<String>) -> Self {
        Estimate {
            bytes,
            how: how.into(),
        }
    }

    /// The sum of two estimates.
    pub fn plus(self, other: Estimate) -> Estimate {
        Estimate {
            bytes: self.bytes.saturating_add(other.bytes),
            how: format!("{} + {}", self.how, other.how),
        }
    }
}

/// The limit set by [`set_memory_limit`] (0: none set).
static SET_LIMIT: AtomicU64 = AtomicU64::new(0);

/// Sets the memory limit of this process in bytes (overrides `$NEARDUP_MAX_MEMORY`).
pub fn set_memory_limit(bytes: u64) {
    SET_LIMIT.store(bytes.max(1), Ordering::Relaxed);
}

/// The memory limit in bytes, if any.
pub fn memory_limit() -> Result<Option<u64>> {
    match SET_LIMIT.load(Ordering::Relaxed) {
        0 => {
            let v = parse_env("NEARDUP_MAX_MEMORY", 0, |v| {
                parse_bytes(v).map_err(|_| "a size such as 4GiB, 500MB or 1000000 (bytes)")
            })?;
            Ok((v > 0).then_some(v))
        }
        set => Ok(Some(set)),
    }
}

/// What this process holds besides what it builds (set by [`set_held_bytes`]; 0: nothing said).
static HELD: AtomicU64 = AtomicU64::new(0);

/// Says that the process holds `bytes` already (the workbench's loaded corpus, measured after
/// loading), so that [`check_memory`] counts them against the limit beside the estimate: with
/// only the estimate counted, `eval --max-memory 100MB` on a corpus of 286 MB peaked at 1.1 GB.
pub fn set_held_bytes(bytes: u64) {
    HELD.store(bytes, Ordering::Relaxed);
}

/// Fails with [`Error::TooMuchMemory`] when `estimate`, with what the process holds already
/// ([`set_held_bytes`]), passes the memory limit.
pub fn check_memory(what: &str, estimate: &Estimate) -> Result<()> {
    let held = HELD.load(Ordering::Relaxed);
    let estimate = match held {
        0 => estimate.clone(),
        held => estimate.clone().plus(Estimate::new(
            held,
            format!("{} this process holds already", human_bytes(held)),
        )),
    };
    match memory_limit()? {
        Some(limit) if estimate.bytes > limit => Err(Error::TooMuchMemory {
            what: what.to_string(),
            estimate: estimate.bytes,
            how: estimate.how,
            limit,
        }),
        _ => Ok(()),
    }
}

/// Worker threads the pool has (estimates of per-thread buffers).
pub fn threads() -> u64 {
    rayon::current_num_threads() as u64
}

/// Fixed-size per-document signatures: `docs` × `bytes_each`.
pub fn signatures(docs: usize, bytes_each: usize, what: &str) -> Estimate {
    let bytes = (docs as u64).saturating_mul(bytes_each as u64);
    Estimate::new(bytes, format!("{what} {docs} documents × {bytes_each} B"))
}

/// A sort-based join's keyed copies: one (key, document) list of `entry` bytes per document
/// and thread at a time.
pub fn join_keys(docs: usize, entry: usize) -> Estimate {
    let t = threads();
    Estimate::new(
        (docs as u64).saturating_mul(entry as u64).saturating_mul(t),
        format!("join keys {docs} documents × {entry} B × {t} threads"),
    )
}

/// Collection statistics counted from the corpus: a map entry (16 B) per distinct feature,
/// at most one distinct feature per 8 bytes of text — 2 bytes per byte of text.
pub fn statistics(text_bytes: usize) -> Estimate {
    Estimate::new(
        (text_bytes as u64).saturating_mul(2),
        format!("statistics {text_bytes} B of text × 2"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_add_up() {
        let e = Estimate::new(10, "a").plus(Estimate::new(5, "b"));
        assert_eq!((e.bytes, e.how.as_str()), (15, "a + b"));
    }
}
