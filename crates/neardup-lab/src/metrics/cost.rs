//! Cost: seconds (build + query, measured by the runner), documents per second, megabytes
//! (10⁶ bytes of text) per second, and peak heap in MB (10⁶ bytes) above the baseline.

use super::{EvalInput, Metric, ratio};

/// Throughput and memory.
#[derive(Debug)]
pub struct Cost;

impl Metric for Cost {
    fn columns(&self) -> &'static [&'static str] {
        &["seconds", "docs_per_s", "mb_per_s", "peak_mb"]
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
