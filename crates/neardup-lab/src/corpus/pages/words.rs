//! Word precision and recall of an extracted text against the article a page carries: the
//! ScrapingHub article-extraction benchmark's measure (bags of words; mean precision and
//! recall per page, F1 of the means). Han characters count one unit each, so Chinese pages
//! are scored by characters, as Chinese extraction benchmarks score them.

use std::collections::HashMap;

/// The multiset of `text`'s words, lowercased (Han characters one by one).
pub fn bag(text: &str) -> HashMap<String, u32> {
    let mut bag = HashMap::new();
    let mut word = String::new();
    let flush = |word: &mut String, bag: &mut HashMap<String, u32>| {
        if !word.is_empty() {
            *bag.entry(std::mem::take(word)).or_default() += 1;
        }
    };
    for c in text.chars() {
        if is_han(c) {
            flush(&mut word, &mut bag);
            word.push(c);
            flush(&mut word, &mut bag);
        } else if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word, &mut bag);
        }
    }
    flush(&mut word, &mut bag);
    bag
}

/// Whether `c` is a Han ideograph (the CJK blocks Chinese text uses).
fn is_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Word precision and recall of `got` against `gold` (multisets); an empty side scores 0
/// (1 when both are empty).
pub fn precision_recall(got: &str, gold: &str) -> (f64, f64) {
    let (got, gold) = (bag(got), bag(gold));
    let total = |b: &HashMap<String, u32>| b.values().map(|&n| n as u64).sum::<u64>();
    let (n_got, n_gold) = (total(&got), total(&gold));
    if n_got == 0 && n_gold == 0 {
        return (1.0, 1.0);
    }
    let common: u64 = got
        .iter()
        .map(|(w, &n)| n.min(gold.get(w).copied().unwrap_or(0)) as u64)
        .sum();
    let ratio = |n: u64| {
        if n == 0 {
            0.0
        } else {
            common as f64 / n as f64
        }
    };
    (ratio(n_got), ratio(n_gold))
}

/// The harmonic mean of precision and recall (0 when both are 0).
pub fn f1(precision: f64, recall: f64) -> f64 {
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_as_multisets_on_hand_counted_texts() {
        // got: a a b c (4 words), gold: a b b d (4): common a, b = 2.
        assert_eq!(precision_recall("A a, b c", "a b B d"), (0.5, 0.5));
        assert_eq!(precision_recall("same words", "Same  words"), (1.0, 1.0));
        assert_eq!(precision_recall("", "gold"), (0.0, 0.0));
    }

    #[test]
    fn han_characters_count_one_by_one() {
        // 起初神 = 3 units; gold 起初 + "god" = 3 units; common 起, 初 = 2.
        assert_eq!(bag("起初神").len(), 3);
        let (p, r) = precision_recall("起初神", "起初 God");
        assert!((p - 2.0 / 3.0).abs() < 1e-12 && (r - 2.0 / 3.0).abs() < 1e-12);
    }
}
