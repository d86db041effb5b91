//! `blend`: the text moves one step towards its partner — another document of the corpus,
//! the same for every copy of a source. The first `rate × words` word positions where the
//! two differ take the partner's word (positions past the partner's end are deleted, and
//! once every shared position agrees, the partner's further words are appended), so
//! repeated steps end exactly at the partner's words.
//!
//! Alone it mixes a document with another. Along a chain (`chain = true`: each copy edits
//! the one before) it walks from the source to an unrelated document in steps that each
//! stay near-duplicates of the last: a bridge that lets transitive closure merge two
//! documents sharing nothing — what `--clusters verified` must not do. Positions change as a
//! moving front, not at random, so a step of 5 % of the words changes only about 5 % of the
//! word shingles (contiguous runs share their boundaries) and every link is found.

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited};
use super::words::{self, separator};

/// One step from a document towards its partner.
#[derive(Debug)]
pub struct Blend;

/// The partner of source `source` among `n` documents: the one half the corpus away, so a
/// source and its partner come from unrelated parts of it and partnering is symmetric for an
/// even `n`.
pub fn partner(source: usize, n: usize) -> Option<usize> {
    (n >= 2).then(|| (source + n / 2) % n)
}

impl EditKind for Blend {
    fn name(&self) -> &'static str {
        "blend"
    }
    fn rate_meaning(&self) -> &'static str {
        "words moved towards the partner document per word of text"
    }
    fn apply(&self, text: &str, rate: f64, ctx: &EditContext, _: &mut SplitMix64) -> Edited {
        let partner = partner(ctx.source, ctx.donors.len()).map_or("", |p| ctx.donors[p]);
        let theirs: Vec<&str> = words::spans(partner)
            .iter()
            .map(|&(a, b)| &partner[a..b])
            .collect();
        let units = words::spans(text).len();
        let allowed = (rate * units as f64).ceil() as usize;
        let mut budget = allowed;
        let mut out = words::rewrite(text, |i, w, out| match theirs.get(i) {
            Some(&t) if t != w && budget > 0 => {
                budget -= 1;
                out.push_str(t);
                true
            }
            None if budget > 0 => {
                budget -= 1;
                false
            }
            _ => {
                out.push_str(w);
                true
            }
        });
        // Budget left means every shared position agrees and nothing is left to delete:
        // grow towards the partner's length.
        if units > 0 {
            for t in theirs.iter().skip(units).take(budget) {
                out.push_str(separator(text));
                out.push_str(t);
                budget -= 1;
            }
        }
        Edited {
            text: out,
            changed: allowed - budget,
            units,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx<'a>(donors: &'a [&'a str]) -> EditContext<'a> {
        EditContext {
            vocabulary: &[],
            characters: &[],
            donors,
            source: 0,
        }
    }

    /// Steps until the text stops changing.
    fn walk(donors: &[&str], rate: f64) -> Vec<String> {
        let mut rng = SplitMix64::new(1);
        let mut steps = vec![donors[0].to_string()];
        loop {
            let next = Blend.apply(steps.last().unwrap(), rate, &ctx(donors), &mut rng);
            if &next.text == steps.last().unwrap() {
                return steps;
            }
            steps.push(next.text);
        }
    }

    #[test]
    fn a_front_moves_to_the_partner() {
        // Source 0's partner is document 2 (half of 4 away).
        let donors = ["a b c d", "x", "p q r s", "y"];
        assert_eq!(walk(&donors, 0.5), ["a b c d", "p q c d", "p q r s"]);
        // Positions that already agree cost nothing.
        let donors = ["a q c s", "x", "p q r s", "y"];
        assert_eq!(walk(&donors, 0.25), ["a q c s", "p q c s", "p q r s"]);
        let e = Blend.apply("a b c d", 0.0, &ctx(&donors), &mut SplitMix64::new(1));
        assert_eq!((e.text.as_str(), e.changed, e.units), ("a b c d", 0, 4));
    }

    #[test]
    fn the_walk_ends_at_the_partner_whatever_the_lengths() {
        for (source, partner) in [("a b c d e f", "p q r"), ("a b", "p q r s t u v")] {
            let donors = [source, "x", partner, "y"];
            let steps = walk(&donors, 0.34);
            assert_eq!(steps.last().unwrap(), partner, "{steps:?}");
        }
    }

    /// Each step of 5 % changes few word 5-shingles: consecutive links stay near-duplicates
    /// while the ends share nothing.
    #[test]
    fn links_are_near_duplicates_and_the_ends_unrelated() {
        let a: String = (0..400).map(|i| format!("a{i} ")).collect();
        let b: String = (0..400).map(|i| format!("b{i} ")).collect();
        let donors = [a.trim(), "x", b.trim(), "y"];
        let steps = walk(&donors, 0.05);
        assert_eq!(steps.len(), 21);
        let shingler = neardup::features::FeatureParams::default().shingler(1);
        let j = |x: &str, y: &str| {
            let (x, y) = (shingler.set(x), shingler.set(y));
            let common = x.iter().filter(|h| y.binary_search(h).is_ok()).count();
            common as f64 / (x.len() + y.len() - common) as f64
        };
        for w in steps.windows(2) {
            assert!(j(&w[0], &w[1]) > 0.85, "{}", j(&w[0], &w[1]));
        }
        assert_eq!(j(&steps[0], &steps[20]), 0.0);
    }
}
