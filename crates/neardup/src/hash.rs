//! Seeded, fast, non-cryptographic hashing and a tiny deterministic generator.
//!
//! * Tokens are hashed once with XXH3-64 (seeded); shingles are then combined from their
//!   tokens' hashes with [`combine`], so a shingle is never materialized as a string.
//! * [`mix64`] is the 64-bit finalizer of MurmurHash3 (`fmix64`): a bijection that spreads every
//!   input bit over the output; used to derive independent-looking values from one hash.
//! * [`SplitMix64`] (Steele, Lea, Flood, OOPSLA 2014) derives per-hash-function coefficients
//!   and seeds. It is written here rather than taken from `rand` so that signatures stay
//!   byte-identical whatever version of `rand` the workspace resolves to.
//!
//! Cryptographic hashes (SHA1, MD5) appear only where a paper's signature *is* the hash
//! (I-Match, Tianwang), in those algorithms' files.

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// XXH3-64 of `bytes` with `seed`.
#[inline]
pub fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
    xxh3_64_with_seed(bytes, seed)
}

/// Spaces a buffer needs after its text for [`hash_token_at`] to read 16 bytes at any token.
pub const TOKEN_PAD: usize = 16;

/// Masks keeping the first `len` bytes of two little-endian words (index = len ≤ 16).
const TOKEN_MASKS: [(u64, u64); 17] = {
    let mut t = [(0u64, 0u64); 17];
    let mut len = 0;
    while len <= 16 {
        let lo = if len >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * len)) - 1
        };
        let hi = if len <= 8 {
            0
        } else if len >= 16 {
            u64::MAX
        } else {
            (1u64 << (8 * (len - 8))) - 1
        };
        t[len] = (lo, hi);
        len += 1;
    }
    t
};

/// The hash of a token of at most 16 bytes from its [`token_words_at`]: two `mix64` rounds.
#[inline(always)]
fn mix_token_words(lo: u64, hi: u64, seed: u64) -> u64 {
    mix64(mix64(lo ^ seed) ^ hi)
}

/// Hash of a token (a word): tokens of up to 16 bytes — nearly all words — are read as two
/// masked 64-bit words and finished with two `mix64` rounds, with no branch on the length;
/// longer ones go through XXH3. Equal to [`hash_token_at`] on the same bytes.
#[inline]
pub fn hash_token(token: &[u8], seed: u64) -> u64 {
    let len = token.len();
    if len > 16 {
        return hash_bytes(token, seed);
    }
    let mut w = [0u8; 16];
    w[..len].copy_from_slice(token);
    hash_token_at(&w, 0, len, seed)
}

/// [`hash_token`] of `buf[start..start + len]`, reading 16 bytes at `start` without copying:
/// `buf` must hold [`TOKEN_PAD`] bytes after the text (the tokenizer's buffer is padded with
/// spaces, which no token contains).
#[inline(always)]
pub fn hash_token_at(buf: &[u8], start: usize, len: usize, seed: u64) -> u64 {
    match token_words_at(buf, start, len) {
        Some((lo, hi)) => mix_token_words(lo, hi, seed),
        None => long_token(&buf[start..start + len], seed),
    }
}

/// A token longer than 16 bytes (rare): out of line, so the tokenizer's per-token callback
/// stays small enough to be inlined into its loop.
#[cold]
#[inline(never)]
fn long_token(token: &[u8], seed: u64) -> u64 {
    hash_bytes(token, seed)
}

/// The two words [`hash_token_at`] mixes for a token of at most 16 bytes: the first 8 bytes,
/// and the next 8 with the length folded in (`None` for a longer token). With
/// [`token_hashes`] this is [`hash_token_at`] split in two, so that a tokenizer can collect
/// the words in its loop and the mixing runs over all of a document's tokens at once.
#[inline(always)]
pub fn token_words_at(buf: &[u8], start: usize, len: usize) -> Option<(u64, u64)> {
    if len > 16 {
        return None;
    }
    let w: &[u8; 16] = buf[start..start + 16].try_into().expect("padded buffer");
    let (mlo, mhi) = TOKEN_MASKS[len];
    let lo = u64::from_le_bytes(w[..8].try_into().expect("8 bytes")) & mlo;
    let hi = u64::from_le_bytes(w[8..].try_into().expect("8 bytes")) & mhi;
    Some((lo, hi ^ (len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

/// Defines `$name` three times over the same body: compiled for AVX-512 (F + DQ, whose
/// `vpmullq` multiplies eight 64-bit lanes at once), for AVX2 (four lanes, each 64-bit multiply
/// made of three 32-bit ones), and for the baseline (SSE2: two lanes), the widest the CPU has
/// picked at run time. All compute the same integers; LLVM vectorizes the element-wise loops
/// of the bodies as wide as the features allow. (Without the AVX2 tier, CPUs without AVX-512
/// — many cloud VMs — ran these loops two lanes at a time.)
macro_rules! wide_or_baseline {
    ($(#[$doc:meta])* pub fn $name:ident($($arg:ident: $ty:ty),*) $body:block) => {
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512dq")]
                fn wide($($arg: $ty),*) $body
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) $body
                if std::is_x86_feature_detected!("avx512dq") {
                    // SAFETY: the CPU has the features `wide` was compiled for.
                    return unsafe { wide($($arg),*) };
                }
                if std::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has the features `avx2` was compiled for.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $body
        }
    };
}
pub(crate) use wide_or_baseline;

wide_or_baseline! {
    /// Replaces `lo[i]` by the hash of the token whose [`token_words_at`] are
    /// `(lo[i], hi[i])`: equal to [`hash_token_at`] (two `mix64` rounds), eight tokens per
    /// instruction where the CPU allows it. In place, so the caller needs no third buffer.
    /// The slices have equal lengths.
    pub fn token_hashes(lo: &mut [u64], hi: &[u64], seed: u64) {
        assert!(lo.len() == hi.len(), "token word lengths");
        for (l, &h) in lo.iter_mut().zip(hi) {
            *l = mix_token_words(*l, h, seed);
        }
    }
}

wide_or_baseline! {
    /// `xs[i] = mix64(xs[i] ^ seed)` for every element (the finalizer of rolling shingle
    /// hashes), eight per instruction where the CPU allows it.
    pub fn finish_all(xs: &mut [u64], seed: u64) {
        for x in xs.iter_mut() {
            *x = mix64(*x ^ seed);
        }
    }
}

/// MurmurHash3's `fmix64` finalizer: a bijection on `u64` with full avalanche.
#[inline]
pub const fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    x
}

/// Order-dependent combination step: `combine(combine(s, a), b) != combine(combine(s, b), a)`
/// in general. Finish a chain with [`mix64`].
#[inline]
pub const fn combine(acc: u64, h: u64) -> u64 {
    (acc ^ h)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(29)
}

/// The state a [`hash_sequence`] chain starts from: for callers that advance several chains
/// side by side ([`combine`] each item, [`mix64`] to finish) and must equal `hash_sequence`.
#[inline]
pub const fn sequence_start(seed: u64) -> u64 {
    seed ^ 0x6a09_e667_f3bc_c909
}

/// Hash of an ordered sequence of already-hashed items (a shingle from its token hashes).
#[inline]
pub fn hash_sequence(seed: u64, items: impl IntoIterator<Item = u64>) -> u64 {
    let mut acc = sequence_start(seed);
    for h in items {
        acc = combine(acc, h);
    }
    mix64(acc)
}

/// SplitMix64: a 64-bit generator with a single word of state; every seed is fine.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator started from `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform float in [0, 1) with 53 random bits.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in `0..n` (Lemire's multiply-shift; the bias is below 2^-32 for the
    /// `n` used here). `n` must be positive.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// Derives the seed of a named sub-component from a parent seed, so that, say, the MinHash
/// permutations and the LSH band keys of one detector are independent.
pub fn derive_seed(seed: u64, purpose: &str) -> u64 {
    mix64(seed ^ hash_bytes(purpose.as_bytes(), 0x5eed))
}

/// A hasher that passes a `u64` key through: for maps keyed by values that are already
/// uniformly mixed hashes (shingle hashes, band keys), where SipHash would only cost time.
#[derive(Debug, Default, Clone, Copy)]
pub struct PassThroughHasher(u64);

impl std::hash::Hasher for PassThroughHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only used with u64 keys; fold any other input for safety.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
}

/// A map keyed by 64-bit hashes, with [`PassThroughHasher`].
pub type HashedKeyMap<V> =
    std::collections::HashMap<u64, V, std::hash::BuildHasherDefault<PassThroughHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix64_is_a_bijection_on_a_sample() {
        let mut seen: Vec<u64> = (0..10_000u64).map(mix64).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 10_000);
    }

    /// The vectorized loops (the widest tier this CPU has: AVX-512, AVX2 or SSE2) against the
    /// scalar formulas, at every length up to a few registers past a multiple of each width.
    #[test]
    fn wide_loops_equal_the_scalar_formulas() {
        let mut rng = SplitMix64::new(11);
        for n in 0..70 {
            let lo: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
            let hi: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
            let seed = rng.next_u64();
            let mut out = lo.clone();
            token_hashes(&mut out, &hi, seed);
            for i in 0..n {
                assert_eq!(
                    out[i],
                    mix_token_words(lo[i], hi[i], seed),
                    "token {i} of {n}"
                );
            }
            let mut xs = lo.clone();
            finish_all(&mut xs, seed);
            for i in 0..n {
                assert_eq!(xs[i], mix64(lo[i] ^ seed), "shingle {i} of {n}");
            }
        }
    }

    #[test]
    fn token_hash_paths_agree_and_separate() {
        let text =
            b"a ab abc abcdefgh abcdefghi abcdefghijklmnop abcdefghijklmnopq                ";
        let mut seen = std::collections::HashSet::new();
        let mut start = 0;
        for tok in text.split(|&b| b == b' ').filter(|t| !t.is_empty()) {
            let pos = text[start..]
                .windows(tok.len())
                .position(|w| w == tok)
                .unwrap()
                + start;
            assert_eq!(hash_token(tok, 5), hash_token_at(text, pos, tok.len(), 5));
            assert!(seen.insert(hash_token(tok, 5)));
            start = pos + tok.len();
        }
        // A trailing NUL is a different token.
        assert_ne!(hash_token(b"ab", 1), hash_token(b"ab\0", 1));
        assert_ne!(hash_token(b"ab", 1), hash_token(b"ab", 2));
    }

    #[test]
    fn batched_token_hashes_equal_one_at_a_time() {
        // Tokens of every length 0..=16 at every alignment of a padded buffer (seed 9), plus
        // a count that is not a multiple of the vector width: the batch (wide on a CPU with
        // AVX-512, baseline elsewhere) equals `hash_token_at`, and `finish_all` equals `mix64`.
        let mut rng = SplitMix64::new(9);
        let buf: Vec<u8> = (0..300).map(|_| b'a' + (rng.below(26) as u8)).collect();
        let mut spans = Vec::new();
        for len in 0..=16 {
            for start in 0..=(buf.len() - 16 - len).min(40) {
                spans.push((start, len));
            }
        }
        spans.truncate(spans.len() - 3);
        let (lo, hi): (Vec<u64>, Vec<u64>) = spans
            .iter()
            .map(|&(s, l)| token_words_at(&buf, s, l).expect("at most 16 bytes"))
            .unzip();
        let mut out = lo.clone();
        token_hashes(&mut out, &hi, 77);
        for (&(s, l), &h) in spans.iter().zip(&out) {
            assert_eq!(h, hash_token_at(&buf, s, l, 77), "token at {s}, length {l}");
        }
        assert_eq!(token_words_at(&buf, 0, 17), None);
        let mut xs = out.clone();
        finish_all(&mut xs, 5);
        for (x, o) in xs.iter().zip(&out) {
            assert_eq!(*x, mix64(o ^ 5));
        }
    }

    #[test]
    fn sequence_hash_depends_on_order() {
        assert_ne!(hash_sequence(1, [1, 2, 3]), hash_sequence(1, [3, 2, 1]));
        assert_ne!(hash_sequence(1, [1, 2]), hash_sequence(2, [1, 2]));
    }

    #[test]
    fn splitmix_is_uniform_enough() {
        // Seed 7: the mean of 100k uniforms lies within 5 standard errors of 1/2.
        let mut rng = SplitMix64::new(7);
        let n = 100_000;
        let mean: f64 = (0..n).map(|_| rng.next_f64()).sum::<f64>() / n as f64;
        let se = (1.0 / 12.0 / n as f64).sqrt();
        assert!((mean - 0.5).abs() < 5.0 * se, "mean {mean}");
        assert!((0..1000).all(|_| rng.below(10) < 10));
    }
}
