//! `typo`: each ASCII letter or Han character gets a typing error with probability `rate`:
//! replaced (a letter by a neighbouring key; a Han character by a common character drawn from
//! the corpus, as a wrong pick in an input method gives), deleted, doubled, or transposed with
//! the next character.

use neardup::hash::SplitMix64;

use neardup::text::language::is_han;

use super::kind::{EditContext, EditKind, Edited, coin};

/// Character typos.
#[derive(Debug)]
pub struct Typo;

/// QWERTY neighbours of each lower-case letter.
const NEIGHBOURS: [&str; 26] = [
    "qwsz", "vghn", "xdfv", "serfcx", "wsdr", "drtgvc", "ftyhbv", "gyujnb", "ujko", "huikmn",
    "jiolm", "kop", "njk", "bhjm", "iklp", "ol", "wa", "edft", "awedxz", "rfgy", "yhji", "cfgb",
    "qase", "zsdc", "tghu", "asx",
];

impl EditKind for Typo {
    fn name(&self) -> &'static str {
        "typo"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that a letter or Han character is mistyped"
    }
    fn apply(&self, text: &str, rate: f64, ctx: &EditContext, rng: &mut SplitMix64) -> Edited {
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::with_capacity(text.len() + 8);
        let (mut changed, mut units) = (0, 0);
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let han = is_han(c);
            if !c.is_ascii_alphabetic() && !han {
                out.push(c);
                i += 1;
                continue;
            }
            units += 1;
            if !coin(rng, rate) {
                out.push(c);
                i += 1;
                continue;
            }
            changed += 1;
            match rng.below(4) {
                0 if han => out.push(ctx.character(rng, c)),
                0 => {
                    let n = NEIGHBOURS[(c.to_ascii_lowercase() as u8 - b'a') as usize].as_bytes();
                    let r = n[rng.below(n.len() as u64) as usize] as char;
                    out.push(if c.is_ascii_uppercase() {
                        r.to_ascii_uppercase()
                    } else {
                        r
                    });
                }
                1 => {}
                2 => {
                    out.push(c);
                    out.push(c);
                }
                _ => match chars.get(i + 1) {
                    Some(&next) if next != c => {
                        out.push(next);
                        out.push(c);
                        i += 1;
                    }
                    _ => {} // nothing to transpose with: delete instead
                },
            }
            i += 1;
        }
        Edited {
            text: out,
            changed,
            units,
        }
    }
}
