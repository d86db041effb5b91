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
    overlap_jaccard(intersection_size(a, b), a.len(), b.len())
}

/// |A ∩ B| of two sorted, repeat-free slices (a linear merge).
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    overlap_reaching(a, b, 0).expect("every overlap reaches 0")
}

/// `Some(jaccard(a, b))` when it reaches `tau`, else `None`, usually without reading both
/// slices to the end: a pair reaches τ only with an overlap of at least
/// ⌈τ·(|A| + |B|)/(1 + τ)⌉ (J = n/(|A| + |B| − n); [`min_overlap`]), and the merge stops as
/// soon as the elements left cannot make it up (the verification step of PPJoin, Xiao et al.,
/// WWW 2008, §3). Candidates of a prefix-filtered join mostly share a few rare elements and
/// little else, so most stop within the first tenth of the shorter set. The value returned is
/// the one [`jaccard`] computes.
pub fn jaccard_at_least(a: &[u64], b: &[u64], tau: f64) -> Option<f64> {
    jaccard_reaching(a, b, min_overlap(a.len(), b.len(), tau)?)
}

/// [`jaccard_at_least`] for a caller that already has the overlap τ needs (`need`, from
/// [`min_overlap`]): the Jaccard is at least τ exactly when the overlap is at least `need`.
pub fn jaccard_reaching(a: &[u64], b: &[u64], need: usize) -> Option<f64> {
    overlap_reaching(a, b, need).map(|n| overlap_jaccard(n, a.len(), b.len()))
}

/// |A ∩ B| when it is at least `need`, by a linear merge that stops once the elements left
/// cannot make it up (`need = 0` never stops: the comparison folds away when inlined).
#[inline]
fn overlap_reaching(a: &[u64], b: &[u64], need: usize) -> Option<usize> {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if n + (a.len() - i).min(b.len() - j) < need {
            return None;
        }
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
    (n >= need).then_some(n)
}

/// The least overlap n at which sets of sizes `la` and `lb` reach Jaccard `tau`, by the same
/// floating-point expression [`jaccard`] evaluates (so that no pair on the boundary is
/// judged differently); `None` when no overlap reaches it.
pub fn min_overlap(la: usize, lb: usize, tau: f64) -> Option<usize> {
    let most = la.min(lb);
    let reaches = |n: usize| overlap_jaccard(n, la, lb) >= tau;
    if !reaches(most) {
        return None;
    }
    let mut n = ((tau * (la + lb) as f64 / (1.0 + tau)).ceil() as usize).min(most);
    while n > 0 && reaches(n - 1) {
        n -= 1;
    }
    while !reaches(n) {
        n += 1;
    }
    Some(n)
}

/// Jaccard of sets of sizes `la` and `lb` that share `n` elements.
#[inline]
fn overlap_jaccard(n: usize, la: usize, lb: usize) -> f64 {
    let union = la + lb - n;
    if union == 0 {
        0.0
    } else {
        n as f64 / union as f64
    }
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
    /// (reports/published/SOURCES.md): resemblance 60 %, 50 %, 42.86 % (3/7) for w = 1, 2, 3 with
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

    proptest::proptest! {
        // Oracle: the early-stopping merge gives jaccard's value exactly when it reaches τ,
        // and nothing when it does not, including on the boundary (τ drawn from the ratios
        // the sizes can make).
        #[test]
        fn jaccard_at_least_equals_jaccard(
            a in proptest::collection::btree_set(0u64..40, 0..25),
            b in proptest::collection::btree_set(0u64..40, 0..25),
            num in 0usize..25,
            den in 1usize..50,
            use_ratio: bool,
            tau_free in 0.01f64..=1.0,
        ) {
            let (a, b): (Vec<u64>, Vec<u64>) = (a.into_iter().collect(), b.into_iter().collect());
            let tau = if use_ratio { (num.min(den) as f64 / den as f64).max(0.01) } else { tau_free };
            let exact = jaccard(&a, &b);
            proptest::prop_assert_eq!(jaccard_at_least(&a, &b, tau), (exact >= tau).then_some(exact));
        }
    }

    #[test]
    fn jaccard_at_least_boundaries() {
        // J = 3/5 = 0.6 exactly: reached at 0.6, not above.
        let (a, b) = ([1, 2, 3, 4], [1, 2, 3, 5]);
        assert_eq!(jaccard_at_least(&a, &b, 0.6), Some(0.6));
        assert_eq!(jaccard_at_least(&a, &b, 0.6000001), None);
        assert_eq!(jaccard_at_least(&[], &[], 0.1), None);
        assert_eq!(jaccard_at_least(&[1], &[2], 1.0), None);
        assert_eq!(jaccard_at_least(&[7], &[7], 1.0), Some(1.0));
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
