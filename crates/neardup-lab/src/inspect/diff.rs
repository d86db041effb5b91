//! Two texts as one sequence of segments — equal, only in the first, only in the second — by
//! words (Myers' diff, the `similar` crate, over words and the whitespace between them), or by
//! characters when the text is Chinese (no spaces between its words). Words are compared as
//! the similarity compares them, case folded and any run of whitespace alike: "Test" and
//! "test" at similarity 1.000 were shown as two changes. An equal segment keeps each text's
//! own spelling.

use serde::Serialize;
use similar::{Algorithm, DiffTag, capture_diff_slices};

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
    /// The text (the first text's, for a segment in both).
    pub text: String,
    /// A segment in both: the second text's spelling, when it differs from the first's (case,
    /// spacing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second: Option<String>,
}

impl Segment {
    /// The text as it reads in the first document (`first`) or the second.
    pub fn text_in(&self, first: bool) -> &str {
        match (&self.second, first) {
            (Some(second), false) => second,
            _ => &self.text,
        }
    }
}

/// Whether texts are compared by characters (Chinese: no spaces between its words) rather
/// than by words.
pub fn by_characters(text: &str) -> bool {
    neardup::text::language::detect(text) == neardup::text::Language::Zh
}

/// `text` cut into words and the whitespace runs between them (or into characters).
fn tokens(text: &str, characters: bool) -> Vec<&str> {
    if characters {
        return text
            .char_indices()
            .map(|(i, c)| &text[i..i + c.len_utf8()])
            .collect();
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut space = None;
    for (i, c) in text.char_indices() {
        let is_space = c.is_whitespace();
        if space.is_some_and(|s| s != is_space) {
            out.push(&text[start..i]);
            start = i;
        }
        space = Some(is_space);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// What a token is compared by: folded case, and one space for any whitespace.
fn key(token: &str) -> String {
    if token.chars().all(char::is_whitespace) {
        " ".into()
    } else {
        token.to_lowercase()
    }
}

/// The diff of `a` and `b`, adjacent segments of one side merged.
pub fn segments(a: &str, b: &str) -> Vec<Segment> {
    let characters = by_characters(a) || by_characters(b);
    let (ta, tb) = (tokens(a, characters), tokens(b, characters));
    let ka: Vec<String> = ta.iter().map(|t| key(t)).collect();
    let kb: Vec<String> = tb.iter().map(|t| key(t)).collect();
    let mut out: Vec<(Side, String, String)> = Vec::new();
    let mut push = |side: Side, first: &[&str], second: &[&str]| match out.last_mut() {
        Some(last) if last.0 == side => {
            last.1.push_str(&first.concat());
            last.2.push_str(&second.concat());
        }
        _ => out.push((side, first.concat(), second.concat())),
    };
    for op in capture_diff_slices(Algorithm::Myers, &ka, &kb) {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => push(Side::Both, &ta[old], &tb[new]),
            DiffTag::Delete => push(Side::First, &ta[old], &[]),
            DiffTag::Insert => push(Side::Second, &[], &tb[new]),
            DiffTag::Replace => {
                push(Side::First, &ta[old], &[]);
                push(Side::Second, &[], &tb[new]);
            }
        }
    }
    out.into_iter()
        .map(|(side, first, second)| match side {
            Side::Both => Segment {
                side,
                second: (second != first).then_some(second),
                text: first,
            },
            Side::First => Segment {
                side,
                text: first,
                second: None,
            },
            Side::Second => Segment {
                side,
                text: second,
                second: None,
            },
        })
        .collect()
}

/// The first text back from the segments (`Both` and `First`), or the second.
pub fn text_of(segments: &[Segment], first: bool) -> String {
    let own = if first { Side::First } else { Side::Second };
    segments
        .iter()
        .filter(|s| s.side == Side::Both || s.side == own)
        .map(|s| s.text_in(first))
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

    /// The similarity folds case and spacing, so the diff does too: "Test" against "test" is
    /// one equal segment, and each side still reads as it was written.
    #[test]
    fn case_and_spacing_are_not_differences() {
        let (a, b) = ("Test  of the Tool", "test of the tool\nagain");
        let s = segments(a, b);
        assert_eq!(text_of(&s, true), a);
        assert_eq!(text_of(&s, false), b);
        let changed: Vec<&str> = s
            .iter()
            .filter(|x| x.side != Side::Both)
            .map(|x| x.text.trim())
            .collect();
        assert_eq!(changed, ["again"], "{s:?}");
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
