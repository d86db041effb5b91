//! Candidates checked on their signatures — shared by the in-memory verify stage and the
//! spilled join, which verifies chunk by chunk with signatures read back from the shards.

use neardup::streaming::{SignatureTable, StreamingDetector};
use rayon::prelude::*;

/// The documents of `candidates` (packed pairs), sorted, each once.
pub(super) fn candidate_documents(candidates: &[u64]) -> Vec<u32> {
    let mut docs: Vec<u32> = candidates
        .iter()
        .flat_map(|&p| {
            let (a, b) = neardup::pairs::unpack(p);
            [a, b]
        })
        .collect();
    docs.par_sort_unstable();
    docs.dedup();
    docs
}

/// Verifies `candidates` (packed pairs, sorted) against `table`, whose row `i` holds the
/// signature of document `rows[i]` (`rows` sorted, each once; `None`: of document `i`).
/// Returns the reported pairs and their scores, in candidate order.
pub(super) fn verify_candidates(
    stream: &dyn StreamingDetector,
    table: &SignatureTable,
    rows: Option<&[u32]>,
    candidates: &[u64],
) -> (Vec<u64>, Vec<f64>) {
    let row_of = |d: u32| rows.map_or(d, |r| r.binary_search(&d).expect("gathered") as u32);
    candidates
        .par_iter()
        .filter_map(|&p| {
            let (a, b) = neardup::pairs::unpack(p);
            stream.verify(table, row_of(a), row_of(b)).map(|s| (p, s))
        })
        .unzip()
}
