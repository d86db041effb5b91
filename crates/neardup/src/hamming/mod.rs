//! Hamming-distance search over fingerprints (Manku, Jain, Das Sarma, WWW 2007, §3).
//!
//! * [`brute`] — popcount scans: the baseline, and the oracle every fast structure is tested
//!   against.
//! * [`design`] — table designs: split the f bits into blocks, choose blocks as the leading p
//!   bits of each permuted table; "n blocks, choose n − k" and the two-level designs; the
//!   design calculator behind `neardup hamming tune`.
//! * [`tables`] — the permuted-table index (build once, probe by prefix, filter by distance)
//!   and the batch all-pairs join; `run_split` splits the join's runs that the data makes
//!   long, by the same pigeonhole argument one level down.
//!
//! Fingerprints are `u32`, `u64` or `u128` through the [`Bits`] trait; block permutations
//! move contiguous bit ranges, so permuting costs a few shifts per block, and since a
//! permutation of bit positions preserves Hamming distance, permuted values are compared
//! directly.

pub mod brute;
pub mod design;
mod run_split;
pub mod tables;

/// A fixed-width fingerprint.
pub trait Bits:
    Copy + Ord + Eq + std::hash::Hash + Send + Sync + std::fmt::Debug + 'static
{
    /// Width f.
    const BITS: u32;
    /// The zero fingerprint.
    const ZERO: Self;
    /// Hamming distance.
    fn distance(self, other: Self) -> u32;
    /// `len` bits starting at bit `start` (bit 0 = least significant), as the low bits of a u128.
    fn field(self, start: u32, len: u32) -> u128;
    /// `self` with `value` (`len` bits) ORed in at bit `start`.
    fn with_field(self, start: u32, len: u32, value: u128) -> Self;
    /// The top `len` bits as an integer (the table prefix).
    fn top(self, len: u32) -> u64 {
        if len == 0 {
            0
        } else {
            self.field(Self::BITS - len, len) as u64
        }
    }
    /// Flips bit `i`.
    fn flip(self, i: u32) -> Self;
    /// Whether `self` and `other` agree on every bit set in `mask`.
    fn agree_on(self, other: Self, mask: Self) -> bool;
    /// A mask with ones in bits `start .. start + len`.
    fn ones(start: u32, len: u32) -> Self;
    /// Bitwise or.
    fn or(self, other: Self) -> Self;
    /// Bitwise exclusive or: ones where `self` and `other` differ.
    fn xor(self, other: Self) -> Self;
}

macro_rules! impl_bits {
    ($t:ty) => {
        impl Bits for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            #[inline(always)]
            fn distance(self, other: Self) -> u32 {
                (self ^ other).count_ones()
            }
            #[inline(always)]
            fn field(self, start: u32, len: u32) -> u128 {
                if len == 0 {
                    return 0;
                }
                let v = (self >> start) as u128;
                if len >= 128 {
                    v
                } else {
                    v & ((1u128 << len) - 1)
                }
            }
            #[inline(always)]
            fn with_field(self, start: u32, len: u32, value: u128) -> Self {
                if len == 0 {
                    return self;
                }
                self | ((value as $t) << start)
            }
            #[inline(always)]
            fn flip(self, i: u32) -> Self {
                self ^ (1 << i)
            }
            #[inline(always)]
            fn agree_on(self, other: Self, mask: Self) -> bool {
                (self ^ other) & mask == 0
            }
            #[inline(always)]
            fn ones(start: u32, len: u32) -> Self {
                if len == 0 {
                    0
                } else if len >= <$t>::BITS {
                    <$t>::MAX
                } else {
                    (((1 as $t) << len) - 1) << start
                }
            }
            #[inline(always)]
            fn or(self, other: Self) -> Self {
                self | other
            }
            #[inline(always)]
            fn xor(self, other: Self) -> Self {
                self ^ other
            }
        }
    };
}

impl_bits!(u32);
impl_bits!(u64);
impl_bits!(u128);

/// A fingerprint of `64·W` bits (e.g. Charikar's 384-bit projections, W = 6). Word 0 holds
/// the least significant bits; ordering compares from the most significant word down, so a
/// permuted table sorts by its prefix as the narrow types do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wide<const W: usize>(pub [u64; W]);

impl<const W: usize> PartialOrd for Wide<W> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<const W: usize> Ord for Wide<W> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

/// The word holding bit `bit` of a [`Wide`], and the bit's place in it.
#[inline(always)]
fn word_and_offset(bit: u32) -> (usize, u32) {
    ((bit / 64) as usize, bit % 64)
}

/// A u64 with its low `n` (1..=64) bits set.
#[inline(always)]
fn low_ones(n: u32) -> u64 {
    u64::MAX >> (64 - n)
}

impl<const W: usize> Bits for Wide<W> {
    const BITS: u32 = 64 * W as u32;
    const ZERO: Self = Wide([0; W]);
    #[inline]
    fn distance(self, other: Self) -> u32 {
        self.0
            .iter()
            .zip(&other.0)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum()
    }
    /// Word by word (at most three words): the join keys every fingerprint by its fields
    /// once per table, and the runs it splits once per piece.
    #[inline]
    fn field(self, start: u32, len: u32) -> u128 {
        assert!(len <= 128, "fields are at most 128 bits");
        let mut v = 0u128;
        let mut got = 0;
        while got < len {
            let (word, offset) = word_and_offset(start + got);
            let take = (64 - offset).min(len - got);
            v |= (((self.0[word] >> offset) & low_ones(take)) as u128) << got;
            got += take;
        }
        v
    }
    fn with_field(mut self, start: u32, len: u32, value: u128) -> Self {
        let mut put = 0;
        while put < len {
            let (word, offset) = word_and_offset(start + put);
            let take = (64 - offset).min(len - put);
            self.0[word] |= ((value >> put) as u64 & low_ones(take)) << offset;
            put += take;
        }
        self
    }
    fn flip(mut self, i: u32) -> Self {
        self.0[(i / 64) as usize] ^= 1 << (i % 64);
        self
    }
    #[inline]
    fn agree_on(self, other: Self, mask: Self) -> bool {
        (0..W).all(|w| (self.0[w] ^ other.0[w]) & mask.0[w] == 0)
    }
    fn ones(start: u32, len: u32) -> Self {
        let mut m = [0u64; W];
        for b in start..start + len {
            m[(b / 64) as usize] |= 1 << (b % 64);
        }
        Wide(m)
    }
    fn or(mut self, other: Self) -> Self {
        for w in 0..W {
            self.0[w] |= other.0[w];
        }
        self
    }
    fn xor(mut self, other: Self) -> Self {
        for w in 0..W {
            self.0[w] ^= other.0[w];
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let x: u64 = 0xdead_beef_0123_4567;
        assert_eq!(x.field(0, 16), 0x4567);
        assert_eq!(x.field(48, 16), 0xdead);
        assert_eq!(x.top(16), 0xdead);
        assert_eq!(
            0u64.with_field(16, 16, 0x0123).with_field(0, 16, 0x4567),
            0x0123_4567
        );
        let y: u128 = u128::MAX;
        assert_eq!(y.field(100, 28), (1 << 28) - 1);
        assert_eq!(5u32.distance(3), 2);
    }

    #[test]
    /// Oracle: fields read and written one bit at a time, for fields up to 128 bits that
    /// start anywhere in a three-word fingerprint (so they span up to three words).
    fn wide_fields_equal_bit_by_bit() {
        let mut rng = crate::hash::SplitMix64::new(7);
        for _ in 0..2000 {
            let w = Wide([rng.next_u64(), rng.next_u64(), rng.next_u64()]);
            let len = rng.below(129) as u32;
            let start = rng.below((192 - len) as u64 + 1) as u32;
            let bit = |b: u32| (w.0[(b / 64) as usize] >> (b % 64)) & 1;
            let expected = (0..len).fold(0u128, |v, i| v | (bit(start + i) as u128) << i);
            assert_eq!(w.field(start, len), expected, "field({start}, {len})");
            let written = Wide::<3>::ZERO.with_field(start, len, expected);
            for b in 0..192 {
                let inside = (start..start + len).contains(&b);
                let got = (written.0[(b / 64) as usize] >> (b % 64)) & 1;
                assert_eq!(
                    got,
                    if inside { bit(b) } else { 0 },
                    "bit {b} of with_field({start}, {len})"
                );
            }
        }
    }

    #[test]
    fn wide_agrees_with_u128() {
        let mut rng = crate::hash::SplitMix64::new(1);
        for _ in 0..100 {
            let (lo, hi) = (rng.next_u64(), rng.next_u64());
            let n = (hi as u128) << 64 | lo as u128;
            let w = Wide([lo, hi]);
            let start = rng.below(100) as u32;
            let len = rng.below(29) as u32;
            assert_eq!(w.field(start, len), n.field(start, len));
            assert_eq!(w.top(20), n.top(20));
            let (lo2, hi2) = (rng.next_u64(), rng.next_u64());
            let n2 = (hi2 as u128) << 64 | lo2 as u128;
            assert_eq!(w.distance(Wide([lo2, hi2])), n.distance(n2));
            assert_eq!(w.cmp(&Wide([lo2, hi2])), n.cmp(&n2));
            assert_eq!(
                Wide::<2>::ones(start, len),
                Wide([
                    u128::ones(start, len) as u64,
                    (u128::ones(start, len) >> 64) as u64
                ])
            );
        }
    }
}
