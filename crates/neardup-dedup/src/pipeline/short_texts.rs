//! `--min-words N`: documents shorter than N words take no part in near-duplicate detection,
//! and exact copies of them are still found. A one-word document ("test") is a near-duplicate
//! of every other "test" at similarity 1 and of nothing else worth knowing, and a few words
//! shared between two short texts make a high Jaccard from little evidence.
//!
//! A short document's signature is replaced by its **exact fingerprint**: every word of the
//! row drawn from one 64-bit hash of its words (case folded, whitespace collapsed). Two copies
//! get the same row, so any signature join pairs them and verification scores them 1; two
//! different short texts, or a short and a long one, agree on a word with chance 2⁻³² — a
//! MinHash estimate of about 0, a SimHash distance of about 32 bits — so they never meet.
//! Every stage after the sketch (joins, spilling, `--index`) works unchanged.

use neardup::hash::{hash_bytes, mix64};
use neardup::streaming::{SketchScratch, StreamingDetector};

/// Seed of the exact fingerprint ("short").
const SEED: u64 = 0x0073_686f_7274;

/// A record's signature as `dedup` computes it: the algorithm's sketch, or for a text of fewer
/// than `min_words` words its exact fingerprint. Fills `row` (`stream.width()` words) and
/// returns (the text has no feature, it is short). The live index (`crate::live`) sketches
/// through this too, so a served check and a batch run see the same signature.
pub fn sketch_document(
    stream: &dyn StreamingDetector,
    text: &str,
    min_words: usize,
    scratch: &mut SketchScratch,
    row: &mut [u32],
) -> (bool, bool) {
    let empty = !stream.sketch(text, scratch, row);
    let short = !empty && !row.is_empty() && is_short(text, min_words);
    if short {
        exact_row(text, row);
    }
    (empty, short)
}

/// Whether `text` has fewer than `min_words` words: whitespace-separated runs, each CJK
/// character counted as a word of its own (Chinese and Japanese put no spaces between words;
/// a character is about two-thirds of a word, so the count errs long).
pub fn is_short(text: &str, min_words: usize) -> bool {
    if min_words == 0 {
        return false;
    }
    let mut words = 0;
    for run in text.split_whitespace() {
        let cjk = run.chars().filter(|&c| is_cjk(c)).count();
        let rest = run.chars().any(|c| !is_cjk(c));
        words += cjk + usize::from(rest);
        if words >= min_words {
            return false;
        }
    }
    true
}

/// CJK ideographs, kana and hangul syllables.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0xf900..=0xfaff
        | 0x20000..=0x2ffff)
}

/// Writes `text`'s exact fingerprint into `row` (see the module documentation).
pub fn exact_row(text: &str, row: &mut [u32]) {
    let mut folded = String::with_capacity(text.len());
    for (n, word) in text.split_whitespace().enumerate() {
        if n > 0 {
            folded.push(' ');
        }
        folded.extend(word.chars().flat_map(char::to_lowercase));
    }
    let h = hash_bytes(folded.as_bytes(), SEED);
    for (j, w) in row.iter_mut().enumerate() {
        *w = mix64(h ^ (j as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)) as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_counted_and_cjk_characters_count_one_each() {
        assert!(is_short("test", 2));
        assert!(!is_short("a test", 2));
        assert!(is_short("  a\n ", 2));
        assert!(!is_short("起初神", 3));
        assert!(is_short("起初", 3));
        assert!(!is_short("anything", 0));
    }

    /// Copies (up to case and spacing) share a row; other texts share no word of it (with
    /// 64 words, a chance coincidence of one would be 64 · 2⁻³²).
    #[test]
    fn copies_share_the_fingerprint_and_nothing_else_does() {
        let row = |t: &str| {
            let mut r = vec![0u32; 64];
            exact_row(t, &mut r);
            r
        };
        assert_eq!(row("Page not found"), row("page  not\nfound"));
        let (a, b) = (row("page not found"), row("page not found!"));
        assert_eq!(a.iter().zip(&b).filter(|(x, y)| x == y).count(), 0);
        assert!(
            a.windows(2).any(|w| w[0] != w[1]),
            "the words vary along the row"
        );
    }
}
