//! Features: text → a sequence of 64-bit shingle hashes.
//!
//! Three shingle kinds (MMDS ch. 3, §3.2):
//! * `word` — k consecutive tokens (Broder 1997's "w-shingles");
//! * `char` — k consecutive characters of the normalized text (MMDS §3.2.2: k = 5 for e-mail,
//!   k = 9 for research papers);
//! * `stopword` — stopword-anchored shingles (MMDS §3.2.4): a stopword followed by the next
//!   k − 1 tokens, whether or not they are stopwords (MMDS uses k = 3). Navigation and
//!   boilerplate have few stopwords, so these shingles come mostly from the prose.
//!
//! Tokens are hashed once (`hash::hash_token`, seeded); a word shingle's hash combines its tokens' hashes
//! (`hash::hash_sequence`), so no shingle string is ever built. All per-document buffers live
//! in a reusable [`Scratch`].
//!
//! **Languages.** Words come from [`WordParams`]: a document detected as Chinese (`language =
//! auto`, by script) is cut by jieba (`cjk_unit = word`) or into single Han characters
//! (`cjk_unit = char`, so word k-shingles are character k-grams with punctuation dropped), and
//! its stopword anchors are Chinese function words. Shingles follow Broder's and MMDS's unit,
//! the character for Chinese (MMDS §3.2.1: a k-shingle is a substring of k characters; Chinese
//! has no spaces to make words of without a segmenter's guesses), so `cjk_unit` defaults to
//! `char` here; term-based algorithms (SimHash, I-Match, SpotSigs, Tianwang) default to jieba
//! words.
//!
//! **Short documents.** A document with fewer than k tokens (or characters) but at least one
//! yields exactly one shingle made of everything it has, as datasketch/rensa pipelines do: two
//! different short documents therefore do not collide, while two identical ones do. A
//! document with no token at all yields no feature; detectors never report such a document as
//! a duplicate (it has no evidence of similarity to anything).

pub mod dftable;
pub mod docfreq;
pub mod similarity;
pub mod statistics;
mod windows;

pub use docfreq::DocFreq;
use windows::{char_shingles, mixed_word_shingles, word_shingles};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::hash::{TOKEN_PAD, hash_sequence, hash_token_at, mix64, token_hashes, token_words_at};
use crate::text::language::is_han;
use crate::text::{CjkUnit, Language, Normalization, WordParams, is_stopword_in};

/// The kind of shingle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ShingleKind {
    /// k consecutive tokens.
    #[default]
    Word,
    /// k consecutive characters.
    Char,
    /// A stopword and the k − 1 tokens after it.
    Stopword,
}

/// How a detector turns text into features. Flattened into each algorithm's parameters, so
/// its field names are parameter names (`shingle`, `k`, `tokenizer`, `language`, `cjk_unit`,
/// `lowercase`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FeatureParams {
    /// Shingle kind: `word`, `char` or `stopword`. Default `word`.
    pub shingle: ShingleKind,
    /// Shingle size: tokens (`word`, `stopword` including the anchor) or characters; the
    /// default is the algorithm's (shown beside it). Not a Hamming distance: SimHash's
    /// distance, which Manku et al. and the reports call k, is `max_distance`.
    pub k: usize,
    /// Shingle size of word shingles that start on Chinese (a Han word or character), where
    /// the unit carries less than an English word: a Han character is about two thirds of a
    /// jieba word, so 5 characters span what 3 English words do, and with 3 % of characters
    /// changed their Jaccard falls to ≈ 0.75 where English 5-word shingles with 3 % of words
    /// changed keep ≈ 0.85. Decided token by token, so a page mixing both scripts shingles each
    /// part by its own size and nothing jumps with its share of Han. `null`: `k`. Default
    /// `null` (`minhash-lsh`: 3, chosen on bible-zh; see reports/chinese-injected).
    pub cjk_k: Option<usize>,
    /// How text becomes words (`tokenizer`, `language`, `cjk_unit`; default `cjk_unit` here:
    /// `char`).
    #[serde(flatten)]
    pub words: WordParams,
    /// Text normalization applied before tokenizing.
    #[serde(flatten)]
    pub normalization: Normalization,
}

impl Default for FeatureParams {
    fn default() -> Self {
        FeatureParams {
            shingle: ShingleKind::Word,
            k: 5,
            cjk_k: None,
            words: WordParams::cjk(CjkUnit::Char),
            normalization: Normalization::default(),
        }
    }
}

impl FeatureParams {
    /// Word k-shingles with default normalization and words (Chinese: characters).
    pub fn words(k: usize) -> Self {
        FeatureParams {
            k,
            ..Self::default()
        }
    }

    /// The same features with Chinese words cut as `unit`.
    pub fn with_cjk(self, unit: CjkUnit) -> Self {
        FeatureParams {
            words: WordParams {
                cjk_unit: unit,
                ..self.words
            },
            ..self
        }
    }

    /// Character k-shingles with default normalization.
    pub fn chars(k: usize) -> Self {
        FeatureParams {
            shingle: ShingleKind::Char,
            k,
            ..Self::default()
        }
    }

    /// Checks the parameters on behalf of `algorithm`.
    pub fn validate(&self, algorithm: &str) -> Result<()> {
        if let Some(c) = self.cjk_k
            && !(1..=64).contains(&c)
        {
            return Err(Error::invalid(
                algorithm,
                "cjk_k",
                format!("shingle size cjk_k = {c} must be between 1 and 64"),
            ));
        }
        if self.k == 0 {
            return Err(Error::invalid(
                algorithm,
                "k",
                "shingle size k must be at least 1",
            ));
        }
        if self.k > 64 {
            return Err(Error::invalid(
                algorithm,
                "k",
                format!(
                    "shingle size k = {} is above the supported maximum of 64",
                    self.k
                ),
            ));
        }
        Ok(())
    }

    /// A shingler for these parameters; `seed` seeds the token hash.
    pub fn shingler(&self, seed: u64) -> Shingler {
        let mut normalization = self.normalization.clone();
        if self.shingle != ShingleKind::Char {
            // Tokenizers skip whitespace runs anyway: collapsing them first would only cost
            // time, so word-based features never do.
            normalization.collapse_whitespace = false;
        }
        Shingler {
            identity: normalization == Normalization::none(),
            normalization,
            params: self.clone(),
            seed,
        }
    }
}

/// Reusable per-thread buffers for [`Shingler`].
#[derive(Debug, Default)]
pub struct Scratch {
    /// The normalized text (also lent to feature extractors outside this module).
    pub(crate) text: String,
    /// Everything else, borrowed while `text` is read.
    words: WordBuffers,
}

/// The per-token buffers of word-based features.
#[derive(Debug, Default)]
struct WordBuffers {
    tokens: Vec<u64>,
    /// Each token's (start, end) in the padded text.
    spans: Vec<(usize, usize)>,
    /// Each token's two words before mixing (`hash::token_words_at`).
    token_lo: Vec<u64>,
    token_hi: Vec<u64>,
    /// Tokens over 16 bytes: (index, hash), hashed apart.
    long_tokens: Vec<(usize, u64)>,
    anchors: Vec<bool>,
    offsets: Vec<usize>,
    /// Whether each token is Chinese (`cjk_k`).
    han: Vec<bool>,
}

/// Spaces appended after a text so that tokens can be read 16 bytes at a time
/// (`hash::TOKEN_PAD` of them; pushed as one string, not char by char).
const PADDING: &str = "                                ";
const _: () = assert!(PADDING.len() >= TOKEN_PAD);

/// Turns text into shingle hashes according to [`FeatureParams`].
#[derive(Debug, Clone)]
pub struct Shingler {
    params: FeatureParams,
    /// The normalization actually applied (see [`FeatureParams::shingler`]).
    normalization: Normalization,
    identity: bool,
    seed: u64,
}

impl Shingler {
    /// The parameters this shingler was built from.
    pub fn params(&self) -> &FeatureParams {
        &self.params
    }

    /// Appends the shingle hashes of `text` to `out`, in document order, repeats included.
    pub fn hashes_into(&self, text: &str, scratch: &mut Scratch, out: &mut Vec<u64>) {
        let Scratch { text: norm, words } = scratch;
        let k = self.params.k;
        if self.params.shingle == ShingleKind::Char {
            let text = if self.identity {
                text
            } else {
                self.normalization.apply_into(text, norm);
                norm.as_str()
            };
            char_shingles(text, k, self.seed, &mut words.offsets, out);
            return;
        }
        // Word-based features: the (normalized) text goes into the buffer followed by
        // TOKEN_PAD spaces, so every token can be hashed by reading 16 bytes in place.
        if self.identity {
            norm.clear();
            norm.push_str(text);
        } else {
            self.normalization.apply_into(text, norm);
        }
        norm.push_str(&PADDING[..TOKEN_PAD]);
        let padded = norm.as_str();
        match self.params.shingle {
            ShingleKind::Word => self.word_hashes(padded, words, out),
            ShingleKind::Stopword => self.stopword_hashes(padded, words, out),
            ShingleKind::Char => unreachable!("handled above"),
        }
    }

    /// Word k-shingles of the padded, normalized text.
    #[inline]
    fn word_hashes(&self, padded: &str, w: &mut WordBuffers, out: &mut Vec<u64>) {
        let bytes = padded.as_bytes();
        let WordBuffers {
            spans,
            token_lo,
            token_hi,
            long_tokens,
            han,
            ..
        } = w;
        // Three passes, each a tight loop: the tokenizer only records where tokens
        // are (English text a 64-byte block at a time, `WordParams::word_spans`; a
        // closure that also hashed was called out of line per token), then each
        // token's two words are read, then all are mixed at once, where it vectorizes
        // (per token it was a serial chain of four multiplies, a quarter of the sketch
        // stage's time).
        spans.clear();
        self.params.words.word_spans(padded, spans);
        let n = spans.len();
        token_lo.clear();
        token_lo.reserve(n);
        token_hi.clear();
        token_hi.reserve(n);
        long_tokens.clear();
        // Written into the spare capacity rather than over zeros: zeroing the word buffers
        // first was a pass of memory writes per buffer and document.
        let words = token_lo.spare_capacity_mut()[..n]
            .iter_mut()
            .zip(&mut token_hi.spare_capacity_mut()[..n]);
        for (i, (&(start, end), (lo, hi))) in spans.iter().zip(words).enumerate() {
            let (l, h) = token_words_at(bytes, start, end - start).unwrap_or_else(|| {
                long_tokens.push((i, hash_token_at(bytes, start, end - start, self.seed)));
                (0, 0)
            });
            lo.write(l);
            hi.write(h);
        }
        // SAFETY: the loop above wrote the first `n` slots of both (it visits all `n` spans).
        unsafe {
            token_lo.set_len(n);
            token_hi.set_len(n);
        }
        token_hashes(token_lo, token_hi, self.seed);
        for &(i, h) in long_tokens.iter() {
            token_lo[i] = h;
        }
        let tokens = &token_lo[..];
        match self.params.cjk_k {
            Some(c) if c != self.params.k && !padded.is_ascii() => {
                let starts_han = |&(start, _): &(usize, usize)| {
                    padded[start..].chars().next().is_some_and(is_han)
                };
                han.clear();
                han.extend(spans.iter().map(starts_han));
                mixed_word_shingles(tokens, han, self.params.k, c, self.seed, out);
            }
            _ => word_shingles(tokens, self.params.k, self.seed, out),
        }
    }

    /// Stopword-anchored shingles (SpotSigs' spots) of the padded, normalized text.
    #[inline]
    fn stopword_hashes(&self, padded: &str, w: &mut WordBuffers, out: &mut Vec<u64>) {
        let bytes = padded.as_bytes();
        let base = bytes.as_ptr() as usize;
        let token_hash =
            |t: &str| hash_token_at(bytes, t.as_ptr() as usize - base, t.len(), self.seed);
        let k = self.params.k;
        let WordBuffers {
            tokens, anchors, ..
        } = w;
        tokens.clear();
        anchors.clear();
        // Per token: ASCII words follow the English list, others the Chinese one unless the
        // language is fixed to English (`Language::of_token`).
        let language = self.params.words.language;
        self.params.words.for_each_word(padded, |t| {
            tokens.push(token_hash(t));
            anchors.push(is_stopword_any_case(t, language));
        });
        for (i, _) in anchors.iter().enumerate().filter(|(_, a)| **a) {
            let end = (i + k).min(tokens.len());
            out.push(hash_sequence(
                self.seed ^ 0x5709,
                tokens[i..end].iter().copied(),
            ));
        }
    }

    /// The shingle hashes of `text` (a convenience that allocates).
    pub fn hashes(&self, text: &str) -> Vec<u64> {
        let mut out = Vec::new();
        self.hashes_into(text, &mut Scratch::default(), &mut out);
        out
    }

    /// The set of shingles of `text`: sorted, without repeats.
    pub fn set(&self, text: &str) -> Vec<u64> {
        let mut v = self.hashes(text);
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The multiset of shingles of `text` as (hash, count), sorted by hash.
    pub fn multiset(&self, text: &str) -> Vec<(u64, u32)> {
        let mut v = self.hashes(text);
        v.sort_unstable();
        counts(&v)
    }

    /// Broder's *labelled* shingles: the i-th occurrence of a shingle becomes ⟨shingle, i⟩, so
    /// that the Jaccard coefficient of labelled sets is the multiset resemblance.
    pub fn labelled_set(&self, text: &str) -> Vec<u64> {
        let mut v = self.hashes(text);
        label_occurrences(&mut v);
        v
    }
}

/// Whether a token is a stopword of `language`, ASCII tokens regardless of case (no
/// allocation).
fn is_stopword_any_case(token: &str, language: Language) -> bool {
    let b = token.as_bytes();
    if !token.is_ascii() {
        return language != Language::En && is_stopword_in(token, Language::Zh);
    }
    if b.len() > 10 {
        return false;
    }
    let mut buf = [0u8; 10];
    for (d, s) in buf.iter_mut().zip(b) {
        *d = s.to_ascii_lowercase();
    }
    std::str::from_utf8(&buf[..b.len()]).is_ok_and(crate::text::is_stopword)
}

/// Run-length counts of a sorted slice.
pub fn counts(sorted: &[u64]) -> Vec<(u64, u32)> {
    let mut out: Vec<(u64, u32)> = Vec::new();
    for &h in sorted {
        match out.last_mut() {
            Some((last, c)) if *last == h => *c += 1,
            _ => out.push((h, 1)),
        }
    }
    out
}

/// Replaces each repeat of a hash by a hash of ⟨value, occurrence⟩ and returns the sorted set.
pub fn label_occurrences(v: &mut Vec<u64>) {
    v.sort_unstable();
    let mut run_start = 0;
    for i in 0..v.len() {
        if i > 0 && v[i] != v[run_start] {
            run_start = i;
        }
        let label = (i - run_start) as u64;
        if label > 0 {
            v[i] = mix64(v[run_start] ^ label.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        }
    }
    v.sort_unstable();
    v.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(k: usize) -> Shingler {
        FeatureParams::words(k).shingler(1)
    }

    #[test]
    fn word_shingle_counts() {
        let s = word(3);
        assert_eq!(s.hashes("a b c d e").len(), 3);
        assert_eq!(s.set("a b a b a b").len(), 2); // "a b a", "b a b"
        // The hash of a shingle does not depend on the text around it.
        let x = s.hashes("x y z");
        assert!(s.hashes("q x y z q").contains(&x[0]));
    }

    /// Oracle: each token hashed whole by `hash::hash_token` (any length: tokens of up to 16
    /// bytes are read in place as two words, longer ones hashed apart), then shingled by the
    /// direct formula. Tokens of 1 to 40 bytes, around the 16-byte edge, both tokenizers.
    #[test]
    fn word_shingles_hash_every_token_whole() {
        let mut rng = crate::hash::SplitMix64::new(5);
        let letters = "abcdefghijklmnopqrstuvwxyzabcdefghijklmn";
        let text: String = (0..300)
            .map(|_| &letters[..1 + rng.below(40) as usize])
            .collect::<Vec<_>>()
            .join(" ");
        assert!(text.split(' ').any(|t| t.len() > 16) && text.split(' ').any(|t| t.len() == 16));
        use crate::text::Tokenizer;
        for tokenizer in [Tokenizer::Unicode, Tokenizer::Whitespace] {
            let mut params = FeatureParams::words(3);
            params.words.tokenizer = tokenizer;
            let s = params.shingler(1);
            let tokens: Vec<u64> = tokenizer
                .tokens(&text)
                .iter()
                .map(|t| crate::hash::hash_token(t.as_bytes(), s.seed))
                .collect();
            let mut want = Vec::new();
            word_shingles(&tokens, 3, s.seed, &mut want);
            assert_eq!(s.hashes(&text), want, "{tokenizer:?}");
        }
    }

    /// Chinese shingles of `cjk_k` characters, English ones of `k` words, in one page; the
    /// English part's shingles are those of the English text alone.
    #[test]
    fn cjk_k_applies_to_shingles_that_start_on_han() {
        let p = FeatureParams {
            cjk_k: Some(3),
            ..FeatureParams::words(5)
        };
        let s = p.shingler(1);
        assert_eq!(s.hashes("天地玄黃宇宙洪荒").len(), 6); // 8 characters, windows of 3
        assert_eq!(s.hashes("天地玄").len(), 1);
        assert_eq!(s.hashes("天地").len(), 1); // shorter than any window: one shingle
        let english = "one two three four five six seven";
        let mixed = format!("{english} 天地玄黃");
        let english_only = s.set(english);
        let both = s.set(&mixed);
        assert!(english_only.iter().all(|h| both.contains(h)));
        // Windows from "three" on reach into the Chinese; "天地" and "地玄" are too close to the
        // end for 3 characters: 3 English-only + 4 mixed-from-English + 2 Chinese.
        assert_eq!(s.hashes(&mixed).len(), 3 + 4 + 2);
        let none = FeatureParams::words(5).shingler(1);
        assert_eq!(none.hashes("天地玄黃宇宙洪荒").len(), 4);
        assert!(
            FeatureParams {
                cjk_k: Some(0),
                ..p
            }
            .validate("x")
            .is_err()
        );
    }

    #[test]
    fn short_documents_get_one_whole_shingle() {
        let s = word(5);
        assert_eq!(s.hashes("just three words").len(), 1);
        assert_eq!(s.hashes("just three words"), s.hashes("Just  three words!"));
        assert_ne!(s.hashes("just three words"), s.hashes("two words"));
        assert!(s.hashes("").is_empty());
        assert!(s.hashes(" ... ").is_empty());
        let c = FeatureParams::chars(9).shingler(1);
        assert_eq!(c.hashes("short").len(), 1);
        assert!(c.hashes("").is_empty());
    }

    #[test]
    fn char_shingles_ascii_and_unicode_agree() {
        let c = FeatureParams::chars(3).shingler(9);
        let ascii = c.hashes("abcabc"); // abc, bca, cab, abc
        assert_eq!(ascii.len(), 4);
        assert_eq!(ascii[0], ascii[3]);
        // The non-ASCII path hashes the same window bytes the same way.
        let unicode = c.hashes("éabc"); // éab, abc
        assert_eq!(unicode.len(), 2);
        assert_eq!(unicode[1], ascii[0]);
    }

    #[test]
    fn char_shingles_count_characters_not_bytes() {
        let c = FeatureParams::chars(2).shingler(9);
        assert_eq!(c.hashes("éèà").len(), 2);
        assert_eq!(c.set("éé éé").len(), 3); // "éé", "é ", " é"
    }

    #[test]
    fn stopword_anchored_shingles() {
        let p = FeatureParams {
            shingle: ShingleKind::Stopword,
            k: 3,
            ..FeatureParams::default()
        };
        let s = p.shingler(3);
        // MMDS §3.2.4: "A spokesperson for the Sudzo Corporation revealed today that studies
        // have shown it is good for people to buy Sudzo products." The anchored shingles
        // include "A spokesperson for", "for the Sudzo", "the Sudzo Corporation", …
        let text = "A spokesperson for the Sudzo Corporation revealed today that studies have \
                    shown it is good for people to buy Sudzo products.";
        let hashes = s.hashes(text);
        for expected in [
            "a spokesperson for",
            "for the sudzo",
            "the sudzo corporation",
            "that studies have",
        ] {
            let h = hash_sequence(3 ^ 0x5709, w3_tokens(expected));
            assert!(hashes.contains(&h), "{expected}");
        }
        // Stopwords: a, for, the, that, have, it, is, for, to → 9 anchors.
        assert_eq!(hashes.len(), 9);
        // Navigation without stopwords has no anchored shingle.
        assert!(s.hashes("Home News Sports Weather Login").is_empty());
    }

    fn w3_tokens(s: &str) -> impl Iterator<Item = u64> + '_ {
        s.split(' ')
            .map(|t| crate::hash::hash_token(t.as_bytes(), 3))
    }

    #[test]
    fn labelled_set_counts_repeats() {
        let s = word(1);
        // "a rose is a rose is a rose": a×3, rose×3, is×2 → 8 labelled shingles.
        assert_eq!(s.labelled_set("a rose is a rose is a rose").len(), 8);
        assert_eq!(s.set("a rose is a rose is a rose").len(), 3);
    }

    #[test]
    fn validation() {
        assert!(FeatureParams::words(0).validate("x").is_err());
        assert!(FeatureParams::words(65).validate("x").is_err());
        assert!(FeatureParams::words(5).validate("x").is_ok());
    }
}
