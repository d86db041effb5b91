//! `reports/choosing-parameters/`: the parameter guide. The math (tuned bandings, table
//! designs, chance pairs) and the measured section ([`measurements`]: thresholds and distances
//! against exact Jaccard on generated corpora with planted copies) become one report
//! ([`report`]) with its charts ([`charts`]).

pub mod charts;
pub mod measurements;
pub mod report;
