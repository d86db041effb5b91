//! What an edit kind is and what kinds share: the [`EditKind`] trait each kind's file
//! implements, the [`EditContext`] they draw on, their [`Edited`] result and the draws and
//! moves several kinds use. The registry ([`super::KINDS`]) names the kinds; they name only
//! this module, never the registry.

use neardup::hash::SplitMix64;

/// One kind of edit.
pub trait EditKind: Send + Sync {
    /// Name used in edit specs (`substitute=0.05`).
    fn name(&self) -> &'static str;
    /// What `rate` means for this kind, in a few words.
    fn rate_meaning(&self) -> &'static str;
    /// Applies the edit to `text` at `rate` in [0, 1].
    fn apply(&self, text: &str, rate: f64, ctx: &EditContext, rng: &mut SplitMix64) -> Edited;
}

/// Result of one edit step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// The edited text.
    pub text: String,
    /// Units changed (words substituted, sentences moved, words of boilerplate added…).
    pub changed: usize,
    /// Units the rate applied to (words, characters, sentences… of the input).
    pub units: usize,
}

/// What edits may draw on besides the text itself.
#[derive(Debug, Clone, Copy)]
pub struct EditContext<'a> {
    /// Replacement and insertion words, drawn uniformly (a unigram sample of the corpus).
    pub vocabulary: &'a [String],
    /// Characters for typos in Chinese text, drawn uniformly (a sample of the corpus's Han
    /// characters, so common characters are drawn often).
    pub characters: &'a [char],
    /// Other documents, for `append`.
    pub donors: &'a [&'a str],
    /// Index of the source document among `donors` (never its own donor).
    pub source: usize,
}

impl EditContext<'_> {
    /// A random word from the vocabulary different from `not` (when possible).
    pub fn word(&self, rng: &mut SplitMix64, not: &str) -> &str {
        let v = self.vocabulary;
        for _ in 0..8 {
            let w = v[rng.below(v.len() as u64) as usize].as_str();
            if w != not {
                return w;
            }
        }
        v[rng.below(v.len() as u64) as usize].as_str()
    }

    /// A random character from the character sample different from `not` (when possible).
    pub fn character(&self, rng: &mut SplitMix64, not: char) -> char {
        let v = self.characters;
        if v.is_empty() {
            return not;
        }
        for _ in 0..8 {
            let c = v[rng.below(v.len() as u64) as usize];
            if c != not {
                return c;
            }
        }
        v[rng.below(v.len() as u64) as usize]
    }
}

/// Bernoulli(rate) draw.
#[inline]
pub(crate) fn coin(rng: &mut SplitMix64, rate: f64) -> bool {
    rate > 0.0 && rng.next_f64() < rate
}

/// Replaces each character that `other` maps with its counterpart, with probability `rate`;
/// the characters `other` maps are the units.
pub(crate) fn swap_chars(
    text: &str,
    rate: f64,
    rng: &mut SplitMix64,
    other: impl Fn(char) -> Option<char>,
) -> Edited {
    let (mut changed, mut units) = (0, 0);
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match other(c) {
            Some(o) => {
                units += 1;
                if coin(rng, rate) {
                    changed += 1;
                    out.push(o);
                } else {
                    out.push(c);
                }
            }
            None => out.push(c),
        }
    }
    Edited {
        text: out,
        changed,
        units,
    }
}

/// Moves each item with probability `rate` to a random new position; returns (items, moved).
pub(crate) fn move_some<T>(items: Vec<T>, rate: f64, rng: &mut SplitMix64) -> (Vec<T>, usize) {
    let mut stay = Vec::with_capacity(items.len());
    let mut moving = Vec::new();
    for it in items {
        if coin(rng, rate) {
            moving.push(it);
        } else {
            stay.push(it);
        }
    }
    let moved = moving.len();
    for it in moving {
        let pos = rng.below(stay.len() as u64 + 1) as usize;
        stay.insert(pos, it);
    }
    (stay, moved)
}
