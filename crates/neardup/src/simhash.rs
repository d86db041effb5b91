//! Sign-of-sum fingerprints: SimHash (Charikar, STOC 2002; Manku, Jain, Das Sarma, WWW 2007)
//! and Charikar's random projection as Henzinger's algorithm C (SIGIR 2006 §2.2).
//!
//! Both are one construction. Every feature (a word, a shingle) gets a pseudo-random ±1
//! vector of f entries — the bits of f/64 seeded 64-bit hashes of the feature, bit set = +1 —
//! and the document's fingerprint bit j is the sign of Σ weight · vector_j over its features.
//! Pr[bit agrees] = 1 − θ/π for the angle θ between the two weighted feature vectors, so the
//! fraction of agreeing bits estimates the angle (and cos θ); nothing is stored but a seed.
//! SimHash uses f = 64 (or 128) and asks for Hamming distance ≤ k; algorithm C uses f = 384
//! and asks for ≥ t agreeing bits.
//!
//! Weights: `binary` (each distinct feature once), `tf` (each occurrence, so term frequency),
//! `tfidf` (term frequency × ln(1 + N / df), with document frequencies from the corpus being
//! indexed or a reference collection).
//!
//! # Speed
//! With integer weights (binary, tf), the sum is 2·count_j − n where count_j counts features
//! with bit j set: a positional popcount. Each feature word is spread byte by byte into eight
//! 8-bit counters per byte lane through a 256-entry table (eight table loads and adds per
//! 64 bits, no branch); the byte counters are flushed into 32-bit counters every 255
//! features. tf-idf weights take a float loop written for the vectorizer.

use serde::{Deserialize, Serialize};

use crate::hash::mix64;

/// How features are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Weighting {
    /// Each distinct feature counts once.
    Binary,
    /// Each occurrence counts once (term frequency).
    #[default]
    Tf,
    /// Term frequency × smoothed inverse document frequency ln(1 + N / df) (see
    /// [`crate::features::DocFreq::smooth_idf`]).
    Tfidf,
}

/// Feature weights with what they need: document frequencies for tf-idf.
#[derive(Debug, Clone, Copy)]
pub enum Weights<'a> {
    /// Each distinct feature once.
    Binary,
    /// Term frequency.
    Tf,
    /// Term frequency × ln(1 + N / df); a feature the statistics never saw counts as seen
    /// once (the rarest, as a feature unique to its document is in a corpus count).
    Tfidf(&'a crate::features::DocFreq),
}

/// byte b → a u64 whose byte i is bit i of b.
static SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut v = 0u64;
        let mut i = 0;
        while i < 8 {
            v |= (((b >> i) & 1) as u64) << (8 * i);
            i += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// byte b → eight 0.0/1.0 lanes, lane i = bit i of b.
static BITS_F32: [[f32; 8]; 256] = {
    let mut t = [[0f32; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            if (b >> i) & 1 == 1 {
                t[b][i] = 1.0;
            }
            i += 1;
        }
        b += 1;
    }
    t
};

/// Draws a document's fingerprint of `64 · words` bits.
#[derive(Debug, Clone)]
pub struct SignSketcher {
    seeds: Vec<u64>,
}

impl SignSketcher {
    /// `words` 64-bit words per fingerprint, derived from `seed`.
    pub fn new(words: usize, seed: u64) -> Self {
        let mut rng = crate::hash::SplitMix64::new(seed);
        SignSketcher {
            seeds: (0..words).map(|_| rng.next_u64()).collect(),
        }
    }

    /// Words per fingerprint.
    pub fn words(&self) -> usize {
        self.seeds.len()
    }

    /// Word `w` of a feature's ±1 vector.
    #[inline(always)]
    fn vector_word(&self, feature: u64, w: usize) -> u64 {
        mix64(feature ^ self.seeds[w])
    }

    /// Fingerprint of features with unit weights (repeat a feature to weigh it by its count).
    /// `out` gets `words` words; ties (sum 0) give bit 0. No feature: all zeros.
    pub fn fingerprint_unit(&self, features: &[u64], out: &mut [u64]) {
        assert_eq!(out.len(), self.words(), "fingerprint buffer length");
        for (w, o) in out.iter_mut().enumerate() {
            let mut bytes = [0u64; 8];
            let mut counts = [0u32; 64];
            for chunk in features.chunks(255) {
                for &f in chunk {
                    let v = self.vector_word(f, w);
                    for (k, b) in bytes.iter_mut().enumerate() {
                        *b += SPREAD[((v >> (8 * k)) & 0xff) as usize];
                    }
                }
                for (k, b) in bytes.iter_mut().enumerate() {
                    for i in 0..8 {
                        counts[8 * k + i] += ((*b >> (8 * i)) & 0xff) as u32;
                    }
                    *b = 0;
                }
            }
            let n = features.len() as u32;
            *o = counts
                .iter()
                .enumerate()
                .fold(0u64, |acc, (j, &c)| acc | (((2 * c > n) as u64) << j));
        }
    }

    /// Fingerprint of weighted features (tf-idf).
    pub fn fingerprint_weighted(&self, features: &[(u64, f32)], out: &mut [u64]) {
        assert_eq!(out.len(), self.words(), "fingerprint buffer length");
        for (w, o) in out.iter_mut().enumerate() {
            // Σ ±w = 2·Σ_{bit set} w − Σ w, so only the weight of set bits is summed: per
            // byte of the vector an 8-lane multiply-add with a 0/1 row of BITS_F32, which the
            // compiler vectorizes (no per-bit shift or branch).
            let mut set = [0f32; 64];
            let mut total = 0f32;
            for &(f, weight) in features {
                let v = self.vector_word(f, w);
                total += weight;
                for (k, lanes) in set.chunks_exact_mut(8).enumerate() {
                    let bits = &BITS_F32[((v >> (8 * k)) & 0xff) as usize];
                    for i in 0..8 {
                        lanes[i] += weight * bits[i];
                    }
                }
            }
            *o = set
                .iter()
                .enumerate()
                .fold(0u64, |x, (j, &a)| x | (((2.0 * a > total) as u64) << j));
        }
    }
}

/// The fingerprints of a corpus, `words` words per document in one allocation, and which
/// documents had no feature (their all-zero fingerprint must not match each other).
#[derive(Debug, Clone)]
pub struct Fingerprints {
    /// Words per fingerprint.
    pub words: usize,
    /// `len × words` words.
    pub data: Vec<u64>,
    /// Documents without features.
    pub empty: Vec<bool>,
}

/// Text → fingerprint with prepared weights: what [`Fingerprints::compute`] runs per document,
/// and the streaming sketch of `simhash` (one function for both paths, so they agree).
#[derive(Debug, Clone)]
pub struct FingerprintSketcher {
    shingler: crate::features::Shingler,
    sketcher: SignSketcher,
    weighting: Weighting,
    /// tf-idf: the idf of every feature the statistics saw, once per distinct feature.
    idf: crate::hash::HashedKeyMap<f32>,
    /// tf-idf: the idf of a feature they never saw (seen once: the rarest).
    unseen: f32,
}

/// A thread's buffers for [`FingerprintSketcher::fingerprint`].
#[derive(Debug, Default)]
pub struct FingerprintScratch {
    /// The shingler's buffers.
    pub features: crate::features::Scratch,
    /// The document's feature hashes.
    pub hashes: Vec<u64>,
    /// tf-idf: (feature, weight) of its distinct features.
    pub weighted: Vec<(u64, f32)>,
}

impl FingerprintSketcher {
    /// Features from `shingler`, weighted by `weights`, signed by `sketcher`'s vectors.
    pub fn new(
        shingler: crate::features::Shingler,
        weights: Weights,
        sketcher: SignSketcher,
    ) -> Self {
        let (weighting, idf, unseen) = match weights {
            Weights::Binary => (Weighting::Binary, Default::default(), 0.0),
            Weights::Tf => (Weighting::Tf, Default::default(), 0.0),
            Weights::Tfidf(df) => (
                Weighting::Tfidf,
                df.iter()
                    .map(|(f, _)| (f, df.smooth_idf(f) as f32))
                    .collect(),
                (1.0 + df.docs() as f64).ln() as f32,
            ),
        };
        FingerprintSketcher {
            shingler,
            sketcher,
            weighting,
            idf,
            unseen,
        }
    }

    /// 64-bit words per fingerprint.
    pub fn words(&self) -> usize {
        self.sketcher.words()
    }

    /// Writes `doc`'s fingerprint into `out` ([`FingerprintSketcher::words`] words); returns
    /// whether the document has any feature (without one, `out` is all zeros).
    pub fn fingerprint(&self, doc: &str, s: &mut FingerprintScratch, out: &mut [u64]) -> bool {
        s.hashes.clear();
        self.shingler
            .hashes_into(doc, &mut s.features, &mut s.hashes);
        match self.weighting {
            Weighting::Tf => self.sketcher.fingerprint_unit(&s.hashes, out),
            Weighting::Binary => {
                s.hashes.sort_unstable();
                s.hashes.dedup();
                self.sketcher.fingerprint_unit(&s.hashes, out);
            }
            Weighting::Tfidf => {
                // Sorted, so the float sums run in one order on every run.
                s.hashes.sort_unstable();
                s.weighted.clear();
                // Runs of equal hashes are (feature, tf).
                s.weighted
                    .extend(s.hashes.chunk_by(|a, b| a == b).map(|run| {
                        let f = run[0];
                        let idf = self.idf.get(&f).copied().unwrap_or(self.unseen);
                        (f, run.len() as f32 * idf)
                    }));
                self.sketcher.fingerprint_weighted(&s.weighted, out);
            }
        }
        !s.hashes.is_empty()
    }
}

impl Fingerprints {
    /// Fingerprints of `docs` (parallel; identical for any thread count).
    pub fn compute(
        docs: &[&str],
        shingler: &crate::features::Shingler,
        weights: Weights,
        sketcher: &SignSketcher,
    ) -> Self {
        use rayon::prelude::*;
        let sketcher = FingerprintSketcher::new(shingler.clone(), weights, sketcher.clone());
        let words = sketcher.words();
        let mut data = vec![0u64; docs.len() * words];
        let mut empty = vec![false; docs.len()];
        data.par_chunks_mut(words.max(1))
            .zip(empty.par_iter_mut())
            .zip(docs.par_iter())
            .for_each_init(FingerprintScratch::default, |s, ((out, is_empty), doc)| {
                *is_empty = !sketcher.fingerprint(doc, s, out);
            });
        Fingerprints { words, data, empty }
    }

    /// Document `i`'s fingerprint words.
    pub fn row(&self, i: usize) -> &[u64] {
        &self.data[i * self.words..(i + 1) * self.words]
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.empty.len()
    }

    /// Whether there are no documents.
    pub fn is_empty(&self) -> bool {
        self.empty.is_empty()
    }

    /// Indices of documents with features.
    pub fn nonempty(&self) -> Vec<u32> {
        (0..self.len() as u32)
            .filter(|&i| !self.empty[i as usize])
            .collect()
    }

    /// Every pair of non-empty documents within Hamming distance `k`, packed and sorted,
    /// through the permuted-table join (`design` = None: the cheapest for the corpus size).
    pub fn pairs_within(
        &self,
        k: u32,
        design: Option<&crate::hamming::design::Design>,
    ) -> crate::Result<Vec<u64>> {
        self.join(k, design, false)
    }

    /// Pairs within Hamming distance `k` that connect the documents exactly as every such
    /// pair does, a heavy cluster's long runs by edges (`hamming::tables::connecting_pairs`).
    pub fn connecting_pairs_within(
        &self,
        k: u32,
        design: Option<&crate::hamming::design::Design>,
    ) -> crate::Result<Vec<u64>> {
        self.join(k, design, true)
    }

    fn join(
        &self,
        k: u32,
        design: Option<&crate::hamming::design::Design>,
        connecting: bool,
    ) -> crate::Result<Vec<u64>> {
        use crate::hamming::Wide;
        use crate::hamming::tables::{all_pairs, connecting_pairs};
        let mut ids = self.nonempty();
        // For connectivity, a heavy group of identical fingerprints enters the join once
        // (`crate::heavy`): its copies are attached to its first member.
        let copies = if connecting {
            self.collapse_identical(&mut ids)
        } else {
            Vec::new()
        };
        macro_rules! join {
            ($t:ty, $make:expr) => {{
                let fps: Vec<$t> = ids.iter().map(|&i| $make(self.row(i as usize))).collect();
                if connecting {
                    connecting_pairs(&fps, k, design)?
                } else {
                    all_pairs(&fps, k, design)?
                }
            }};
        }
        let local = match self.words {
            1 => join!(u64, |r: &[u64]| r[0]),
            2 => join!(u128, |r: &[u64]| (r[1] as u128) << 64 | r[0] as u128),
            3 => join!(Wide<3>, |r: &[u64]| Wide([r[0], r[1], r[2]])),
            4 => join!(Wide<4>, |r: &[u64]| Wide([r[0], r[1], r[2], r[3]])),
            6 => join!(Wide<6>, |r: &[u64]| Wide([
                r[0], r[1], r[2], r[3], r[4], r[5]
            ])),
            8 => join!(Wide<8>, |r: &[u64]| Wide([
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
            ])),
            w => {
                return Err(crate::Error::invalid(
                    "hamming",
                    "bits",
                    format!("unsupported fingerprint width {}", 64 * w),
                ));
            }
        };
        let mut out: Vec<u64> = local
            .into_iter()
            .map(|p| {
                let (a, b) = crate::pairs::unpack(p);
                crate::pairs::pack(ids[a as usize], ids[b as usize])
            })
            .collect();
        out.extend(copies);
        out.sort_unstable();
        Ok(out)
    }

    /// Takes the copies of each group of more than [`crate::heavy::runs::HEAVY`] identical
    /// fingerprints out of `ids` (sorted); returns the pairs (first member, copy) that stand
    /// for them (distance 0, within any k).
    fn collapse_identical(&self, ids: &mut Vec<u32>) -> Vec<u64> {
        let mut by_value = ids.clone();
        let (mut edges, mut copies) = (Vec::new(), Vec::new());
        let row = |d: u32| self.row(d as usize);
        crate::heavy::runs::identical_groups(
            &mut by_value,
            row,
            &|_, _| true,
            &mut edges,
            &mut copies,
        );
        let mut copy = vec![false; self.len()];
        for c in copies {
            copy[c as usize] = true;
        }
        ids.retain(|&i| !copy[i as usize]);
        edges
    }

    /// [`Fingerprints::pairs_within`] by comparing every pair: for distances no table design
    /// can serve (too many blocks for the width). Stops with [`crate::Error::TooManyPairs`]
    /// as soon as the pair limit is passed, so a loose threshold cannot exhaust memory.
    pub fn pairs_within_by_scan(&self, k: u32, what: &'static str) -> crate::Result<Vec<u64>> {
        let ids = self.nonempty();
        let budget = crate::pairs::Budget::new(what)?;
        let mut out = Vec::new();
        for (x, &a) in ids.iter().enumerate() {
            let before = out.len();
            for &b in &ids[x + 1..] {
                if self.distance(a as usize, b as usize) <= k {
                    out.push(crate::pairs::pack(a, b));
                }
            }
            budget.spend((out.len() - before) as u64)?;
        }
        Ok(out)
    }

    /// Hamming distance of documents `a` and `b`.
    pub fn distance(&self, a: usize, b: usize) -> u32 {
        self.row(a)
            .iter()
            .zip(self.row(b))
            .map(|(x, y)| (x ^ y).count_ones())
            .sum()
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.data.capacity() * 8 + self.empty.capacity()
    }
}

/// Agreeing bits of two fingerprints.
pub fn agreement(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (!(x ^ y)).count_ones()).sum()
}

/// Charikar's cosine estimate from the share of agreeing bits: cos(π · (1 − agree / bits)).
pub fn cosine_estimate(agree: u32, bits: u32) -> f64 {
    (std::f64::consts::PI * (1.0 - agree as f64 / bits as f64)).cos()
}

/// The fewest agreeing bits of `bits` whose [`cosine_estimate`] is ≥ `cosine`:
/// ⌈b·(1 − arccos(t)/π)⌉, checked against the estimate itself so rounding never moves it.
pub fn agreement_for_cosine(cosine: f64, bits: u32) -> u32 {
    let t = cosine.clamp(-1.0, 1.0);
    let guess = (bits as f64 * (1.0 - t.acos() / std::f64::consts::PI)).ceil() as u32;
    let mut a = guess.saturating_sub(1).min(bits);
    while a < bits && cosine_estimate(a, bits) < t {
        a += 1;
    }
    a
}

/// One empirical check of Charikar's Pr[bit agrees] = 1 − θ/π (STOC 2002, §3).
#[derive(Debug, Clone, Copy)]
pub struct AgreementTrial {
    /// Share of agreeing bits measured.
    pub rate: f64,
    /// 1 − θ/π for the pairs' angle.
    pub theory: f64,
    /// Half-width of the 99.9 % normal interval around `theory` for this many bits.
    pub half_width: f64,
}

impl AgreementTrial {
    /// The measured rate lies in the 99.9 % interval.
    pub fn within(&self) -> bool {
        (self.rate - self.theory).abs() <= self.half_width
    }
}

/// Measures the bit agreement of 384-bit fingerprints over `pairs` vector pairs at cosine
/// `target_cos`: x has 400 features with random weights, y = cos·x̂ + sin·ẑ with z on 400
/// disjoint features, so the angle is exact. Deterministic in `seed`.
pub fn agreement_trial(seed: u64, target_cos: f64, pairs: usize) -> AgreementTrial {
    let mut rng = crate::hash::SplitMix64::new(seed ^ target_cos.to_bits());
    let s = SignSketcher::new(6, 77);
    let random_vector = |rng: &mut crate::hash::SplitMix64| -> (Vec<(u64, f32)>, f64) {
        let v: Vec<(u64, f32)> = (0..400)
            .map(|_| (rng.next_u64(), 0.5 + rng.next_f64() as f32))
            .collect();
        let norm = v.iter().map(|f| (f.1 as f64).powi(2)).sum::<f64>().sqrt();
        (v, norm)
    };
    let sin = (1.0 - target_cos * target_cos).sqrt();
    let (mut agree, mut total) = (0u64, 0u64);
    for _ in 0..pairs {
        let (x, nx) = random_vector(&mut rng);
        let (z, nz) = random_vector(&mut rng);
        let y: Vec<(u64, f32)> = x
            .iter()
            .map(|&(f, w)| (f, (target_cos * w as f64 / nx) as f32))
            .chain(z.iter().map(|&(f, w)| (f, (sin * w as f64 / nz) as f32)))
            .collect();
        let (mut fx, mut fy) = ([0u64; 6], [0u64; 6]);
        s.fingerprint_weighted(&x, &mut fx);
        s.fingerprint_weighted(&y, &mut fy);
        agree += agreement(&fx, &fy) as u64;
        total += 384;
    }
    let theory = 1.0 - target_cos.acos() / std::f64::consts::PI;
    AgreementTrial {
        rate: agree as f64 / total as f64,
        theory,
        half_width: 3.29 * (theory * (1.0 - theory) / total as f64).sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::SplitMix64;

    /// Oracle: the smallest agreement whose estimate reaches t, by scanning every count.
    #[test]
    fn agreement_for_cosine_is_the_smallest_reaching_it() {
        for bits in [64u32, 384] {
            for i in 0..=200 {
                let t = -1.0 + i as f64 / 100.0;
                let brute = (0..=bits)
                    .find(|&a| cosine_estimate(a, bits) >= t)
                    .unwrap_or(bits);
                assert_eq!(agreement_for_cosine(t, bits), brute, "t = {t}, b = {bits}");
            }
            // A score exactly at an attainable estimate maps back to its agreement.
            assert_eq!(
                agreement_for_cosine(cosine_estimate(355, bits.max(355)), bits.max(355)),
                355
            );
        }
    }

    /// The byte-lane counting kernel equals a per-bit ±1 sum.
    #[test]
    fn unit_kernel_equals_naive_sum() {
        let mut rng = SplitMix64::new(5);
        let s = SignSketcher::new(2, 9);
        for n in [0usize, 1, 2, 254, 255, 256, 700] {
            let feats: Vec<u64> = (0..n).map(|_| rng.below(50)).collect();
            let mut fast = [0u64; 2];
            s.fingerprint_unit(&feats, &mut fast);
            for (w, &got) in fast.iter().enumerate() {
                let mut naive = 0u64;
                for j in 0..64 {
                    let sum: i64 = feats
                        .iter()
                        .map(|&f| {
                            if (s.vector_word(f, w) >> j) & 1 == 1 {
                                1
                            } else {
                                -1
                            }
                        })
                        .sum();
                    naive |= ((sum > 0) as u64) << j;
                }
                assert_eq!(got, naive, "n={n} word {w}");
            }
            let weighted: Vec<(u64, f32)> = feats.iter().map(|&f| (f, 1.0)).collect();
            let mut via_float = [0u64; 2];
            s.fingerprint_weighted(&weighted, &mut via_float);
            assert_eq!(
                fast, via_float,
                "unit and float kernels agree for unit weights"
            );
        }
    }

    /// Charikar 2002: Pr[bit agrees] = 1 − θ/π. With many features the hash-derived ±1 vectors
    /// behave like Gaussian ones; the agreement over 384-bit fingerprints × 40 pairs must lie in
    /// the 99.9 % normal interval (seed printed).
    #[test]
    fn agreement_rate_follows_the_angle() {
        const SEED: u64 = 1_234;
        println!("agreement_rate_follows_the_angle: seed {SEED}");
        for target_cos in [0.2f64, 0.5, 0.8, 0.95] {
            let t = agreement_trial(SEED, target_cos, 40);
            println!(
                "cos {target_cos}: agreement {:.4}, theory {:.4} ± {:.4}",
                t.rate, t.theory, t.half_width
            );
            assert!(t.within(), "cos {target_cos}: {} vs {}", t.rate, t.theory);
        }
    }

    #[test]
    fn cosine_estimate_endpoints() {
        assert!((cosine_estimate(384, 384) - 1.0).abs() < 1e-12);
        assert!((cosine_estimate(192, 384)).abs() < 1e-12);
        assert!((cosine_estimate(0, 384) + 1.0).abs() < 1e-12);
    }
}
