//! `shuffle`: each paragraph (blocks separated by a blank line) is moved to a random position
//! with probability `rate`.

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited, move_some};

/// Paragraph shuffling.
#[derive(Debug)]
pub struct Shuffle;

impl EditKind for Shuffle {
    fn name(&self) -> &'static str {
        "shuffle"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that a paragraph moves"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, rng: &mut SplitMix64) -> Edited {
        let paragraphs: Vec<&str> = text.split("\n\n").collect();
        let units = paragraphs.len();
        let (order, changed) = move_some(paragraphs, rate, rng);
        Edited {
            text: order.join("\n\n"),
            changed,
            units,
        }
    }
}
