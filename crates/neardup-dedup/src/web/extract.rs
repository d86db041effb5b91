//! A page's text for the shingler: its main content (`main`), everything a reader sees
//! (`visible`), or the field as it is (`none`).
//!
//! `main` is the `trafilatura` crate (a port of go-trafilatura, itself of Barbaresi's
//! trafilatura, ACL 2021 demo), chosen by measurement on `web-pages.jsonl.gz` (WEB-NOTES.md
//! §3.2 with the ScrapingHub benchmark's scorer: F1 0.957 at 4.9 ms a page, where Python
//! trafilatura scores 0.960 at 20.4 ms, `rs-trafilatura` 0.957 at 10.9 ms and `dom_smoothie`
//! 0.946 at 2.3 ms). `scripts/bench_extraction.py` measures it against Python trafilatura in
//! one run; `tests/web_pages.rs` holds its word F1 at 0.95 or more. I-Match (Chowdhury et al.
//! 2002 §3) starts from exactly this: "the page's main content, markup dropped".
//!
//! A page the extractor cannot take is never an error and never aborts a run: a page larger
//! than [`MAX_PAGE_BYTES`] is skipped (its text empty, so it is kept and never a duplicate);
//! one nested deeper than [`MAX_DEPTH`] (extractors recurse), one the extractor finds no
//! article in (a 404 page, an index page) or one where it fails falls back to its visible
//! text. Each outcome is counted ([`Outcome`]).

use scraper::Html;

use super::visible::visible_text;

/// Pages larger than this are skipped: a parsed DOM costs ~10× the page's bytes.
pub const MAX_PAGE_BYTES: usize = 16 << 20;

/// Pages nested deeper than this (estimated from their tags) are not parsed: extractors
/// recurse, and html5ever's tree builder is quadratic in depth (100,000 nested elements: 137 s).
/// Their visible text is taken by a linear scan instead. Real pages nest < 100 deep.
pub const MAX_DEPTH: usize = 1_000;

/// Which text of a page is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Extract {
    /// The article or main content (`trafilatura`).
    #[default]
    Main,
    /// All text a reader sees, blocks as lines.
    Visible,
    /// The field as it is: markup included.
    None,
}

impl Extract {
    /// Every mode, by name, for the command line.
    pub const NAMES: &[&str] = &["main", "visible", "none"];

    /// The mode a name stands for.
    pub fn parse(name: &str) -> Option<Extract> {
        match name {
            "main" => Some(Extract::Main),
            "visible" => Some(Extract::Visible),
            "none" => Some(Extract::None),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Extract::Main => "main",
            Extract::Visible => "visible",
            Extract::None => "none",
        }
    }
}

/// What happened to one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The mode's text was taken.
    Extracted,
    /// `main` found no main content (too short: an error page, an index); visible text taken.
    NoMainContent,
    /// `main` failed on the page; visible text taken.
    ExtractorFailed,
    /// Nested deeper than [`MAX_DEPTH`]; visible text taken.
    TooDeep,
    /// Larger than [`MAX_PAGE_BYTES`]: skipped (empty text).
    TooLarge,
}

impl Outcome {
    /// Its name in counts and reports.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Extracted => "extracted",
            Outcome::NoMainContent => "no main content: visible text taken",
            Outcome::ExtractorFailed => "extractor failed: visible text taken",
            Outcome::TooDeep => "nested too deep: visible text taken",
            Outcome::TooLarge => "larger than 16 MiB: skipped",
        }
    }
}

/// A page's text, its title where the extractor found one, and what happened.
#[derive(Debug, Clone)]
pub struct PageText {
    /// The text for the shingler.
    pub text: String,
    /// The page's title, if known.
    pub title: Option<String>,
    /// What happened.
    pub outcome: Outcome,
}

/// The text `mode` takes of the page `html`.
pub fn page_text(html: &str, mode: Extract) -> PageText {
    let outcome = Outcome::Extracted;
    if mode == Extract::None {
        return PageText {
            text: html.to_string(),
            title: None,
            outcome,
        };
    }
    if html.len() > MAX_PAGE_BYTES {
        return PageText {
            text: String::new(),
            title: None,
            outcome: Outcome::TooLarge,
        };
    }
    if mode == Extract::Visible {
        return visible(html, outcome);
    }
    if estimated_depth(html.as_bytes()) > MAX_DEPTH {
        // Never parsed: html5ever's tree builder is quadratic in depth (`scan`).
        return PageText {
            text: super::scan::visible_text_by_scan(html),
            title: None,
            outcome: Outcome::TooDeep,
        };
    }
    main(html)
}

fn visible(html: &str, outcome: Outcome) -> PageText {
    let page = Html::parse_document(html);
    let title = title_of(&page);
    PageText {
        text: visible_text(&page),
        title,
        outcome,
    }
}

/// The main content; a page without one, or one the extractor fails on, falls back to its
/// visible text. The extractor's own panics are caught: one page never stops a crawl.
fn main(html: &str) -> PageText {
    let options = trafilatura::Options::default();
    let extracted = std::panic::catch_unwind(|| trafilatura::extract(html, &options));
    match extracted {
        Ok(Ok(result)) if !result.content_text.trim().is_empty() => {
            let title = Some(result.metadata.title).filter(|t| !t.is_empty());
            // The extracted HTML's blocks as lines (the crate's plain text runs paragraphs
            // together, and template lines are told apart by line).
            let text = visible_text(&Html::parse_fragment(&result.content_html));
            let text = if text.trim().is_empty() {
                result.content_text
            } else {
                text
            };
            PageText {
                text,
                title,
                outcome: Outcome::Extracted,
            }
        }
        Ok(Ok(_)) | Ok(Err(trafilatura::TrafilaturaError::InsufficientContent { .. })) => {
            visible(html, Outcome::NoMainContent)
        }
        Ok(Err(_)) | Err(_) => visible(html, Outcome::ExtractorFailed),
    }
}

/// The page's `<title>`.
fn title_of(page: &Html) -> Option<String> {
    let selector = scraper::Selector::parse("title").expect("a valid selector");
    page.select(&selector)
        .next()
        .map(|t| {
            t.text()
                .collect::<String>()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|t| !t.is_empty())
}

/// The deepest nesting of the page's tags, estimated in one pass over the bytes: an opening
/// tag goes one deeper, a closing tag one up, void elements and self-closed tags stay. An
/// over-estimate on sloppy markup (unclosed `<p>`, `<li>`) costs only the fallback to visible
/// text, which is exact on any depth.
pub fn estimated_depth(html: &[u8]) -> usize {
    const VOID: &[&[u8]] = &[
        b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
        b"param", b"source", b"track", b"wbr", b"p", b"li", b"option", b"td", b"tr", b"th",
    ];
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut from = 0;
    while let Some(at) = memchr::memchr(b'<', &html[from..]) {
        let tag = &html[from + at + 1..];
        from += at + 1;
        let (closing, name_at) = match tag.first() {
            Some(b'/') => (true, 1),
            Some(c) if c.is_ascii_alphabetic() => (false, 0),
            _ => continue,
        };
        let name_len = tag[name_at..]
            .iter()
            .position(|b| !b.is_ascii_alphanumeric())
            .unwrap_or(tag.len() - name_at);
        let name = &tag[name_at..name_at + name_len];
        if VOID.iter().any(|v| v.eq_ignore_ascii_case(name)) {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else {
            let end = memchr::memchr(b'>', tag).unwrap_or(tag.len());
            if end > 0 && tag[end - 1] == b'/' {
                continue;
            }
            depth += 1;
            deepest = deepest.max(depth);
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTICLE: &str = "<html><head><title>A title</title></head><body>\
        <nav><a href=/>Home</a><a href=/news>News</a><a href=/sport>Sport</a></nav>\
        <article><h1>A title</h1>\
        <p>The council voted on Tuesday to extend the library's opening hours into the evening, \
        after a year in which visits rose by a third and the reading rooms were full by noon.</p>\
        <p>Residents had petitioned for the change since the spring, and the cost, about forty \
        thousand a year, will be met from the culture budget without cuts elsewhere.</p>\
        <p>The new hours start next month; the children's section keeps its current times.</p>\
        </article><footer>Copyright 2026 The Daily Example. All rights reserved.</footer>\
        </body></html>";

    #[test]
    fn main_takes_the_article_and_drops_the_template() {
        let page = page_text(ARTICLE, Extract::Main);
        assert_eq!(page.outcome, Outcome::Extracted);
        assert!(
            page.text.contains("extend the library's opening hours"),
            "{}",
            page.text
        );
        assert!(!page.text.contains("All rights reserved"), "{}", page.text);
        assert!(!page.text.contains("Sport"), "{}", page.text);
        assert_eq!(page.title.as_deref(), Some("A title"));
        let visible = page_text(ARTICLE, Extract::Visible);
        assert!(visible.text.contains("All rights reserved"));
        assert!(visible.text.contains("extend the library's opening hours"));
        assert_eq!(page_text(ARTICLE, Extract::None).text, ARTICLE);
    }

    #[test]
    fn a_page_without_an_article_falls_back_to_its_visible_text() {
        // trafilatura takes a short error page's heading as its content: the same text.
        let page = page_text(
            "<html><body><h1>404 Not Found</h1></body></html>",
            Extract::Main,
        );
        assert_eq!(page.text, "404 Not Found");
        // A page with nothing to extract is not an error: its (empty) visible text is taken.
        let empty = "<html><body><div><img src=a.png></div></body></html>";
        let page = page_text(empty, Extract::Main);
        assert_eq!(
            (page.outcome, page.text.as_str()),
            (Outcome::NoMainContent, "")
        );
    }

    #[test]
    fn deep_and_large_pages_are_counted_not_fatal() {
        let depth = 100_000;
        let deep = format!(
            "{}<p>deep</p>{}",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        assert!(estimated_depth(deep.as_bytes()) >= depth);
        let page = page_text(&deep, Extract::Main);
        assert_eq!(
            (page.outcome, page.text.as_str()),
            (Outcome::TooDeep, "deep")
        );
        let large = format!("<p>{}</p>", "x".repeat(MAX_PAGE_BYTES));
        let page = page_text(&large, Extract::Main);
        assert_eq!((page.outcome, page.text.as_str()), (Outcome::TooLarge, ""));
    }

    #[test]
    fn the_depth_estimate_ignores_void_and_self_closed_tags() {
        assert_eq!(
            estimated_depth(b"<div><img src=x><br/><p>a<span/>b</div>"),
            1
        );
        assert_eq!(estimated_depth(b"<a><b><c></c></b></a><d></d>"), 3);
        assert_eq!(estimated_depth(b"1 < 2 and <!-- c --> <!doctype html>"), 0);
    }
}
