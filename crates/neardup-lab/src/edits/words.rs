//! Whitespace-delimited word spans, for edits that must keep the text's own whitespace.

/// Byte ranges of the whitespace-delimited words of `text`.
pub fn spans(text: &str) -> Vec<(usize, usize)> {
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
/// nothing, to delete it); the whitespace between words is copied, except that the
/// whitespace before a deleted word is dropped (after the first word) so deletions leave no
/// double spaces.
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
            if i == 0 {
                // keep leading whitespace of the document
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
