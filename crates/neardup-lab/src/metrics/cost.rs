//! Cost: seconds (build + query, measured by the runner), documents per second, megabytes
//! (10⁶ bytes of text) per second, and peak heap in MB (10⁶ bytes) above the baseline.

use super::metric::{Column, EvalInput, Kind, Metric, ratio};

/// Throughput and memory.
#[derive(Debug)]
pub struct Cost;

/// The columns this metric produces.
const COLUMNS: &[Column] = &[
    Column::new("seconds", "seconds", Kind::Cost, false),
    Column::new("docs_per_s", "docs/s", Kind::Cost, true),
    Column::new("mb_per_s", "MB/s", Kind::Cost, true),
    Column::new("peak_mb", "peak MB", Kind::Cost, true),
];

impl Metric for Cost {
    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }
    fn compute(&self, input: &EvalInput) -> Vec<Option<f64>> {
        vec![
            Some(input.seconds),
            ratio(input.docs as f64, input.seconds),
            ratio(input.text_bytes as f64 / 1e6, input.seconds),
            input.peak_bytes.map(|b| b as f64 / 1e6),
        ]
    }
}
