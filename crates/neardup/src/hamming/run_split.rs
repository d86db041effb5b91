//! The runs of the all-pairs join, checked pair by pair or split further where the data
//! makes them long (the two-level argument of Manku et al., WWW 2007, §3.1.1, applied to
//! one run at a time).
//!
//! The join's tables assume fingerprints that look random: a p-bit prefix is shared by about
//! n / 2^p of them. Real fingerprints need not be. Under tf weights over single words
//! (random-projection's default, Henzinger's C), pages dominated by the same frequent words
//! share whole pieces: in a 300,000-document corpus of the scaling experiment one 32-bit
//! piece was shared by 1,646 pages, and the twelve tables checked 80 M candidate pairs for
//! 3,870 reported, so the join grew with the square of the corpus (0.15 s at 100,000
//! documents, 8.6 s at 1,000,000). With runs split, that join takes 2.3 s where it took
//! 6.3 s, one build after the other on one machine, with the same pairs.
//!
//! Every pair of a run agrees on the bits its groups were keyed by, so the at most k bits
//! where a pair within distance k differs lie in the others (`rest`). Split those into k + 1
//! pieces and the pair agrees on one whole piece (the pigeonhole argument again). Grouping
//! the run by each piece in turn finds every such pair among far fewer candidates. A pair
//! is checked only in the group of the first piece it agrees on (as the join keeps a pair
//! only in the first table it shares), so no pair is reported twice, and the groups are
//! split again the same way while that pays.
//!
//! Fewer pieces suffice where tables or pieces come first: a pair left to a group differs
//! somewhere inside each earlier mask it must not agree on, so fewer differing bits are left
//! for the others (see `Left`).
//!
//! Only the bits where the run's fingerprints differ are split: bits every member shares
//! (a whole piece of a skewed corpus, often) would only group the run again. A run is split
//! only when its groups, counted before any pair is checked, hold at most half the pairs of
//! the run: a run of nearly identical fingerprints is still checked pair by pair, where every
//! piece would find the same run again.

use super::Bits;
use super::design::{Range, split_evenly};
use crate::error::Result;
use crate::pairs::{Budget, pack};

/// Runs of at most this many fingerprints per piece are checked pair by pair: sorting the
/// run once per piece costs about as much as checking its pairs.
pub(super) const MIN_SPLIT_PER_PIECE: usize = 8;

/// Pairs are spent from the budget in batches as they are found: an atomic add per pair
/// would be the join's hottest instruction, and the join still stops soon after the limit.
const BATCH: u64 = 1024;

/// What every pair of a group has in common besides the group's key: the bits it must agree
/// on, the masks it must agree on none of (pieces and tables that come first), and the bits
/// its members may still differ in.
#[derive(Debug, Clone)]
pub(super) struct Scope<B: Bits> {
    /// The bits keyed so far (checked: a key over 64 bits is hashed and may collide).
    pub(super) required: B,
    /// Earlier tables' and pieces' masks: a pair agreeing on one is reported there.
    pub(super) excluded: Vec<B>,
    /// The bits not keyed so far.
    pub(super) rest: Vec<Range>,
}

/// One piece of a split run: its bits and the run keyed by them (with the member's position
/// in the run), sorted.
struct Piece<B: Bits> {
    ranges: Vec<Range>,
    mask: B,
    keyed: Vec<(u64, u32)>,
}

/// A run's member: its fingerprint, gathered next to the others so that checking a run's
/// pairs reads memory in order (read through the index, a 384-bit fingerprint per candidate
/// missed the cache), and its index in the join's fingerprints.
pub(super) type Member<B> = (B, u32);

/// The pairs within distance `k` among one table's runs.
pub(super) struct RunJoin<'a> {
    k: u32,
    budget: &'a Budget,
    min_split_per_piece: usize,
    pairs: Vec<u64>,
    unspent: u64,
    /// Candidate pairs whose distance was computed (the cost the splitting saves).
    pub(super) checked: u64,
}

/// `fp`'s bits on `ranges` (`bits` of them) as an integer, hashed to 64 bits when longer:
/// a table's prefix, or a piece of a split run.
#[inline]
pub(super) fn key_of<B: Bits>(fp: B, ranges: &[Range], bits: u32) -> u64 {
    if bits <= 64 {
        ranges.iter().fold(0u64, |k, r| {
            if r.len == 64 {
                fp.field(r.start, 64) as u64
            } else {
                (k << r.len) | fp.field(r.start, r.len) as u64
            }
        })
    } else {
        let mut h = 0u64;
        for r in ranges {
            let v = fp.field(r.start, r.len);
            h = crate::hash::combine(h, v as u64);
            h = crate::hash::combine(h, (v >> 64) as u64);
        }
        crate::hash::mix64(h)
    }
}

/// The mask with ones on `ranges`.
pub(super) fn mask_of<B: Bits>(ranges: &[Range]) -> B {
    ranges
        .iter()
        .fold(B::ZERO, |m, r| m.or(B::ones(r.start, r.len)))
}

/// The parts of `ranges` (most significant first) where `bits` has ones, as ranges in the
/// same order.
pub(super) fn set_bits_of<B: Bits>(ranges: &[Range], bits: B) -> Vec<Range> {
    let mut out = Vec::new();
    for r in ranges {
        // The end (exclusive) of the run of ones being walked down through, if any.
        let mut ones_end = None;
        for bit in (r.start..r.start + r.len).rev() {
            match (bits.field(bit, 1) != 0, ones_end) {
                (true, None) => ones_end = Some(bit + 1),
                (false, Some(end)) => {
                    out.push(Range {
                        start: bit + 1,
                        len: end - bit - 1,
                    });
                    ones_end = None;
                }
                _ => {}
            }
        }
        if let Some(end) = ones_end {
            out.push(Range {
                start: r.start,
                len: end - r.start,
            });
        }
    }
    out
}

/// The differing bits a pair of a group may still have outside some of its excluded masks.
///
/// A pair is left to a group only when it agrees on none of the excluded masks, so each
/// holds at least one bit where the pair differs. Masks that share no bit hold as many
/// distinct ones: with e such masks, at most k − e differing bits lie outside them, and
/// k − e + 1 pieces of those bits suffice for the pigeonhole. A run of Henzinger's t-th
/// table (t earlier blocks excluded) is split into k − t + 1 pieces, not k + 1; a group
/// with more than k such masks holds no pair at all.
struct Left<B: Bits> {
    /// k − e.
    differing_bits: u32,
    /// The e masks, or-ed.
    masks: B,
}

impl<B: Bits> Left<B> {
    /// `None` when more than k excluded masks share no bit.
    fn of(k: u32, scope: &Scope<B>) -> Option<Self> {
        let mut masks = B::ZERO;
        let mut disjoint = 0;
        for &m in &scope.excluded {
            // Zero agrees with m on `masks` exactly when m has no bit of `masks`.
            if B::ZERO.agree_on(m, masks) {
                masks = masks.or(m);
                disjoint += 1;
            }
        }
        Some(Left {
            differing_bits: k.checked_sub(disjoint)?,
            masks,
        })
    }
}

impl<'a> RunJoin<'a> {
    pub(super) fn new(k: u32, budget: &'a Budget, min_split_per_piece: usize) -> Self {
        RunJoin {
            k,
            budget,
            min_split_per_piece,
            pairs: Vec::new(),
            unspent: 0,
            checked: 0,
        }
    }

    /// Adds every pair of `members` (distinct fingerprints that agree on every bit outside
    /// `scope.rest`) within distance k that `scope` leaves to this group.
    pub(super) fn join<B: Bits>(&mut self, members: &[Member<B>], scope: &Scope<B>) -> Result<()> {
        let Some(left) = Left::of(self.k, scope) else {
            // Each excluded mask holds a differing bit of any pair left here: none is within k.
            return Ok(());
        };
        match self.split(members, &scope.rest, &left) {
            Some(pieces) => self.join_pieces(members, &pieces, scope),
            None => self.check_all(members, scope),
        }
    }

    /// The pairs found, and the last of them spent from the budget.
    pub(super) fn finish(self) -> Result<Vec<u64>> {
        self.budget.spend(self.unspent)?;
        Ok(self.pairs)
    }

    /// The pieces (one more than the differing bits `left` allows) of the bits of `rest`
    /// where members differ, outside `left`'s masks, each with the run keyed by it, when
    /// splitting pays: the run is long, there is a bit for every piece, and the pieces' groups
    /// hold at most half the run's pairs.
    fn split<B: Bits>(
        &self,
        members: &[Member<B>],
        rest: &[Range],
        left: &Left<B>,
    ) -> Option<Vec<Piece<B>>> {
        let (n, pieces) = (members.len(), left.differing_bits + 1);
        if n <= self.min_split_per_piece * pieces as usize {
            return None;
        }
        let first = members[0].0;
        let differing = members
            .iter()
            .fold(B::ZERO, |d, &(f, _)| d.or(first.xor(f)));
        // The differing bits outside the masks: (d | m) ^ m = d & !m.
        let rest = set_bits_of(rest, differing.or(left.masks).xor(left.masks));
        if rest.iter().map(|r| r.len).sum::<u32>() < pieces {
            return None;
        }
        let all_pairs = (n * (n - 1) / 2) as u64;
        let mut grouped_pairs = 0u64;
        let mut out = Vec::with_capacity(pieces as usize);
        for ranges in split_evenly(&rest, pieces) {
            let bits = ranges.iter().map(|r| r.len).sum();
            let mut keyed: Vec<(u64, u32)> = members
                .iter()
                .enumerate()
                .map(|(at, &(f, _))| (key_of(f, &ranges, bits), at as u32))
                .collect();
            keyed.sort_unstable();
            grouped_pairs += keyed
                .chunk_by(|x, y| x.0 == y.0)
                .map(|g| (g.len() * (g.len() - 1) / 2) as u64)
                .sum::<u64>();
            if grouped_pairs * 2 > all_pairs {
                return None;
            }
            out.push(Piece {
                mask: mask_of(&ranges),
                ranges,
                keyed,
            });
        }
        Some(out)
    }

    /// Each piece's groups, joined with the piece's bits required and the earlier pieces'
    /// masks excluded.
    fn join_pieces<B: Bits>(
        &mut self,
        members: &[Member<B>],
        pieces: &[Piece<B>],
        scope: &Scope<B>,
    ) -> Result<()> {
        let mut group = Vec::new();
        for (j, piece) in pieces.iter().enumerate() {
            let mut excluded = scope.excluded.clone();
            excluded.extend(pieces[..j].iter().map(|p| p.mask));
            let sub = Scope {
                required: scope.required.or(piece.mask),
                excluded,
                rest: pieces
                    .iter()
                    .enumerate()
                    .filter(|&(o, _)| o != j)
                    .flat_map(|(_, p)| p.ranges.iter().copied())
                    .collect(),
            };
            for run in piece.keyed.chunk_by(|x, y| x.0 == y.0) {
                if run.len() > 1 {
                    group.clear();
                    group.extend(run.iter().map(|e| members[e.1 as usize]));
                    self.join(&group, &sub)?;
                }
            }
        }
        Ok(())
    }

    /// Every pair of `members` within distance k that agrees on `scope.required` and on none
    /// of `scope.excluded`.
    fn check_all<B: Bits>(&mut self, members: &[Member<B>], scope: &Scope<B>) -> Result<()> {
        let k = self.k;
        for (x, &(fa, a)) in members.iter().enumerate() {
            for &(fb, b) in &members[x + 1..] {
                if fa.distance(fb) <= k
                    && fa.agree_on(fb, scope.required)
                    && !scope.excluded.iter().any(|&m| fa.agree_on(fb, m))
                {
                    self.pairs.push(if a < b { pack(a, b) } else { pack(b, a) });
                    self.unspent += 1;
                    if self.unspent == BATCH {
                        self.budget.spend(BATCH)?;
                        self.unspent = 0;
                    }
                }
            }
            self.checked += (members.len() - x - 1) as u64;
            if self.budget.exceeded() {
                return Err(self.budget.error());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hamming::Wide;
    use proptest::prelude::*;

    proptest! {
        /// Oracle: bit by bit, the ranges cover exactly the set bits inside the given ranges,
        /// each range non-empty and maximal, most significant first.
        #[test]
        fn set_bits_of_covers_exactly_the_ones(words: [u64; 3], cuts in proptest::collection::vec(0u32..192, 0..6)) {
            let bits = Wide(words);
            let mut cuts = cuts;
            cuts.extend([0, 192]);
            cuts.sort_unstable();
            cuts.dedup();
            // Ranges most significant first, as the join's tables list them.
            let ranges: Vec<Range> = cuts.windows(2).rev().map(|w| Range { start: w[0], len: w[1] - w[0] }).collect();
            let got = set_bits_of(&ranges, bits);
            let mut covered = Vec::new();
            for r in &got {
                prop_assert!(r.len > 0);
                prop_assert!(r.start + r.len == 192 || bits.field(r.start + r.len, 1) == 0 || cuts.contains(&(r.start + r.len)));
                covered.extend((r.start..r.start + r.len).rev());
            }
            let expected: Vec<u32> = (0..192).rev().filter(|&b| bits.field(b, 1) != 0).collect();
            prop_assert_eq!(covered, expected);
        }
    }
}
