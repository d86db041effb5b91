//! `insert`: after each word, a vocabulary word is inserted with probability `rate`.

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited, coin};
use super::words;

/// Word insertion.
#[derive(Debug)]
pub struct Insert;

impl EditKind for Insert {
    fn name(&self) -> &'static str {
        "insert"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that a word is followed by an inserted word"
    }
    fn apply(&self, text: &str, rate: f64, ctx: &EditContext, rng: &mut SplitMix64) -> Edited {
        let (mut changed, mut units) = (0, 0);
        let separator = words::separator(text);
        let text = words::rewrite(text, |_, w, out| {
            units += 1;
            out.push_str(w);
            if coin(rng, rate) {
                changed += 1;
                out.push_str(separator);
                out.push_str(ctx.word(rng, ""));
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
