//! Regression (issue 15, item 4): `edit` held its whole output in memory (`--copies 100000`:
//! 8.6 GB of RSS for a 7.8 GB file). Deriving is streamed a block at a time: the peak heap
//! while deriving 50,000 copies is no larger than while deriving 5,000 (one test per binary:
//! the counting allocator sees the whole process).

use neardup_lab::corpus::synthetic::{SyntheticSpec, generate};
use neardup_lab::edits::EditModel;
use neardup_lab::edits::derive::{DeriveOptions, derive_each};
use neardup_lab::memory::{CountingAlloc, peak_bytes, reset_peak};

/// This test binary counts its heap as the `neardup` binary does.
#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[test]
fn edit_memory_does_not_grow_with_copies() {
    let corpus = generate(SyntheticSpec { docs: 20, seed: 3 }).unwrap();
    let model = EditModel::parse("substitute=0.1").unwrap();
    let peak = |copies: usize| {
        let base = reset_peak();
        let mut bytes = 0usize;
        let done = derive_each(
            &corpus,
            &model,
            DeriveOptions {
                copies,
                fraction: 1.0,
                seed: 1,
                chain: false,
            },
            |r| {
                bytes += r.text.len();
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(done.copies, 20 * copies);
        (peak_bytes().saturating_sub(base), bytes)
    };
    let (small, small_bytes) = peak(250);
    let (large, large_bytes) = peak(2500);
    eprintln!("peak heap: {small} B for {small_bytes} B of text, {large} B for {large_bytes} B");
    assert!(large_bytes > 9 * small_bytes);
    assert!(
        (large as f64) < 1.5 * small as f64 + 1e6,
        "memory grew with copies: {small} → {large}"
    );
}
