//! An English stopword list, written for neardup.
//!
//! Stopword-anchored shingles (MMDS §3.2.4) and SpotSigs' antecedents need the function words
//! that news prose is full of and navigation boilerplate lacks: articles, pronouns, auxiliaries,
//! prepositions, conjunctions and a few frequent adverbs. The list is kept sorted so that
//! membership is a binary search; a unit test enforces the order.

/// The stopwords, lower case, sorted.
pub const ENGLISH: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Whether `word` (already lower-cased) is an English stopword.
#[inline]
pub fn is_stopword(word: &str) -> bool {
    // Quick reject on length: the longest stopword has 10 bytes.
    word.len() <= 10 && ENGLISH.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_sorted_unique_and_lowercase() {
        assert!(ENGLISH.windows(2).all(|w| w[0] < w[1]));
        assert!(
            ENGLISH
                .iter()
                .all(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        );
        assert!(ENGLISH.iter().all(|w| w.len() <= 10));
    }

    #[test]
    fn membership() {
        for w in ["the", "a", "is", "would", "yourselves"] {
            assert!(is_stopword(w), "{w}");
        }
        for w in ["rose", "The", "", "neardup"] {
            assert!(!is_stopword(w), "{w}");
        }
    }
}
