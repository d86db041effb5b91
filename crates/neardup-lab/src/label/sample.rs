//! The stratified sample of pairs to label. The configuration's signatures are banded for a
//! low threshold, so that the pairs it reports with an estimate ≥ [`FLOOR`] cover the
//! similarities from there to 1; those are split into bands ([`EDGES`]), and every other
//! pair of the corpus forms one more stratum, `random`, drawn uniformly. Each stratum gives
//! up to `per_stratum` pairs drawn uniformly without replacement, weighted by the pairs of its
//! stratum over those drawn, so weighted counts over the sample estimate the corpus's
//! (Horvitz–Thompson) whatever the strata sizes.

use anyhow::Result;
use neardup::detector::{ParamMap, ScoredPair};
use neardup::hash::SplitMix64;
use neardup::pairs::pack;

use crate::calibrate::labelled_pairs::{self, draw};
use serde_json::json;

/// Lowest estimate a banded stratum holds; pairs below are in the `random` stratum.
pub const FLOOR: f64 = 0.1;
/// Upper edges of the banded strata (the last holds estimates up to 1 included).
pub const EDGES: [f64; 6] = [0.3, 0.5, 0.7, 0.8, 0.9, 1.0];
/// The threshold the banding is tuned for while sampling: low, so that pairs near `FLOOR`
/// become candidates.
pub const SAMPLING_THRESHOLD: f64 = 0.25;

/// A pair to label.
#[derive(Debug, Clone, PartialEq)]
pub struct ToLabel {
    pub a: u32,
    pub b: u32,
    /// The configuration's estimate.
    pub similarity: f64,
    /// `random`, or the band (`0.8-0.9`).
    pub stratum: String,
    /// Corpus pairs it stands for.
    pub weight: f64,
}

/// Up to `per_stratum` pairs of each stratum of the corpus `texts`, under minhash-lsh with
/// `params` (its features; the banding and cutoff are the sampler's), in a seeded order
/// that mixes the strata.
pub fn stratified(
    texts: &[&str],
    params: &ParamMap,
    per_stratum: usize,
    seed: u64,
) -> Result<Vec<ToLabel>> {
    let mut sampling = params.clone();
    sampling.insert("threshold".into(), json!(SAMPLING_THRESHOLD));
    sampling.remove("bands");
    sampling.remove("rows");
    let index = neardup::registry::detector("minhash-lsh", &sampling)?.build(texts)?;
    let mut query = ParamMap::new();
    query.insert("min_similarity".into(), json!(FLOOR));
    let reported: Vec<ScoredPair> = index.query(&query)?;
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::new();
    let mut low = FLOOR;
    for (i, &high) in EDGES.iter().enumerate() {
        let last = i + 1 == EDGES.len();
        let band: Vec<&ScoredPair> = reported
            .iter()
            .filter(|p| p.score >= low && (p.score < high || last))
            .collect();
        let stratum = format!("{low}-{high}");
        let weight = band.len() as f64 / per_stratum.min(band.len()).max(1) as f64;
        for p in draw(band, per_stratum, &mut rng) {
            out.push(ToLabel {
                a: p.a,
                b: p.b,
                similarity: p.score,
                stratum: stratum.clone(),
                weight,
            });
        }
        low = high;
    }
    out.extend(
        random_stratum(texts.len(), &reported, per_stratum, &mut rng)
            .into_iter()
            .map(|p| ToLabel {
                similarity: index.score(p.a as usize, p.b as usize).unwrap_or(0.0),
                ..p
            }),
    );
    // A seeded order mixing the strata, so a person does not see the similarity rise.
    out.sort_by_key(|p| neardup::hash::mix64(seed ^ pack(p.a, p.b)));
    Ok(out)
}

/// Up to `k` uniformly random pairs among those `reported` does not hold, weighted by how
/// many such pairs the corpus has.
fn random_stratum(
    docs: usize,
    reported: &[ScoredPair],
    k: usize,
    rng: &mut SplitMix64,
) -> Vec<ToLabel> {
    let banded: std::collections::HashSet<u64> = reported.iter().map(|p| pack(p.a, p.b)).collect();
    let total = docs as u64 * (docs as u64).saturating_sub(1) / 2;
    let population = total - banded.len() as u64;
    let want = (k as u64).min(population);
    let drawn = labelled_pairs::random_pairs(docs, want, |p| banded.contains(&p), rng);
    let weight = population as f64 / drawn.len().max(1) as f64;
    drawn
        .into_iter()
        .map(|p| {
            let (a, b) = neardup::pairs::unpack(p);
            ToLabel {
                a,
                b,
                similarity: 0.0,
                stratum: "random".into(),
                weight,
            }
        })
        .collect()
}
