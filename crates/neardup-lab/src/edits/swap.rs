//! `swap`: adjacent words are exchanged; at each word, with probability `rate`, it swaps
//! places with the next one (a swapped pair is not swapped again).

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited, coin};
use super::words;

/// Adjacent word swap.
#[derive(Debug)]
pub struct Swap;

impl EditKind for Swap {
    fn name(&self) -> &'static str {
        "swap"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that a word swaps with the next"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, rng: &mut SplitMix64) -> Edited {
        let spans = words::spans(text);
        let n = spans.len();
        let mut order: Vec<usize> = (0..n).collect();
        let mut changed = 0;
        let mut i = 0;
        while i + 1 < n {
            if coin(rng, rate) {
                order.swap(i, i + 1);
                changed += 1;
                i += 2;
            } else {
                i += 1;
            }
        }
        let text = words::rewrite(text, |i, _, out| {
            let (s, e) = spans[order[i]];
            out.push_str(&text[s..e]);
            true
        });
        Edited {
            text,
            changed,
            units: n.saturating_sub(1),
        }
    }
}
