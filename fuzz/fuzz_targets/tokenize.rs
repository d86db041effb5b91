//! The tokenizer and the shingler on arbitrary text: no panic, and the ASCII fast paths agree
//! with the general Unicode paths (UAX #29 words; character shingles hashed the same way
//! whether the text is ASCII or not).
#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup::features::{FeatureParams, ShingleKind};
use neardup::text::{CjkUnit, Language, Normalization, Tokenizer, WordParams};
use unicode_segmentation::UnicodeSegmentation;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // ASCII fast path of the UAX #29 tokenizer = unicode-segmentation's words.
    if text.is_ascii() {
        let fast = Tokenizer::Unicode.tokens(text);
        let oracle: Vec<&str> = text.unicode_words().collect();
        assert_eq!(fast, oracle, "UAX #29 words of {text:?}");
        // The same text with one non-ASCII character appended takes the Unicode path and
        // must give the same words first.
        let wide = format!("{text} é");
        let slow = Tokenizer::Unicode.tokens(&wide);
        assert_eq!(&slow[..fast.len()], &fast[..], "paths disagree on {text:?}");
    }
    // Normalization on any text: no panic, and idempotent.
    let n = Normalization::default();
    let once = n.apply(text);
    assert_eq!(n.apply(&once), once, "normalization is not idempotent on {text:?}");
    // Every feature kind and language on any text: no panic, deterministic.
    for shingle in [ShingleKind::Word, ShingleKind::Char, ShingleKind::Stopword] {
        for language in [Language::Auto, Language::En, Language::Zh] {
            for cjk_unit in [CjkUnit::Word, CjkUnit::Char] {
                let p = FeatureParams {
                    shingle,
                    k: 1 + data.len() % 6,
                    words: WordParams {
                        tokenizer: Tokenizer::Unicode,
                        language,
                        cjk_unit,
                    },
                    ..FeatureParams::default()
                };
                let s = p.shingler(7);
                assert_eq!(s.hashes(text), s.hashes(text));
            }
        }
    }
    // Character shingles: the ASCII path hashes the same windows as the general path.
    if text.is_ascii() && text.len() >= 3 {
        let c = FeatureParams {
            normalization: Normalization::none(),
            ..FeatureParams::chars(3)
        }
        .shingler(9);
        let ascii = c.hashes(text);
        let wide = c.hashes(&format!("{text}é"));
        assert_eq!(&wide[..ascii.len()], &ascii[..], "char shingles of {text:?}");
    }
});
