//! Visible text without a DOM: one linear pass over a page's markup, for pages too deep to
//! parse. html5ever's tree builder is quadratic in nesting depth (a page of 100,000 nested
//! elements took 137 s to parse here, on the machine of the "Web pages in" issue), so such a
//! page never reaches a parser: its tags are dropped, the content of hidden elements skipped,
//! block tags end lines and the common character references are decoded. The result follows
//! [`super::visible::visible_text`]'s conventions (one block per line, whitespace collapsed)
//! closely enough for shingling; it is not a conforming HTML tokenizer.

use super::visible::BLOCKS;

/// Elements whose content a reader does not see, as the DOM walk's `HIDDEN`, except: `head`
/// (its end tag is optional, so its content is skipped by `title` instead) and the void
/// `embed` (no end tag to skip to).
const HIDDEN: &[&str] = &[
    "script", "style", "noscript", "template", "title", "svg", "math", "iframe", "object",
    "canvas", "select", "datalist", "textarea",
];

/// The visible text of `html` in one pass, without parsing it into a tree.
pub fn visible_text_by_scan(html: &str) -> String {
    let bytes = html.as_bytes();
    let mut text = Lines::default();
    let mut at = 0;
    while at < bytes.len() {
        let Some(open) = memchr::memchr(b'<', &bytes[at..]).map(|i| at + i) else {
            text.push_text(&html[at..]);
            break;
        };
        text.push_text(&html[at..open]);
        at = match Tag::at(bytes, open) {
            Some(tag) => {
                if tag.is_block() {
                    text.end_line();
                }
                if tag.hides_content() {
                    skip_content(bytes, tag.end, tag.name)
                } else {
                    tag.end
                }
            }
            None if bytes[open..].starts_with(b"<!--") => {
                find(bytes, open + 4, b"-->").map_or(bytes.len(), |e| e + 3)
            }
            None if matches!(bytes.get(open + 1), Some(b'!' | b'?')) => {
                memchr::memchr(b'>', &bytes[open..]).map_or(bytes.len(), |e| open + e + 1)
            }
            None => {
                text.push_text("<");
                open + 1
            }
        };
    }
    text.finish()
}

/// A start or end tag: its lowercase name and the byte after its `>`.
struct Tag<'a> {
    name: &'a [u8],
    closing: bool,
    /// `<x/>`: no content follows.
    self_closed: bool,
    end: usize,
}

impl<'a> Tag<'a> {
    /// The tag starting at `bytes[open]` (a `<`), if one does.
    fn at(bytes: &'a [u8], open: usize) -> Option<Tag<'a>> {
        let closing = bytes.get(open + 1) == Some(&b'/');
        let name_at = open + 1 + usize::from(closing);
        if !bytes.get(name_at)?.is_ascii_alphabetic() {
            return None;
        }
        let name_len = bytes[name_at..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-'))
            .unwrap_or(bytes.len() - name_at);
        let end = tag_end(bytes, name_at + name_len);
        Some(Tag {
            name: &bytes[name_at..name_at + name_len],
            closing,
            self_closed: end >= 2 && bytes[end - 2] == b'/',
            end,
        })
    }

    fn is_block(&self) -> bool {
        BLOCKS
            .iter()
            .any(|b| b.as_bytes().eq_ignore_ascii_case(self.name))
    }

    fn hides_content(&self) -> bool {
        !self.closing
            && !self.self_closed
            && HIDDEN
                .iter()
                .any(|h| h.as_bytes().eq_ignore_ascii_case(self.name))
    }
}

/// The byte after a tag's closing `>`, quoted attribute values skipped.
fn tag_end(bytes: &[u8], mut at: usize) -> usize {
    let mut quote = None;
    while at < bytes.len() {
        match (quote, bytes[at]) {
            (None, b'>') => return at + 1,
            (None, q @ (b'"' | b'\'')) => quote = Some(q),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        at += 1;
    }
    bytes.len()
}

/// Where a hidden element's content ends: after its end tag (`</script>`…), or the page's end.
fn skip_content(bytes: &[u8], from: usize, name: &[u8]) -> usize {
    let mut at = from;
    while let Some(i) = find(bytes, at, b"</") {
        let after = i + 2;
        let candidate = bytes.get(after..after + name.len());
        if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name)) {
            return tag_end(bytes, after + name.len());
        }
        at = after;
    }
    bytes.len()
}

/// Where `needle` first occurs in `bytes` at or after `from`.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(bytes.get(from..)?, needle).map(|i| from + i)
}

/// The text built so far: lines of words, whitespace collapsed.
#[derive(Default)]
struct Lines {
    out: String,
    at_line_start: bool,
    pending_space: bool,
}

impl Lines {
    fn push_text(&mut self, raw: &str) {
        if raw.is_empty() {
            return;
        }
        let decoded = decode_references(raw);
        let starts_with_space = decoded.starts_with(char::is_whitespace);
        for (i, word) in decoded.split_whitespace().enumerate() {
            let space = i > 0 || starts_with_space || self.pending_space;
            if !self.out.is_empty() && !self.at_line_start && space {
                self.out.push(' ');
            }
            self.out.push_str(word);
            self.at_line_start = false;
            self.pending_space = false;
        }
        if decoded.ends_with(char::is_whitespace) {
            self.pending_space = true;
        }
    }

    fn end_line(&mut self) {
        if !self.out.is_empty() && !self.at_line_start {
            self.out.push('\n');
            self.at_line_start = true;
        }
        self.pending_space = false;
    }

    fn finish(mut self) -> String {
        let trimmed = self.out.trim_end().len();
        self.out.truncate(trimmed);
        self.out
    }
}

/// Text with the common character references decoded: the five XML ones, `&nbsp;` and
/// numeric references. Others stay as written (they are rare in text a reader compares).
fn decode_references(raw: &str) -> std::borrow::Cow<'_, str> {
    if !raw.contains('&') {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest[1..].find(';').map(|e| e + 1).filter(|&e| e <= 10);
        let decoded = end.and_then(|e| reference(&rest[1..e]));
        match (end, decoded) {
            (Some(e), Some(c)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

fn reference(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some('\u{a0}'),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::visible::visible_text;
    use scraper::Html;

    /// The oracle is the DOM walk: on ordinary pages the scan gives the same text.
    #[test]
    fn the_scan_gives_the_dom_walks_text_on_ordinary_pages() {
        for page in [
            "<html><head><title>T</title><style>p{}</style></head><body>\
             <nav><a href=/>Home</a> | <a>News</a></nav>\
             <p>First   <b>bold</b>\n word.</p><script>var x = '</p>';</script>\
             <div>Second<br>line</div><ul><li>one</li><li>two</li></ul></body></html>",
            "<p>Fish &amp; chips &lt;3 &#233;t&#xE9; caf&#233;</p><!-- <p>gone</p> --><p>x</p>",
            "<div title='a > b'>quoted <span>attribute</span></div><SCRIPT>hidden</SCRIPT>end",
        ] {
            let dom = visible_text(&Html::parse_document(page));
            assert_eq!(visible_text_by_scan(page), dom, "{page}");
        }
    }

    #[test]
    fn deep_pages_and_broken_markup_are_linear_and_never_fail() {
        let depth = 100_000;
        let deep = format!(
            "{}deep{}",
            "<div><span>".repeat(depth),
            "</span></div>".repeat(depth)
        );
        let started = std::time::Instant::now();
        assert_eq!(visible_text_by_scan(&deep), "deep");
        // Not a timing assertion: html5ever took minutes on this page; the scan is linear.
        eprintln!("100,000 nested elements scanned in {:?}", started.elapsed());
        assert_eq!(visible_text_by_scan("a < b <script>never closed"), "a < b");
        assert_eq!(visible_text_by_scan("<p unterminated"), "");
        assert_eq!(visible_text_by_scan("<!-- open"), "");
    }
}
