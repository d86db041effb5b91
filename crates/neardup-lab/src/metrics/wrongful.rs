//! Wrongful removals: documents a deduplication would remove in the name of a kept document
//! they are below the threshold of. Transitive closure makes them (A ≈ B ≈ C removes C for
//! A although C and A may share nothing); clusters anchored on their representative
//! (`clusters = "verified"`) never do. Counted only where the experiment anchored the
//! clusters, because only then is each member's similarity to its representative known.

use super::metric::{Column, EvalInput, Kind, Metric};

/// Removed documents below the threshold from their representative.
#[derive(Debug)]
pub struct WrongfulRemovals;

/// The columns this metric produces.
const COLUMNS: &[Column] = &[Column::new(
    "removed_below_threshold",
    "removed below threshold",
    Kind::Count,
    false,
)];

impl Metric for WrongfulRemovals {
    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>> {
        vec![input.removed_below_threshold.map(|n| n as f64)]
    }
}
