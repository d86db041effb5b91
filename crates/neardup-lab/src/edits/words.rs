//! Word spans, for edits that must keep the text's own whitespace and punctuation: the
//! whitespace-delimited words of English (and every space-separated script), the jieba words
//! of Chinese text (detected by script, as the detectors' `language = auto` does), where
//! punctuation stays in the gaps between words.

use neardup::text::Language;
use neardup::text::language::detect;

/// Whether `text` is edited by Chinese rules (words without spaces between them).
pub fn is_chinese(text: &str) -> bool {
    detect(text) == Language::Zh
}

/// What goes between an inserted word and its neighbour: nothing in Chinese text.
pub fn separator(text: &str) -> &'static str {
    if is_chinese(text) { "" } else { " " }
}

/// Byte ranges of the words of `text`: jieba words for Chinese text, whitespace-delimited
/// words otherwise.
pub fn spans(text: &str) -> Vec<(usize, usize)> {
    if is_chinese(text) {
        return neardup::text::segment::word_spans(text);
    }
    whitespace_spans(text)
}

/// Byte ranges of the whitespace-delimited words of `text`.
fn whitespace_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Rebuilds `text` word by word: `f(i, word, out)` writes the replacement of word `i` (or
/// nothing, to delete it); the gaps between words are copied, except that a whitespace gap
/// before a deleted word is dropped (after the first word) so deletions leave no double
/// spaces. (Gaps of Chinese text are punctuation or nothing, and always stay.)
pub fn rewrite(text: &str, mut f: impl FnMut(usize, &str, &mut String) -> bool) -> String {
    let sp = spans(text);
    let mut out = String::with_capacity(text.len() + 16);
    let mut prev_end = 0;
    let mut pending_gap: &str = &text[..sp.first().map_or(text.len(), |s| s.0)];
    for (i, &(s, e)) in sp.iter().enumerate() {
        if i > 0 {
            pending_gap = &text[prev_end..s];
        }
        let mark = out.len();
        out.push_str(pending_gap);
        let kept = f(i, &text[s..e], &mut out);
        if !kept {
            out.truncate(mark);
            if i == 0 || !pending_gap.chars().all(char::is_whitespace) {
                // keep the document's leading whitespace, and punctuation gaps
                out.push_str(pending_gap);
            }
        }
        prev_end = e;
    }
    out.push_str(&text[prev_end.max(sp.last().map_or(0, |s| s.1))..]);
    if sp.is_empty() {
        return text.to_string();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_rewrite_keeps_whitespace() {
        let t = "  one two\n\nthree\tfour  ";
        assert_eq!(
            rewrite(t, |_, w, o| {
                o.push_str(w);
                true
            }),
            t
        );
        assert_eq!(spans(t).len(), 4);
    }

    #[test]
    fn chinese_words_and_punctuation_gaps() {
        let t = "起初神創造天地。地是空虛混沌";
        assert!(is_chinese(t) && separator(t).is_empty() && separator("a b") == " ");
        let sp = spans(t);
        assert!(sp.len() >= 5, "{sp:?}");
        assert_eq!(
            rewrite(t, |_, w, o| {
                o.push_str(w);
                true
            }),
            t
        );
        // Deleting the word after 。 keeps the 。.
        let i = sp
            .iter()
            .position(|&(s, _)| t[..s].ends_with('。'))
            .unwrap();
        let deleted = rewrite(t, |k, w, o| {
            if k == i {
                return false;
            }
            o.push_str(w);
            true
        });
        assert!(
            deleted.contains('。') && deleted.len() < t.len(),
            "{deleted}"
        );
    }

    #[test]
    fn deletion_drops_the_gap_before() {
        let t = "a b\nc d";
        assert_eq!(
            rewrite(t, |i, w, o| {
                if i == 1 {
                    false
                } else {
                    o.push_str(w);
                    true
                }
            }),
            "a\nc d"
        );
        assert_eq!(
            rewrite(t, |i, w, o| {
                if i == 0 {
                    false
                } else {
                    o.push_str(w);
                    true
                }
            }),
            " b\nc d"
        );
    }
}
