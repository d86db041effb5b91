//! `ascii-punct` and `cjk-punct`: Chinese text reposted with its punctuation in the other
//! script, as the web does it. `ascii-punct` replaces each ideographic mark with its ASCII
//! counterpart with probability `rate` (`，`→`,` `。`→`.` `、`→`,` `：`→`:` `；`→`;` `！`→`!`
//! `？`→`?` `「」『』“”`→`"` `（）`→`()`); `cjk-punct` does the reverse for ASCII marks that follow
//! a Han character (`,`→`，` `.`→`。` `:`→`：` `;`→`；` `!`→`！` `?`→`？`, and `"` alternately
//! to `「` and `」`), leaving numbers like `3.14` and Latin text alone.
//!
//! NFKC keeps `。`, `、` and the corner brackets (they have no compatibility form), so without
//! `fold_punctuation` these edits change the normalized text — exact hashes, sentence hashes,
//! Tianwang's abstract and (with jieba given whole texts) the segmentation; the default
//! normalization folds them back, which is what reports/chinese-injected checks.

use neardup::hash::SplitMix64;
use neardup::text::language::is_han;

use super::kind::{EditContext, EditKind, Edited, coin, swap_chars};

/// Ideographic punctuation to ASCII.
#[derive(Debug)]
pub struct ToAscii;

/// ASCII punctuation after Han characters to ideographic.
#[derive(Debug)]
pub struct ToCjk;

/// The ASCII counterpart of an ideographic mark.
pub fn ascii_of(c: char) -> Option<char> {
    Some(match c {
        '，' | '、' => ',',
        '。' => '.',
        '：' => ':',
        '；' => ';',
        '！' => '!',
        '？' => '?',
        '「' | '」' | '『' | '』' | '“' | '”' => '"',
        '（' => '(',
        '）' => ')',
        _ => return None,
    })
}

/// The ideographic counterpart of an ASCII mark (`"` opens, then closes).
fn cjk_of(c: char, quote_open: &mut bool) -> Option<char> {
    Some(match c {
        ',' => '，',
        '.' => '。',
        ':' => '：',
        ';' => '；',
        '!' => '！',
        '?' => '？',
        '"' => {
            *quote_open = !*quote_open;
            if *quote_open { '「' } else { '」' }
        }
        _ => return None,
    })
}

impl EditKind for ToAscii {
    fn name(&self) -> &'static str {
        "ascii-punct"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that an ideographic punctuation mark becomes ASCII"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, rng: &mut SplitMix64) -> Edited {
        swap_chars(text, rate, rng, ascii_of)
    }
}

impl EditKind for ToCjk {
    fn name(&self) -> &'static str {
        "cjk-punct"
    }
    fn rate_meaning(&self) -> &'static str {
        "probability that an ASCII punctuation mark after a Han character becomes ideographic"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, rng: &mut SplitMix64) -> Edited {
        let (mut changed, mut units) = (0, 0);
        let mut out = String::with_capacity(text.len() + text.len() / 4);
        let mut after_han = false;
        let mut quote_open = false;
        for c in text.chars() {
            let swapped = if after_han || (c == '"' && quote_open) {
                let mut open = quote_open;
                cjk_of(c, &mut open).map(|o| (o, open))
            } else {
                None
            };
            match swapped {
                Some((o, open)) => {
                    units += 1;
                    if coin(rng, rate) {
                        changed += 1;
                        quote_open = open;
                        out.push(o);
                    } else {
                        out.push(c);
                    }
                }
                None => out.push(c),
            }
            // A mark keeps the Han context, so "神說:"要有光"" changes every mark.
            after_han = is_han(c) || (after_han && !c.is_alphanumeric() && !c.is_whitespace());
        }
        Edited {
            text: out,
            changed,
            units,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::text::Normalization;

    fn ctx() -> EditContext<'static> {
        EditContext {
            vocabulary: &[],
            characters: &[],
            donors: &[],
            source: 0,
        }
    }

    #[test]
    fn ideographic_marks_become_ascii_and_only_fold_punctuation_undoes_it() {
        let text = "神說：「要有光。」就有了光，光暗分開、晝夜。";
        let edited = ToAscii.apply(text, 1.0, &ctx(), &mut SplitMix64::new(1));
        assert_eq!(edited.text, "神說:\"要有光.\"就有了光,光暗分開,晝夜.");
        assert_eq!((edited.changed, edited.units), (7, 7));
        // NFKC alone keeps the edit; `fold_punctuation` (on by default) undoes it.
        let nfkc = Normalization {
            fold_punctuation: false,
            ..Normalization::default()
        };
        assert_ne!(nfkc.apply(&edited.text), nfkc.apply(text));
        let n = Normalization::default();
        assert_eq!(n.apply(&edited.text), n.apply(text));
        let none = ToAscii.apply(text, 0.0, &ctx(), &mut SplitMix64::new(1));
        assert_eq!((none.text.as_str(), none.changed, none.units), (text, 0, 7));
    }

    #[test]
    fn ascii_marks_after_han_become_ideographic_and_numbers_stay() {
        let text = "神說:\"要有光.\"就有了光, 價值 3.14 元. See v1.2, ok.";
        let edited = ToCjk.apply(text, 1.0, &ctx(), &mut SplitMix64::new(1));
        assert_eq!(
            edited.text,
            "神說：「要有光。」就有了光， 價值 3.14 元。 See v1.2, ok."
        );
        assert_eq!(edited.changed, edited.units);
        // The round trip gives the ASCII text back.
        let back = ToAscii.apply(&edited.text, 1.0, &ctx(), &mut SplitMix64::new(1));
        assert_eq!(back.text, text);
    }
}
