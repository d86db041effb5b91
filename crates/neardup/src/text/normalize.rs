//! Text normalization before tokenizing: each step is switchable because near-duplicate
//! definitions differ (case-insensitive news dedup vs. code-aware dedup, MMDS §3.2.2 on
//! whitespace in character shingles).
//!
//! The whole document is normalized once into a caller-owned buffer, so that tokenizing and
//! hashing afterwards work on borrowed slices with no per-token allocation.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

/// Unicode normalization form applied before everything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum UnicodeForm {
    /// Leave code points as they are.
    None,
    /// Canonical composition (é as one code point).
    Nfc,
    /// Compatibility composition: also folds ligatures, full-width forms, superscripts.
    #[default]
    Nfkc,
}

/// What to do with punctuation characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Punctuation {
    /// Keep them (the Unicode word tokenizer drops them anyway).
    #[default]
    Keep,
    /// Delete them: "don't" → "dont", "e-mail" → "email".
    Remove,
    /// Replace each by a space: "e-mail" → "e mail".
    Space,
}

/// Normalization switches; serde field names are the parameter names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Normalization {
    /// Lower-case every letter (Unicode-aware `char::to_lowercase`). Default true.
    pub lowercase: bool,
    /// Unicode normalization form. Default `nfkc`.
    pub unicode: UnicodeForm,
    /// Punctuation before tokenizing: `keep` (the Unicode word tokenizer drops it anyway;
    /// character shingles keep it), `remove` ("don't" → "dont", "e-mail" → "email") or
    /// `space` ("e-mail" → "e mail"). Default `keep`.
    pub punctuation: Punctuation,
    /// Collapse runs of whitespace into one space and trim the ends. Default true.
    pub collapse_whitespace: bool,
    /// Fold full-width ASCII forms (U+FF01–U+FF5E, "，！？Ａ１") to ASCII, the ideographic
    /// space U+3000 to a space, and half-width CJK punctuation (U+FF61–U+FF64) to its
    /// ideographic form, after the Unicode form. NFKC already does all of this; the switch
    /// keeps it under `unicode = nfc` or `none`, because Chinese text mixes widths freely
    /// (`bible-zh` has 2,767 ASCII `!` beside full-width `！`). Default true.
    pub fold_width: bool,
    /// Fold the punctuation marks that Chinese web pages write either way to one form, the
    /// ASCII one: `。`→`.` `、`→`,` `「」『』“”`→`"` `‘’`→`'` `【】`→`[]` `〔〕`→`()` (NFKC and
    /// `fold_width` already fold `，：；！？（）` and the other full-width forms). A page
    /// reposted with ASCII punctuation (`神說:"要有光."`) then normalizes to its source's
    /// text, so exact hashes, sentence hashes, abstracts and jieba's segmentation do not see
    /// the difference. Default true.
    pub fold_punctuation: bool,
}

impl Default for Normalization {
    fn default() -> Self {
        Normalization {
            lowercase: true,
            unicode: UnicodeForm::Nfkc,
            punctuation: Punctuation::Keep,
            collapse_whitespace: true,
            fold_width: true,
            fold_punctuation: true,
        }
    }
}

impl Normalization {
    /// No change at all.
    pub fn none() -> Self {
        Normalization {
            lowercase: false,
            unicode: UnicodeForm::None,
            punctuation: Punctuation::Keep,
            collapse_whitespace: false,
            fold_width: false,
            fold_punctuation: false,
        }
    }

    /// Writes the normalized `text` into `out` (cleared first).
    ///
    /// ASCII text, the common case, takes a byte loop: it is already in every normal form.
    pub fn apply_into(&self, text: &str, out: &mut String) {
        out.clear();
        out.reserve(text.len());
        if text.is_ascii() {
            self.ascii_into(text.as_bytes(), out);
        } else {
            self.unicode_into(text, out);
        }
    }

    fn unicode_into(&self, text: &str, out: &mut String) {
        let mut pending_space = false;
        let mut push = |c: char, out: &mut String| {
            if self.collapse_whitespace {
                if c.is_whitespace() {
                    pending_space = !out.is_empty();
                    return;
                }
                if pending_space {
                    out.push(' ');
                    pending_space = false;
                }
            }
            if self.lowercase && c.is_uppercase() {
                out.extend(c.to_lowercase());
            } else {
                out.push(c);
            }
        };
        let mut emit = |c: char, out: &mut String| {
            let c = if self.fold_width { fold_width(c) } else { c };
            let c = if self.fold_punctuation {
                fold_punctuation(c)
            } else {
                c
            };
            if is_punctuation(c) {
                match self.punctuation {
                    Punctuation::Keep => push(c, out),
                    Punctuation::Remove => {}
                    Punctuation::Space => push(' ', out),
                }
            } else {
                push(c, out);
            }
        };
        match self.unicode {
            UnicodeForm::None => text.chars().for_each(|c| emit(c, out)),
            UnicodeForm::Nfc => text.nfc().for_each(|c| emit(c, out)),
            UnicodeForm::Nfkc => text.nfkc().for_each(|c| emit(c, out)),
        }
    }

    /// Returns the normalized text as a new string.
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::new();
        self.apply_into(text, &mut out);
        out
    }

    fn ascii_into(&self, bytes: &[u8], out: &mut String) {
        // Only ASCII bytes are pushed, so the String stays valid UTF-8.
        let mut buf = std::mem::take(out).into_bytes();
        if self.punctuation == Punctuation::Keep && !self.collapse_whitespace {
            // The common case for word features: a copy and a vectorized case fold.
            buf.extend_from_slice(bytes);
            if self.lowercase {
                buf.make_ascii_lowercase();
            }
            *out = String::from_utf8(buf).expect("ASCII bytes are valid UTF-8");
            return;
        }
        let mut pending_space = false;
        for &b in bytes {
            let b = if b.is_ascii_punctuation() {
                match self.punctuation {
                    Punctuation::Keep => b,
                    Punctuation::Remove => continue,
                    Punctuation::Space => b' ',
                }
            } else {
                b
            };
            if self.collapse_whitespace {
                if b.is_ascii_whitespace() || b == 0x0b {
                    pending_space = !buf.is_empty();
                    continue;
                }
                if pending_space {
                    buf.push(b' ');
                    pending_space = false;
                }
            }
            buf.push(if self.lowercase {
                b.to_ascii_lowercase()
            } else {
                b
            });
        }
        *out = String::from_utf8(buf).expect("ASCII bytes are valid UTF-8");
    }
}

/// The width-folded form of `c` (see [`Normalization::fold_width`]).
#[inline]
pub fn fold_width(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        '\u{FF61}' => '\u{3002}',
        '\u{FF62}' => '\u{300C}',
        '\u{FF63}' => '\u{300D}',
        '\u{FF64}' => '\u{3001}',
        _ => c,
    }
}

/// The ASCII form of a punctuation mark Chinese text writes either way (see
/// [`Normalization::fold_punctuation`]); every other character as it is.
#[inline]
pub fn fold_punctuation(c: char) -> char {
    match c {
        '\u{3002}' => '.',
        '\u{3001}' => ',',
        '\u{300C}'..='\u{300F}' | '\u{201C}' | '\u{201D}' => '"',
        '\u{2018}' | '\u{2019}' => '\'',
        '\u{3010}' => '[',
        '\u{3011}' => ']',
        '\u{3014}' => '(',
        '\u{3015}' => ')',
        _ => c,
    }
}

/// Unicode punctuation (general categories P*) plus ASCII symbols, approximated without
/// tables: ASCII punctuation, and the General Punctuation, CJK and full-width punctuation
/// blocks.
pub fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(c,
        '\u{00A1}' | '\u{00A7}' | '\u{00AB}' | '\u{00B6}' | '\u{00B7}' | '\u{00BB}' | '\u{00BF}'
        | '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205E}'
        | '\u{3001}'..='\u{3003}' | '\u{3008}'..='\u{3011}'
        | '\u{FF01}'..='\u{FF0F}' | '\u{FF1A}'..='\u{FF20}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ideographic_punctuation_folds_to_ascii() {
        let n = Normalization::default();
        assert_eq!(
            n.apply("神說：「要有光。」光、暗【分】〔開〕“好”‘的’"),
            n.apply("神說:\"要有光.\"光,暗[分](開)\"好\"'的'")
        );
        let keep = Normalization {
            fold_punctuation: false,
            ..Normalization::default()
        };
        assert_eq!(keep.apply("光。"), "光。");
        assert_eq!(n.apply("光。"), "光.");
    }

    #[test]
    fn defaults_fold_case_and_space() {
        let n = Normalization::default();
        assert_eq!(n.apply("  The  ROSE\tis\n a Rose. "), "the rose is a rose.");
        assert_eq!(n.apply("ÉCOLE  ﬁne"), "école fine"); // NFKC folds the ligature
    }

    #[test]
    fn punctuation_modes() {
        let mut n = Normalization::none();
        n.punctuation = Punctuation::Remove;
        assert_eq!(n.apply("don't e-mail«x»"), "dont emailx");
        n.punctuation = Punctuation::Space;
        assert_eq!(n.apply("e-mail"), "e mail");
    }

    #[test]
    fn width_folding_without_nfkc() {
        let n = Normalization {
            unicode: UnicodeForm::None,
            ..Normalization::default()
        };
        // The half-width ｡ folds to 。, which `fold_punctuation` folds on to ".".
        assert_eq!(
            n.apply("神說：要有光！ＡＢ１\u{3000}｡"),
            "神說:要有光!ab1 ."
        );
        let keep = Normalization {
            fold_width: false,
            ..n
        };
        assert_eq!(keep.apply("！"), "！");
    }

    #[test]
    fn none_is_identity() {
        let s = "A  b\u{0301}C ﬁ";
        assert_eq!(Normalization::none().apply(s), s);
    }

    proptest::proptest! {
        // The ASCII fast path equals the general path on ASCII input, for every switch.
        #[test]
        fn ascii_and_unicode_paths_agree(
            s in "[aB ,.!\t\n\x0b-]{0,30}",
            lowercase: bool, collapse: bool, punct in 0u8..3,
        ) {
            let n = Normalization {
                lowercase,
                unicode: UnicodeForm::Nfkc,
                punctuation: [Punctuation::Keep, Punctuation::Remove, Punctuation::Space][punct as usize],
                collapse_whitespace: collapse,
                fold_width: true,
                fold_punctuation: true,
            };
            let fast = n.apply(&s);
            let mut slow = String::new();
            n.unicode_into(&s, &mut slow);
            proptest::prop_assert_eq!(fast, slow);
        }
    }
}
