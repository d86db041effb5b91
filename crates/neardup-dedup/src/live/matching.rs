//! A probe's matches: candidates by join key in every segment and in the recent part, then
//! the algorithm's verification — the rule `dedup --index` applies to a new document
//! (`index::segment::candidates_against`, then the verify stage).

use neardup::heavy::HEAVY;
use neardup::heavy::runs::HUBS;
use neardup::streaming::{SignatureTable, StreamingDetector};

use super::doc::Probe;
use super::view::View;

/// The documents of a key run a new document is a candidate of: all of them, or, in a run of
/// more than [`HEAVY`] (thousands of copies of a page), its first [`HUBS`], as a batch joins a
/// new document against a heavy indexed cluster.
fn candidates_of(run: &[u32]) -> &[u32] {
    if run.len() > HEAVY {
        &run[..HUBS.min(run.len())]
    } else {
        run
    }
}

/// The indexed documents `probe` is a near-duplicate of, with their similarity, in document
/// order; removed documents are not among them.
pub(super) fn matches(
    stream: &dyn StreamingDetector,
    view: &View,
    probe: &Probe,
) -> Vec<(u32, f64)> {
    if probe.empty {
        return Vec::new();
    }
    let mut keys = vec![0u64; stream.keys_per_doc()];
    stream.keys(&probe.row, &mut keys);
    let frozen = &view.frozen;
    let mut candidates = Vec::new();
    for (position, &key) in keys.iter().enumerate() {
        for (segment, &offset) in frozen.segments.iter().zip(&frozen.offsets) {
            let run = segment.lookup(position, key);
            candidates.extend(candidates_of(run).iter().map(|&d| offset + d));
        }
        let run = view.recent.lookup(position, key);
        candidates.extend(candidates_of(run).iter().map(|&d| frozen.documents + d));
    }
    candidates.sort_unstable();
    candidates.dedup();
    candidates.retain(|n| !view.removed.contains(n));
    if candidates.is_empty() {
        return Vec::new();
    }
    // Row 0 the probe, row 1 each candidate in turn: `verify` reads both from one table.
    let width = probe.row.len();
    let mut words = vec![0u32; 2 * width];
    words[..width].copy_from_slice(&probe.row);
    let mut pair = SignatureTable::from_parts(width, words, vec![false, false]);
    let mut found = Vec::new();
    for number in candidates {
        let (w, mut words, mut empty) = std::mem::take(&mut pair).into_parts();
        empty[1] = view.row_of(number, &mut words[width..]);
        pair = SignatureTable::from_parts(w, words, empty);
        if let Some(similarity) = stream.verify(&pair, 0, 1) {
            found.push((number, similarity));
        }
    }
    found
}
