//! `noise`: surface noise that normalization should undo: each word, with probability
//! `rate`, has its case changed, gets extra whitespace after it, or gains or loses
//! punctuation.

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited, coin};
use super::words;

/// Case, whitespace and punctuation noise.
#[derive(Debug)]
pub struct Noise;

impl EditKind for Noise {
    fn name(&self) -> &'static str {
        "noise"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that a word gets case, spacing or punctuation noise"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, rng: &mut SplitMix64) -> Edited {
        let (mut changed, mut units) = (0, 0);
        let text = words::rewrite(text, |_, w, out| {
            units += 1;
            if !coin(rng, rate) {
                out.push_str(w);
                return true;
            }
            changed += 1;
            match rng.below(4) {
                0 => {
                    if w.chars().any(char::is_lowercase) {
                        out.push_str(&w.to_uppercase());
                    } else {
                        out.push_str(&w.to_lowercase());
                    }
                }
                1 => {
                    out.push_str(w);
                    out.push_str(["  ", "\t", " \n"][rng.below(3) as usize]);
                }
                2 => {
                    out.push_str(w);
                    out.push_str([",", ";", " -", "..."][rng.below(4) as usize]);
                }
                _ => {
                    let trimmed = w.trim_end_matches(|c: char| c.is_ascii_punctuation());
                    if trimmed.len() < w.len() && !trimmed.is_empty() {
                        out.push_str(trimmed);
                    } else {
                        out.push('"');
                        out.push_str(w);
                        out.push('"');
                    }
                }
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
