//! Spot extraction (Theobald et al. 2008, §3; the module docs of `spotsigs`): each antecedent
//! and the chain of non-stopwords after it, and the normalized idf (§3.2) that
//! `spot_signatures` filters spots by.

use super::params::{CHINESE_ANTECEDENTS, ENGLISH_ANTECEDENTS, SpotSigsParams};
use crate::features::Scratch;
use crate::features::statistics::STATISTICS_SEED;
use crate::hash::{hash_bytes, hash_sequence};
use crate::text::{Language, Normalization, WordParams, is_stopword_in};

fn word_hash(w: &str) -> u64 {
    hash_bytes(w.as_bytes(), STATISTICS_SEED)
}

pub(super) fn hash_list(list: &str) -> Vec<u64> {
    let mut v: Vec<u64> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| word_hash(&s.to_lowercase()))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A token's role in spot extraction.
const CONTENT: u8 = 0;

const ANTECEDENT: u8 = 1;

const STOPWORD: u8 = 2;

/// Extracts spots: the antecedent lists resolved once.
#[derive(Debug, Clone)]
pub(super) struct Spotter {
    english: Vec<u64>,
    chinese: Vec<u64>,
    chain: usize,
    distance: usize,
    normalization: Normalization,
    words: WordParams,
}

impl Spotter {
    pub(super) fn new(p: &SpotSigsParams) -> Self {
        let (english, chinese) = if p.antecedents.trim() == "default" {
            (
                hash_list(ENGLISH_ANTECEDENTS),
                hash_list(CHINESE_ANTECEDENTS),
            )
        } else {
            let custom = hash_list(&p.antecedents);
            (custom.clone(), custom)
        };
        Spotter {
            english,
            chinese,
            chain: p.chain,
            distance: p.distance,
            normalization: p.normalization.clone(),
            words: p.words,
        }
    }

    /// Calls `emit(antecedent token, chain tokens)` for every spot of `text` in document
    /// order; tokens are indices into the word list, which is handed over too.
    fn for_each_spot<'t>(
        &self,
        text: &'t str,
        mut emit: impl FnMut(&[&'t str], usize, &[usize]),
    ) -> usize {
        let setting = self.words.language;
        let mut words: Vec<&str> = Vec::new();
        let mut kinds: Vec<u8> = Vec::new();
        self.words.for_each_word(text, |w| {
            // Each word by the lists of its own script (`Language::of_token`).
            let language = setting.of_token(w);
            let antecedents = if language == Language::Zh {
                &self.chinese
            } else {
                &self.english
            };
            words.push(w);
            kinds.push(if antecedents.binary_search(&word_hash(w)).is_ok() {
                ANTECEDENT
            } else if is_stopword_in(w, language) {
                STOPWORD
            } else {
                CONTENT
            });
        });
        let content: Vec<usize> = (0..words.len()).filter(|&i| kinds[i] == CONTENT).collect();
        let mut next = 0; // first content position after the current antecedent
        let mut chain = Vec::with_capacity(self.chain);
        let mut spots = 0;
        for i in (0..words.len()).filter(|&i| kinds[i] == ANTECEDENT) {
            while next < content.len() && content[next] <= i {
                next += 1;
            }
            chain.clear();
            chain.extend(
                (1..=self.chain)
                    .map(|j| next + j * self.distance - 1)
                    .take_while(|&c| c < content.len())
                    .map(|c| content[c]),
            );
            if !chain.is_empty() {
                emit(&words, i, &chain);
                spots += 1;
            }
        }
        spots
    }

    /// Appends the hashes of `text`'s spots (document order, repeats kept).
    pub(super) fn spots_into(&self, text: &str, scratch: &mut Scratch, out: &mut Vec<u64>) {
        let buf = &mut scratch.text;
        self.normalization.apply_into(text, buf);
        self.for_each_spot(buf, |words, a, chain| {
            out.push(hash_sequence(
                word_hash(words[a]),
                chain.iter().map(|&c| word_hash(words[c])),
            ))
        });
    }

    /// The spots of `text` written out as `antecedent:word:word` (for people and tests).
    fn spot_strings(&self, text: &str) -> Vec<String> {
        let norm = self.normalization.apply(text);
        let mut out = Vec::new();
        self.for_each_spot(&norm, |words, a, chain| {
            let mut s = words[a].to_string();
            for &c in chain {
                s.push(':');
                s.push_str(words[c]);
            }
            out.push(s);
        });
        out
    }
}

/// The spots of `text` under `p`, as `antecedent:word…` strings in document order.
pub fn spot_strings(p: &SpotSigsParams, text: &str) -> Vec<String> {
    Spotter::new(p).spot_strings(text)
}

/// Normalized spot idf as the released code computes it: ln((N + 1) / df) / ln(N + 1); a spot
/// unseen in a reference table counts as seen once.
pub(super) fn nidf(docs: usize, df: u32) -> f64 {
    let n1 = docs as f64 + 1.0;
    (n1 / df.max(1) as f64).ln() / n1.ln()
}

/// Whether the idf band keeps every spot whatever the statistics say: both a spot of one
/// document (nidf 1) and a spot of all N documents.
pub(super) fn band_keeps_everything(p: &SpotSigsParams, docs: usize) -> bool {
    p.max_idf >= 1.0 - 1e-12 && (docs == 0 || nidf(docs, docs as u32) >= p.min_idf - 1e-12)
}
