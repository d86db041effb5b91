//! `substitute`: each word is replaced by a vocabulary word with probability `rate`.

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited, coin};
use super::words;

/// Word substitution.
#[derive(Debug)]
pub struct Substitute;

impl EditKind for Substitute {
    fn name(&self) -> &'static str {
        "substitute"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that a word is replaced"
    }
    fn apply(&self, text: &str, rate: f64, ctx: &EditContext, rng: &mut SplitMix64) -> Edited {
        let (mut changed, mut units) = (0, 0);
        let text = words::rewrite(text, |_, w, out| {
            units += 1;
            if coin(rng, rate) {
                changed += 1;
                out.push_str(ctx.word(rng, w));
            } else {
                out.push_str(w);
            }
            true
        });
        Edited {
            text,
            changed,
            units,
        }
    }
}
