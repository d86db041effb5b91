//! A page's visible text: every text a reader sees, in document order, with block structure
//! kept as line breaks (Tianwang's "visible text", Wang et al. 2008 §3; what SpotSigs,
//! Theobald et al. SIGIR 2008 §3, was designed to read: navigation and ads included).
//!
//! The walk is iterative (`ego_tree`'s open/close edges), so a page of 100,000 nested elements
//! costs no stack.

use ego_tree::iter::Edge;
use scraper::{Html, Node};

/// Elements whose content a reader does not see.
const HIDDEN: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object", "embed",
    "canvas", "select", "option", "datalist", "textarea",
];

/// Elements that start and end a line.
pub(super) const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "br",
    "caption",
    "center",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "ul",
];

/// The visible text of a parsed page, one block per line, whitespace collapsed in a line.
pub fn visible_text(html: &Html) -> String {
    let mut out = String::new();
    let mut hidden_depth = 0usize;
    let mut at_line_start = true;
    let mut pending_space = false;
    for edge in html.tree.root().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(e) if HIDDEN.contains(&e.name()) || hidden_depth > 0 => {
                    hidden_depth += 1;
                }
                Node::Element(e) if BLOCKS.contains(&e.name()) => {
                    end_line(&mut out, &mut at_line_start, &mut pending_space)
                }
                Node::Text(t) if hidden_depth == 0 => {
                    push_text(&mut out, t, &mut at_line_start, &mut pending_space)
                }
                _ => {}
            },
            Edge::Close(node) => match node.value() {
                Node::Element(_) if hidden_depth > 0 => hidden_depth -= 1,
                Node::Element(e) if BLOCKS.contains(&e.name()) => {
                    end_line(&mut out, &mut at_line_start, &mut pending_space)
                }
                _ => {}
            },
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

fn end_line(out: &mut String, at_line_start: &mut bool, pending_space: &mut bool) {
    if !*at_line_start {
        out.push('\n');
        *at_line_start = true;
    }
    *pending_space = false;
}

/// Appends a text node, its whitespace runs collapsed to one space.
fn push_text(out: &mut String, text: &str, at_line_start: &mut bool, pending_space: &mut bool) {
    for (i, word) in text.split_whitespace().enumerate() {
        let space_before = i > 0 || text.starts_with(|c: char| c.is_whitespace());
        if !*at_line_start && (space_before || *pending_space) {
            out.push(' ');
        }
        out.push_str(word);
        *at_line_start = false;
        *pending_space = false;
    }
    if text.ends_with(|c: char| c.is_whitespace()) {
        *pending_space = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_lines_and_hidden_text_is_dropped() {
        let page = Html::parse_document(
            "<html><head><title>T</title><style>p{}</style></head><body>\
             <nav><a href=/>Home</a> | <a>News</a></nav>\
             <p>First   <b>bold</b>\n word.</p><script>var x = 1;</script>\
             <div>Second<br>line</div><ul><li>one</li><li>two</li></ul></body></html>",
        );
        assert_eq!(
            visible_text(&page),
            "Home | News\nFirst bold word.\nSecond\nline\none\ntwo"
        );
    }

    #[test]
    fn deep_nesting_costs_no_stack() {
        // The walk is iterative. 2,000 levels, twice extract::MAX_DEPTH: html5ever is quadratic
        // in depth, so deeper pages are scanned without a tree (`scan`).
        let depth = 2_000;
        let html = format!(
            "{}deep{}",
            "<div><span>".repeat(depth),
            "</span></div>".repeat(depth)
        );
        let page = Html::parse_document(&html);
        assert_eq!(visible_text(&page), "deep");
    }
}
