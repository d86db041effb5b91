//! `delete`: each word is deleted with probability `rate`.

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited, coin};
use super::words;

/// Word deletion.
#[derive(Debug)]
pub struct Delete;

impl EditKind for Delete {
    fn name(&self) -> &'static str {
        "delete"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that a word is deleted"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, rng: &mut SplitMix64) -> Edited {
        let (mut changed, mut units) = (0, 0);
        let text = words::rewrite(text, |_, w, out| {
            units += 1;
            if coin(rng, rate) {
                changed += 1;
                false
            } else {
                out.push_str(w);
                true
            }
        });
        Edited {
            text,
            changed,
            units,
        }
    }
}
