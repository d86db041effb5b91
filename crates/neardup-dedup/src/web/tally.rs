//! Counts of what happened to pages while they were read and extracted (records skipped by
//! reason, extraction outcomes), shared by the threads that read them and printed or written
//! into `summary.json` at the end.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

/// What happened to pages, by reason; clones share one count.
#[derive(Debug, Clone, Default)]
pub struct PageTally(Arc<Mutex<BTreeMap<String, u64>>>);

impl PageTally {
    /// Counts one page under `reason`.
    pub fn add(&self, reason: &str) {
        self.add_n(reason, 1);
    }

    /// Counts `n` pages under `reason`.
    pub fn add_n(&self, reason: &str, n: u64) {
        if n == 0 {
            return;
        }
        let mut counts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *counts.entry(reason.to_string()).or_default() += n;
    }

    /// The counts so far, by reason.
    pub fn counts(&self) -> BTreeMap<String, u64> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// One line per reason, for the terminal ("  12 skipped: request record").
    pub fn lines(&self) -> Vec<String> {
        self.counts()
            .into_iter()
            .map(|(reason, n)| format!("{n:>8} {reason}"))
            .collect()
    }
}
