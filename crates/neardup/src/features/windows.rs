//! Shingle hashes from windows: word k-shingles from a document's token hashes (one size, or
//! two by script with `cjk_k`) and character k-shingles from its text. The shingler
//! ([`super::Shingler`]) tokenizes; these only hash windows.

use crate::hash::{finish_all, hash_bytes, hash_sequence};

/// Rotation per position of the rolling shingle hash (odd, so k ≤ 64 positions get distinct
/// rotations).
const ROLL: u32 = 13;

/// Word k-shingles of a token-hash sequence (see the module docs for short documents).
///
/// The hash of the window t_i … t_{i+k−1} is `mix64(seed ⊕ ⨁_j rotl(t_{i+j}, 13·(k−1−j)))`:
/// order-dependent (each position has its own rotation), and *rolling* — the next window is
/// `rotl(h, 13) ⊕ rotl(t_i, 13·k) ⊕ t_{i+k}` — so a shingle costs two rotations, two xors and
/// the finalizer whatever k is (Broder's Rabin fingerprints play the same role).
pub(super) fn word_shingles(tokens: &[u64], k: usize, seed: u64, out: &mut Vec<u64>) {
    if tokens.is_empty() {
        return;
    }
    if tokens.len() < k {
        out.push(hash_sequence(seed, tokens.iter().copied()));
        return;
    }
    let first = out.len();
    out.reserve(tokens.len() + 1 - k);
    let leave = (ROLL * k as u32) % 64;
    let mut h = 0u64;
    for &t in &tokens[..k] {
        h = h.rotate_left(ROLL) ^ t;
    }
    out.push(h);
    for (&gone, &new) in tokens.iter().zip(&tokens[k..]) {
        h = h.rotate_left(ROLL) ^ gone.rotate_left(leave) ^ new;
        out.push(h);
    }
    // The finalizer in a second, element-wise pass, where it vectorizes.
    finish_all(&mut out[first..], seed);
}

/// Word shingles of two sizes: `cjk_k` tokens from a Han token, `k` from any other (see
/// [`FeatureParams::cjk_k`]); each the hash [`word_shingles`] gives a window of its size. A
/// text shorter than a shingle's size gives one shingle of what is left, as there.
pub(super) fn mixed_word_shingles(
    tokens: &[u64],
    han: &[bool],
    k: usize,
    cjk_k: usize,
    seed: u64,
    out: &mut Vec<u64>,
) {
    if tokens.is_empty() {
        return;
    }
    let first = out.len();
    let n = tokens.len();
    for (i, &is_han) in han.iter().enumerate() {
        let width = if is_han { cjk_k } else { k };
        // A window that would run past the end is not a shingle (as in `word_shingles`).
        if i + width <= n {
            let h = tokens[i..i + width]
                .iter()
                .fold(0u64, |h, &t| h.rotate_left(ROLL) ^ t);
            out.push(h);
        }
    }
    if out.len() == first {
        out.push(hash_sequence(seed, tokens.iter().copied()));
        return;
    }
    finish_all(&mut out[first..], seed);
}

/// Character k-shingles: windows of k Unicode scalar values, hashed as UTF-8 bytes.
pub(super) fn char_shingles(
    text: &str,
    k: usize,
    seed: u64,
    offsets: &mut Vec<usize>,
    out: &mut Vec<u64>,
) {
    if text.is_empty() {
        return;
    }
    let bytes = text.as_bytes();
    if text.is_ascii() {
        if bytes.len() < k {
            out.push(hash_bytes(bytes, seed));
        } else {
            out.extend(bytes.windows(k).map(|w| hash_bytes(w, seed)));
        }
        return;
    }
    offsets.clear();
    offsets.extend(text.char_indices().map(|(i, _)| i));
    offsets.push(text.len());
    let chars = offsets.len() - 1;
    if chars < k {
        out.push(hash_bytes(bytes, seed));
        return;
    }
    out.extend((0..=chars - k).map(|i| hash_bytes(&bytes[offsets[i]..offsets[i + k]], seed)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    #[test]
    fn rolling_hash_equals_direct_formula() {
        let tokens: Vec<u64> = (1..80u64).map(mix64).collect();
        for k in [1, 2, 5, 9, 64] {
            let mut rolled = Vec::new();
            word_shingles(&tokens, k, 7, &mut rolled);
            for (i, &h) in rolled.iter().enumerate() {
                let direct = tokens[i..i + k]
                    .iter()
                    .enumerate()
                    .fold(0u64, |acc, (j, &t)| {
                        acc ^ t.rotate_left((ROLL * (k - 1 - j) as u32) % 64)
                    });
                assert_eq!(h, mix64(direct ^ 7), "k={k} window {i}");
            }
        }
    }

    /// The oracle of `mixed_word_shingles`: each window hashed by the direct formula, its
    /// width chosen by its first token's script.
    #[test]
    fn mixed_shingles_equal_the_direct_formula_per_window() {
        let tokens: Vec<u64> = (1..60u64).map(mix64).collect();
        let direct = |i: usize, k: usize| {
            let h = tokens[i..i + k]
                .iter()
                .enumerate()
                .fold(0u64, |acc, (j, &t)| {
                    acc ^ t.rotate_left((ROLL * (k - 1 - j) as u32) % 64)
                });
            mix64(h ^ 7)
        };
        for pattern in [
            0u64,
            0x5555_5555,
            0xFFFF_0000_FFFF,
            u64::MAX,
            0x0F0F_3C3C_0001,
        ] {
            let han: Vec<bool> = (0..tokens.len())
                .map(|i| pattern >> (i % 64) & 1 == 1)
                .collect();
            let mut got = Vec::new();
            mixed_word_shingles(&tokens, &han, 5, 3, 7, &mut got);
            let want: Vec<u64> = (0..tokens.len())
                .map(|i| (i, if han[i] { 3 } else { 5 }))
                .filter(|&(i, w)| i + w <= tokens.len())
                .map(|(i, w)| direct(i, w))
                .collect();
            assert_eq!(got, want, "pattern {pattern:#x}");
        }
        // No Han token: the same shingles as the rolling hash of one size.
        let (mut fixed, mut mixed) = (Vec::new(), Vec::new());
        word_shingles(&tokens, 5, 7, &mut fixed);
        mixed_word_shingles(&tokens, &vec![false; tokens.len()], 5, 3, 7, &mut mixed);
        assert_eq!(fixed, mixed);
    }
}
