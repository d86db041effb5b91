//! Exact similarities, the ground truth that estimators are judged against.
//!
//! * [`jaccard`] — |A ∩ B| / |A ∪ B| of two sets (Broder's *resemblance*);
//! * [`multiset_resemblance`] — Σ min(a_i, b_i) / Σ max(a_i, b_i) over counts, which equals the
//!   Jaccard coefficient of Broder's labelled shingles;
//! * [`cosine`] — cosine of term-frequency vectors (what SimHash and random projection
//!   estimate).
//!
//! Convention: when both inputs are empty the similarity is 0, not 1: two documents with no
//! features carry no evidence of being near-duplicates (see `features` on short documents).

/// Jaccard coefficient of two sorted, repeat-free slices.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let inter = intersection_size(a, b);
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

/// |A ∩ B| of two sorted, repeat-free slices (a linear merge).
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Multiset resemblance Σ min / Σ max of two (hash, count) lists sorted by hash.
pub fn multiset_resemblance(a: &[(u64, u32)], b: &[(u64, u32)]) -> f64 {
    let (mut num, mut den) = (0u64, 0u64);
    merge_counts(a, b, |x, y| {
        num += x.min(y) as u64;
        den += x.max(y) as u64;
    });
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// Cosine similarity of two term-frequency vectors given as (term hash, count) sorted by hash.
pub fn cosine(a: &[(u64, u32)], b: &[(u64, u32)]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    merge_counts(a, b, |x, y| {
        let (x, y) = (x as f64, y as f64);
        dot += x * y;
        na += x * x;
        nb += y * y;
    });
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// Calls `f(count_in_a, count_in_b)` for every key of either list (0 where absent).
fn merge_counts(a: &[(u64, u32)], b: &[(u64, u32)], mut f: impl FnMut(u32, u32)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let ka = a.get(i).map(|x| x.0);
        let kb = b.get(j).map(|x| x.0);
        match (ka, kb) {
            (Some(x), Some(y)) if x == y => {
                f(a[i].1, b[j].1);
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                f(a[i].1, 0);
                i += 1;
            }
            (Some(_), None) => {
                f(a[i].1, 0);
                i += 1;
            }
            _ => {
                f(0, b[j].1);
                j += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureParams, ShingleKind};
    use crate::text::Normalization;

    const A: &str = "a rose is a rose is a rose";
    const B: &str = "a rose is a flower which is a rose";

    /// Broder 1997, "On the resemblance and containment of documents", worked example
    /// (../shared/PUBLISHED.md): resemblance 60 %, 50 %, 42.86 % (3/7) for w = 1, 2, 3 with
    /// plain shingle sets; 70 %, 50 %, 30 % with labelled shingles (multisets).
    #[test]
    fn broder_rose_example() {
        let expected_set = [0.6, 0.5, 3.0 / 7.0];
        let expected_multiset = [0.7, 0.5, 0.3];
        for w in 1..=3 {
            let p = FeatureParams {
                shingle: ShingleKind::Word,
                k: w,
                normalization: Normalization::none(),
                ..FeatureParams::default()
            };
            let s = p.shingler(0);
            let set = jaccard(&s.set(A), &s.set(B));
            assert!((set - expected_set[w - 1]).abs() < 1e-12, "w={w}: {set}");
            let multi = multiset_resemblance(&s.multiset(A), &s.multiset(B));
            assert!(
                (multi - expected_multiset[w - 1]).abs() < 1e-12,
                "w={w}: {multi}"
            );
            let labelled = jaccard(&s.labelled_set(A), &s.labelled_set(B));
            assert!(
                (labelled - multi).abs() < 1e-12,
                "w={w}: labelled {labelled}"
            );
        }
    }

    #[test]
    fn jaccard_edge_cases() {
        assert_eq!(jaccard(&[], &[]), 0.0);
        assert_eq!(jaccard(&[1, 2], &[]), 0.0);
        assert_eq!(jaccard(&[1, 2], &[1, 2]), 1.0);
        assert_eq!(jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
    }

    #[test]
    fn cosine_values() {
        // (1,1,0)·(1,0,1) / (√2·√2) = 1/2
        let a = [(1, 1), (2, 1)];
        let b = [(1, 1), (3, 1)];
        assert!((cosine(&a, &b) - 0.5).abs() < 1e-12);
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-12);
        assert_eq!(cosine(&a, &[]), 0.0);
        // Scale invariance: (2,2) vs (1,1)
        assert!((cosine(&[(1, 2), (2, 2)], &a) - 1.0).abs() < 1e-12);
    }
}
