//! Stopword lists, written for neardup: English and Chinese.
//!
//! Stopword-anchored shingles (MMDS §3.2.4), SpotSigs' chains and Tianwang's keywords need
//! the function words that prose is full of and navigation boilerplate lacks: articles,
//! pronouns, auxiliaries, prepositions, conjunctions and a few frequent adverbs.
//!
//! * [`ENGLISH`] is kept sorted so that membership is a binary search (a test enforces it).
//! * [`CHINESE`] follows the word classes of Chinese grammar that carry no content — the
//!   structural, aspect and modal particles (的 了 着 吗 …, and the classical 之 乎 矣 焉
//!   哉 兮 of wenli texts), personal and demonstrative pronouns, the copula and 有, the
//!   coverbs used as prepositions (在 从 对 把 被 给 …), conjunctions, negations and frequent
//!   adverbs, modal verbs, 一/个 and the localizers 上 下 中 里 — in simplified and
//!   traditional forms and their common variants (為/爲, 裡/裏, 著/着, 即/卽), since the
//!   segmenter (jieba) returns whichever the text uses. It was checked against the words jieba
//!   finds most often in `bible-zh` (three translations, 1.62 million words): every one of the
//!   60 most frequent words that is not a name or a content word (以色列, 耶和華, 兒子, 神, 人,
//!   說 …) is on the list. Source: compiled for neardup by these classes (the classes follow
//!   Chao, *A Grammar of Spoken Chinese*, 1968, and Li & Thompson, *Mandarin Chinese: A
//!   Functional Reference Grammar*, 1981); not copied from a published list.

use std::sync::OnceLock;

use super::language::Language;

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

/// Chinese function words, grouped by class (see the module docs); simplified, traditional
/// and variant forms.
pub const CHINESE: &[&str] = &[
    // structural, aspect and modal particles (modern and classical)
    "的", "地", "得", "之", "所", "了", "着", "著", "过", "過", "吗", "嗎", "呢", "吧", "啊", "呀",
    "么", "麼", "嘛", "哦", "矣", "乎", "哉", "焉", "耳", "兮", "歟", "欤", "也", "者",
    // pronouns and demonstratives
    "我", "你", "您", "他", "她", "它", "牠", "祂", "衪", "我们", "我們", "你们", "你們", "他们",
    "他們", "她们", "她們", "它们", "它們", "咱们", "咱們", "自己", "这", "這", "那", "这个",
    "這個", "那个", "那個", "这些", "這些", "那些", "这样", "這樣", "那样", "那樣", "此", "其",
    "彼", "吾", "汝", "尔", "爾", "谁", "誰", "什么", "什麼", "甚么", "甚麼", "哪", "哪里", "哪裡",
    "怎么", "怎麼", "怎样", "怎樣", "如此", // copula and existential
    "是", "有", "为", "為", "爲", "乃", "即", "卽", "就是",
    // coverbs used as prepositions
    "在", "于", "於", "从", "從", "向", "往", "对", "對", "把", "被", "给", "給", "跟", "以", "由",
    "自", "将", "將", "至", "到", "比", "按", "按照", "关于", "關於", "除了", "直到", "为了",
    "為了", // conjunctions
    "和", "与", "與", "同", "及", "以及", "并", "並", "并且", "並且", "而", "而且", "但", "但是",
    "可是", "然而", "或", "或者", "因", "因为", "因為", "所以", "因此", "如果", "若", "虽然",
    "雖然", "于是", "於是", "则", "則", "且", "就", "便",
    // negation and frequent adverbs
    "不", "没", "沒", "没有", "沒有", "无", "無", "非", "未", "勿", "都", "又", "再", "才", "很",
    "太", "更", "最", "已", "已经", "已經", "还", "還", "曾", "亦", "皆", "仍", "却", "卻", "岂",
    "豈", "必", // modal verbs
    "会", "會", "能", "要", "可", "可以", "应", "應", "应该", "應該", "该", "該", "愿", "願",
    // numeral and classifiers
    "一", "个", "個", "一个", "一個", "些", "各", "每", // localizers
    "上", "下", "中", "里", "裡", "裏", "内", "內", "前", "后", "後",
];

/// Whether `word` (already lower-cased) is an English stopword.
#[inline]
pub fn is_stopword(word: &str) -> bool {
    // Quick reject on length: the longest stopword has 10 bytes.
    word.len() <= 10 && ENGLISH.binary_search(&word).is_ok()
}

/// [`CHINESE`] sorted by bytes, for binary search.
fn chinese_sorted() -> &'static [&'static str] {
    static SORTED: OnceLock<Vec<&'static str>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut v = CHINESE.to_vec();
        v.sort_unstable();
        v.dedup();
        v
    })
}

/// Whether `word` is a Chinese stopword.
#[inline]
pub fn is_chinese_stopword(word: &str) -> bool {
    // Quick reject: the longest entry has two characters (6 bytes).
    word.len() <= 6 && !word.is_ascii() && chinese_sorted().binary_search(&word).is_ok()
}

/// Whether `word` (lower-cased) is a stopword of `language` (`Auto` accepts both lists).
#[inline]
pub fn is_stopword_in(word: &str, language: Language) -> bool {
    match language {
        Language::En => is_stopword(word),
        Language::Zh => is_chinese_stopword(word) || is_stopword(word),
        Language::Auto => is_stopword(word) || is_chinese_stopword(word),
    }
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
    fn chinese_list_is_han_and_short() {
        for w in CHINESE {
            assert!(w.chars().all(super::super::language::is_han), "{w}");
            assert!(w.len() <= 6, "{w}");
        }
        for w in ["的", "這些", "為", "爲", "於", "们"] {
            let known = is_chinese_stopword(w);
            assert_eq!(known, w != "们", "{w}");
        }
        assert!(!is_chinese_stopword("耶和華") && !is_chinese_stopword("the"));
        // Chinese documents quote English function words too.
        assert!(is_stopword_in("the", Language::Zh) && !is_stopword_in("的", Language::En));
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
