//! The ASCII fast paths of the word tokenizers: each 64-byte block of the text becomes a bit
//! mask of the bytes that belong to tokens (UAX #29 words, or runs of non-whitespace), and the
//! tokens are the runs of set bits, paired a block at a time ([`BlockRuns`]) and handed out
//! one by one ([`Runs`]) or a block's at once ([`ascii_word_spans`]). Property tests check
//! them against `unicode-segmentation` and `split_whitespace` on texts of several blocks.

pub(super) trait SplitWhitespace {
    fn split_ascii_or_unicode_whitespace<'t>(&'t self, f: impl FnMut(&'t str));
}

impl SplitWhitespace for str {
    #[inline]
    fn split_ascii_or_unicode_whitespace<'t>(&'t self, f: impl FnMut(&'t str)) {
        if self.is_ascii() {
            ascii_whitespace_tokens(self, f);
        } else {
            self.split_whitespace().for_each(f);
        }
    }
}

/// The whitespace-separated tokens of an ASCII string. Its own function, with one call of
/// `f`, so that the caller's per-token closure is inlined into the loop (see [`ascii_words`]).
fn ascii_whitespace_tokens<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    for (s, e) in Runs::new(text.as_bytes(), bytes_where(|c| !is_space(c))) {
        f(ascii_slice(text, s, e));
    }
}

/// ASCII bytes that `char::is_whitespace` accepts: space and \t \n \x0b \x0c \r (0x09–0x0d;
/// `u8::is_ascii_whitespace` leaves out the vertical tab 0x0b). Branch-free so that
/// [`Runs`] vectorizes.
#[inline(always)]
fn is_space(c: u8) -> bool {
    (c == b' ') | (c.wrapping_sub(0x09) < 5)
}

/// Bytes that UAX #29 always joins: ASCII letters, digits and `_`.
#[inline(always)]
fn is_word_byte(c: u8) -> bool {
    ((c | 0x20).wrapping_sub(b'a') < 26) | (c.wrapping_sub(b'0') < 10) | (c == b'_')
}

/// `&text[s..e]` for ASCII text, where every index is a character boundary.
#[inline(always)]
fn ascii_slice(text: &str, s: usize, e: usize) -> &str {
    debug_assert!(text.is_ascii() && s <= e && e <= text.len());
    // SAFETY: `text` is ASCII, so every byte index is a char boundary, and s ≤ e ≤ len.
    unsafe { text.get_unchecked(s..e) }
}

/// The maximal runs of member bytes, as (start, end); `mask(b, base)` gives the membership
/// bits of the 64-byte block at `base` (bits past the end of `b` clear).
///
/// Why not a byte loop with `if`s: token ends are unpredictable branches (one every ~6 bytes
/// of prose), and mispredicting them cost more than everything else in shingling. Here the
/// bytes of each 64-byte block become a bit mask in a branch-free (vectorizable) loop, whose
/// runs [`BlockRuns`] pairs; `next` hands them out one by one, [`Runs::next_block`] a block's
/// at once. (A state machine that walked the boundaries alternately as starts and ends
/// mispredicted its branch on which one it was at.) An iterator rather than a callback so
/// that callers' per-token work is inlined into one loop.
struct Runs<'b, M> {
    b: &'b [u8],
    mask: M,
    /// Where the next block starts.
    next: usize,
    /// The runs ended in the last block scanned.
    runs: BlockRuns,
    /// Runs of it handed out.
    taken: usize,
}

impl<'b, M: Fn(&[u8], usize) -> u64> Runs<'b, M> {
    #[inline(always)]
    fn new(b: &'b [u8], mask: M) -> Self {
        Runs {
            b,
            mask,
            next: 0,
            runs: BlockRuns::new(),
            taken: 0,
        }
    }

    /// Scans blocks until one ends a run; false when the bytes are exhausted. After the last
    /// byte, a run still open is ended by an empty block (no member bit, the carry in).
    #[inline(always)]
    fn refill(&mut self) -> bool {
        let len = self.b.len();
        loop {
            if self.next > len || (self.next == len && !self.runs.carries()) {
                return false;
            }
            let base = self.next;
            let m = if base < len {
                (self.mask)(self.b, base)
            } else {
                0
            };
            // A block past the end (`base == len`) has no member bit: only the carried run
            // ends, at bit 0, i.e. at `len`.
            self.next = base + 64;
            self.taken = 0;
            if self.runs.block(m, base) > 0 {
                return true;
            }
        }
    }

    /// The runs ended in the next block that ends any, all at once (none of them handed out
    /// by `next`); `None` after the last.
    #[inline(always)]
    fn next_block(&mut self) -> Option<&[(usize, usize)]> {
        if !self.refill() {
            return None;
        }
        self.taken = self.runs.ended;
        Some(self.runs.ended())
    }
}

impl<M: Fn(&[u8], usize) -> u64> Iterator for Runs<'_, M> {
    type Item = (usize, usize);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.taken == self.runs.ended && !self.refill() {
            return None;
        }
        let pair = self.runs.spans[self.taken];
        self.taken += 1;
        Some(pair)
    }
}

/// The runs of member bits over consecutive 64-bit block masks, paired block by block: a
/// block's run starts are `m & !(m << 1)` and its run ends `!m & (m << 1)` (the last bit of
/// the block before shifted in). The starts go into the spans' first fields and the ends into
/// their second, each written eight per round without a branch per bit
/// ([`write_bit_positions`]); starts and ends alternate, so the i-th start and the i-th end
/// make the i-th run, and a run carried in from the block before keeps its start in slot 0.
struct BlockRuns {
    /// The last block's runs, `spans[..ended]`; past them, the start of a run still open. A
    /// block has at most 32 starts and 32 ends, written in rounds of eight from slot 0 or 1.
    spans: [(usize, usize); 40],
    ended: usize,
    /// Whether a run continues past the last block (its start is `spans[ended].0`).
    open: bool,
    /// The last block's top bit.
    carry: u64,
}

impl BlockRuns {
    #[inline(always)]
    fn new() -> Self {
        BlockRuns {
            spans: [(0, 0); 40],
            ended: 0,
            open: false,
            carry: 0,
        }
    }

    /// Whether the last block's last byte is a member (its run continues).
    #[inline(always)]
    fn carries(&self) -> bool {
        self.carry != 0
    }

    /// The runs ended in the last block.
    #[inline(always)]
    fn ended(&self) -> &[(usize, usize)] {
        &self.spans[..self.ended]
    }

    /// Pairs the runs of block mask `m` (the block at byte `base`) with the run carried in;
    /// returns how many ended in it. The runs of the block before are overwritten.
    #[inline(always)]
    fn block(&mut self, m: u64, base: usize) -> usize {
        let carried = usize::from(self.open);
        if self.open {
            self.spans[0].0 = self.spans[self.ended].0;
        }
        let shifted = (m << 1) | self.carry;
        self.carry = m >> 63;
        let starts = m & !shifted;
        let after_carried = &mut self.spans[carried..];
        let started = carried + write_bit_positions(starts, base, after_carried, |p, at| p.0 = at);
        self.ended = write_bit_positions(!m & shifted, base, &mut self.spans, |p, at| p.1 = at);
        self.open = started > self.ended;
        self.ended
    }
}

/// The block mask of the bytes satisfying `member`.
#[inline(always)]
fn bytes_where(member: impl Fn(u8) -> bool + Copy) -> impl Fn(&[u8], usize) -> u64 {
    move |b: &[u8], base: usize| {
        if base + 64 <= b.len() {
            mask(b[base..base + 64].try_into().expect("64 bytes"), member)
        } else {
            // The padding bytes' bits are cleared, whatever `member` says of them.
            let rest = &b[base..];
            let mut pad = [0u8; 64];
            pad[..rest.len()].copy_from_slice(rest);
            mask(&pad, member) & ((1u64 << rest.len()) - 1)
        }
    }
}

/// The block mask of the bytes of UAX #29 words (ASCII): letters, digits and `_`, and a "mid"
/// character between two letters (`:` `.` `'`, WB6/WB7) or two digits (`,` `;` `.` `'`,
/// WB11/WB12), which joins them. Those rules look one byte to each side only, so the whole
/// of a word is one run of this mask, and the tokenizer never has to look back across a run's
/// end (per token, that look was a third of its time).
///
/// Each class is one 64-bit mask of the block (a vectorized compare per class), and a byte's
/// neighbours are the class masks shifted by one, with the bytes just outside the block shifted
/// in. (Copying the block with a byte of context each side into a window and testing each
/// byte's three neighbours was 5 % of the sketch stage, most of it a stalled load from the
/// freshly written window.)
#[inline(always)]
fn word_bytes(b: &[u8], base: usize) -> u64 {
    let letter = |x: u8| (x | 0x20).wrapping_sub(b'a') < 26;
    let digit = |x: u8| x.wrapping_sub(b'0') < 10;
    let valid = b.len() - base;
    let padded: [u8; 64];
    let block: &[u8; 64] = match b.get(base..base + 64) {
        Some(whole) => whole.try_into().expect("64 bytes"),
        None => {
            // The last block: spaces past the end of the text (no class), bits cleared below.
            let mut pad = [b' '; 64];
            pad[..valid].copy_from_slice(&b[base..]);
            padded = pad;
            &padded
        }
    };
    // The bytes just before and after the block; a space past either end of the text.
    let before = if base > 0 { b[base - 1] } else { b' ' };
    let after = b.get(base + 64).copied().unwrap_or(b' ');
    let letters = mask(block, letter);
    let digits = mask(block, digit);
    let joined = mask(block, is_word_byte);
    let mid_letter = mask(block, |c| (c == b'.') | (c == b'\'') | (c == b':'));
    let mid_num = mask(block, |c| {
        (c == b'.') | (c == b'\'') | (c == b',') | (c == b';')
    });
    // Bit j of `x_before` says byte j − 1 is of class x, of `x_after` that byte j + 1 is.
    let letter_before = (letters << 1) | u64::from(letter(before));
    let letter_after = (letters >> 1) | (u64::from(letter(after)) << 63);
    let digit_before = (digits << 1) | u64::from(digit(before));
    let digit_after = (digits >> 1) | (u64::from(digit(after)) << 63);
    let bits = joined
        | (mid_letter & letter_before & letter_after)
        | (mid_num & digit_before & digit_after);
    if valid >= 64 {
        bits
    } else {
        bits & ((1u64 << valid) - 1)
    }
}

#[inline(always)]
fn mask(chunk: &[u8; 64], member: impl Fn(u8) -> bool) -> u64 {
    // One 0x00/0xFF byte per input byte (a byte-wide loop that vectorizes fully), then their
    // top bits gathered. Shifting a bit per byte into a u64 instead vectorized over 64-bit
    // lanes: half of the tokenizer's time went into building the masks.
    let mut flags = [0u8; 64];
    for (f, &c) in flags.iter_mut().zip(chunk) {
        *f = 0u8.wrapping_sub(member(c) as u8);
    }
    top_bits(&flags)
}

/// Bit `j` set when byte `j`'s top bit is (`pmovmskb`, part of every x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn top_bits(flags: &[u8; 64]) -> u64 {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8};
    let mut m = 0u64;
    for i in 0..4 {
        // SAFETY: SSE2 is in x86-64's baseline; the unaligned load reads bytes 16i..16i+16
        // of `flags`, which has 64.
        let bits = unsafe {
            _mm_movemask_epi8(_mm_loadu_si128(
                flags.as_ptr().add(16 * i).cast::<__m128i>(),
            ))
        };
        m |= u64::from(bits as u16) << (16 * i);
    }
    m
}

/// Bit `j` set when byte `j`'s top bit is.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn top_bits(flags: &[u8; 64]) -> u64 {
    let mut m = 0u64;
    for (j, &f) in flags.iter().enumerate() {
        m |= u64::from(f >> 7) << j;
    }
    m
}

/// UAX #29 words of an ASCII string, keeping segments with at least one letter or digit.
///
/// Runs of letters, digits and `_` always form one word (WB5, WB8–WB10, WB13a/b); two runs
/// separated by exactly one "mid" character join when the rules allow it: letter · `:` `.`
/// `'` · letter (WB6/WB7) and digit · `,` `;` `.` `'` · digit (WB11/WB12). Both are in the
/// block mask ([`word_bytes`]), so each word is one run.
pub(super) fn ascii_words<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    let b = text.as_bytes();
    // A run of underscores alone has no letter or digit: not a word.
    let word = |s: usize, e: usize| b[s] != b'_' || b[s..e].iter().any(|&c| c != b'_');
    // One call of `f` in the loop, none after it: a closure called from a single place is
    // inlined, and the caller's per-token work then runs inside this loop.
    for (start, end) in Runs::new(b, word_bytes) {
        if word(start, end) {
            f(ascii_slice(text, start, end));
        }
    }
}

/// The (start, end) of every word [`ascii_words`] gives, appended to `out` a 64-byte block at
/// a time ([`Runs::next_block`]). (Handing the words out one by one through [`Runs`] to a
/// closure that pushed each onto a vector was 16 % of the sketch stage of `neardup dedup`,
/// most of it the push's bookkeeping and the iterator's state going through memory.)
pub(super) fn ascii_word_spans(b: &[u8], out: &mut Vec<(usize, usize)>) {
    let first = out.len();
    let mut runs = Runs::new(b, word_bytes);
    while let Some(block) = runs.next_block() {
        out.extend_from_slice(block);
    }
    // A run of underscores alone has no letter or digit: not a word (rare; looked for only
    // when the text has an underscore).
    if b.contains(&b'_') {
        let mut kept = first;
        for i in first..out.len() {
            let (s, e) = out[i];
            if b[s..e].iter().any(|&c| c != b'_') {
                out[kept] = (s, e);
                kept += 1;
            }
        }
        out.truncate(kept);
    }
}

/// The (start, end) of every whitespace-separated token of ASCII bytes (what
/// [`ascii_whitespace_tokens`] gives), appended to `out` a 64-byte block at a time, as
/// [`ascii_word_spans`] does for words. (Through `for_each_word`, a closure pushing each
/// token, text → verified pairs with the whitespace tokenizer took 1.11× the instructions.)
pub(super) fn ascii_whitespace_spans(b: &[u8], out: &mut Vec<(usize, usize)>) {
    let mut runs = Runs::new(b, bytes_where(|c| !is_space(c)));
    while let Some(block) = runs.next_block() {
        out.extend_from_slice(block);
    }
}

/// Writes `base +` the position of each set bit of `bits`, in increasing order, into the
/// slots (with `set`), eight per round: a round sets all eight slots, the ones past the last
/// bit to `base + 64`, so there is no branch per bit. Returns how many bits there were.
#[inline(always)]
fn write_bit_positions(
    mut bits: u64,
    base: usize,
    slots: &mut [(usize, usize)],
    set: impl Fn(&mut (usize, usize), usize),
) -> usize {
    let n = bits.count_ones() as usize;
    for round in slots.chunks_exact_mut(8).take(n.div_ceil(8)) {
        for slot in round {
            set(slot, base + bits.trailing_zeros() as usize);
            bits &= bits.wrapping_sub(1);
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{Tokenizer, WordParams};
    use proptest::prelude::*;
    use unicode_segmentation::UnicodeSegmentation;

    proptest! {
        // Oracle: the ASCII fast path equals unicode-segmentation's unicode_words — on short
        // texts of every mid character, and on texts over several 64-byte blocks with runs
        // that cross block boundaries, span whole blocks, and end exactly at a block's end or
        // at the text's end.
        #[test]
        fn ascii_fast_path_matches_uax29(
            s in "[ab1_.:',;\\- \n]{0,40}|([ab1_.:',;\\- \n]{0,3}[ab1]{0,140}){0,6}"
        ) {
            let mut fast = Vec::new();
            ascii_words(&s, |w| fast.push(w));
            let oracle: Vec<&str> = s.unicode_words().collect();
            prop_assert_eq!(fast, oracle);
        }

        // Oracle: the spans written a block at a time are unicode-segmentation's words (after
        // spans already in the vector, which stay as they are), through `word_spans` too.
        #[test]
        fn ascii_word_spans_match_uax29(
            s in "[ab1_.:',;\\- \n]{0,40}|([ab1_.:',;\\- \n]{0,3}[ab1_]{0,140}){0,8}"
        ) {
            block_spans_match(&s, ascii_word_spans, s.unicode_words().collect(), Tokenizer::Unicode)?;
        }

        #[test]
        fn ascii_whitespace_split_matches_std(
            s in "([ \t\n\x0b\x0c\r]{0,3}[ab]{0,140}){0,6}|[ab \t\n\x0b\x0c\r]{0,30}"
        ) {
            let mut fast = Vec::new();
            s.split_ascii_or_unicode_whitespace(|w| fast.push(w));
            let oracle: Vec<&str> = s.split_whitespace().collect();
            prop_assert_eq!(fast, oracle);
        }

        // Oracle: the whitespace spans written a block at a time are `split_whitespace`'s
        // tokens (after spans already in the vector), through `word_spans` too.
        #[test]
        fn ascii_whitespace_spans_match_std(
            s in "([ \t\n\x0b\x0c\r]{0,3}[ab.]{0,140}){0,8}|[ab. \t\n\x0b\x0c\r]{0,30}"
        ) {
            block_spans_match(&s, ascii_whitespace_spans, s.split_whitespace().collect(), Tokenizer::Whitespace)?;
        }
    }

    /// `write_spans` appends to spans already in the vector (which stay as they are) the spans
    /// of `oracle`'s tokens, and `word_spans` with `tokenizer` gives the same spans.
    fn block_spans_match(
        s: &str,
        write_spans: fn(&[u8], &mut Vec<(usize, usize)>),
        oracle: Vec<&str>,
        tokenizer: Tokenizer,
    ) -> Result<(), TestCaseError> {
        let mut spans = vec![(7, 9)];
        write_spans(s.as_bytes(), &mut spans);
        let fast: Vec<&str> = spans[1..].iter().map(|&(a, b)| &s[a..b]).collect();
        prop_assert_eq!(spans[0], (7, 9));
        prop_assert_eq!(&fast, &oracle);
        let words = WordParams {
            tokenizer,
            ..WordParams::default()
        };
        let mut through = Vec::new();
        words.word_spans(s, &mut through);
        prop_assert_eq!(&through[..], &spans[1..]);
        Ok(())
    }

    /// A joining mid character on either side of a 64-byte block boundary (its neighbours in
    /// two blocks), and at the text's ends, against unicode-segmentation.
    #[test]
    fn words_joined_across_block_boundaries() {
        for at in 60..70 {
            for (left, mid, right) in [
                ("a", ".", "b"),
                ("1", ",", "2"),
                ("x", ":", "y"),
                ("a", ".", "1"),
            ] {
                let text = format!("{}{mid}{right}{}", left.repeat(at), right.repeat(3));
                let mut fast = Vec::new();
                ascii_words(&text, |w| fast.push(w));
                let oracle: Vec<&str> = text.unicode_words().collect();
                assert_eq!(fast, oracle, "mid at {at}: {text:?}");
                assert_eq!(span_words(&text), oracle, "spans, mid at {at}: {text:?}");
            }
        }
        for text in ["a.", ".a", "1,", ",1", "a.b", "'", ""] {
            let mut fast = Vec::new();
            ascii_words(text, |w| fast.push(w));
            assert_eq!(fast, text.unicode_words().collect::<Vec<_>>(), "{text:?}");
            assert_eq!(span_words(text), fast, "spans: {text:?}");
        }
    }

    /// The words of `text` by [`ascii_word_spans`].
    fn span_words(text: &str) -> Vec<&str> {
        let mut spans = Vec::new();
        ascii_word_spans(text.as_bytes(), &mut spans);
        spans.iter().map(|&(a, b)| &text[a..b]).collect()
    }

    #[test]
    fn runs_at_block_boundaries() {
        // A run ending at byte 64 (a block's end), one ending at the text's end after a full
        // block, a run covering a whole block, and the empty text.
        for text in [
            format!("{} b", "a".repeat(64)),
            "a".repeat(128),
            format!(" {}", "a".repeat(63)),
            format!("{} {}", "a".repeat(63), "b".repeat(130)),
            String::new(),
        ] {
            let mut fast = Vec::new();
            text.split_ascii_or_unicode_whitespace(|w| fast.push(w));
            let oracle: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(fast, oracle, "{text:?}");
        }
    }
}
