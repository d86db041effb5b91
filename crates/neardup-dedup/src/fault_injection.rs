//! Test hooks that end the process where a kill could: after the Nth checkpoint of a kind,
//! with `NEARDUP_KILL_AFTER_<KIND>=N` in the environment, the process exits at once (status
//! 137, no cleanup), so tests can check that the next run resumes. Compiled only with the
//! `fault-injection` feature, which the CLI's tests turn on; a release build, an installed
//! binary and the Python wheel have none of it.

/// Where tests may kill the process (not the sketch's resumable `Checkpoint`s, though the first
/// comes right after one).
#[derive(Debug, Clone, Copy)]
pub enum KillPoint {
    /// A piece of a sketch shard was written (`NEARDUP_KILL_AFTER_PIECES`).
    Pieces,
    /// An experiment cell was stored (`NEARDUP_KILL_AFTER_CELLS`).
    Cells,
    /// The outputs stage staged a file (`NEARDUP_KILL_AFTER_STAGED`).
    Staged,
    /// An output was put in place while a set was published (`NEARDUP_KILL_AFTER_PUBLISHED`).
    Published,
}

/// Counts one `point` and exits when the count reaches the variable's value.
#[cfg(feature = "fault-injection")]
pub fn reached(point: KillPoint) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTS: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];
    let (variable, count) = match point {
        KillPoint::Pieces => ("NEARDUP_KILL_AFTER_PIECES", &COUNTS[0]),
        KillPoint::Cells => ("NEARDUP_KILL_AFTER_CELLS", &COUNTS[1]),
        KillPoint::Staged => ("NEARDUP_KILL_AFTER_STAGED", &COUNTS[2]),
        KillPoint::Published => ("NEARDUP_KILL_AFTER_PUBLISHED", &COUNTS[3]),
    };
    let Some(n) = std::env::var(variable)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    if count.fetch_add(1, Ordering::SeqCst) + 1 >= n {
        eprintln!("neardup: {variable}={n}: exiting");
        std::process::exit(137);
    }
}

/// Without the `fault-injection` feature: nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn reached(_point: KillPoint) {}

/// The memory a run holds whatever the corpus (`pipeline::memory_plan`), or
/// `NEARDUP_TEST_MEMORY_OVERHEAD` bytes: tests force spilled joins on small corpora with tiny
/// `--memory` limits, which the real overhead refuses.
#[cfg(feature = "fault-injection")]
pub fn memory_overhead(real: u64) -> u64 {
    std::env::var("NEARDUP_TEST_MEMORY_OVERHEAD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(real)
}

/// Without the `fault-injection` feature: the real overhead.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn memory_overhead(real: u64) -> u64 {
    real
}

/// Whether the fault `name` is planted: `NEARDUP_FAULTS` holds it (comma-separated). The live
/// index's tests plant `skip-fsync` (acknowledge without syncing the log),
/// `ack-before-log` (acknowledge an add before its record is written) and `log-write-fails`
/// (a full disk), to check that the tests guarding them fail.
#[cfg(feature = "fault-injection")]
pub fn active(name: &str) -> bool {
    std::env::var("NEARDUP_FAULTS").is_ok_and(|v| v.split(',').any(|f| f.trim() == name))
}

/// Without the `fault-injection` feature: no fault is ever planted.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn active(_name: &str) -> bool {
    false
}
