//! `reorder`: each sentence (UAX #29 sentence boundaries) is moved to a random position in
//! the document with probability `rate`.

use neardup::hash::SplitMix64;
use unicode_segmentation::UnicodeSegmentation;

use super::kind::{EditContext, EditKind, Edited, move_some};

/// Sentence reordering.
#[derive(Debug)]
pub struct Reorder;

impl EditKind for Reorder {
    fn name(&self) -> &'static str {
        "reorder"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that a sentence moves"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, rng: &mut SplitMix64) -> Edited {
        // Sentences keep their trailing whitespace; normalize it to one separator so moved
        // sentences do not glue together.
        let sentences: Vec<&str> = text.split_sentence_bounds().collect();
        let units = sentences.len();
        let (order, changed) = move_some((0..units).collect(), rate, rng);
        if changed == 0 {
            return Edited {
                text: text.to_string(),
                changed,
                units,
            };
        }
        let separator = super::words::separator(text);
        let mut out = String::with_capacity(text.len() + units);
        for (k, &i) in order.iter().enumerate() {
            let s = sentences[i];
            let body = s.trim_end();
            out.push_str(body);
            if k + 1 < order.len() {
                let ws = &s[body.len()..];
                out.push_str(if ws.is_empty() { separator } else { ws });
            }
        }
        Edited {
            text: out,
            changed,
            units,
        }
    }
}
