//! Classic MinHash signatures (Broder 1997; MMDS §3.3) with `num_perm` hash functions derived
//! from one 64-bit shingle hash.
//!
//! # Permutation scheme
//! Each shingle hash `h` is folded to 32 bits, `x = lo32(h) ⊕ hi32(h)`, and hash function `i`
//! is the affine map `π_i(x) = a_i·x + b_i mod 2³²` with `a_i` odd and `b_i` drawn from
//! SplitMix64 seeded by the detector's seed. With `a_i` odd, `π_i` is a *bijection* of the
//! 32-bit universe — a true permutation, as MinHash's theory asks — and the multiply mixes low
//! input bits into the high output bits that decide which value is smallest (the
//! multiply-shift family of Dietzfelbinger et al. 1997). The signature keeps `min π_i(x)`
//! over the document's shingles.
//!
//! # Collision behaviour
//! Two different shingles collide in the folded 32-bit universe with probability 2⁻³², and
//! then collide under every π_i (the π_i are bijections): a document pair whose union has
//! u shingles sees a spurious agreement with probability about u²/2³³ per pair of documents
//! — below 10⁻⁴ for u = 10,000 — far under the sampling error of 128 hashes
//! (√(J(1−J)/128) ≈ 0.04). The estimator test in this module checks the mean squared error
//! against the theoretical J(1−J)/num_perm.
//!
//! # Speed
//! One vector multiply, add and min per 16 (AVX-512) or 8 (AVX2) permutations and shingle,
//! written with intrinsics and picked at run time, with up to 128 permutations updated per
//! pass over the shingles (see `kernel::x86`); a portable loop elsewhere. All variants compute
//! the same integers (a test compares each with the portable one), so signatures do not depend
//! on the machine.

use crate::error::Result;
use crate::hash::SplitMix64;

/// Lanes updated together in the inner loop (one AVX-512 register, two AVX2 registers).
const LANES: usize = 16;

/// The `num_perm` permutations of a classic MinHash.
#[derive(Debug, Clone)]
pub struct MinHasher {
    /// Multipliers, odd; padded with copies up to a multiple of [`LANES`].
    a: Vec<u32>,
    /// Increments, padded likewise.
    b: Vec<u32>,
    num_perm: usize,
}

impl MinHasher {
    /// `num_perm` permutations drawn from `seed`.
    pub fn new(num_perm: usize, seed: u64) -> Result<Self> {
        super::num_perm::check_num_perm("minhash", num_perm)?;
        let mut rng = SplitMix64::new(seed);
        let padded = num_perm.div_ceil(LANES) * LANES;
        let mut a = Vec::with_capacity(padded);
        let mut b = Vec::with_capacity(padded);
        for _ in 0..num_perm {
            let r = rng.next_u64();
            a.push((r as u32) | 1);
            b.push((r >> 32) as u32);
        }
        a.resize(padded, 1);
        b.resize(padded, 0);
        Ok(MinHasher { a, b, num_perm })
    }

    /// Number of hash functions (signature length).
    pub fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// Writes the signature of the shingle hashes `hashes` into `out` (`num_perm` values).
    /// Repeated hashes are harmless. With no hash at all every slot is `u32::MAX`; callers
    /// mark such documents empty (see `features` on short documents).
    pub fn sketch_into(&self, hashes: &[u64], out: &mut [u32]) {
        assert_eq!(out.len(), self.num_perm, "signature buffer length");
        kernel::dispatch(&self.a, &self.b, hashes, out);
    }

    /// The signature of `hashes` as a new vector.
    pub fn sketch(&self, hashes: &[u64]) -> Vec<u32> {
        let mut out = vec![0; self.num_perm];
        self.sketch_into(hashes, &mut out);
        out
    }
}

/// Folds a 64-bit shingle hash to the 32-bit universe the permutations act on.
#[inline(always)]
fn fold(h: u64) -> u32 {
    (h as u32) ^ ((h >> 32) as u32)
}

mod kernel {
    use super::{LANES, fold};

    /// The portable kernel: per block of LANES permutations, keep the minima in registers
    /// while streaming over the hashes.
    #[inline(always)]
    fn blocks(a: &[u32], b: &[u32], hashes: &[u64], out: &mut [u32]) {
        let n = out.len();
        for (block, (ab, bb)) in a.chunks_exact(LANES).zip(b.chunks_exact(LANES)).enumerate() {
            let ab: &[u32; LANES] = ab.try_into().expect("chunk of LANES");
            let bb: &[u32; LANES] = bb.try_into().expect("chunk of LANES");
            let mut m = [u32::MAX; LANES];
            for &h in hashes {
                let x = fold(h);
                for l in 0..LANES {
                    m[l] = m[l].min(ab[l].wrapping_mul(x).wrapping_add(bb[l]));
                }
            }
            let start = block * LANES;
            let end = (start + LANES).min(n);
            out[start..end].copy_from_slice(&m[..end - start]);
        }
    }

    /// The x86 kernels, written with intrinsics: left to itself, LLVM vectorizes the portable
    /// loop across the *hashes* (the running minimum looks like a reduction over them) and
    /// spills sixteen partial minima per lane to the stack, which ran at a fifth of the speed.
    /// Here each register holds one lane group's minima, and one pass over the hashes updates
    /// up to 8 (AVX-512) or 4 (AVX2) register groups, so one fold and broadcast per hash
    /// serves up to 128 (64) permutations and the independent min chains keep the multiplier
    /// busy.
    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use std::arch::x86_64::*;

        use super::super::fold;

        /// Updates `G` registers of `W` lanes, starting at lane `first`, in one pass over the
        /// hashes, and stores the lanes that are within `out`.
        macro_rules! group {
            ($name:ident, $feature:literal, $vec:ty, $w:expr, $load:ident, $store:ident,
             $set1:ident, $mul:ident, $add:ident, $min:ident) => {
                #[target_feature(enable = $feature)]
                fn $name<const G: usize>(
                    a: &[u32],
                    b: &[u32],
                    hashes: &[u64],
                    out: &mut [u32],
                    first: usize,
                ) {
                    let mut av = [$set1(0); G];
                    let mut bv = [$set1(0); G];
                    for j in 0..G {
                        let at = first + j * $w;
                        let (aw, bw) = (&a[at..at + $w], &b[at..at + $w]);
                        // SAFETY: each slice holds exactly one register's lanes (the bounds
                        // are checked by the indexing above); unaligned loads allow any.
                        unsafe {
                            av[j] = $load(aw.as_ptr().cast());
                            bv[j] = $load(bw.as_ptr().cast());
                        }
                    }
                    let mut m = [$set1(-1); G];
                    for &h in hashes {
                        let x = $set1(fold(h) as i32);
                        for j in 0..G {
                            m[j] = $min(m[j], $add($mul(av[j], x), bv[j]));
                        }
                    }
                    let mut lanes = [0u32; $w];
                    for j in 0..G {
                        // SAFETY: `lanes` holds exactly one register.
                        unsafe { $store(lanes.as_mut_ptr().cast(), m[j]) };
                        let start = first + j * $w;
                        let end = (start + $w).min(out.len());
                        if start < end {
                            out[start..end].copy_from_slice(&lanes[..end - start]);
                        }
                    }
                }
            };
        }

        group!(
            group512,
            "avx512f",
            __m512i,
            16,
            _mm512_loadu_si512,
            _mm512_storeu_si512,
            _mm512_set1_epi32,
            _mm512_mullo_epi32,
            _mm512_add_epi32,
            _mm512_min_epu32
        );
        group!(
            group256,
            "avx2",
            __m256i,
            8,
            _mm256_loadu_si256,
            _mm256_storeu_si256,
            _mm256_set1_epi32,
            _mm256_mullo_epi32,
            _mm256_add_epi32,
            _mm256_min_epu32
        );

        /// AVX-512: groups of 8, 4, 2 and 1 registers of 16 lanes (`a.len()` is a multiple
        /// of 16).
        #[target_feature(enable = "avx512f")]
        pub(in super::super) fn blocks_avx512(
            a: &[u32],
            b: &[u32],
            hashes: &[u64],
            out: &mut [u32],
        ) {
            let (regs, mut r) = (a.len() / 16, 0);
            while r < regs {
                let g = match regs - r {
                    8.. => {
                        group512::<8>(a, b, hashes, out, r * 16);
                        8
                    }
                    4.. => {
                        group512::<4>(a, b, hashes, out, r * 16);
                        4
                    }
                    2.. => {
                        group512::<2>(a, b, hashes, out, r * 16);
                        2
                    }
                    _ => {
                        group512::<1>(a, b, hashes, out, r * 16);
                        1
                    }
                };
                r += g;
            }
        }

        /// AVX2: groups of 4, 2 and 1 registers of 8 lanes (16 registers: 4 × (a, b, min)
        /// plus the broadcast fit).
        #[target_feature(enable = "avx2")]
        pub(in super::super) fn blocks_avx2(a: &[u32], b: &[u32], hashes: &[u64], out: &mut [u32]) {
            let (regs, mut r) = (a.len() / 8, 0);
            while r < regs {
                let g = match regs - r {
                    4.. => {
                        group256::<4>(a, b, hashes, out, r * 8);
                        4
                    }
                    2.. => {
                        group256::<2>(a, b, hashes, out, r * 8);
                        2
                    }
                    _ => {
                        group256::<1>(a, b, hashes, out, r * 8);
                        1
                    }
                };
                r += g;
            }
        }
    }

    /// Picks the widest kernel the CPU supports (checked once, cached by std).
    pub(super) fn dispatch(a: &[u32], b: &[u32], hashes: &[u64], out: &mut [u32]) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU supports AVX-512F (checked on the line above).
                return unsafe { x86::blocks_avx512(a, b, hashes, out) };
            }
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked on the line above).
                return unsafe { x86::blocks_avx2(a, b, hashes, out) };
            }
        }
        blocks(a, b, hashes, out)
    }

    #[cfg(test)]
    pub(super) fn portable(a: &[u32], b: &[u32], hashes: &[u64], out: &mut [u32]) {
        blocks(a, b, hashes, out)
    }

    /// A kernel: multipliers, increments, shingle hashes → signature.
    #[cfg(test)]
    pub(super) type Kernel = fn(&[u32], &[u32], &[u64], &mut [u32]);

    /// Every kernel this CPU can run, by name (tests compare them with the portable one).
    #[cfg(test)]
    pub(super) fn available() -> Vec<(&'static str, Kernel)> {
        #[allow(unused_mut)]
        let mut v: Vec<(&'static str, Kernel)> = vec![("portable", portable)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked on the line above).
                v.push(("avx2", |a, b, h, o| unsafe { x86::blocks_avx2(a, b, h, o) }));
            }
            if std::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU supports AVX-512F (checked on the line above).
                v.push(("avx512", |a, b, h, o| unsafe {
                    x86::blocks_avx512(a, b, h, o)
                }));
            }
        }
        v
    }
}

/// Fraction of agreeing slots: the MinHash estimate of the Jaccard coefficient.
#[inline]
pub fn agreement(a: &[u32], b: &[u32]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let same = a.iter().zip(b).filter(|(x, y)| x == y).count();
    same as f64 / a.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::similarity::jaccard;
    use crate::hash::SplitMix64;

    /// Each kernel's register groups (8, 4, 2, 1 of 16 lanes; 4, 2, 1 of 8) and the partial
    /// last group of a padded signature, against the portable loop.
    #[test]
    fn every_kernel_equals_the_portable_one() {
        let kernels = kernel::available();
        println!(
            "kernels: {:?}",
            kernels.iter().map(|k| k.0).collect::<Vec<_>>()
        );
        for num_perm in [1, 7, 16, 17, 31, 48, 64, 100, 128, 129, 200, 256, 250, 512] {
            let mh = MinHasher::new(num_perm, 9).unwrap();
            for count in [0usize, 1, 3, 500] {
                let hashes: Vec<u64> = (0..count as u64).map(crate::hash::mix64).collect();
                let mut want = vec![0; num_perm];
                kernel::portable(&mh.a, &mh.b, &hashes, &mut want);
                for (name, k) in &kernels {
                    let mut got = vec![7; num_perm];
                    k(&mh.a, &mh.b, &hashes, &mut got);
                    assert_eq!(got, want, "{name}, num_perm {num_perm}, {count} hashes");
                }
            }
        }
    }

    #[test]
    fn dispatch_matches_portable_kernel() {
        let mh = MinHasher::new(100, 5).unwrap(); // not a multiple of LANES: padding path
        let hashes: Vec<u64> = (0..500u64).map(crate::hash::mix64).collect();
        let fast = mh.sketch(&hashes);
        let mut slow = vec![0; 100];
        kernel::portable(&mh.a, &mh.b, &hashes, &mut slow);
        assert_eq!(fast, slow);
    }

    #[test]
    fn permutations_are_bijections() {
        // a odd ⇒ x ↦ a·x + b (mod 2^32) is invertible: distinct inputs give distinct outputs.
        let mh = MinHasher::new(4, 1).unwrap();
        for i in 0..4 {
            let mut v: Vec<u32> = (0..100_000u32)
                .map(|x| mh.a[i].wrapping_mul(x).wrapping_add(mh.b[i]))
                .collect();
            v.sort_unstable();
            v.dedup();
            assert_eq!(v.len(), 100_000);
        }
    }

    #[test]
    fn identical_sets_agree_everywhere_and_order_does_not_matter() {
        let mh = MinHasher::new(64, 9).unwrap();
        let mut h: Vec<u64> = (0..300u64).map(crate::hash::mix64).collect();
        let s1 = mh.sketch(&h);
        h.reverse();
        h.extend_from_slice(&h.clone()[..50]); // repeats do not change a set's signature
        assert_eq!(s1, mh.sketch(&h));
        assert_eq!(agreement(&s1, &mh.sketch(&h)), 1.0);
    }

    /// Estimator theory: the agreement of num_perm independent min-hashes is Binomial(n, J)/n,
    /// so its mean squared error is J(1−J)/n. Over 400 pairs spread over [0, 1] the observed
    /// MSE must lie within 1.5× of the theoretical average (and above 1/1.5 of it: a
    /// correlated family would show *lower* variance on some pairs and higher on others).
    #[test]
    fn estimator_error_matches_theory() {
        const SEED: u64 = 20_261_121;
        println!("estimator_error_matches_theory: seed {SEED}");
        let mut rng = SplitMix64::new(SEED);
        for num_perm in [64, 128, 256] {
            let mh = MinHasher::new(num_perm, rng.next_u64()).unwrap();
            let (mut sq_err, mut theory) = (0.0, 0.0);
            let pairs = 400;
            for p in 0..pairs {
                let target = (p as f64 + 0.5) / pairs as f64;
                let (a, b) = crate::testutil::pair_with_jaccard(&mut rng, target, 400);
                let mut sa = a.clone();
                sa.sort_unstable();
                let mut sb = b.clone();
                sb.sort_unstable();
                let j = jaccard(&sa, &sb);
                let est = agreement(&mh.sketch(&a), &mh.sketch(&b));
                sq_err += (est - j).powi(2);
                theory += j * (1.0 - j) / num_perm as f64;
            }
            let ratio = sq_err / theory;
            println!("num_perm {num_perm}: mse/theory = {ratio:.3}");
            assert!(
                ratio < 1.5 && ratio > 1.0 / 1.5,
                "num_perm {num_perm}: ratio {ratio}"
            );
        }
    }

    #[test]
    fn zero_permutations_is_an_error() {
        assert!(MinHasher::new(0, 1).is_err());
    }
}
