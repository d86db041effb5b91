//! `truncate`: the last `rate` fraction of the words is cut off (at least one word stays).

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited};
use super::words;

/// Truncation.
#[derive(Debug)]
pub struct Truncate;

impl EditKind for Truncate {
    fn name(&self) -> &'static str {
        "truncate"
    }
    fn rate_meaning(&self) -> &'static str {
        "fraction of the words cut from the end"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, _: &mut SplitMix64) -> Edited {
        let spans = words::spans(text);
        let units = spans.len();
        let cut = ((rate * units as f64).round() as usize).min(units.saturating_sub(1));
        if cut == 0 {
            return Edited {
                text: text.to_string(),
                changed: 0,
                units,
            };
        }
        let keep_end = spans[units - cut - 1].1;
        Edited {
            text: text[..keep_end].to_string(),
            changed: cut,
            units,
        }
    }
}
