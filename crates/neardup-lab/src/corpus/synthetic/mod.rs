//! The embedded default corpus: English-like documents generated from a seed, so that
//! `neardup reproduce` and the tests work with no data at all.
//!
//! Documents are built from word lists and a small sentence grammar written here. Function
//! words come from the grammar's templates, so they have the frequencies of English prose
//! (about 45 % of tokens are stopwords), which SpotSigs' antecedents and stopword-anchored
//! shingles need. Each document has a topic — a handful of common nouns and verbs, ten
//! content words drawn with Zipf(1) frequencies from a pool of 20,000 invented words, and
//! invented proper names it favours — and a quarter of its nouns are fresh draws from the
//! pool, so documents differ in vocabulary the way news articles do, each has dozens of
//! mid-frequency terms, and the vocabulary has a long tail at every corpus size (without it, algorithms keyed on
//! mid-frequency terms, such as I-Match and SpotSigs, see a closed vocabulary and collapse on
//! large corpora). Documents have 2–5 paragraphs of 3–6 sentences, separated by blank lines.
//!
//! The corpus is unlabelled: near-duplicates come from controlled edit injection. Output
//! depends only on (docs, seed): the generator uses SplitMix64, not `rand`.

use neardup::hash::SplitMix64;

mod lexicon;

use lexicon::*;

use super::{Corpus, CorpusBuilder};
use crate::error::Result;

/// Parameters of the embedded corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntheticSpec {
    /// Number of documents.
    pub docs: usize,
    /// Seed.
    pub seed: u64,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        SyntheticSpec {
            docs: 1000,
            seed: 20_261_121,
        }
    }
}

/// A shared pool of invented content words with Zipf(1) frequencies: the long tail that makes
/// the vocabulary grow with the corpus (Heaps' law) and gives every term frequency band
/// members, as real text does. Built from a fixed seed, so it is the same for every corpus.
struct Pool {
    words: Vec<String>,
    /// Cumulative Zipf weights.
    cumulative: Vec<f64>,
}

/// Invented words in the pool.
const POOL_WORDS: usize = 20_000;

impl Pool {
    fn new() -> Pool {
        let mut rng = SplitMix64::new(0x0d0c_5eed);
        let mut seen = std::collections::HashSet::new();
        let mut words = Vec::with_capacity(POOL_WORDS);
        while words.len() < POOL_WORDS {
            let w = invented_name(&mut rng).to_lowercase();
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let mut acc = 0.0;
        let cumulative = (1..=POOL_WORDS)
            .map(|r| {
                acc += 1.0 / r as f64;
                acc
            })
            .collect();
        Pool { words, cumulative }
    }

    fn draw(&self, rng: &mut SplitMix64) -> String {
        let u = rng.next_f64() * self.cumulative[POOL_WORDS - 1];
        let i = self
            .cumulative
            .partition_point(|&c| c < u)
            .min(POOL_WORDS - 1);
        self.words[i].clone()
    }
}

struct Topic<'p> {
    pool: &'p Pool,
    nouns: Vec<String>,
    verbs: Vec<(&'static str, &'static str)>,
    names: Vec<String>,
    place: String,
}

fn pick<T: Copy>(rng: &mut SplitMix64, items: &[T]) -> T {
    items[rng.below(items.len() as u64) as usize]
}

fn name(rng: &mut SplitMix64, names: &[String]) -> String {
    names[rng.below(names.len() as u64) as usize].clone()
}

fn invented_name(rng: &mut SplitMix64) -> String {
    let syllables = 2 + rng.below(2);
    let mut s = String::new();
    for _ in 0..syllables {
        s.push_str(pick(rng, ONSETS));
        s.push_str(pick(rng, VOWELS));
        s.push_str(pick(rng, CODAS));
    }
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => s,
    }
}

impl<'p> Topic<'p> {
    fn new(rng: &mut SplitMix64, pool: &'p Pool) -> Topic<'p> {
        Topic {
            pool,
            nouns: (0..16)
                .map(|i| {
                    if i < 6 {
                        pick(rng, NOUNS).to_string()
                    } else {
                        pool.draw(rng)
                    }
                })
                .collect(),
            verbs: (0..8).map(|_| pick(rng, VERBS)).collect(),
            names: (0..3).map(|_| invented_name(rng)).collect(),
            place: invented_name(rng),
        }
    }

    /// Half the nouns are the topic's, a quarter common nouns, a quarter fresh draws from
    /// the pool: a document has dozens of distinct mid-frequency terms, as real prose does.
    fn noun(&self, rng: &mut SplitMix64) -> String {
        match rng.below(4) {
            0 | 1 => self.nouns[rng.below(self.nouns.len() as u64) as usize].clone(),
            2 => pick(rng, NOUNS).to_string(),
            _ => self.pool.draw(rng),
        }
    }

    fn verb(&self, rng: &mut SplitMix64) -> (&'static str, &'static str) {
        if rng.below(3) > 0 {
            pick(rng, &self.verbs)
        } else {
            pick(rng, VERBS)
        }
    }

    /// A noun phrase: determiner, optional adjective, noun.
    fn noun_phrase(&self, rng: &mut SplitMix64, out: &mut Vec<String>) {
        out.push(pick(rng, DETERMINERS).to_string());
        if rng.below(3) == 0 {
            out.push(pick(rng, ADJECTIVES).to_string());
        }
        out.push(self.noun(rng));
    }

    fn sentence(&self, rng: &mut SplitMix64) -> String {
        let mut w: Vec<String> = Vec::with_capacity(16);
        match rng.below(7) {
            0 => self.transitive(rng, &mut w),
            1 => self.reported(rng, &mut w),
            2 => self.circumstance(rng, &mut w),
            3 => self.contrast(rng, &mut w),
            4 => self.pair(rng, &mut w),
            5 => self.existential(rng, &mut w),
            _ => self.quantified(rng, &mut w),
        }
        capitalized(&w, rng)
    }

    /// NP verbed NP prep NP.
    fn transitive(&self, rng: &mut SplitMix64, w: &mut Vec<String>) {
        self.noun_phrase(rng, w);
        w.push(self.verb(rng).1.to_string());
        self.noun_phrase(rng, w);
        w.push(pick(rng, PREPOSITIONS).to_string());
        self.noun_phrase(rng, w);
    }

    /// Name said that NP aux verb NP [adverb].
    fn reported(&self, rng: &mut SplitMix64, w: &mut Vec<String>) {
        w.push(name(rng, &self.names));
        w.push("said".into());
        w.push("that".into());
        self.noun_phrase(rng, w);
        w.push(pick(rng, AUXILIARIES).to_string());
        w.push(self.verb(rng).0.to_string());
        self.noun_phrase(rng, w);
        if rng.below(2) == 0 {
            w.push(pick(rng, ADVERBS).to_string());
        }
    }

    /// Prep NP of place, pronoun was adj and adverb verbed.
    fn circumstance(&self, rng: &mut SplitMix64, w: &mut Vec<String>) {
        w.push(pick(rng, PREPOSITIONS).to_string());
        self.noun_phrase(rng, w);
        w.push("of".into());
        w.push(self.place.clone());
        w.push(",".into());
        w.push(pick(rng, PRONOUNS).to_string());
        w.push(["was", "is", "had been"][rng.below(3) as usize].to_string());
        w.push(pick(rng, ADJECTIVES).to_string());
        w.push("and".into());
        w.push(pick(rng, ADVERBS).to_string());
        w.push(self.verb(rng).1.to_string());
    }

    /// NP of the noun was adj, but pronoun verbed it prep NP.
    fn contrast(&self, rng: &mut SplitMix64, w: &mut Vec<String>) {
        self.noun_phrase(rng, w);
        w.push("of".into());
        w.push("the".into());
        w.push(self.noun(rng));
        w.push(["was", "is", "has been", "will be"][rng.below(4) as usize].to_string());
        w.push(pick(rng, ADJECTIVES).to_string());
        w.push(",".into());
        w.push("but".into());
        w.push(pick(rng, PRONOUNS).to_string());
        w.push(self.verb(rng).1.to_string());
        w.push("it".into());
        w.push(pick(rng, PREPOSITIONS).to_string());
        self.noun_phrase(rng, w);
    }

    /// Name and Name have verbed NP for a while.
    fn pair(&self, rng: &mut SplitMix64, w: &mut Vec<String>) {
        w.push(name(rng, &self.names));
        w.push("and".into());
        w.push(name(rng, &self.names));
        w.push(["have", "had", "would have"][rng.below(3) as usize].to_string());
        w.push(self.verb(rng).1.to_string());
        self.noun_phrase(rng, w);
        w.push("for".into());
        w.push(
            ["years", "weeks", "a long time", "the first time"][rng.below(4) as usize].to_string(),
        );
    }

    /// There was a adj noun prep NP when NP verbed.
    fn existential(&self, rng: &mut SplitMix64, w: &mut Vec<String>) {
        w.push("There".into());
        w.push(["was", "is", "will be"][rng.below(3) as usize].to_string());
        w.push("a".into());
        w.push(pick(rng, ADJECTIVES).to_string());
        w.push(self.noun(rng));
        w.push(pick(rng, PREPOSITIONS).to_string());
        self.noun_phrase(rng, w);
        w.push("when".into());
        self.noun_phrase(rng, w);
        w.push(self.verb(rng).1.to_string());
    }

    /// Many nouns in place aux not verb the noun until the noun is verbed.
    fn quantified(&self, rng: &mut SplitMix64, w: &mut Vec<String>) {
        w.push(["Many", "Some", "Few", "Most"][rng.below(4) as usize].to_string());
        w.push(format!("{}s", self.noun(rng)));
        w.push(["in", "near", "around"][rng.below(3) as usize].to_string());
        w.push(self.place.clone());
        w.push(pick(rng, AUXILIARIES).to_string());
        w.push("not".into());
        w.push(self.verb(rng).0.to_string());
        w.push("the".into());
        w.push(self.noun(rng));
        w.push("until".into());
        w.push("the".into());
        w.push(self.noun(rng));
        w.push("is".into());
        w.push(self.verb(rng).1.to_string());
    }
}

/// One document of `rng`'s topic.
fn document(rng: &mut SplitMix64, pool: &Pool) -> String {
    let topic = Topic::new(rng, pool);
    let paragraphs = 2 + rng.below(4);
    let mut text = String::new();
    for p in 0..paragraphs {
        if p > 0 {
            text.push_str("\n\n");
        }
        let sentences = 3 + rng.below(4);
        for s in 0..sentences {
            if s > 0 {
                text.push(' ');
            }
            text.push_str(&topic.sentence(rng));
        }
    }
    text
}

/// The generated texts, in order (document i depends only on (seed, i)).
pub fn texts(spec: SyntheticSpec) -> Vec<String> {
    use rayon::prelude::*;
    let pool = Pool::new();
    (0..spec.docs)
        .into_par_iter()
        .map(|i| {
            let mut rng = SplitMix64::new(neardup::hash::mix64(
                spec.seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            ));
            document(&mut rng, &pool)
        })
        .collect()
}

/// The embedded corpus as an unlabelled [`Corpus`] with ids `syn-000000`, … and the SHA-256
/// of its JSONL serialization.
pub fn generate(spec: SyntheticSpec) -> Result<Corpus> {
    use sha2::Digest;
    let path = std::path::Path::new("<embedded>");
    let mut builder = CorpusBuilder::new(path);
    let mut sha = sha2::Sha256::new();
    for (i, text) in texts(spec).into_iter().enumerate() {
        let id = format!("syn-{i:06}");
        let line = serde_json::json!({"id": id, "text": text});
        sha.update(line.to_string().as_bytes());
        sha.update(b"\n");
        builder.push(i + 1, id, &text, None)?;
    }
    builder.finish(
        "default".into(),
        format!(
            "embedded synthetic English (docs={}, seed={})",
            spec.docs, spec.seed
        ),
        neardup_dedup::input::checksummed::hex(&sha.finalize()),
    )
}

/// The words joined into a sentence: a space before every word but a comma, the first letter
/// upper-cased, and a full stop (one in twelve an exclamation mark).
fn capitalized(w: &[String], rng: &mut SplitMix64) -> String {
    let mut s = String::new();
    for (i, word) in w.iter().enumerate() {
        if i > 0 && word != "," {
            s.push(' ');
        }
        if i == 0 {
            let mut c = word.chars();
            if let Some(f) = c.next() {
                s.extend(f.to_uppercase());
                s.push_str(c.as_str());
            }
        } else {
            s.push_str(word);
        }
    }
    s.push(if rng.below(12) == 0 { '!' } else { '.' });
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::text::{Tokenizer, is_stopword};

    #[test]
    fn deterministic_and_distinct() {
        let spec = SyntheticSpec { docs: 50, seed: 1 };
        let a = texts(spec);
        assert_eq!(a, texts(spec));
        let mut unique = a.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 50);
        assert_ne!(a, texts(SyntheticSpec { docs: 50, seed: 2 }));
        // Prefix property: document i does not depend on the corpus size.
        assert_eq!(texts(SyntheticSpec { docs: 10, seed: 1 })[..], a[..10]);
    }

    #[test]
    fn looks_like_english_prose() {
        let docs = texts(SyntheticSpec { docs: 200, seed: 3 });
        let (mut tokens, mut stop) = (0usize, 0usize);
        for d in &docs {
            Tokenizer::Unicode.for_each_token(d, |t| {
                tokens += 1;
                stop += is_stopword(&t.to_lowercase()) as usize;
            });
            assert!(d.contains("\n\n"), "paragraphs");
        }
        let share = stop as f64 / tokens as f64;
        let mean_len = tokens as f64 / docs.len() as f64;
        println!("stopword share {share:.3}, mean tokens {mean_len:.0}");
        assert!((0.3..0.6).contains(&share), "stopword share {share}");
        assert!((100.0..600.0).contains(&mean_len), "mean length {mean_len}");
    }
}
