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

use crate::error::{Error, Result};

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
            let v = crate::pairs::parse_env("NEARDUP_MAX_MEMORY", 0, |v| {
                parse_bytes(v).map_err(|_| "a size such as 4GiB, 500MB or 1000000 (bytes)")
            })?;
            Ok((v > 0).then_some(v))
        }
        set => Ok(Some(set)),
    }
}

/// Fails with [`Error::TooMuchMemory`] when `estimate` passes the memory limit.
pub fn check_memory(what: &str, estimate: &Estimate) -> Result<()> {
    match memory_limit()? {
        Some(limit) if estimate.bytes > limit => Err(Error::TooMuchMemory {
            what: what.to_string(),
            estimate: estimate.bytes,
            how: estimate.how.clone(),
            limit,
        }),
        _ => Ok(()),
    }
}

/// Parses a size: a number with an optional unit B, KB, MB, GB, TB (powers of 1000) or KiB,
/// MiB, GiB, TiB (powers of 1024); case-insensitive, a space allowed before the unit.
pub fn parse_bytes(s: &str) -> std::result::Result<u64, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = (&s[..split], s[split..].trim());
    let value: f64 = num.parse().map_err(|_| {
        format!("`{s}` is not a size (a number, then B, KB, MB, GB, KiB, MiB, GiB…)")
    })?;
    let scale: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "`{s}`: unknown unit `{other}` (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"
            ));
        }
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(format!("`{s}` is not a size between 1 byte and 16 EiB"));
    }
    Ok(bytes.round() as u64)
}

/// `1.5 GB`, `830 MB`, `12 kB`, `512 B` (powers of 1000).
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e12 {
        format!("{:.1} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.0} kB", b / 1e3)
    } else {
        format!("{bytes} B")
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
    fn sizes_parse_and_print() {
        assert_eq!(parse_bytes("4GiB").unwrap(), 4 << 30);
        assert_eq!(parse_bytes("500 MB").unwrap(), 500_000_000);
        assert_eq!(parse_bytes("1.5gb").unwrap(), 1_500_000_000);
        assert_eq!(parse_bytes("123").unwrap(), 123);
        assert!(parse_bytes("abc").unwrap_err().contains("not a size"));
        assert!(
            parse_bytes("4 parsecs")
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!(parse_bytes("0").is_err());
        assert_eq!(human_bytes(7_539_000_000), "7.5 GB");
        assert_eq!(human_bytes(999), "999 B");
    }

    #[test]
    fn estimates_add_up() {
        let e = Estimate::new(10, "a").plus(Estimate::new(5, "b"));
        assert_eq!((e.bytes, e.how.as_str()), (15, "a + b"));
    }
}
