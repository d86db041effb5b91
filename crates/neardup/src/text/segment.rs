//! Chinese word segmentation with jieba (jieba-rs and its embedded dictionary).
//!
//! Chinese writes no spaces between words, so word features need a segmenter: the UAX #29
//! tokenizer makes every Han character a word, the whitespace tokenizer makes a whole
//! paragraph one. jieba is the segmenter the Chinese write-ups of SimHash and I-Match use;
//! its dictionary covers simplified and traditional forms. The HMM is on, so words missing
//! from the dictionary (names, transliterations) are still found; segmentation is a pure
//! function of the text, so features stay deterministic.

use std::sync::OnceLock;

use jieba_rs::Jieba;

/// The shared segmenter: loading the dictionary takes a fraction of a second, once.
fn jieba() -> &'static Jieba {
    static JIEBA: OnceLock<Jieba> = OnceLock::new();
    JIEBA.get_or_init(Jieba::new)
}

/// Calls `f` with every word of `text` in order, as slices of `text`. Segments without a
/// letter, digit or ideograph (punctuation, whitespace) are not words.
pub fn for_each_word<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    for token in jieba().cut(text, true) {
        if token.word.chars().any(char::is_alphanumeric) {
            f(token.word);
        }
    }
}

/// Byte ranges of the words of `text` (for edits that rewrite words in place).
pub fn word_spans(text: &str) -> Vec<(usize, usize)> {
    jieba()
        .cut(text, true)
        .into_iter()
        .filter(|t| t.word.chars().any(char::is_alphanumeric))
        .map(|t| (t.byte_start, t.byte_end))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_simplified_and_traditional_text() {
        let mut words = Vec::new();
        for_each_word("我爱北京天安门。", |w| words.push(w));
        assert_eq!(words, ["我", "爱", "北京", "天安门"]);
        let mut trad = Vec::new();
        for_each_word("太初有道，道與神同在。", |w| trad.push(w));
        assert!(trad.contains(&"太初"), "{trad:?}");
        assert!(!trad.iter().any(|w| w.contains('，')), "{trad:?}");
        let text = "神說：要有光";
        for (s, e) in word_spans(text) {
            assert!(text.is_char_boundary(s) && text.is_char_boundary(e) && s < e);
        }
    }
}
