//! The static report site: `reports/index.html` and, per report, one page per Markdown file
//! of its folder (`README.md` → `index.html`, `CHARTS.md` → `charts.html`, …: [`PARTS`]),
//! rendered from the same files a reader sees on disk, so a report's first page answers its
//! question and the details wait on their own pages. No server and no script: every page
//! carries the navigation to every report and to its report's other pages, an "on this page"
//! line of its sections (each heading has an anchor), long tables folded under their heading,
//! and where each report came from (one revision per regeneration; reports made by other
//! commands, such as the benchmarks, say which build made them and when).

use std::fmt::Write as _;
use std::path::Path;

use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::error::{LabError, Result};
use crate::inspect::html::esc as escape;
use neardup_dedup::fsutil::write_bytes;

/// Tables with more body rows than this are folded (`<details>`) under their heading.
pub const FOLD_ROWS: usize = 16;

/// One page of the site: a report folder, or the index (`folder` empty).
#[derive(Debug)]
pub struct Page<'a> {
    /// Folder under the reports directory ("" for the index).
    pub folder: &'a str,
    /// Title, for the tab and the navigation.
    pub title: String,
    /// Its Markdown files, each a page, with the page's name ([`PARTS`]: `README.md` → "",
    /// written as `index.html`; `TIMING.md` → "timing", written as `timing.html`).
    pub parts: Vec<(String, String)>,
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:1600px;margin:0 auto;padding:0 1.5em 4em;color:#222;line-height:1.45}\n\
p,li,blockquote{max-width:80ch}p:has(img){max-width:none}\n\
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:.4em 0;z-index:2;font-size:14px}\n\
header nav{display:flex;flex-wrap:wrap;gap:.15em .9em}header nav a{white-space:nowrap}\n\
header nav a.here{font-weight:700;color:#000;text-decoration:none}\n\
header .tabs{margin-top:.35em;font-size:15px}header .tabs a{margin-right:1.1em}header .tabs a.here{font-weight:700;color:#000;text-decoration:none}\n\
header .toc{margin-top:.3em;color:#555}header .toc a{margin-right:.8em;white-space:nowrap}\n\
h1,h2,h3{scroll-margin-top:6em}div[id^=ex-]{scroll-margin-top:9em}h2{border-top:2px solid #e4e4e4;padding-top:.6em}\n\
table{border-collapse:collapse;margin:1em 0;font-size:13px;display:block;overflow-x:auto}\n\
td,th{border:1px solid #ccc;padding:3px 8px;vertical-align:top}th{background:#f3f3f3}\n\
tr:nth-child(even) td{background:#fafafa}img{max-width:100%;height:auto;border:1px solid #eee}\n\
details{margin:.6em 0}summary{cursor:pointer;color:#225}\n\
.gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:0 2em;align-items:start}.gallery .wide{grid-column:1/-1}\n\
.stale{background:#fff4e0;border-left:4px solid #e0a030;padding:.3em .8em}\n\
pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:13px}code{background:#f3f3f3;padding:0 .2em}\n\
.pair{border:1px solid #ddd;border-radius:6px;margin:.8em 0;padding:.3em .9em .8em}.pair .meta{margin:.3em 0;max-width:none}\n\
.texts{display:grid;grid-template-columns:1fr 1fr;gap:12px}.below{color:#b3261e}\n\
.text{white-space:pre-wrap;overflow-wrap:anywhere;max-height:24em;overflow:auto;border:1px solid #eee;padding:6px 8px;font:13px/1.5 ui-monospace,monospace;background:#fcfcfb}\n\
.text h4{font:600 13px system-ui,sans-serif;margin:0 0 4px;color:#333}.gap{color:#888;font-style:italic}\n\
del{background:#ffd7d5;color:#8a1c14;text-decoration:none}ins{background:#d4f5d4;color:#0f5b0f;text-decoration:none}\n";

/// Writes `dir/index.html` and, for every report folder, one HTML file per Markdown part;
/// `pages[0]` is the index. Every page links every report and its report's other parts.
pub fn write_site(dir: &Path, pages: &[Page<'_>]) -> Result<()> {
    for page in pages {
        for part in 0..page.parts.len() {
            let html = page_html(dir, page, part, pages);
            let file = html_file(&page.parts[part].0);
            write_bytes(&dir.join(page.folder).join(file), html.as_bytes())?;
        }
    }
    Ok(())
}

/// A report folder's Markdown files, each its own page: (file, part name, tab label). The
/// README is the page that answers; the others hold what it links to.
pub const PARTS: [(&str, &str, &str); 5] = [
    ("README.md", "", "Answer"),
    (super::CHARTS_FILE, "charts", "All charts"),
    (super::examples::FILE, "examples", "Example pairs"),
    ("TIMING.md", "timing", "Timing"),
    (
        super::CONFIGURATION_FILE,
        "configuration",
        "Corpora and configuration",
    ),
];

/// The HTML file of a part: `index.html` for the README, else `<part>.html`.
pub fn html_file(part: &str) -> String {
    if part.is_empty() {
        "index.html".into()
    } else {
        format!("{part}.html")
    }
}

/// Reads a report folder's Markdown files ([`PARTS`]) as a page's parts.
pub fn parts_of(dir: &Path, folder: &str) -> Result<Vec<(String, String)>> {
    let mut parts = Vec::new();
    for (file, anchor, _) in PARTS {
        let path = dir.join(folder).join(file);
        if path.is_file() {
            let text = std::fs::read_to_string(&path).map_err(|e| LabError::io(&path, e))?;
            parts.push((anchor.to_string(), text));
        }
    }
    Ok(parts)
}

/// The HTML of part `part` of `page` (the site is written into `dir`).
fn page_html(dir: &Path, page: &Page<'_>, part: usize, pages: &[Page<'_>]) -> String {
    let up = if page.folder.is_empty() { "" } else { "../" };
    let mut toc: Vec<(String, String)> = Vec::new();
    let folders: Vec<&str> = pages.iter().map(|p| p.folder).collect();
    // The charts page lays its charts out side by side where they are narrow (#53 item 13:
    // eight 710-px trade-off charts one under another made chinese-injected's 9.6 screens).
    let wide = |src: &str| png_width(&dir.join(page.folder).join(src)).is_none_or(|w| w > WIDE_PX);
    let gallery: Option<&dyn Fn(&str) -> bool> =
        (page.parts[part].0 == "charts").then_some(&wide as &dyn Fn(&str) -> bool);
    let body = render(
        &page.parts[part].1,
        page.folder,
        &folders,
        &mut Ids::default(),
        &mut toc,
        gallery,
    );
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} · neardup reports</title>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<style>\n{STYLE}</style></head><body>\n<header id=\"top\"><nav>",
        escape(&page.title)
    );
    for p in pages {
        let href = if p.folder.is_empty() {
            format!("{up}index.html")
        } else {
            format!("{up}{}/index.html", p.folder)
        };
        let class = if p.folder == page.folder {
            " class=\"here\""
        } else {
            ""
        };
        let name = if p.folder.is_empty() {
            "All reports"
        } else {
            p.folder
        };
        let _ = write!(
            s,
            "<a href=\"{href}\"{class} title=\"{}\">{}</a>",
            escape(&p.title),
            escape(name)
        );
    }
    s.push_str("</nav>");
    tabs(page, part, &mut s);
    if toc.len() > 1 {
        s.push_str("<div class=\"toc\">On this page: ");
        for (id, text) in &toc {
            let _ = write!(s, "<a href=\"#{id}\">{}</a> ", escape(text));
        }
        s.push_str("<a href=\"#top\">↑ top</a></div>");
    }
    s.push_str("</header>\n<main>\n");
    s.push_str(&body);
    s.push_str("</main></body></html>\n");
    s
}

/// The line of a report's pages, when it has more than one.
fn tabs(page: &Page<'_>, part: usize, s: &mut String) {
    if page.parts.len() < 2 {
        return;
    }
    s.push_str("<div class=\"tabs\">This report: ");
    for (i, (name, _)) in page.parts.iter().enumerate() {
        let label = PARTS
            .iter()
            .find(|(_, n, _)| n == name)
            .map_or(name.as_str(), |(_, _, label)| label);
        let class = if i == part { " class=\"here\"" } else { "" };
        let _ = write!(
            s,
            "<a href=\"{}\"{class}>{}</a>",
            html_file(name),
            escape(label)
        );
    }
    s.push_str("</div>");
}

/// Heading anchors of one page, unique within it.
#[derive(Default)]
struct Ids(Vec<String>);

impl Ids {
    /// A unique anchor for a heading's text: lower-case letters and digits joined by `-`.
    fn make(&mut self, text: &str) -> String {
        let mut slug = String::new();
        for c in text.chars().flat_map(char::to_lowercase) {
            if c.is_alphanumeric() {
                slug.push(c);
            } else if !slug.is_empty() && !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let base = slug.trim_end_matches('-').to_string();
        let base = if base.is_empty() { "part".into() } else { base };
        let mut id = base.clone();
        let mut n = 1;
        while self.0.contains(&id) || id == "top" {
            n += 1;
            id = format!("{base}-{n}");
        }
        self.0.push(id.clone());
        id
    }
}

/// `folder/url` with `..` resolved against the reports directory, or `None` when `url` is
/// absolute, has a scheme, is an anchor, or leaves the reports directory (those stay as
/// they are: the page sits in the Markdown file's folder, so relative links still hold).
fn resolve(folder: &str, url: &str) -> Option<String> {
    if url.is_empty() || url.starts_with('#') || url.starts_with('/') || url.contains(':') {
        return None;
    }
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for p in url.split('/') {
        match p {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// A link of the Markdown in `folder` as the page links it: a report's Markdown file
/// ([`PARTS`]) becomes its page; anything else is unchanged.
fn page_link(url: CowStr<'static>, folder: &str, folders: &[&str]) -> CowStr<'static> {
    let Some(path) = resolve(folder, &url) else {
        return url;
    };
    let up = if folder.is_empty() { "" } else { "../" };
    let (target, anchor) = match path.split_once('#') {
        Some((p, a)) => (p.to_string(), format!("#{a}")),
        None => (path.clone(), String::new()),
    };
    if target == "README.md" {
        return format!("{up}index.html{anchor}").into();
    }
    for (file, part, _) in PARTS {
        let Some(f) = target.strip_suffix(&format!("/{file}")) else {
            continue;
        };
        if !folders.contains(&f) {
            continue;
        }
        let html = html_file(part);
        return if f == folder {
            format!("{html}{anchor}").into()
        } else {
            format!("{up}{f}/{html}{anchor}").into()
        };
    }
    url
}

/// Markdown of `folder` as HTML: links to pages of the site, an anchor on every heading
/// (level-2 ones listed in `toc`), tables over [`FOLD_ROWS`] rows folded; with `gallery`,
/// the level-2 sections laid out as a gallery ([`sections_in_a_gallery`]).
fn render(
    markdown: &str,
    folder: &str,
    folders: &[&str],
    ids: &mut Ids,
    toc: &mut Vec<(String, String)>,
    gallery: Option<&dyn Fn(&str) -> bool>,
) -> String {
    let mut events: Vec<Event<'_>> = Parser::new_ext(
        markdown,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
    )
    .map(|e| match e {
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: page_link(dest_url.into_static(), folder, folders),
            title,
            id,
        }),
        e => e,
    })
    .collect();
    name_headings(&mut events, ids, toc);
    let mut events = fold_tables(events);
    if let Some(is_wide) = gallery {
        events = sections_in_a_gallery(events, is_wide);
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    html
}

/// Gives every heading an anchor from its text; level-2 headings go into `toc`.
fn name_headings(events: &mut [Event<'_>], ids: &mut Ids, toc: &mut Vec<(String, String)>) {
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { level, .. }) = &events[i] {
            let level = *level;
            let mut text = String::new();
            let mut j = i + 1;
            while j < events.len() && !matches!(events[j], Event::End(TagEnd::Heading(_))) {
                if let Event::Text(t) | Event::Code(t) = &events[j] {
                    text.push_str(t);
                }
                j += 1;
            }
            let id = ids.make(&text);
            if level == HeadingLevel::H2 {
                toc.push((id.clone(), text));
            }
            if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[i] {
                *slot = Some(id.into());
            }
            i = j;
        }
        i += 1;
    }
}

/// Charts at most this many pixels wide share a row of the charts page.
const WIDE_PX: u32 = 760;

/// The width of a PNG file from its header, or `None` when it is not one (or not there).
fn png_width(path: &Path) -> Option<u32> {
    use std::io::Read as _;
    let mut head = [0u8; 24];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    (head[..8] == *b"\x89PNG\r\n\x1a\n" && head[12..16] == *b"IHDR")
        .then(|| u32::from_be_bytes([head[16], head[17], head[18], head[19]]))
}

/// Wraps each level-2 section (its heading, chart and caption) in `<section class="chart">`
/// and all of them in `<div class="gallery">`, a grid whose narrow sections sit two a row;
/// a section whose first image `is_wide` (by its source) spans the row.
fn sections_in_a_gallery<'e>(
    events: Vec<Event<'e>>,
    is_wide: &dyn Fn(&str) -> bool,
) -> Vec<Event<'e>> {
    let starts: Vec<usize> = (0..events.len())
        .filter(|&i| {
            matches!(
                events[i],
                Event::Start(Tag::Heading {
                    level: HeadingLevel::H2,
                    ..
                })
            )
        })
        .collect();
    let Some(&first) = starts.first() else {
        return events;
    };
    let mut out = events[..first].to_vec();
    out.push(Event::Html("<div class=\"gallery\">\n".into()));
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(events.len());
        let wide = events[start..end]
            .iter()
            .find_map(|e| match e {
                Event::Start(Tag::Image { dest_url, .. }) => Some(is_wide(dest_url)),
                _ => None,
            })
            .unwrap_or(true);
        out.push(Event::Html(
            format!(
                "<section class=\"chart{}\">\n",
                if wide { " wide" } else { "" }
            )
            .into(),
        ));
        out.extend(events[start..end].iter().cloned());
        out.push(Event::Html("</section>\n".into()));
    }
    out.push(Event::Html("</div>\n".into()));
    out
}

/// Wraps each table of more than [`FOLD_ROWS`] body rows in `<details>` with its size in
/// the summary, so a page shows its charts and short answers first.
fn fold_tables(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut out = Vec::with_capacity(events.len() + 8);
    let mut i = 0;
    while i < events.len() {
        if matches!(events[i], Event::Start(Tag::Table(_))) {
            let end = (i..events.len())
                .find(|&j| matches!(events[j], Event::End(TagEnd::Table)))
                .unwrap_or(events.len() - 1);
            let rows = events[i..end]
                .iter()
                .filter(|e| matches!(e, Event::Start(Tag::TableRow)))
                .count();
            let fold = rows > FOLD_ROWS;
            if fold {
                out.push(Event::Html(
                    format!("<details><summary>Table: {rows} rows (click to show)</summary>\n")
                        .into(),
                ));
            }
            out.extend(events[i..=end].iter().cloned());
            if fold {
                out.push(Event::Html("</details>\n".into()));
            }
            i = end + 1;
        } else {
            out.push(events[i].clone());
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html_of(markdown: &str, folder: &str) -> String {
        let folders = ["", "real-corpora", "published", "ray"];
        render(
            markdown,
            folder,
            &folders,
            &mut Ids::default(),
            &mut Vec::new(),
            None,
        )
    }

    #[test]
    fn links_go_to_pages_and_leave_the_rest_relative() {
        let html = html_of(
            "![chart](charts/pr.png) [other](../published/README.md#best) [csv](results.csv) \
             [up](../README.md) [timing](TIMING.md) [pkg](../../python/README.md) \
             [web](https://example.org/a) [me](README.md)",
            "real-corpora",
        );
        assert!(html.contains("src=\"charts/pr.png\""), "{html}");
        assert!(
            html.contains("href=\"../published/index.html#best\""),
            "{html}"
        );
        assert!(html.contains("href=\"results.csv\""), "{html}");
        assert!(html.contains("href=\"../index.html\""), "{html}");
        assert!(html.contains("href=\"timing.html\""), "{html}");
        // Outside the reports folder: the path as written, which holds from the page.
        assert!(html.contains("href=\"../../python/README.md\""), "{html}");
        assert!(html.contains("href=\"https://example.org/a\""), "{html}");
        assert!(html.contains("href=\"index.html\""), "{html}");
        let index = html_of(
            "[ray](ray/README.md) [all](README.md) [charts](real-corpora/CHARTS.md#pr)",
            "",
        );
        assert!(index.contains("href=\"ray/index.html\""), "{index}");
        assert!(
            index.contains("href=\"real-corpora/charts.html#pr\""),
            "{index}"
        );
        assert!(index.contains("href=\"index.html\""), "{index}");
    }

    /// On the charts page every level-2 section is a cell of the gallery, a wide chart's
    /// spanning its row; the intro before the first section stays outside.
    #[test]
    fn chart_sections_become_a_gallery_whose_wide_charts_span_a_row() {
        let md = "# T\n\nintro\n\n## A\n\n![a](charts/a.png)\n\ncap a\n\n## B\n\n\
                  ![b](charts/b.png)\n\ncap b\n\n## C\n\ntext only\n";
        let wide = |src: &str| src.ends_with("b.png");
        let html = render(
            md,
            "x",
            &["x"],
            &mut Ids::default(),
            &mut Vec::new(),
            Some(&wide),
        );
        let gallery = html.find("<div class=\"gallery\">").expect(&html);
        assert!(html.find("intro").unwrap() < gallery, "{html}");
        let sections: Vec<&str> = html.split("<section class=\"").skip(1).collect();
        assert_eq!(sections.len(), 3, "{html}");
        assert!(sections[0].starts_with("chart\">") && sections[0].contains("cap a"));
        assert!(sections[1].starts_with("chart wide\">") && sections[1].contains("cap b"));
        assert!(sections[2].starts_with("chart wide\">"), "{html}");
        assert!(html.trim_end().ends_with("</section>\n</div>"), "{html}");
        assert!(
            !render(md, "x", &["x"], &mut Ids::default(), &mut Vec::new(), None)
                .contains("gallery")
        );
    }

    #[test]
    fn headings_get_unique_anchors_and_long_tables_fold() {
        let mut toc = Vec::new();
        let rows: String = (0..FOLD_ROWS + 1).map(|i| format!("| {i} |\n")).collect();
        let short: String = (0..FOLD_ROWS).map(|i| format!("| {i} |\n")).collect();
        let md = format!(
            "## Best `F1` per algorithm\n\n| n |\n|---|\n{rows}\n## Best `F1` per algorithm\n\n| n |\n|---|\n{short}"
        );
        let html = render(&md, "x", &["x"], &mut Ids::default(), &mut toc, None);
        assert_eq!(
            toc,
            [
                (
                    "best-f1-per-algorithm".to_string(),
                    "Best F1 per algorithm".to_string()
                ),
                (
                    "best-f1-per-algorithm-2".to_string(),
                    "Best F1 per algorithm".to_string()
                )
            ]
        );
        assert!(html.contains("<h2 id=\"best-f1-per-algorithm\">"), "{html}");
        assert_eq!(html.matches("<details>").count(), 1, "{html}");
        assert!(
            html.contains(&format!("Table: {} rows", FOLD_ROWS + 1)),
            "{html}"
        );
    }

    #[test]
    fn every_page_links_every_other() {
        let pages = [
            Page {
                folder: "",
                title: "neardup reports".into(),
                parts: vec![("".into(), "# Reports\n\n## One\n\n## Two\n".into())],
            },
            Page {
                folder: "ray",
                title: "Ray".into(),
                parts: vec![
                    ("".into(), "# Ray\n".into()),
                    ("timing".into(), "# Ray: timing\n".into()),
                ],
            },
        ];
        let index = page_html(Path::new("."), &pages[0], 0, &pages);
        let ray = page_html(Path::new("."), &pages[1], 0, &pages);
        let timing = page_html(Path::new("."), &pages[1], 1, &pages);
        assert!(!index.contains("This report:"), "{index}");
        assert!(
            ray.contains(
                "<a href=\"index.html\" class=\"here\">Answer</a><a href=\"timing.html\">Timing</a>"
            ),
            "{ray}"
        );
        assert!(
            timing.contains("<a href=\"timing.html\" class=\"here\">Timing</a>")
                && timing.contains("Ray: timing"),
            "{timing}"
        );
        assert!(index.contains("href=\"ray/index.html\""), "{index}");
        assert!(
            index.contains("On this page: <a href=\"#one\">One</a>"),
            "{index}"
        );
        assert!(ray.contains("href=\"../index.html\""), "{ray}");
        assert!(ray.contains("class=\"here\""), "{ray}");
    }
}
