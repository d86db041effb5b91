//! datasketch's MinHash hash values, bit for bit (ekzhu/datasketch 2.0, `minhash.py` and
//! `hashfunc.py`), so that signatures computed here and by datasketch's `MinHash` are
//! interchangeable in either library's LSH index.
//!
//! A token is hashed once (`sha1_hash32`: the first 4 bytes of its SHA-1, little-endian;
//! `sha1_hash64`: the first 8), and permutation `j` maps that hash `h` to
//! - `affine32` (datasketch's default since 2.0): `a_j · fmix32(h) + b_j mod 2^32`, `a_j` odd;
//! - `affine64`: the same over 64 bits with `fmix64` and `sha1_hash64`;
//! - `legacy` (before 2.0): `((a_j · h + b_j) mod 2^64 mod (2^61 − 1)) & (2^32 − 1)` — the
//!   product wraps at 2^64 first because NumPy's `uint64` arithmetic does.
//!
//! A signature is the minimum of each permutation over the tokens. The permutations
//! themselves (`a`, `b`) are drawn by NumPy's `RandomState(seed)` on the Python side, exactly
//! as datasketch draws them; this module only applies them.

use super::sha1_lanes;
use crate::hash::wide_or_baseline;

/// datasketch's permutation schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// 32-bit values, MurmurHash3-premixed affine permutations (the default).
    Affine32,
    /// 64-bit values, likewise.
    Affine64,
    /// The pre-2.0 scheme: 32-bit values stored as `uint64`.
    Legacy,
}

impl Scheme {
    /// The scheme datasketch names `name`.
    pub fn parse(name: &str) -> Option<Scheme> {
        match name {
            "affine32" => Some(Scheme::Affine32),
            "affine64" => Some(Scheme::Affine64),
            "legacy" => Some(Scheme::Legacy),
            _ => None,
        }
    }
}

/// The Mersenne prime 2^61 − 1 of the legacy scheme.
const MERSENNE_61: u64 = (1 << 61) - 1;

/// `sha1_hash32`: the first four bytes of the token's SHA-1 digest, little-endian.
#[inline]
pub fn sha1_hash32(token: &[u8]) -> u32 {
    sha1_lanes::first_eight_bytes(token) as u32
}

/// `sha1_hash64`: the first eight bytes of the token's SHA-1 digest, little-endian.
#[inline]
pub fn sha1_hash64(token: &[u8]) -> u64 {
    sha1_lanes::first_eight_bytes(token)
}

/// MurmurHash3's 32-bit finalizer (datasketch's `_fmix(hv, 32)`).
#[inline(always)]
pub fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

/// MurmurHash3's 64-bit finalizer (datasketch's `_fmix(hv, 64)`).
#[inline(always)]
pub fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// `x mod (2^61 − 1)` for any `u64`: `2^61 ≡ 1`, so `x ≡ (x >> 61) + (x & P)`, which is below
/// `2P`. Branch-free, so the permutation loop vectorizes (NumPy divides).
#[inline(always)]
fn mod_mersenne_61(x: u64) -> u64 {
    let y = (x >> 61) + (x & MERSENNE_61);
    if y >= MERSENNE_61 { y - MERSENNE_61 } else { y }
}

/// Lowers `values[j]` to `a[j] · fmix32(hash) + b[j]` where smaller (`affine32`).
#[inline(always)]
pub fn apply_affine32(values: &mut [u32], a: &[u32], b: &[u32], hash: u32) {
    let h = fmix32(hash);
    for ((v, &a), &b) in values.iter_mut().zip(a).zip(b) {
        *v = (*v).min(a.wrapping_mul(h).wrapping_add(b));
    }
}

/// Lowers `values[j]` to `a[j] · fmix64(hash) + b[j]` where smaller (`affine64`).
#[inline(always)]
pub fn apply_affine64(values: &mut [u64], a: &[u64], b: &[u64], hash: u64) {
    let h = fmix64(hash);
    for ((v, &a), &b) in values.iter_mut().zip(a).zip(b) {
        *v = (*v).min(a.wrapping_mul(h).wrapping_add(b));
    }
}

/// Lowers `values[j]` to the legacy permutation of `hash` where smaller.
#[inline(always)]
pub fn apply_legacy(values: &mut [u64], a: &[u64], b: &[u64], hash: u64) {
    for ((v, &a), &b) in values.iter_mut().zip(a).zip(b) {
        let p = mod_mersenne_61(a.wrapping_mul(hash).wrapping_add(b)) & 0xFFFF_FFFF;
        *v = (*v).min(p);
    }
}

/// One scheme's permutations, as datasketch's `MinHash.permutations` holds them.
#[derive(Debug, Clone, Copy)]
pub enum Permutations<'a> {
    /// `affine32`: `a` (odd) and `b`.
    Affine32(&'a [u32], &'a [u32]),
    /// `affine64`.
    Affine64(&'a [u64], &'a [u64]),
    /// `legacy`.
    Legacy(&'a [u64], &'a [u64]),
}

/// A signature being lowered: `uint32` values (`affine32`) or `uint64` (the others).
#[derive(Debug)]
pub enum Values<'a> {
    /// `affine32`.
    U32(&'a mut [u32]),
    /// `affine64`, `legacy`.
    U64(&'a mut [u64]),
}

impl Values<'_> {
    /// The same values, borrowed again (to lower them in several calls).
    pub fn reborrow(&mut self) -> Values<'_> {
        match self {
            Values::U32(v) => Values::U32(v),
            Values::U64(v) => Values::U64(v),
        }
    }
}

wide_or_baseline! {
    /// [`apply_affine32`] for every hash, vectorized over the permutations.
    pub fn lower_affine32(values: &mut [u32], a: &[u32], b: &[u32], hashes: &[u64]) {
        for &h in hashes {
            apply_affine32(values, a, b, h as u32);
        }
    }
}

wide_or_baseline! {
    /// [`apply_affine64`] for every hash.
    pub fn lower_affine64(values: &mut [u64], a: &[u64], b: &[u64], hashes: &[u64]) {
        for &h in hashes {
            apply_affine64(values, a, b, h);
        }
    }
}

wide_or_baseline! {
    /// [`apply_legacy`] for every hash.
    pub fn lower_legacy(values: &mut [u64], a: &[u64], b: &[u64], hashes: &[u64]) {
        for &h in hashes {
            apply_legacy(values, a, b, h);
        }
    }
}

impl Permutations<'_> {
    /// Number of permutations.
    pub fn len(&self) -> usize {
        match self {
            Permutations::Affine32(a, _) => a.len(),
            Permutations::Affine64(a, _) | Permutations::Legacy(a, _) => a.len(),
        }
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lowers `values` by the token hashes `hashes` (already hashed: a user's `hashfunc`;
    /// for `affine32` and `legacy`, the caller checked they fit 32 bits, as datasketch does).
    /// `None` when `values` is not of the scheme's width or length.
    pub fn apply_hashes(&self, values: Values<'_>, hashes: &[u64]) -> Option<()> {
        match (self, values) {
            (Permutations::Affine32(a, b), Values::U32(v)) if v.len() == a.len() => {
                lower_affine32(v, a, b, hashes)
            }
            (Permutations::Affine64(a, b), Values::U64(v)) if v.len() == a.len() => {
                lower_affine64(v, a, b, hashes)
            }
            (Permutations::Legacy(a, b), Values::U64(v)) if v.len() == a.len() => {
                lower_legacy(v, a, b, hashes)
            }
            _ => return None,
        }
        Some(())
    }

    /// Lowers `values` by `tokens` hashed with SHA-1 (datasketch's default `hashfunc`),
    /// 256 tokens at a time: hashed sixteen side by side, then permuted.
    /// `None` when `values` is not of the scheme's width or length.
    pub fn apply_tokens<'t>(
        &self,
        mut values: Values<'_>,
        tokens: impl IntoIterator<Item = &'t [u8]>,
    ) -> Option<()> {
        const CHUNK: usize = 256;
        let mut chunk: [&[u8]; CHUNK] = [&[]; CHUNK];
        let mut hashes = [0u64; CHUNK];
        let mut n = 0;
        self.apply_hashes(values.reborrow(), &[])?;
        for token in tokens {
            chunk[n] = token;
            n += 1;
            if n == CHUNK {
                self.apply_sha1(values.reborrow(), &chunk, &mut hashes);
                n = 0;
            }
        }
        self.apply_sha1(values, &chunk[..n], &mut hashes[..n]);
        Some(())
    }

    fn apply_sha1(&self, values: Values<'_>, tokens: &[&[u8]], hashes: &mut [u64]) {
        sha1_lanes::first_eight_bytes_all(tokens, hashes);
        if !matches!(self, Permutations::Affine64(..)) {
            // sha1_hash32: the first four bytes.
            hashes.iter_mut().for_each(|h| *h &= 0xFFFF_FFFF);
        }
        self.apply_hashes(values, hashes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SHA-1 test vectors (FIPS 180-1): "abc" → a9993e36…, read little-endian.
    #[test]
    fn sha1_hashes_read_the_digest_little_endian() {
        assert_eq!(
            sha1_hash32(b"abc"),
            u32::from_le_bytes([0xa9, 0x99, 0x3e, 0x36])
        );
        assert_eq!(
            sha1_hash64(b"abc"),
            u64::from_le_bytes([0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a])
        );
        // "" → da39a3ee…
        assert_eq!(
            sha1_hash32(b""),
            u32::from_le_bytes([0xda, 0x39, 0xa3, 0xee])
        );
    }

    /// The reduction equals the `%` it replaces, at the edges and on a seeded spread.
    #[test]
    fn mersenne_reduction_is_the_remainder() {
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        let edges = [
            0,
            1,
            MERSENNE_61 - 1,
            MERSENNE_61,
            MERSENNE_61 + 1,
            2 * MERSENNE_61,
            2 * MERSENNE_61 + 1,
            1 << 61,
            (1 << 62) - 1,
            u64::MAX - 1,
            u64::MAX,
        ];
        for i in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = edges.get(i as usize).copied().unwrap_or(x);
            assert_eq!(mod_mersenne_61(v), v % MERSENNE_61, "x = {v}");
        }
    }

    /// The finalizers are bijections whose known values (MurmurHash3's reference) hold.
    #[test]
    fn finalizers_match_murmurhash3() {
        assert_eq!(fmix32(0), 0);
        assert_eq!(fmix64(0), 0);
        // Reference: datasketch 2.0's `_fmix` (NumPy) on the same inputs.
        assert_eq!(fmix32(1), 0x514E_28B7);
        assert_eq!(fmix64(1), 0xB456_BCFC_34C2_CB2C);
        assert_eq!(fmix32(0xDEAD_BEEF), 0x0DE5_C6A9);
        assert_eq!(fmix64(0xDEAD_BEEF_CAFE_BABE), 0x7082_9950_08F0_C48C);
    }

    /// Each scheme's update is the minimum over tokens of the permutation, computed one
    /// value at a time with wide arithmetic (the oracle).
    #[test]
    fn tokens_lower_each_value_to_the_minimum_permutation() {
        let tokens: Vec<Vec<u8>> = (0..50).map(|i| format!("w{i}").into_bytes()).collect();
        let a32: Vec<u32> = (0..16).map(|j| 2 * (j * 7919 + 3) + 1).collect();
        let b32: Vec<u32> = (0..16).map(|j| j * 104_729).collect();
        let mut v32 = vec![u32::MAX; 16];
        Permutations::Affine32(&a32, &b32)
            .apply_tokens(Values::U32(&mut v32), tokens.iter().map(Vec::as_slice))
            .unwrap();
        for j in 0..16 {
            let want = tokens
                .iter()
                .map(|t| {
                    let h = fmix32(sha1_hash32(t)) as u128;
                    ((a32[j] as u128 * h + b32[j] as u128) % (1u128 << 32)) as u32
                })
                .min()
                .unwrap();
            assert_eq!(v32[j], want);
        }
        let a64: Vec<u64> = (0..16u64)
            .map(|j| (j << 40) | 0x1234_5678_9abc | 1)
            .collect();
        let b64: Vec<u64> = (0..16u64)
            .map(|j| j.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let mut legacy = vec![0xFFFF_FFFF_u64; 16];
        Permutations::Legacy(&a64, &b64)
            .apply_tokens(Values::U64(&mut legacy), tokens.iter().map(Vec::as_slice))
            .unwrap();
        for j in 0..16 {
            let want = tokens
                .iter()
                .map(|t| {
                    let h = sha1_hash32(t) as u128;
                    let wrapped = (a64[j] as u128 * h + b64[j] as u128) % (1u128 << 64);
                    (wrapped % MERSENNE_61 as u128) as u64 & 0xFFFF_FFFF
                })
                .min()
                .unwrap();
            assert_eq!(legacy[j], want);
        }
        let mut wrong = vec![0u64; 16];
        assert!(
            Permutations::Affine32(&a32, &b32)
                .apply_tokens(Values::U64(&mut wrong), [b"x".as_slice()])
                .is_none()
        );
    }
}
