//! Word tokenizers and the sentence splitter.
//!
//! Tokenizers use *internal iteration* (`for_each_token(text, |token| …)`): the callback sees
//! a `&str` borrowed from the text, so tokenizing allocates nothing, and the hot loop that
//! hashes shingles can keep its state in registers.
//!
//! [`Tokenizer::Unicode`] follows the word boundaries of Unicode Standard Annex #29 and keeps
//! the segments that contain a letter or digit (what `unicode-segmentation`'s
//! `unicode_words` returns). For ASCII text it runs a hand-written state machine that
//! implements the same rules restricted to ASCII (WB5–WB13b); a property test checks it
//! against `unicode-segmentation` on random ASCII strings.

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

/// How text is split into words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Tokenizer {
    /// Unicode (UAX #29) word boundaries; punctuation-only segments dropped.
    #[default]
    Unicode,
    /// Split on whitespace; punctuation stays attached ("rose," ≠ "rose"). This is what
    /// datasketch/rensa pipelines and Lee et al. (2022) call "space-tokenized".
    Whitespace,
}

impl Tokenizer {
    /// Calls `f` with every token of `text`, in order.
    #[inline]
    pub fn for_each_token<'t>(self, text: &'t str, mut f: impl FnMut(&'t str)) {
        match self {
            Tokenizer::Whitespace => text.split_ascii_or_unicode_whitespace(&mut f),
            Tokenizer::Unicode if text.is_ascii() => ascii_words(text, f),
            Tokenizer::Unicode => text.unicode_words().for_each(f),
        }
    }

    /// The tokens of `text` collected into a vector (convenience for tests and tools).
    pub fn tokens(self, text: &str) -> Vec<&str> {
        let mut v = Vec::new();
        self.for_each_token(text, |t| v.push(t));
        v
    }
}

trait SplitWhitespace {
    fn split_ascii_or_unicode_whitespace<'t>(&'t self, f: &mut impl FnMut(&'t str));
}

impl SplitWhitespace for str {
    #[inline]
    fn split_ascii_or_unicode_whitespace<'t>(&'t self, f: &mut impl FnMut(&'t str)) {
        if self.is_ascii() {
            // The same tokens as `split_whitespace`: `char::is_whitespace` counts U+000B
            // (vertical tab) as whitespace, `u8::is_ascii_whitespace` does not.
            let bytes = self.as_bytes();
            let mut start = None;
            for (i, &b) in bytes.iter().enumerate() {
                let space = b.is_ascii_whitespace() || b == 0x0b;
                match (space, start) {
                    (true, Some(s)) => {
                        f(&self[s..i]);
                        start = None;
                    }
                    (false, None) => start = Some(i),
                    _ => {}
                }
            }
            if let Some(s) = start {
                f(&self[s..]);
            }
        } else {
            self.split_whitespace().for_each(f);
        }
    }
}

/// Word-break classes of ASCII bytes (UAX #29, Table 3).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Digit,
    /// `_` (ExtendNumLet)
    Underscore,
    /// `:` (MidLetter)
    MidLetter,
    /// `.` and `'` (MidNumLet, Single_Quote)
    MidNumLet,
    /// `,` and `;` (MidNum)
    MidNum,
    Other,
}

#[inline]
fn class(b: u8) -> Class {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
        b'0'..=b'9' => Class::Digit,
        b'_' => Class::Underscore,
        b':' => Class::MidLetter,
        b'.' | b'\'' => Class::MidNumLet,
        b',' | b';' => Class::MidNum,
        _ => Class::Other,
    }
}

/// UAX #29 words of an ASCII string, keeping segments with at least one letter or digit.
fn ascii_words<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    let b = text.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n {
        let c = class(b[i]);
        if !matches!(c, Class::Letter | Class::Digit | Class::Underscore) {
            i += 1;
            continue;
        }
        let start = i;
        let mut alnum = c != Class::Underscore;
        let mut prev = c;
        i += 1;
        while i < n {
            let c = class(b[i]);
            match c {
                // WB5, WB8, WB9, WB10, WB13a, WB13b: letters, digits and `_` always join.
                Class::Letter | Class::Digit | Class::Underscore => {
                    alnum |= c != Class::Underscore;
                    prev = c;
                    i += 1;
                }
                // WB6/WB7 (letter · mid · letter) and WB11/WB12 (digit · mid · digit).
                Class::MidLetter | Class::MidNumLet | Class::MidNum if i + 1 < n => {
                    let next = class(b[i + 1]);
                    let joins = matches!(
                        (prev, c, next),
                        (
                            Class::Letter,
                            Class::MidLetter | Class::MidNumLet,
                            Class::Letter
                        ) | (Class::Digit, Class::MidNum | Class::MidNumLet, Class::Digit)
                    );
                    if !joins {
                        break;
                    }
                    prev = next;
                    alnum = true;
                    i += 2;
                }
                _ => break,
            }
        }
        if alnum {
            f(&text[start..i]);
        }
    }
}

/// Splits text into sentences (UAX #29 sentence boundaries), trimmed, empty ones dropped.
pub fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.unicode_sentences()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn unicode_words_examples() {
        let t = Tokenizer::Unicode;
        assert_eq!(
            t.tokens("The quick (\"brown\") fox can't jump 32.3 feet, right?"),
            [
                "The", "quick", "brown", "fox", "can't", "jump", "32.3", "feet", "right"
            ]
        );
        assert_eq!(t.tokens("naïve café—résumé"), ["naïve", "café", "résumé"]);
        assert_eq!(
            t.tokens("__ a_b 1,000 e.g. x"),
            ["a_b", "1,000", "e.g", "x"]
        );
    }

    #[test]
    fn whitespace_examples() {
        let t = Tokenizer::Whitespace;
        assert_eq!(
            t.tokens(" a rose,\tis\n\na  rose "),
            ["a", "rose,", "is", "a", "rose"]
        );
        assert_eq!(t.tokens("é  b"), ["é", "b"]);
        assert!(t.tokens("   ").is_empty());
    }

    #[test]
    fn sentences_split_on_terminators() {
        let s: Vec<_> = sentences("One sentence. Another one! A third?  ").collect();
        assert_eq!(s, ["One sentence.", "Another one!", "A third?"]);
    }

    proptest! {
        // Oracle: the ASCII fast path equals unicode-segmentation's unicode_words.
        #[test]
        fn ascii_fast_path_matches_uax29(s in "[ab1_.:',;\\- \n]{0,40}") {
            let fast: Vec<&str> = {
                let mut v = Vec::new();
                ascii_words(&s, |w| v.push(w));
                v
            };
            let oracle: Vec<&str> = s.unicode_words().collect();
            prop_assert_eq!(fast, oracle);
        }

        #[test]
        fn ascii_whitespace_split_matches_std(s in "[ab \t\n\x0b\x0c\r]{0,30}") {
            let mut fast = Vec::new();
            s.split_ascii_or_unicode_whitespace(&mut |w| fast.push(w));
            let oracle: Vec<&str> = s.split_whitespace().collect();
            prop_assert_eq!(fast, oracle);
        }
    }
}
