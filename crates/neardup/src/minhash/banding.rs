//! LSH banding math (MMDS §3.4): the S-curve, its threshold, and a tuner for (b, r).
//!
//! A signature of `b·r` min-hashes is cut into `b` bands of `r` rows; two documents become
//! candidates when all rows of at least one band agree. For Jaccard similarity s,
//! P(candidate) = 1 − (1 − s^r)^b, a sigmoid whose steepest point lies near (1/b)^(1/r).
//!
//! # Tuning (datasketch's `_optimal_param`)
//! For a target threshold t, the false-positive area is ∫₀ᵗ P(s) ds (dissimilar pairs that
//! become candidates) and the false-negative area ∫ₜ¹ (1 − P(s)) ds (similar pairs that do
//! not). The tuner scans every (b, r) with b·r ≤ num_perm, in order of b then r, and keeps the
//! first minimum of w·FP + (1 − w)·FN. This treats every similarity as equally likely; weigh
//! false negatives more (w < 0.5) when missing a duplicate costs more than verifying a
//! candidate. Integrals use adaptive Simpson quadrature to 1e-10.

use crate::error::{Error, Result};

/// Probability that a pair with Jaccard similarity `s` becomes a candidate under `bands` ×
/// `rows` banding: 1 − (1 − s^r)^b.
pub fn candidate_probability(s: f64, bands: usize, rows: usize) -> f64 {
    1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32)
}

/// The approximate threshold (1/b)^(1/r): where the S-curve rises steepest.
pub fn threshold(bands: usize, rows: usize) -> f64 {
    (1.0 / bands as f64).powf(1.0 / rows as f64)
}

/// Checks a banding against the signature length.
pub fn validate(bands: usize, rows: usize, num_perm: usize, algorithm: &str) -> Result<()> {
    if bands == 0 {
        return Err(Error::invalid(algorithm, "bands", "must be at least 1"));
    }
    if rows == 0 {
        return Err(Error::invalid(algorithm, "rows", "must be at least 1"));
    }
    if bands.saturating_mul(rows) > num_perm {
        return Err(Error::invalid(
            algorithm,
            "bands",
            format!(
                "bands × rows = {bands} × {rows} = {} exceeds num_perm = {num_perm}",
                bands * rows
            ),
        ));
    }
    Ok(())
}

/// A banding chosen by [`tune`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuned {
    /// Number of bands b.
    pub bands: usize,
    /// Rows per band r.
    pub rows: usize,
    /// The banding's own threshold (1/b)^(1/r).
    pub threshold: f64,
    /// ∫₀ᵗ P(s) ds for the target threshold t.
    pub false_positive_area: f64,
    /// ∫ₜ¹ (1 − P(s)) ds for the target threshold t.
    pub false_negative_area: f64,
}

/// Picks (b, r) with b·r ≤ `num_perm` minimizing `w·FP + (1 − w)·FN` around `target`, where
/// `w = false_positive_weight` (0.5 weighs both errors equally, as datasketch does).
pub fn tune(target: f64, num_perm: usize, false_positive_weight: f64) -> Result<Tuned> {
    // Remembered per process: validation, every build and every cell of a grid ask again.
    type Memo = std::collections::HashMap<(u64, usize, u64), Tuned>;
    static MEMO: std::sync::OnceLock<std::sync::Mutex<Memo>> = std::sync::OnceLock::new();
    let key = (target.to_bits(), num_perm, false_positive_weight.to_bits());
    let memo = MEMO.get_or_init(Default::default);
    if let Some(t) = memo.lock().expect("tuner memo").get(&key) {
        return Ok(*t);
    }
    let tuned = tune_uncached(target, num_perm, false_positive_weight)?;
    memo.lock().expect("tuner memo").insert(key, tuned);
    Ok(tuned)
}

fn tune_uncached(target: f64, num_perm: usize, false_positive_weight: f64) -> Result<Tuned> {
    crate::error::check_unit_threshold("lsh", "threshold", target)?;
    // Bounded first: the scan below is O(num_perm) integrals.
    super::num_perm::check_num_perm("lsh", num_perm)?;
    if !(0.0..=1.0).contains(&false_positive_weight) {
        return Err(Error::invalid(
            "lsh",
            "false_positive_weight",
            format!("{false_positive_weight} is outside [0, 1]"),
        ));
    }
    let w = false_positive_weight;
    let mut best: Option<(f64, Tuned)> = None;
    for bands in 1..=num_perm {
        // For fixed b the false-positive area only shrinks with r: when even the largest r
        // leaves w·FP at or above the best error, no r of this b can win (exact).
        if let Some((e, _)) = &best
            && w * false_positive_area(target, bands, num_perm / bands) >= *e
        {
            continue;
        }
        for rows in 1..=num_perm / bands {
            // For fixed b the false-negative area only grows with r (s^r shrinks), so once it
            // alone reaches the best error no larger r can win: an exact cut that keeps the
            // scan at O(num_perm) integrals instead of O(num_perm · ln num_perm).
            let fn_ = false_negative_area(target, bands, rows);
            if best.as_ref().is_some_and(|(e, _)| (1.0 - w) * fn_ >= *e) {
                break;
            }
            let fp = false_positive_area(target, bands, rows);
            let err = w * fp + (1.0 - w) * fn_;
            if best.as_ref().is_none_or(|(e, _)| err < *e) {
                best = Some((
                    err,
                    Tuned {
                        bands,
                        rows,
                        threshold: threshold(bands, rows),
                        false_positive_area: fp,
                        false_negative_area: fn_,
                    },
                ));
            }
        }
    }
    Ok(best.expect("num_perm ≥ 1 gives at least one banding").1)
}

/// The similarities at which a tuned banding is shown: the target ± 0.05 and ± 0.1, inside
/// [0, 1] — where a user sees how sharp the banding's step is.
pub fn probe_similarities(target: f64) -> Vec<f64> {
    [-0.1, -0.05, 0.0, 0.05, 0.1]
        .iter()
        .map(|d| ((target + d) * 1e6).round() / 1e6)
        .filter(|s| (0.0..=1.0).contains(s))
        .collect()
}

/// P(candidate) at one similarity.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CandidateProbability {
    /// 1 − (1 − s^r)^b.
    pub probability: f64,
    /// The similarity s.
    pub similarity: f64,
}

/// [`tune`]'s answer as one document: what `neardup lsh tune --format json` prints and
/// Python's `neardup.lsh_tune` returns. (Fields in name order: the document's keys have always
/// been sorted.)
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TuneReport {
    /// Number of bands b.
    pub bands: usize,
    /// P(candidate) at [`probe_similarities`] of the target.
    pub candidate_probability: Vec<CandidateProbability>,
    /// ∫ₜ¹ (1 − P(s)) ds.
    pub false_negative_area: f64,
    /// ∫₀ᵗ P(s) ds.
    pub false_positive_area: f64,
    /// The weight w of false positives the tuner minimized with.
    pub false_positive_weight: f64,
    /// The signature length the banding fits in.
    pub num_perm: usize,
    /// Rows per band r.
    pub rows: usize,
    /// The threshold asked for.
    pub target_threshold: f64,
    /// The banding's own threshold (1/b)^(1/r).
    pub threshold: f64,
    /// num_perm − b·r: permutations in no band (they sharpen verification only).
    pub unused_permutations: usize,
}

/// Tunes (b, r) for `target` and says what the banding does around it.
pub fn tune_report(target: f64, num_perm: usize, false_positive_weight: f64) -> Result<TuneReport> {
    let t = tune(target, num_perm, false_positive_weight)?;
    Ok(TuneReport {
        bands: t.bands,
        candidate_probability: probe_similarities(target)
            .into_iter()
            .map(|s| CandidateProbability {
                probability: candidate_probability(s, t.bands, t.rows),
                similarity: s,
            })
            .collect(),
        false_negative_area: t.false_negative_area,
        false_positive_area: t.false_positive_area,
        false_positive_weight,
        num_perm,
        rows: t.rows,
        target_threshold: target,
        threshold: t.threshold,
        unused_permutations: num_perm - t.bands * t.rows,
    })
}

/// ∫₀ᵗ P(s) ds.
pub fn false_positive_area(t: f64, bands: usize, rows: usize) -> f64 {
    integrate(&|s| candidate_probability(s, bands, rows), 0.0, t)
}

/// ∫ₜ¹ (1 − P(s)) ds.
pub fn false_negative_area(t: f64, bands: usize, rows: usize) -> f64 {
    integrate(&|s| 1.0 - candidate_probability(s, bands, rows), t, 1.0)
}

/// Adaptive Simpson quadrature (absolute tolerance 1e-10).
fn integrate(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    fn simpson(fa: f64, fm: f64, fb: f64, a: f64, b: f64) -> f64 {
        (b - a) / 6.0 * (fa + 4.0 * fm + fb)
    }
    #[allow(clippy::too_many_arguments)]
    fn recurse(
        f: &dyn Fn(f64) -> f64,
        a: f64,
        b: f64,
        fa: f64,
        fm: f64,
        fb: f64,
        whole: f64,
        tol: f64,
        depth: u32,
    ) -> f64 {
        let m = 0.5 * (a + b);
        let (lm, rm) = (0.5 * (a + m), 0.5 * (m + b));
        let (flm, frm) = (f(lm), f(rm));
        let left = simpson(fa, flm, fm, a, m);
        let right = simpson(fm, frm, fb, m, b);
        let delta = left + right - whole;
        if depth == 0 || delta.abs() <= 15.0 * tol {
            left + right + delta / 15.0
        } else {
            recurse(f, a, m, fa, flm, fm, left, tol / 2.0, depth - 1)
                + recurse(f, m, b, fm, frm, fb, right, tol / 2.0, depth - 1)
        }
    }
    if b <= a {
        return 0.0;
    }
    // Split into 16 panels first so that a steep S-curve is never missed by the first probe.
    let panels = 16;
    let h = (b - a) / panels as f64;
    (0..panels)
        .map(|i| {
            let (x0, x1) = (a + i as f64 * h, a + (i + 1) as f64 * h);
            let (f0, fm, f1) = (f(x0), f(0.5 * (x0 + x1)), f(x1));
            recurse(
                f,
                x0,
                x1,
                f0,
                fm,
                f1,
                simpson(f0, fm, f1, x0, x1),
                1e-10 / panels as f64,
                30,
            )
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MMDS Fig. 3.8 / Example 3.11: b = 20, r = 5.
    #[test]
    fn mmds_figure_3_8() {
        let table = [
            (0.2, 0.006),
            (0.3, 0.047),
            (0.4, 0.186),
            (0.5, 0.470),
            (0.6, 0.802),
            (0.7, 0.975),
        ];
        for (s, p) in table {
            let got = candidate_probability(s, 20, 5);
            assert!((got - p).abs() < 5e-4, "s={s}: {got} vs {p}");
        }
        assert!((candidate_probability(0.8, 20, 5) - 0.9996).abs() < 5e-5);
        // One band matches with p = 0.8^5 = 0.328; no band with (1 − 0.328)^20 ≈ 0.00035.
        assert!((0.8f64.powi(5) - 0.328).abs() < 5e-4);
        assert!(((1.0 - 0.8f64.powi(5)).powi(20) - 0.00035).abs() < 1e-5);
        assert!((threshold(20, 5) - 0.549).abs() < 5e-4);
    }

    /// MMDS: b = 16, r = 4 gives threshold 1/2.
    #[test]
    fn mmds_threshold_16_by_4() {
        assert!((threshold(16, 4) - 0.5).abs() < 1e-12);
    }

    /// FineWeb (datatrove): 14 bands × 8 rows; P = 0.564, 0.772, 0.924, 0.988 at
    /// s = 0.70, 0.75, 0.80, 0.85 (published to 3 decimals, not
    /// consistently rounded: 0.56450 appears as 0.564 and 0.77163 as 0.772, so within 1e-3).
    #[test]
    fn fineweb_14_by_8() {
        for (s, p) in [(0.70, 0.564), (0.75, 0.772), (0.80, 0.924), (0.85, 0.988)] {
            let got = candidate_probability(s, 14, 8);
            assert!((got - p).abs() < 1e-3, "s={s}: {got} vs {p}");
        }
    }

    /// Lee et al. 2022: 450 bands × 20 rows, midpoint (1/450)^(1/20) = 0.737, P(0.8) = 0.995.
    #[test]
    fn lee_et_al_450_by_20() {
        assert!((threshold(450, 20) - 0.737).abs() < 5e-4);
        assert!((candidate_probability(0.8, 450, 20) - 0.995).abs() < 5e-4);
    }

    #[test]
    fn tuner_matches_datasketch_at_0_8() {
        // datasketch 2.0 picks b = 9, r = 13 for threshold 0.8 and 128 permutations
        // (../shared/peers/README.md).
        let t = tune(0.8, 128, 0.5).unwrap();
        assert_eq!((t.bands, t.rows), (9, 13), "{t:?}");
    }

    /// Oracle: the pruned scan picks exactly what the full scan of every (b, r) picks.
    #[test]
    fn pruned_tuner_equals_full_scan() {
        fn full(target: f64, n: usize, w: f64) -> (usize, usize) {
            let mut best = (f64::INFINITY, (0, 0));
            for b in 1..=n {
                for r in 1..=n / b {
                    let e = w * false_positive_area(target, b, r)
                        + (1.0 - w) * false_negative_area(target, b, r);
                    if e < best.0 {
                        best = (e, (b, r));
                    }
                }
            }
            best.1
        }
        for (t, n, w) in [
            (0.8, 128, 0.5),
            (0.5, 200, 0.5),
            (0.9, 64, 0.2),
            (0.3, 100, 0.8),
        ] {
            let got = tune(t, n, w).unwrap();
            assert_eq!((got.bands, got.rows), full(t, n, w), "t={t} n={n} w={w}");
        }
    }

    #[test]
    fn tuner_respects_budget_and_weights() {
        for n in [16, 64, 200] {
            let t = tune(0.5, n, 0.5).unwrap();
            assert!(t.bands * t.rows <= n);
        }
        // Weighing false positives more moves the banding's threshold up.
        let fp_heavy = tune(0.6, 128, 0.9).unwrap();
        let fn_heavy = tune(0.6, 128, 0.1).unwrap();
        assert!(fp_heavy.threshold > fn_heavy.threshold);
    }

    #[test]
    fn integration_is_accurate() {
        // ∫₀¹ s^3 ds = 1/4; ∫₀^0.5 of b=1,r=1 (P(s) = s) = 1/8
        assert!((integrate(&|s| s.powi(3), 0.0, 1.0) - 0.25).abs() < 1e-10);
        assert!((false_positive_area(0.5, 1, 1) - 0.125).abs() < 1e-10);
        assert!((false_negative_area(0.5, 1, 1) - 0.125).abs() < 1e-10);
    }

    #[test]
    fn bad_parameters() {
        assert!(tune(0.0, 128, 0.5).is_err());
        assert!(tune(1.5, 128, 0.5).is_err());
        assert!(tune(0.5, 0, 0.5).is_err());
        assert!(tune(0.5, 128, 2.0).is_err());
        assert!(validate(20, 7, 128, "x").is_err());
        assert!(validate(0, 7, 128, "x").is_err());
        assert!(validate(16, 8, 128, "x").is_ok());
    }
}
