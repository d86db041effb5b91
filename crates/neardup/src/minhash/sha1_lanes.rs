//! SHA-1 (FIPS 180-4 §6.1) of many short tokens at once: sixteen messages side by side, one
//! per lane, so every step of the compression is one vector instruction over sixteen tokens
//! (LLVM vectorizes the lane loops as wide as the CPU allows: `wide_or_baseline`).
//!
//! Why: datasketch hashes every token with SHA-1, and a token is a word — one 64-byte block.
//! One SHA-1 at a time (the `sha1` crate, SHA-NI included) took 96 ns per word on this
//! project's test machine, longer than the 128 permutations after it; sixteen at a time share
//! the rounds. Tokens longer than 55 bytes (more than one block) take the `sha1` crate.

use sha1::{Digest, Sha1};

use crate::hash::wide_or_baseline;

/// Messages hashed together.
pub const LANES: usize = 16;

/// The longest token that fits one padded block (64 bytes − 0x80 − 8 length bytes).
pub const ONE_BLOCK: usize = 55;

const IV: [u32; 5] = [
    0x6745_2301,
    0xEFCD_AB89,
    0x98BA_DCFE,
    0x1032_5476,
    0xC3D2_E1F0,
];

/// The first eight digest bytes of `token`, read little-endian (datasketch's `sha1_hash64`;
/// the low 32 bits are its `sha1_hash32`).
#[inline]
pub fn first_eight_bytes(token: &[u8]) -> u64 {
    let digest = Sha1::digest(token);
    u64::from_le_bytes(digest[..8].try_into().expect("a SHA-1 digest has 20 bytes"))
}

/// The sixteen message-schedule words of each lane's one padded block (`tokens[lane]`, at
/// most [`ONE_BLOCK`] bytes; lanes past `tokens.len()` hash the empty message).
#[inline(always)]
fn padded_blocks(tokens: &[&[u8]]) -> [Lanes; 16] {
    let mut w = [[0u32; LANES]; 16];
    for lane in 0..LANES {
        let token = tokens.get(lane).copied().unwrap_or(&[]);
        if let Some(head) = short_block_head(token) {
            // A word of at most 15 bytes (most tokens): its block's first four words.
            for (i, word) in w.iter_mut().take(4).enumerate() {
                word[lane] = ((head >> (32 * i)) as u32).swap_bytes();
            }
        } else {
            let mut block = [0u8; 56];
            block[..token.len()].copy_from_slice(token);
            block[token.len()] = 0x80;
            // Only the words the token and its 0x80 reach are non-zero, besides the length
            // in bits (words 14 and 15; 14 is zero below 2^32 bits).
            let used = (token.len() + 1).div_ceil(4);
            for (i, word) in w.iter_mut().enumerate().take(used) {
                word[lane] =
                    u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().expect("4 bytes"));
            }
        }
        w[15][lane] = token.len() as u32 * 8;
    }
    w
}

/// The first sixteen bytes of the padded block of a token of at most 15 bytes (the token,
/// then 0x80, then zeros), read little-endian; `None` for a longer token. Built from two
/// overlapping loads instead of a copy of variable length (a `memcpy` call per token): the
/// bytes two loads both cover land twice on the same place with the same value, so OR
/// keeps them.
#[inline(always)]
fn short_block_head(token: &[u8]) -> Option<u128> {
    let len = token.len();
    let loaded = match len {
        0 => 0,
        1..=3 => {
            (token[0] as u128)
                | (token[len / 2] as u128) << (8 * (len / 2))
                | (token[len - 1] as u128) << (8 * (len - 1))
        }
        4..=7 => {
            let first = u32::from_le_bytes(token[..4].try_into().expect("4 bytes"));
            let last = u32::from_le_bytes(token[len - 4..].try_into().expect("4 bytes"));
            first as u128 | (last as u128) << (8 * (len - 4))
        }
        8..=15 => {
            let first = u64::from_le_bytes(token[..8].try_into().expect("8 bytes"));
            let last = u64::from_le_bytes(token[len - 8..].try_into().expect("8 bytes"));
            first as u128 | (last as u128) << (8 * (len - 8))
        }
        _ => return None,
    };
    Some(loaded | 0x80 << (8 * len))
}

type Lanes = [u32; LANES];

/// One SHA-1 round over every lane, in the form that needs no moves: `e += rotl5(a) +
/// f(b, c, d) + k + w`, `b = rotl30(b)`; the caller rotates the roles of the five words.
#[inline(always)]
fn round([a, b, c, d, e]: [&mut Lanes; 5], w: &Lanes, k: u32, f: impl Fn(u32, u32, u32) -> u32) {
    for l in 0..LANES {
        e[l] = e[l]
            .wrapping_add(a[l].rotate_left(5))
            .wrapping_add(f(b[l], c[l], d[l]))
            .wrapping_add(k)
            .wrapping_add(w[l]);
        b[l] = b[l].rotate_left(30);
    }
}

/// Message schedule word `t` (≥ 16), in place over the sixteen-word window.
#[inline(always)]
fn schedule(w: &mut [Lanes; 16], t: usize) {
    let (w3, w8, w14) = (w[(t + 13) % 16], w[(t + 8) % 16], w[(t + 2) % 16]);
    for (l, x) in w[t % 16].iter_mut().enumerate() {
        *x = (w3[l] ^ w8[l] ^ w14[l] ^ *x).rotate_left(1);
    }
}

/// Round `T` (message schedule word `T` first, for `T` ≥ 16), with the five words in the
/// roles round `T` gives them. `T` is a constant so that, once every round is inlined, every
/// index is known: LLVM then keeps the state and the sixteen-word window in vector registers
/// (a loop over `t` indexed the window at run time and kept it in memory: 45 ns per word,
/// 34 unrolled, on a million random words of 2–10 bytes; `cargo bench --bench minhash --
/// sha1_lanes` follows it).
#[inline(always)]
fn round_at<const T: usize>(
    s: &mut [Lanes; 5],
    w: &mut [Lanes; 16],
    k: u32,
    f: impl Fn(u32, u32, u32) -> u32,
) {
    if T >= 16 {
        schedule(w, T);
    }
    let [a, b, c, d, e] = s;
    let wt = &w[T % 16];
    match T % 5 {
        0 => round([a, b, c, d, e], wt, k, f),
        1 => round([e, a, b, c, d], wt, k, f),
        2 => round([d, e, a, b, c], wt, k, f),
        3 => round([c, d, e, a, b], wt, k, f),
        _ => round([b, c, d, e, a], wt, k, f),
    }
}

/// Twenty rounds of one of SHA-1's four functions, written out (see [`round_at`]).
macro_rules! twenty_rounds {
    ($s:ident, $w:ident, $k:expr, $f:expr; $($t:literal)*) => {
        $( round_at::<$t>(&mut $s, &mut $w, $k, $f); )*
    };
}

/// The compression of one block per lane from the initial value: the digest words.
#[inline(always)]
fn compress(mut w: [Lanes; 16]) -> [Lanes; 5] {
    let mut s = IV.map(|v| [v; LANES]);
    let ch = |b: u32, c: u32, d: u32| (b & c) | (!b & d);
    let parity = |b: u32, c: u32, d: u32| b ^ c ^ d;
    let maj = |b: u32, c: u32, d: u32| (b & c) | (b & d) | (c & d);
    twenty_rounds!(s, w, 0x5A82_7999, ch; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
    twenty_rounds!(s, w, 0x6ED9_EBA1, parity;
        20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39);
    twenty_rounds!(s, w, 0x8F1B_BCDC, maj;
        40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59);
    twenty_rounds!(s, w, 0xCA62_C1D6, parity;
        60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79);
    for (state, iv) in s.iter_mut().zip(IV) {
        for v in state.iter_mut() {
            *v = v.wrapping_add(iv);
        }
    }
    s
}

/// `out[i]` = [`first_eight_bytes`]`(tokens[i])` for every token (equal lengths), sixteen
/// one-block tokens per compression: with AVX-512 BW where the CPU has it (the blocks built
/// by masked loads), otherwise [`first_eight_bytes_portable`].
pub fn first_eight_bytes_all(tokens: &[&[u8]], out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vl")
    {
        // SAFETY: the CPU has the features `masked` was compiled for.
        return unsafe { masked::first_eight_bytes_all(tokens, out) };
    }
    first_eight_bytes_portable(tokens, out)
}

wide_or_baseline! {
    /// [`first_eight_bytes_all`] with the blocks built in plain Rust.
    pub fn first_eight_bytes_portable(tokens: &[&[u8]], out: &mut [u64]) {
        hash_groups(tokens, out, padded_blocks)
    }
}

/// The body every tier shares: groups of sixteen tokens, their blocks built by `pad`.
#[inline(always)]
fn hash_groups(tokens: &[&[u8]], out: &mut [u64], pad: impl Fn(&[&[u8]]) -> [Lanes; 16]) {
    assert!(tokens.len() == out.len(), "one output per token");
    for (group, out) in tokens.chunks(LANES).zip(out.chunks_mut(LANES)) {
        // A token of more than one block takes the `sha1` crate; its lane hashes nothing.
        let mut short: [&[u8]; LANES] = [&[]; LANES];
        for (lane, t) in group.iter().enumerate() {
            if t.len() <= ONE_BLOCK {
                short[lane] = t;
            }
        }
        let digest = compress(pad(&short[..group.len()]));
        for (lane, (t, o)) in group.iter().zip(out.iter_mut()).enumerate() {
            *o = if t.len() > ONE_BLOCK {
                first_eight_bytes(t)
            } else {
                // The digest's bytes are its words big-endian; datasketch reads them little.
                digest[0][lane].swap_bytes() as u64 | (digest[1][lane].swap_bytes() as u64) << 32
            };
        }
    }
}

/// The AVX-512 tier: a token enters its block by one masked load, which reads only the
/// token's bytes (the CPU suppresses faults on masked-out bytes), with no branch on its
/// length below 16 bytes — the plain Rust blocks branched on it, mispredicted on every other
/// English word, and took 44 % of the hashing time (perf, 20news).
#[cfg(target_arch = "x86_64")]
mod masked {
    use std::arch::x86_64::*;

    use super::{LANES, Lanes, hash_groups};

    // Exactly the features `super::first_eight_bytes_all` checks (it enabled avx512dq too,
    // which nothing checked).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) fn first_eight_bytes_all(tokens: &[&[u8]], out: &mut [u64]) {
        // `hash_groups` and the `compress` in it are inlined here: compiled with these features.
        hash_groups(tokens, out, |group| padded_blocks_masked(group));
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn padded_blocks_masked(tokens: &[&[u8]]) -> [Lanes; 16] {
        // Each lane's first four words, big-endian, then turned into one vector per word.
        let mut heads = [[0u32; 4]; LANES];
        let big_endian_words = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
        let mut w = [[0u32; LANES]; 16];
        for lane in 0..LANES {
            let token = tokens.get(lane).copied().unwrap_or(&[]);
            let len = token.len();
            if len > 15 {
                // 16–55 bytes (a few tokens in a hundred): the whole block, one lane at a time.
                let block = whole_block(token);
                heads[lane].copy_from_slice(&block[..4]);
                for (i, word) in w.iter_mut().enumerate().take(14).skip(4) {
                    word[lane] = block[i];
                }
            } else {
                // SAFETY: the mask selects the token's `len` bytes, all inside the slice; the
                // masked-out bytes are neither read nor able to fault (AVX-512 masked loads).
                let bytes =
                    unsafe { _mm_maskz_loadu_epi8((1u16 << len) - 1, token.as_ptr().cast()) };
                let marker = _mm_maskz_set1_epi8(1 << len, 0x80u8 as i8);
                let block = _mm_shuffle_epi8(_mm_or_si128(bytes, marker), big_endian_words);
                // SAFETY: `heads[lane]` is 16 bytes, written unaligned.
                unsafe { _mm_storeu_si128(heads[lane].as_mut_ptr().cast(), block) };
            }
            w[15][lane] = len as u32 * 8;
        }
        for (i, word) in w.iter_mut().take(4).enumerate() {
            for (lane, head) in heads.iter().enumerate() {
                word[lane] = head[i];
            }
        }
        w
    }

    /// The sixteen big-endian words of the padded block of a token of at most 55 bytes (its
    /// length words left zero), by one masked load of up to 64 bytes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn whole_block(token: &[u8]) -> [u32; 16] {
        let len = token.len();
        debug_assert!(len <= super::ONE_BLOCK);
        let big_endian_words =
            _mm512_set4_epi32(0x0c0d_0e0f, 0x0809_0a0b, 0x0405_0607, 0x0001_0203);
        // SAFETY: as for the short tokens: only the token's bytes are read.
        let bytes = unsafe { _mm512_maskz_loadu_epi8((1u64 << len) - 1, token.as_ptr().cast()) };
        let marker = _mm512_maskz_set1_epi8(1 << len, 0x80u8 as i8);
        let block = _mm512_shuffle_epi8(_mm512_or_si512(bytes, marker), big_endian_words);
        let mut words = [0u32; 16];
        // SAFETY: `words` is 64 bytes, written unaligned.
        unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), block) };
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length 0..=200 (one block, the 55/56 edge, several blocks), in groups that mix
    /// lengths, against the `sha1` crate (the oracle); seed 20261128.
    #[test]
    fn lanes_equal_one_at_a_time() {
        let mut x = 20_261_128_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut tokens: Vec<Vec<u8>> = (0..=200)
            .map(|len| (0..len).map(|_| next() as u8).collect())
            .collect();
        tokens.extend((0..500).map(|_| {
            let len = (next() % 56) as usize;
            (0..len).map(|_| next() as u8).collect()
        }));
        let slices: Vec<&[u8]> = tokens.iter().map(Vec::as_slice).collect();
        for start in [0, 3, 17] {
            let part = &slices[start..];
            for tier in [first_eight_bytes_all, first_eight_bytes_portable] {
                let mut out = vec![0; part.len()];
                tier(part, &mut out);
                for (t, got) in part.iter().zip(&out) {
                    assert_eq!(*got, first_eight_bytes(t), "token of {} bytes", t.len());
                }
            }
        }
    }
}
