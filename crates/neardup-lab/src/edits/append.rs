//! `append`: a passage of another document — `rate × words` words from a random position of a
//! random donor — is appended as a new paragraph (a shared quote, a "related story" box).

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited};
use super::words;

/// Appending part of another document.
#[derive(Debug)]
pub struct Append;

impl EditKind for Append {
    fn name(&self) -> &'static str {
        "append"
    }
    fn rate_meaning(&self) -> &'static str {
        "words appended from another document per word of text"
    }
    fn apply(&self, text: &str, rate: f64, ctx: &EditContext, rng: &mut SplitMix64) -> Edited {
        let units = words::spans(text).len();
        let want = (rate * units as f64).round() as usize;
        let others = ctx
            .donors
            .len()
            .saturating_sub(usize::from(ctx.source < ctx.donors.len()));
        if want == 0 || others == 0 {
            return Edited {
                text: text.to_string(),
                changed: 0,
                units,
            };
        }
        // Pick a donor other than the source.
        let mut d = rng.below(others as u64) as usize;
        if d >= ctx.source {
            d += 1;
        }
        let donor = ctx.donors[d];
        let dspans = words::spans(donor);
        let take = want.min(dspans.len());
        if take == 0 {
            return Edited {
                text: text.to_string(),
                changed: 0,
                units,
            };
        }
        let start = rng.below((dspans.len() - take + 1) as u64) as usize;
        let passage = &donor[dspans[start].0..dspans[start + take - 1].1];
        let mut out = String::with_capacity(text.len() + passage.len() + 2);
        out.push_str(text);
        out.push_str("\n\n");
        out.push_str(passage);
        Edited {
            text: out,
            changed: take,
            units,
        }
    }
}
