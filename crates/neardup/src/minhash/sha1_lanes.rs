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
        let mut block = [0u8; 56];
        block[..token.len()].copy_from_slice(token);
        block[token.len()] = 0x80;
        // Only the words the token and its 0x80 reach are non-zero (a word is 3 or 4 on
        // average), besides the length in bits (words 14 and 15; 14 is zero below 2^32 bits).
        let used = (token.len() + 1).div_ceil(4);
        for (i, word) in w.iter_mut().enumerate().take(used) {
            word[lane] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().expect("4 bytes"));
        }
        w[15][lane] = token.len() as u32 * 8;
    }
    w
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

/// Twenty rounds (one of SHA-1's four functions), five at a time so that the five words
/// return to their roles after each five.
#[inline(always)]
fn twenty_rounds(
    s: &mut [Lanes; 5],
    w: &mut [Lanes; 16],
    first: usize,
    k: u32,
    f: impl Fn(u32, u32, u32) -> u32 + Copy,
) {
    let [a, b, c, d, e] = s;
    for t in (first..first + 20).step_by(5) {
        for (j, t) in (t..t + 5).enumerate() {
            if t >= 16 {
                schedule(w, t);
            }
            let wt = &w[t % 16];
            match j {
                0 => round([a, b, c, d, e], wt, k, f),
                1 => round([e, a, b, c, d], wt, k, f),
                2 => round([d, e, a, b, c], wt, k, f),
                3 => round([c, d, e, a, b], wt, k, f),
                _ => round([b, c, d, e, a], wt, k, f),
            }
        }
    }
}

/// The compression of one block per lane from the initial value: the digest words.
#[inline(always)]
fn compress(mut w: [Lanes; 16]) -> [Lanes; 5] {
    let mut s = IV.map(|v| [v; LANES]);
    twenty_rounds(&mut s, &mut w, 0, 0x5A82_7999, |b, c, d| (b & c) | (!b & d));
    twenty_rounds(&mut s, &mut w, 20, 0x6ED9_EBA1, |b, c, d| b ^ c ^ d);
    twenty_rounds(&mut s, &mut w, 40, 0x8F1B_BCDC, |b, c, d| {
        (b & c) | (b & d) | (c & d)
    });
    twenty_rounds(&mut s, &mut w, 60, 0xCA62_C1D6, |b, c, d| b ^ c ^ d);
    for (state, iv) in s.iter_mut().zip(IV) {
        for v in state.iter_mut() {
            *v = v.wrapping_add(iv);
        }
    }
    s
}

wide_or_baseline! {
    /// `out[i]` = [`first_eight_bytes`]`(tokens[i])` for every token (equal lengths), sixteen
    /// one-block tokens per compression.
    pub fn first_eight_bytes_all(tokens: &[&[u8]], out: &mut [u64]) {
        assert!(tokens.len() == out.len(), "one output per token");
        for (group, out) in tokens.chunks(LANES).zip(out.chunks_mut(LANES)) {
            // A token of more than one block takes the `sha1` crate; its lane hashes nothing.
            let mut short: [&[u8]; LANES] = [&[]; LANES];
            for (lane, t) in group.iter().enumerate() {
                if t.len() <= ONE_BLOCK {
                    short[lane] = t;
                }
            }
            let digest = compress(padded_blocks(&short[..group.len()]));
            for (lane, (t, o)) in group.iter().zip(out.iter_mut()).enumerate() {
                *o = if t.len() > ONE_BLOCK {
                    first_eight_bytes(t)
                } else {
                    // The digest's bytes are its words big-endian; datasketch reads them little.
                    digest[0][lane].swap_bytes() as u64
                        | (digest[1][lane].swap_bytes() as u64) << 32
                };
            }
        }
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
            let mut out = vec![0; part.len()];
            first_eight_bytes_all(part, &mut out);
            for (t, got) in part.iter().zip(&out) {
                assert_eq!(*got, first_eight_bytes(t), "token of {} bytes", t.len());
            }
        }
    }
}
