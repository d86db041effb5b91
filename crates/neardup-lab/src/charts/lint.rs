//! Checks a drawn SVG chart the way a reader would find fault with it: text that runs past
//! the picture's edge is clipped, and text cut short with an ellipsis hides a name (titles
//! and legend entries wrap instead). (Two series of one look are refused while drawing, by
//! `style::with_legend`.) Used by the tests on every chart the standard experiments and the
//! guide draw, and on the committed reports.

use super::style::text_width_at;

/// One `<text>` element of an SVG file.
#[derive(Debug, Clone, PartialEq)]
struct SvgText {
    x: f64,
    size: f64,
    anchor: String,
    rotated: bool,
    text: String,
}

/// The value of attribute `name` in the tag `tag`.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The picture's width and every text element.
fn parse(svg: &str) -> (f64, Vec<SvgText>) {
    let width = svg
        .find("<svg")
        .and_then(|i| attribute(&svg[i..i + svg[i..].find('>').unwrap_or(0)], "width"))
        .and_then(|w| w.parse().ok())
        .unwrap_or(f64::INFINITY);
    let mut texts = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<text") {
        let Some(close) = rest[i..].find('>') else {
            break;
        };
        let tag = &rest[i..i + close];
        let body_start = i + close + 1;
        let body_len = rest[body_start..].find("</text>").unwrap_or(0);
        let number = |n: &str| attribute(tag, n).and_then(|v| v.parse::<f64>().ok());
        texts.push(SvgText {
            x: number("x").unwrap_or(0.0),
            size: number("font-size").unwrap_or(12.0),
            anchor: attribute(tag, "text-anchor").unwrap_or("start").to_string(),
            rotated: attribute(tag, "transform").is_some(),
            text: unescape(rest[body_start..body_start + body_len].trim()),
        });
        rest = &rest[body_start + body_len..];
    }
    (width, texts)
}

/// What is wrong with the SVG picture `svg`: each text that would be clipped at the left
/// or right edge, with its extent. Empty when nothing is.
pub fn problems(svg: &str) -> Vec<String> {
    let (width, texts) = parse(svg);
    let mut out = Vec::new();
    for t in texts
        .iter()
        .filter(|t| !t.rotated && !t.text.trim().is_empty())
    {
        let w = text_width_at(&t.text, t.size) as f64;
        let left = match t.anchor.as_str() {
            "middle" => t.x - w / 2.0,
            "end" => t.x - w,
            _ => t.x,
        };
        if t.text.trim_end().ends_with('…') {
            out.push(format!("text `{}` is cut short", t.text));
        }
        // One pixel of slack for rounding in the layout.
        if left < -1.0 || left + w > width + 1.0 {
            out.push(format!(
                "text `{}` spans x = {left:.0}..{:.0} of a picture {width:.0} wide",
                t.text,
                left + w
            ));
        }
    }
    out
}

/// Every problem of every `*.svg` under `dir` (recursively), prefixed with its path, and the
/// number of files read.
pub fn problems_under(dir: &std::path::Path) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut read = 0;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (out, read);
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            let (p, n) = problems_under(&path);
            out.extend(p);
            read += n;
        } else if path.extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(&path).unwrap_or_default();
            read += 1;
            out.extend(
                problems(&svg)
                    .into_iter()
                    .map(|p| format!("{}: {p}", path.display())),
            );
        }
    }
    (out, read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svg(width: u32, text: &str, x: u32, anchor: &str) -> String {
        format!(
            "<svg width=\"{width}\" height=\"100\" viewBox=\"0 0 {width} 100\"><text x=\"{x}\" y=\"5\" \
             text-anchor=\"{anchor}\" font-family=\"sans-serif\" font-size=\"20\">{text}</text></svg>"
        )
    }

    #[test]
    fn text_past_an_edge_is_a_problem_and_text_inside_is_not() {
        assert!(problems(&svg(400, "short title", 200, "middle")).is_empty());
        let long = "random-projection: precision, recall and F1 against max_distance";
        assert_eq!(problems(&svg(400, long, 200, "middle")).len(), 1);
        assert_eq!(
            problems(&svg(400, "legend entry &amp; more", 380, "start")).len(),
            1
        );
        assert!(problems(&svg(400, "tick", 30, "end")).is_empty());
        assert_eq!(
            problems(&svg(400, "spotsigs (released…", 30, "start")).len(),
            1
        );
        assert_eq!(problems(&svg(400, "a long tick label", 30, "end")).len(), 1);
    }

    #[test]
    fn the_committed_reports_have_no_clipped_text() {
        let reports = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../reports");
        let (found, read) = problems_under(&reports);
        assert!(read > 30, "{read} charts read under {}", reports.display());
        assert!(found.is_empty(), "{}", found.join("\n"));
    }
}
