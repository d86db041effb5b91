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
//!
//! # Recall at the threshold ([`tune_for_recall`])
//! When every candidate is verified on the full signature, a false-positive candidate costs
//! one comparison and never a wrong pair, while a false negative is a duplicate lost for good.
//! The balanced tuning ignores that: its 9 × 13 banding for t = 0.8 makes only 40 % of the
//! pairs exactly at the threshold candidates. For a verified run the banding is instead the
//! one with P(candidate | J = t) ≥ p (p = [`RECALL_AT_THRESHOLD`], 0.95) whose false-positive
//! area is least: the most selective banding that still finds 95 % of the pairs at the
//! threshold (and more above it). Verification keeps precision where it was.

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

/// The least P(candidate | J = t) of a banding tuned for recall at the threshold.
pub const RECALL_AT_THRESHOLD: f64 = 0.95;

/// What a banding is tuned for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Objective {
    /// Least `w·FP + (1 − w)·FN` (datasketch's tuning; for unverified candidates).
    Balanced {
        /// The weight w of the false-positive area.
        false_positive_weight: f64,
    },
    /// Least false-positive area with P(candidate | J = t) ≥ the probability (for verified
    /// candidates).
    RecallAtThreshold {
        /// The least probability that a pair exactly at the threshold becomes a candidate.
        min_probability: f64,
    },
}

impl Objective {
    /// Its name in `lsh tune --objective` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Objective::Balanced { .. } => "balanced",
            Objective::RecallAtThreshold { .. } => "recall-at-threshold",
        }
    }

    /// The banding it chooses for `target` within `num_perm` permutations.
    pub fn tune(self, target: f64, num_perm: usize) -> Result<Tuned> {
        match self {
            Objective::Balanced {
                false_positive_weight,
            } => tune(target, num_perm, false_positive_weight),
            Objective::RecallAtThreshold { min_probability } => {
                tune_for_recall(target, num_perm, min_probability)
            }
        }
    }
}

/// Picks (b, r) with b·r ≤ `num_perm` whose P(candidate | J = `target`) is at least
/// `min_probability` and whose false-positive area is least (the smaller b among equals).
/// When no banding reaches the probability (a target near 0), the one that comes closest.
pub fn tune_for_recall(target: f64, num_perm: usize, min_probability: f64) -> Result<Tuned> {
    let objective = Objective::RecallAtThreshold { min_probability };
    remembered(objective, target, num_perm, || {
        tune_for_recall_uncached(target, num_perm, min_probability)
    })
}

fn tune_for_recall_uncached(target: f64, num_perm: usize, min_probability: f64) -> Result<Tuned> {
    crate::error::check_unit_threshold("lsh", "threshold", target)?;
    super::num_perm::check_num_perm("lsh", num_perm)?;
    if !(0.0..=1.0).contains(&min_probability) {
        return Err(Error::invalid(
            "lsh",
            "min_probability",
            format!("{min_probability} is outside [0, 1]"),
        ));
    }
    let tuned = |bands: usize, rows: usize| Tuned {
        bands,
        rows,
        threshold: threshold(bands, rows),
        false_positive_area: false_positive_area(target, bands, rows),
        false_negative_area: false_negative_area(target, bands, rows),
    };
    let mut best: Option<Tuned> = None;
    for bands in 1..=num_perm {
        // For fixed b, P(t) falls and the false-positive area shrinks as r grows: the largest
        // r that still reaches the probability is this b's best (exact).
        let Some(rows) = (1..=num_perm / bands)
            .rev()
            .find(|&r| candidate_probability(target, bands, r) >= min_probability)
        else {
            continue;
        };
        let t = tuned(bands, rows);
        if best.is_none_or(|b| t.false_positive_area < b.false_positive_area) {
            best = Some(t);
        }
    }
    Ok(best.unwrap_or_else(|| {
        // Nothing reaches it: every permutation its own band is the most sensitive banding.
        tuned(num_perm, 1)
    }))
}

/// Picks (b, r) with b·r ≤ `num_perm` minimizing `w·FP + (1 − w)·FN` around `target`, where
/// `w = false_positive_weight` (0.5 weighs both errors equally, as datasketch does).
pub fn tune(target: f64, num_perm: usize, false_positive_weight: f64) -> Result<Tuned> {
    let objective = Objective::Balanced {
        false_positive_weight,
    };
    remembered(objective, target, num_perm, || {
        tune_uncached(target, num_perm, false_positive_weight)
    })
}

/// A tuner's answer remembered per process: validation, every build and every cell of a grid
/// ask again.
fn remembered(
    objective: Objective,
    target: f64,
    num_perm: usize,
    compute: impl FnOnce() -> Result<Tuned>,
) -> Result<Tuned> {
    type Memo = std::collections::HashMap<(&'static str, u64, usize, u64), Tuned>;
    static MEMO: std::sync::OnceLock<std::sync::Mutex<Memo>> = std::sync::OnceLock::new();
    let parameter = match objective {
        Objective::Balanced {
            false_positive_weight,
        } => false_positive_weight,
        Objective::RecallAtThreshold { min_probability } => min_probability,
    };
    let key = (
        objective.name(),
        target.to_bits(),
        num_perm,
        parameter.to_bits(),
    );
    let memo = MEMO.get_or_init(Default::default);
    if let Some(t) = memo.lock().expect("tuner memo").get(&key) {
        return Ok(*t);
    }
    let tuned = compute()?;
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

/// A tuned banding as one document: what `neardup lsh tune --format json` prints and
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
    /// This false-positive area over the balanced banding's (w = 0.5): how many more
    /// dissimilar candidates the objective costs (1 for the balanced tuning itself).
    pub false_positive_area_vs_balanced: f64,
    /// The weight w of false positives the balanced tuner minimized with (`None` for
    /// recall at the threshold).
    pub false_positive_weight: Option<f64>,
    /// The least P(candidate | J = t) asked for (`None` for the balanced tuning).
    pub min_candidate_probability: Option<f64>,
    /// The signature length the banding fits in.
    pub num_perm: usize,
    /// `balanced` or `recall-at-threshold`.
    pub objective: &'static str,
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
pub fn tune_report(target: f64, num_perm: usize, objective: Objective) -> Result<TuneReport> {
    let t = objective.tune(target, num_perm)?;
    let balanced = tune(target, num_perm, 0.5)?;
    let (false_positive_weight, min_candidate_probability) = match objective {
        Objective::Balanced {
            false_positive_weight,
        } => (Some(false_positive_weight), None),
        Objective::RecallAtThreshold { min_probability } => (None, Some(min_probability)),
    };
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
        false_positive_area_vs_balanced: t.false_positive_area
            / balanced.false_positive_area.max(f64::MIN_POSITIVE),
        false_positive_weight,
        min_candidate_probability,
        num_perm,
        objective: objective.name(),
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
pub(crate) fn integrate(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> f64 {
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

    /// Oracle: every (b, r) scanned, the qualifying one with the least false-positive area.
    #[test]
    fn recall_tuner_equals_full_scan() {
        for &n in &[16usize, 64, 128, 200] {
            for &t in &[0.3, 0.5, 0.7, 0.8, 0.9, 0.95] {
                let mut best: Option<(f64, usize, usize)> = None;
                for b in 1..=n {
                    for r in 1..=n / b {
                        if candidate_probability(t, b, r) < 0.95 {
                            continue;
                        }
                        let fp = false_positive_area(t, b, r);
                        if best.is_none_or(|(e, _, _)| fp < e) {
                            best = Some((fp, b, r));
                        }
                    }
                }
                let (_, b, r) = best.expect("some banding reaches 0.95");
                let got = tune_for_recall(t, n, 0.95).unwrap();
                assert_eq!((got.bands, got.rows), (b, r), "t={t} n={n}");
                assert!(candidate_probability(t, got.bands, got.rows) >= 0.95);
            }
        }
        // t = 0.8, 128 permutations: the balanced 9 × 13 finds 40 % of the pairs at t.
        let balanced = tune(0.8, 128, 0.5).unwrap();
        assert_eq!((balanced.bands, balanced.rows), (9, 13));
        assert!((candidate_probability(0.8, 9, 13) - 0.40).abs() < 0.01);
        let recall = tune_for_recall(0.8, 128, RECALL_AT_THRESHOLD).unwrap();
        println!(
            "recall-at-threshold for 0.8 / 128: {} × {}",
            recall.bands, recall.rows
        );
        assert!(candidate_probability(0.8, recall.bands, recall.rows) >= 0.95);
        // Nothing reaches 0.95 at t = 0.01 with 16 permutations: the most sensitive banding.
        let t = tune_for_recall(0.01, 16, 0.95).unwrap();
        assert_eq!((t.bands, t.rows), (16, 1));
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
