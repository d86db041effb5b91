//! Which language's rules a document follows: its stopwords, SpotSigs antecedents and word
//! segmentation.
//!
//! `auto` decides by script, run by run and token by token: runs of Han ideographs are
//! segmented as Chinese ([`super::segment`]) and everything between them is tokenized as
//! space-separated text, and each word follows the stopword and antecedent lists of its own
//! script ([`Language::of_token`]). Counting scripts is cheap and needs no model, and the two
//! languages neardup has rules for differ exactly there: English separates words with
//! spaces, Chinese does not. Deciding per run rather than per document keeps a page that
//! mixes both continuous: there is no share of Han at which its words suddenly change.
//! [`detect`] still names a document's main language where one is wanted (edits, pages).

use serde::{Deserialize, Serialize};

/// A language setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Decided per document by script (see [`Language::resolve`]).
    #[default]
    Auto,
    /// English rules.
    En,
    /// Chinese rules (simplified and traditional characters alike).
    Zh,
}

/// Share of Han ideographs among a text's letters at or above which `auto` reads it as
/// Chinese. Chinese web text quotes Latin names and numbers, English text almost never has
/// a Han character: a third separates the two with a wide margin either way.
pub const HAN_SHARE: f64 = 1.0 / 3.0;

/// Characters inspected by [`Language::resolve`]: the script of a document is settled long
/// before the end, and long documents should not be scanned twice.
const DETECT_CHARS: usize = 4096;

impl Language {
    /// The language whose rules apply to `text` as a whole: `En` or `Zh` (never `Auto`).
    pub fn resolve(self, text: &str) -> Language {
        match self {
            Language::Auto => detect(text),
            fixed => fixed,
        }
    }

    /// The language whose rules (stopwords, SpotSigs antecedents) apply to one token: with
    /// `auto`, its script — a token holding a Han ideograph is Chinese, any other English —
    /// so a page that mixes both reads each part by its own rules and nothing changes at
    /// once when its share of Han crosses a cut; a fixed language applies to every token.
    #[inline]
    pub fn of_token(self, token: &str) -> Language {
        match self {
            Language::Auto if !token.is_ascii() && token.chars().any(is_han) => Language::Zh,
            Language::Auto => Language::En,
            fixed => fixed,
        }
    }
}

/// Whether `c` is a Han ideograph (CJK Unified Ideographs, extensions A to I, compatibility
/// ideographs; the supplementary planes' ideographs as one range).
#[inline]
pub fn is_han(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{323AF}')
}

/// `Zh` when at least [`HAN_SHARE`] of the letters among the first 4,096 characters of
/// `text` are Han ideographs, else `En`. ASCII text is English without looking further.
pub fn detect(text: &str) -> Language {
    if text.is_ascii() {
        return Language::En;
    }
    let (mut han, mut letters) = (0usize, 0usize);
    for c in text.chars().take(DETECT_CHARS) {
        if c.is_alphabetic() {
            letters += 1;
            han += is_han(c) as usize;
        }
    }
    if letters > 0 && han as f64 >= HAN_SHARE * letters as f64 {
        Language::Zh
    } else {
        Language::En
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_script() {
        assert_eq!(detect("The quick brown fox."), Language::En);
        assert_eq!(detect("naïve café"), Language::En);
        assert_eq!(detect("太初有道，道與神同在，道就是神。"), Language::Zh);
        assert_eq!(detect("在 Python 3.11 中使用 jieba 分词"), Language::Zh);
        assert_eq!(
            detect("An English sentence quoting 北京 once."),
            Language::En
        );
        assert_eq!(detect(""), Language::En);
        assert_eq!(Language::En.resolve("中文"), Language::En);
        assert_eq!(Language::Auto.resolve("中文"), Language::Zh);
        assert!(is_han('𨽻') && is_han('㡘') && !is_han('ア') && !is_han('a'));
    }
}
