//! Word tokenizers and the sentence splitter.
//!
//! Tokenizers use *internal iteration* (`for_each_token(text, |token| …)`): the callback sees
//! a `&str` borrowed from the text, so tokenizing allocates nothing, and the hot loop that
//! hashes shingles can keep its state in registers.
//!
//! [`Tokenizer::Unicode`] follows the word boundaries of Unicode Standard Annex #29 and keeps
//! the segments that contain a letter or digit (what `unicode-segmentation`'s
//! `unicode_words` returns). ASCII text, and the whitespace split of ASCII text, take the
//! 64-byte block masks of [`super::ascii_runs`], which implement the same rules restricted to
//! ASCII (WB5–WB13b); property tests there check them against `unicode-segmentation` and
//! `split_whitespace`.

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use super::ascii_runs::{SplitWhitespace, ascii_whitespace_spans, ascii_word_spans, ascii_words};
use super::language::Language;

/// How text is split into words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
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
    pub fn for_each_token<'t>(self, text: &'t str, f: impl FnMut(&'t str)) {
        match self {
            Tokenizer::Whitespace => text.split_ascii_or_unicode_whitespace(f),
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

/// What a "word" of CJK text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CjkUnit {
    /// A word found by the segmenter (jieba): the unit of term-based algorithms.
    #[default]
    Word,
    /// One Han character: word k-shingles become character k-grams, punctuation dropped.
    Char,
}

/// How text becomes words: the tokenizer for space-separated scripts, the language (which
/// decides whether a document is segmented as Chinese), and what a word of Chinese text is.
/// Flattened into the parameters of every algorithm that reads words, so its field names are
/// parameter names: `tokenizer`, `language`, `cjk_unit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct WordParams {
    /// Tokenizer of space-separated text: `unicode` (UAX #29) or `whitespace`. Default
    /// `unicode`.
    pub tokenizer: Tokenizer,
    /// `auto` (per document, by script), `en` or `zh`. Default `auto`.
    pub language: Language,
    /// Words of Chinese text: `word` (jieba) or `char` (each Han character). The default
    /// depends on the algorithm's unit (see the algorithm's docs).
    pub cjk_unit: CjkUnit,
}

impl WordParams {
    /// Word parameters with Chinese words cut as `unit`.
    pub fn cjk(unit: CjkUnit) -> Self {
        WordParams {
            cjk_unit: unit,
            ..WordParams::default()
        }
    }

    /// Calls `f` with every word of `text` in order. With `language = auto`, runs of Han
    /// ideographs are Chinese — cut by jieba, or into single characters with `cjk_unit =
    /// char` — and the text between them is split by the tokenizer; so punctuation, ASCII or
    /// ideographic, never reaches the segmenter (jieba would keep `天地.地是` as one run with
    /// its `.` and cut it otherwise than `天地。地是`), and a page mixing both scripts is read
    /// the same way whatever its share of Han. `language = zh` segments the whole text (Latin
    /// words included, as jieba cuts them); `language = en` uses the tokenizer throughout.
    #[inline]
    pub fn for_each_word<'t>(&self, text: &'t str, mut f: impl FnMut(&'t str)) {
        match self.language {
            Language::En => self.tokenizer.for_each_token(text, f),
            Language::Zh => self.han_words(text, f),
            Language::Auto if text.is_ascii() => self.tokenizer.for_each_token(text, f),
            Language::Auto => for_each_script_run(text, |run, han| {
                if han {
                    self.han_words(run, &mut f)
                } else {
                    self.tokenizer.for_each_token(run, &mut f)
                }
            }),
        }
    }

    /// The words of Chinese text, as `cjk_unit` says.
    #[inline]
    fn han_words<'t>(&self, text: &'t str, f: impl FnMut(&'t str)) {
        match self.cjk_unit {
            CjkUnit::Word => super::segment::for_each_word(text, f),
            CjkUnit::Char => Tokenizer::Unicode.for_each_token(text, f),
        }
    }

    /// Appends the (start, end) byte offsets in `text` of the words
    /// [`for_each_word`](Self::for_each_word) gives, in order. ASCII text that the tokenizer
    /// splits — nearly every English document — is split a 64-byte block at a time
    /// ([`ascii_word_spans`], [`ascii_whitespace_spans`]); any other goes word by word through
    /// `for_each_word`.
    pub fn word_spans(&self, text: &str, out: &mut Vec<(usize, usize)>) {
        if self.language != Language::Zh && text.is_ascii() {
            match self.tokenizer {
                Tokenizer::Unicode => ascii_word_spans(text.as_bytes(), out),
                Tokenizer::Whitespace => ascii_whitespace_spans(text.as_bytes(), out),
            }
            return;
        }
        let base = text.as_ptr() as usize;
        self.for_each_word(text, |w| {
            let start = w.as_ptr() as usize - base;
            out.push((start, start + w.len()))
        });
    }

    /// The words of `text` collected into a vector (convenience for tests and tools).
    pub fn words(&self, text: &str) -> Vec<String> {
        let mut v = Vec::new();
        self.for_each_word(text, |w| v.push(w.to_string()));
        v
    }
}

/// Calls `f(run, is_han)` for each maximal run of Han ideographs and each maximal run of
/// other characters of `text`, in order.
fn for_each_script_run<'t>(text: &'t str, mut f: impl FnMut(&'t str, bool)) {
    let mut start = 0;
    let mut in_han = false;
    for (i, c) in text.char_indices() {
        let han = super::language::is_han(c);
        if han != in_han && i > start {
            f(&text[start..i], in_han);
            start = i;
        }
        in_han = han;
    }
    if start < text.len() {
        f(&text[start..], in_han);
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
    fn chinese_words_by_unit_and_language() {
        let text = "太初有道，道與神同在。";
        let words = WordParams::default();
        assert!(words.words(text).contains(&"太初".to_string()));
        let chars = WordParams::cjk(CjkUnit::Char).words(text);
        assert_eq!(chars.join(""), "太初有道道與神同在");
        assert!(chars.iter().all(|c| c.chars().count() == 1));
        // The whitespace tokenizer would keep the sentence whole; Chinese is segmented.
        let ws = WordParams {
            tokenizer: Tokenizer::Whitespace,
            ..WordParams::default()
        };
        assert!(ws.words(text).len() > 2);
        // language = en keeps the tokenizer's behaviour on Chinese text.
        let en = WordParams {
            language: Language::En,
            ..WordParams::default()
        };
        assert_eq!(en.words(text), Tokenizer::Unicode.tokens(text));
    }

    /// ASCII or ideographic punctuation between Han runs cuts the text alike: jieba never
    /// sees a mark, even without `fold_punctuation`.
    #[test]
    fn segmentation_ignores_which_punctuation_separates_han_runs() {
        // Genesis 10:8–9 (ChiUn): jieba given the whole text cuts "之首。他" into 之 / 首 / 他
        // but "之首.他" into 之首 / 他.
        let w = WordParams::default();
        let ideographic = w.words("古實又生寧錄，他為世上英雄之首。他在耶和華面前是個英勇的獵戶");
        assert!(ideographic.iter().any(|x| x == "之"), "{ideographic:?}");
        for ascii in [
            "古實又生寧錄,他為世上英雄之首.他在耶和華面前是個英勇的獵戶",
            "古實又生寧錄, 他為世上英雄之首. 他在耶和華面前是個英勇的獵戶",
        ] {
            assert_eq!(w.words(ascii), ideographic, "{ascii}");
        }
        let whole = WordParams {
            language: Language::Zh,
            ..w
        };
        assert_ne!(
            whole.words("古實又生寧錄,他為世上英雄之首.他在耶和華面前是個英勇的獵戶"),
            whole.words("古實又生寧錄，他為世上英雄之首。他在耶和華面前是個英勇的獵戶"),
            "language = zh gives jieba the whole text, marks included"
        );
        // A page mixing both scripts: Chinese runs by jieba, the rest by the tokenizer.
        assert_eq!(
            w.words("在Python3.11中使用jieba分词"),
            ["在", "Python3.11", "中", "使用", "jieba", "分词"]
        );
    }

    #[test]
    fn sentences_split_on_terminators() {
        let s: Vec<_> = sentences("One sentence. Another one! A third?  ").collect();
        assert_eq!(s, ["One sentence.", "Another one!", "A third?"]);
    }
}
