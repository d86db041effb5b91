//! `width`: each punctuation mark that has a form of the other width is swapped to it with
//! probability `rate`: ASCII ↔ full-width (`,` ↔ `，`, `!` ↔ `！`, …) and the ideographic
//! marks ↔ their half-width forms (`。` ↔ `｡`, `、` ↔ `､`, `「」` ↔ `｢｣`). Chinese text mixes
//! widths freely (`bible-zh` has 2,767 ASCII `!` beside full-width `！`); normalization with
//! `fold_width` (the default, and NFKC) undoes every one of these edits.

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited, swap_chars};

/// Full/half-width punctuation swaps.
#[derive(Debug)]
pub struct Width;

/// The other-width form of a punctuation mark, if it has one.
pub fn other_width(c: char) -> Option<char> {
    match c {
        '!'..='/' | ':'..='@' | '['..='`' | '{'..='~' => char::from_u32(c as u32 + 0xFEE0),
        '\u{FF01}'..='\u{FF0F}'
        | '\u{FF1A}'..='\u{FF20}'
        | '\u{FF3B}'..='\u{FF40}'
        | '\u{FF5B}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0),
        '。' => Some('｡'),
        '｡' => Some('。'),
        '、' => Some('､'),
        '､' => Some('、'),
        '「' => Some('｢'),
        '｢' => Some('「'),
        '」' => Some('｣'),
        '｣' => Some('」'),
        _ => None,
    }
}

impl EditKind for Width {
    fn name(&self) -> &'static str {
        "width"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that a punctuation mark changes width"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, rng: &mut SplitMix64) -> Edited {
        swap_chars(text, rate, rng, other_width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::text::Normalization;

    #[test]
    fn swaps_are_involutions_that_normalization_undoes() {
        for c in ['!', ',', '~', '(', '，', '！', '。', '､', '「'] {
            let o = other_width(c).unwrap();
            assert_eq!(other_width(o), Some(c), "{c}");
        }
        assert_eq!(other_width('a'), None);
        assert_eq!(other_width('神'), None);
        let text = "神說：「要有光！」就有了光。";
        let ctx = EditContext {
            vocabulary: &[],
            characters: &[],
            donors: &[],
            source: 0,
        };
        let edited = Width.apply(text, 1.0, &ctx, &mut SplitMix64::new(1));
        assert_eq!(edited.changed, edited.units);
        assert_ne!(edited.text, text);
        let n = Normalization::default();
        assert_eq!(n.apply(&edited.text), n.apply(text));
    }
}
