//! Two texts as one sequence of segments — equal, only in the first, only in the second — by
//! words (the `similar` crate's Myers diff over words and the whitespace between them), or by
//! characters when the text is Chinese (no spaces between its words).

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

/// Which text a segment belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// In both.
    Both,
    /// Only in the first text.
    First,
    /// Only in the second.
    Second,
}

/// A run of text and where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub side: Side,
    pub text: String,
}

/// Whether texts are compared by characters (Chinese: no spaces between its words) rather
/// than by words.
pub fn by_characters(text: &str) -> bool {
    neardup::text::language::detect(text) == neardup::text::Language::Zh
}

/// The diff of `a` and `b`, adjacent segments of one side merged.
pub fn segments(a: &str, b: &str) -> Vec<Segment> {
    let diff = if by_characters(a) || by_characters(b) {
        TextDiff::from_chars(a, b)
    } else {
        TextDiff::from_words(a, b)
    };
    let mut out: Vec<Segment> = Vec::new();
    for change in diff.iter_all_changes() {
        let side = match change.tag() {
            ChangeTag::Equal => Side::Both,
            ChangeTag::Delete => Side::First,
            ChangeTag::Insert => Side::Second,
        };
        match out.last_mut() {
            Some(last) if last.side == side => last.text.push_str(change.value()),
            _ => out.push(Segment {
                side,
                text: change.value().to_string(),
            }),
        }
    }
    out
}

/// The first text back from the segments (`Both` and `First`), or the second.
pub fn text_of(segments: &[Segment], first: bool) -> String {
    let own = if first { Side::First } else { Side::Second };
    segments
        .iter()
        .filter(|s| s.side == Side::Both || s.side == own)
        .map(|s| s.text.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_that_differ_are_marked_and_both_texts_come_back() {
        let (a, b) = ("the quick brown fox jumps", "the quick red fox jumps high");
        let s = segments(a, b);
        assert_eq!(text_of(&s, true), a);
        assert_eq!(text_of(&s, false), b);
        let only = |side| -> Vec<&str> {
            s.iter()
                .filter(|x| x.side == side)
                .map(|x| x.text.trim())
                .collect()
        };
        assert_eq!(only(Side::First), ["brown"]);
        assert_eq!(only(Side::Second), ["red", "high"]);
    }

    #[test]
    fn chinese_is_compared_by_characters() {
        let (a, b) = (
            "起初神創造天地。地是空虛混沌",
            "起初神创造天地。地是空虛混沌",
        );
        let s = segments(a, b);
        assert_eq!(text_of(&s, true), a);
        assert_eq!(text_of(&s, false), b);
        let first: String = s
            .iter()
            .filter(|x| x.side == Side::First)
            .map(|x| x.text.as_str())
            .collect();
        assert_eq!(first, "創");
    }
}
