//! How an example page is written: the overview table, a folded block per algorithm and
//! corpus, each pair a card with the differing words highlighted as `neardup inspect` shows
//! them ([`crate::inspect::diff`]), long equal runs elided.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::shown::{Block, Pick, Role, Shown};
use crate::corpus::Corpus;
use crate::experiment::config::{Experiment, TruthSpec};
use crate::experiment::corpora::{exact_jaccard, shingle_sets_of};
use crate::experiment::runner::PlannedCell;
use crate::inspect::diff::{Segment, Side, by_characters, segments};
use crate::inspect::html::esc;

/// Equal words kept on each side of a difference; longer equal runs are elided.
const CONTEXT_WORDS: usize = 12;
/// Equal characters kept around a difference in Chinese (no spaces between words).
const CONTEXT_CHARS: usize = 30;
/// Units (words or characters) shown of one text at most.
const MAX_UNITS: usize = 260;
/// Bytes of each text compared at most: a diff is quadratic at worst, and a page read as HTML
/// is hundreds of kilobytes of which [`MAX_UNITS`] units are shown.
const MAX_DIFF_BYTES: usize = 12_000;

/// The page: the overview table (an algorithm a row, a corpus a column, each cell what the
/// algorithm misses there, linked to its pairs), then one folded section per algorithm with
/// a folded block per corpus. Unfolded, the blocks ran 12–20 screens (#53 item 13).
pub(super) fn page(
    exp: &Experiment,
    labels: &[String],
    corpora: &[&PlannedCell],
    blocks: &BTreeMap<(usize, usize), Block>,
) -> String {
    let mut s = format!(
        "# {}: example pairs\n\nFor each algorithm at its best configuration on each dataset (the row of \
         the best-configuration table) and each corpus, the pairs its cut decides: the true pair it reports with the \
         lowest score (found, just above the cut), the true pair it misses that its index scores highest \
         (just below the cut), and the pairs it reports that are not in the truth, scored highest and \
         lowest (on real corpora often natural near-duplicates the truth does not know). The cut is the \
         lowest score the best configuration reports, as in the histogram chart. Where a kind of edit ran \
         at several rates, the middle rate is shown; a page corpus shows its first edit model.\n\n",
        exp.title
    );
    overview_table(&mut s, labels, corpora, blocks);
    s.push_str(
        "Score: the algorithm's own (– where it cannot score a pair); exact: the Jaccard similarity \
         of the truth's features. Removed words are <del>marked red</del> in the first text, added \
         words <ins>green</ins> in the second; long equal runs are elided, and texts are compared over their \
         first 12,000 bytes (a page read as HTML is far longer).\n\n",
    );
    for (li, label) in labels.iter().enumerate() {
        let mine: Vec<(usize, &Block)> = (0..corpora.len())
            .filter_map(|ci| blocks.get(&(li, ci)).map(|b| (ci, b)))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            "<details class=\"algorithm\" id=\"{}\"><summary><b>{}</b>: {} corpora</summary>\n",
            anchor(li, None),
            esc(label),
            mine.len()
        );
        for (ci, block) in mine {
            let planned = corpora[ci];
            let _ = writeln!(
                s,
                "<details><summary><b>{}</b>, {} — {}</summary><div id=\"{}\">{}</div></details>\n",
                esc(&planned.dataset),
                corpus_name(planned),
                block.summary,
                anchor(li, Some(ci)),
                block.html
            );
        }
        s.push_str("</details>\n\n");
    }
    s
}

/// The overview: one row per algorithm, one column per corpus shown; each cell the true pairs
/// the algorithm misses of those planted (or its cut, on a corpus without planted pairs),
/// linking to the pairs. The link's target is the block's content, not its `<details>`: a
/// browser opens the folded blocks *around* an element a link navigates to (Chromium since
/// 97), not a `<details>` that is the target itself.
fn overview_table(
    s: &mut String,
    labels: &[String],
    corpora: &[&PlannedCell],
    blocks: &BTreeMap<(usize, usize), Block>,
) {
    let one_dataset = corpora.iter().all(|c| c.dataset == corpora[0].dataset);
    // Single edits at one rate (edit-robustness's eleven kinds at 0.1) are headed by their
    // kind alone, the rate said once: eleven `kind=0.1` headers overflowed a laptop screen.
    let one_rate = corpora
        .iter()
        .all(|c| c.edit_spec == format!("{}={}", c.edit, corpora[0].rate));
    let spec = |c: &PlannedCell| {
        if one_rate {
            c.edit.clone()
        } else {
            c.edit_spec.clone()
        }
    };
    let column = |c: &PlannedCell| match (one_dataset, c.edit_spec.as_str()) {
        (true, _) => format!("`{}`", spec(c)),
        (false, "none") => esc(&c.dataset),
        (false, _) => format!("{} `{}`", esc(&c.dataset), spec(c)),
    };
    let _ = writeln!(
        s,
        "Each cell: the true pairs the algorithm misses at its cut / the pairs planted (its cut \
         where the corpus has none planted){}. Click a cell for the pairs.\n\n| algorithm | {} |\n|---|{}",
        if one_rate {
            format!(", each kind of edit at rate {}", corpora[0].rate)
        } else {
            String::new()
        },
        corpora
            .iter()
            .map(|c| column(c))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(corpora.len())
    );
    for (li, label) in labels.iter().enumerate() {
        let cells: Vec<String> = (0..corpora.len())
            .map(|ci| {
                blocks.get(&(li, ci)).map_or("–".into(), |b| {
                    format!("[{}](#{})", b.overview, anchor(li, Some(ci)))
                })
            })
            .collect();
        let _ = writeln!(s, "| {} | {} |", esc(label), cells.join(" | "));
    }
    s.push('\n');
}

/// The id of an algorithm's section, or of its block on one corpus.
fn anchor(label: usize, corpus: Option<usize>) -> String {
    match corpus {
        Some(c) => format!("ex-{label}-{c}"),
        None => format!("ex-{label}"),
    }
}

/// What the overview's cell (or, `in_words`, the block's summary) says of one algorithm on
/// one corpus.
pub(super) fn overview_cell(shown: &Shown, in_words: bool) -> String {
    let cut = shown
        .cut
        .map_or("no pair".into(), |c| format!("cut {c:.2}"));
    match (shown.positives, in_words) {
        (0, _) => cut,
        (planted, false) => format!("{}/{planted}", shown.missed),
        (planted, true) => format!("{cut}, {} of {planted} true pairs missed", shown.missed),
    }
}

fn corpus_name(planned: &PlannedCell) -> String {
    if planned.edit_spec == "none" {
        "unedited".into()
    } else {
        format!("edits <code>{}</code>", esc(&planned.edit_spec))
    }
}

/// One algorithm's picks on one corpus, as one line of HTML.
pub(super) fn render_shown(shown: &Shown, corpus: &Corpus, truth: &TruthSpec) -> String {
    let mut s = String::new();
    let cut = shown
        .cut
        .map_or("none (its best setting reports no pair)".into(), |c| {
            format!("{c:.3}")
        });
    if shown.positives == 0 {
        let _ = write!(
            s,
            "<p>Cut {cut}. The corpus has no planted pairs: every pair reported is a natural \
             near-duplicate or a false alarm."
        );
    } else {
        let _ = write!(
            s,
            "<p>Cut {cut}; true pairs missed at this setting: {} of {}.",
            shown.missed, shown.positives
        );
    }
    let has = |role| shown.picks.iter().any(|p| p.role == role);
    if !has(Role::FalseHighest) {
        s.push_str(" It reports no false pair.");
    }
    s.push_str("</p>");
    for p in &shown.picks {
        card(&mut s, p, shown.cut, corpus, truth);
    }
    s
}

/// One pair: what it is, then the two texts side by side.
fn card(s: &mut String, p: &Pick, cut: Option<f64>, corpus: &Corpus, truth: &TruthSpec) {
    let (a, b) = (p.a as usize, p.b as usize);
    let below = matches!((p.score, cut), (Some(x), Some(c)) if x < c);
    let sets = shingle_sets_of(&[corpus.text(a), corpus.text(b)], truth);
    let exact = exact_jaccard(&sets, &[(0, 1)])[0];
    // A pair the setting missed at a score above its cut never became a candidate (LSH
    // banding, a signature that did not collide), which says something else than a miss
    // by score.
    let title = match (p.role, p.score, cut) {
        (Role::MissedJustBelow, Some(x), Some(c)) if x >= c => {
            "true pair missed at a score above the cut: never a candidate"
        }
        (role, ..) => role.title(),
    };
    let _ = write!(
        s,
        "<div class=\"pair\"><p class=\"meta\"><b>{title}</b> · score <b{}>{}</b> · exact {exact:.3}</p><div class=\"texts\">",
        if below { " class=\"below\"" } else { "" },
        p.score.map_or("–".into(), |x| format!("{x:.3}")),
    );
    let diff = clip(&segments(
        head(corpus.text(a), MAX_DIFF_BYTES),
        head(corpus.text(b), MAX_DIFF_BYTES),
    ));
    for (first, d) in [(true, a), (false, b)] {
        let _ = write!(s, "<div class=\"text\"><h4>{}</h4>", esc(corpus.id(d)));
        side(s, &diff, first);
        s.push_str("</div>");
    }
    s.push_str("</div></div>");
}

/// The first `max` bytes of `text` (at a character boundary).
fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A segment of the clipped diff: text, or an elision of `n` units.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(Side, String),
    Elided(usize),
    /// Units cut after [`MAX_UNITS`], of either text.
    Cut(usize),
}

/// One text of a pair from the clipped diff: its own pieces marked, the other's left out.
fn side(s: &mut String, pieces: &[Piece], first: bool) {
    let own = if first { Side::First } else { Side::Second };
    for piece in pieces {
        match piece {
            Piece::Text(Side::Both, t) => s.push_str(&html_text(t)),
            Piece::Text(side, t) if *side == own => {
                let tag = if first { "del" } else { "ins" };
                let _ = write!(s, "<{tag}>{}</{tag}>", html_text(t));
            }
            Piece::Text(..) => {}
            Piece::Elided(n) => {
                let _ = write!(s, "<span class=\"gap\">[… {n} equal …]</span>");
            }
            Piece::Cut(n) => {
                let _ = write!(s, "<span class=\"gap\">[… cut here: {n} more …]</span>");
            }
        }
    }
}

/// Escaped text whose newlines cannot end the Markdown HTML block.
fn html_text(t: &str) -> String {
    esc(t).replace('\n', "&#10;")
}

/// The diff with long equal runs elided to their context, and each text cut after
/// [`MAX_UNITS`] units (words, or characters in Chinese).
fn clip(diff: &[Segment]) -> Vec<Piece> {
    let chinese = diff.iter().any(|s| by_characters(&s.text));
    let context = if chinese {
        CONTEXT_CHARS
    } else {
        CONTEXT_WORDS
    };
    let units = |t: &str| -> Vec<String> {
        if chinese {
            t.chars().map(String::from).collect()
        } else {
            t.split_inclusive(char::is_whitespace)
                .map(String::from)
                .collect()
        }
    };
    let mut out: Vec<Piece> = Vec::new();
    let last = diff.len().saturating_sub(1);
    for (i, seg) in diff.iter().enumerate() {
        if seg.side != Side::Both {
            out.push(Piece::Text(seg.side, seg.text.clone()));
            continue;
        }
        let u = units(&seg.text);
        let head = if i == 0 { 0 } else { context };
        let tail = if i == last { 0 } else { context };
        if u.len() <= head + tail + 2 {
            out.push(Piece::Text(Side::Both, seg.text.clone()));
            continue;
        }
        if head > 0 {
            out.push(Piece::Text(Side::Both, u[..head].concat()));
        }
        out.push(Piece::Elided(u.len() - head - tail));
        if tail > 0 {
            out.push(Piece::Text(Side::Both, u[u.len() - tail..].concat()));
        }
    }
    cap(out, &units)
}

/// Cuts the pieces after [`MAX_UNITS`] units of either text (within a piece where it
/// crosses the limit); what is cut is counted in a last elision.
fn cap(pieces: Vec<Piece>, units: &dyn Fn(&str) -> Vec<String>) -> Vec<Piece> {
    let (mut first, mut second) = (0usize, 0usize);
    let mut out = Vec::new();
    let mut rest = 0usize;
    for piece in pieces {
        let Piece::Text(side, text) = piece else {
            if first.max(second) < MAX_UNITS {
                out.push(piece);
            }
            continue;
        };
        let u = units(&text);
        let shown = match side {
            Side::Both => first.max(second),
            Side::First => first,
            Side::Second => second,
        };
        let room = MAX_UNITS.saturating_sub(shown).min(u.len());
        rest += u.len() - room;
        if room == 0 {
            continue;
        }
        if side != Side::Second {
            first += room;
        }
        if side != Side::First {
            second += room;
        }
        out.push(Piece::Text(
            side,
            if room == u.len() {
                text
            } else {
                u[..room].concat()
            },
        ));
    }
    if rest > 0 {
        out.push(Piece::Cut(rest));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn seg(side: Side, t: &str) -> Segment {
        Segment {
            side,
            text: t.to_string(),
            second: None,
        }
    }

    fn planned(edit_spec: &str) -> PlannedCell {
        PlannedCell {
            dataset: "default".into(),
            edit: edit_spec.split('=').next().unwrap().into(),
            rate: 0.1,
            edit_spec: edit_spec.into(),
            seed: 1,
            corpus_sha256: String::new(),
            algorithm: "simhash".into(),
            label: "simhash".into(),
            build_index: 0,
            key: String::new(),
        }
    }

    /// The page opens with the overview (a row per algorithm, a column per corpus), every
    /// cell linking to a block that exists; nothing is unfolded, and an algorithm without
    /// blocks has no section.
    #[test]
    fn the_overview_links_every_block_and_nothing_is_unfolded() {
        let exp = crate::experiment::config::parse(
            Path::new("x.toml"),
            "name = \"x\"\ntitle = \"X\"\nquestion = \"q\"\n[[datasets]]\nname = \"default\"\n\
             [[algorithms]]\nname = \"simhash\"\n",
        )
        .unwrap();
        let labels = vec![
            "simhash".to_string(),
            "exact".to_string(),
            "spotsigs".to_string(),
        ];
        let cells = [planned("typo=0.1"), planned("delete=0.1")];
        let corpora: Vec<&PlannedCell> = cells.iter().collect();
        let block = |missed| Block {
            overview: format!("{missed}/9"),
            summary: String::new(),
            html: "<p>pairs</p>".into(),
        };
        let blocks = BTreeMap::from([((0, 0), block(1)), ((0, 1), block(2)), ((1, 1), block(9))]);
        let page = page(&exp, &labels, &corpora, &blocks);
        assert!(
            !page.contains("<details open") && !page.contains(" open>"),
            "{page}"
        );
        let table = page.find("| algorithm | `typo` | `delete` |").expect(&page);
        assert!(page.contains("each kind of edit at rate 0.1"), "{page}");
        assert!(table < page.find("<details").unwrap(), "{page}");
        assert!(
            page.contains("| simhash | [1/9](#ex-0-0) | [2/9](#ex-0-1) |"),
            "{page}"
        );
        assert!(page.contains("| exact | – | [9/9](#ex-1-1) |"), "{page}");
        for link in ["ex-0-0", "ex-0-1", "ex-1-1"] {
            assert_eq!(page.matches(&format!("id=\"{link}\"")).count(), 1, "{link}");
        }
        assert!(page.contains("<b>exact</b>: 1 corpora"), "{page}");
        assert!(!page.contains("<b>spotsigs</b>"), "{page}");
    }

    #[test]
    fn long_equal_runs_keep_their_context_and_the_differences_stay_whole() {
        let words: String = (0..100).map(|i| format!("w{i} ")).collect();
        let diff = vec![
            seg(Side::Both, &words),
            seg(Side::First, "old "),
            seg(Side::Second, "new "),
            seg(Side::Both, &words),
        ];
        let pieces = clip(&diff);
        // The leading run keeps its last CONTEXT_WORDS words, the trailing run its first ones.
        assert_eq!(pieces[0], Piece::Elided(100 - CONTEXT_WORDS));
        assert_eq!(pieces[2], Piece::Text(Side::First, "old ".into()));
        assert_eq!(pieces[3], Piece::Text(Side::Second, "new ".into()));
        assert_eq!(pieces[5], Piece::Elided(100 - CONTEXT_WORDS));
        let mut first = String::new();
        side(&mut first, &pieces, true);
        assert!(first.contains("w99 <del>old </del>w0 "), "{first}");
        assert!(!first.contains("new"), "{first}");
    }

    #[test]
    fn newlines_cannot_end_the_markdown_html_block() {
        let mut s = String::new();
        side(
            &mut s,
            &[Piece::Text(Side::Both, "a\n\nb <c>".into())],
            true,
        );
        assert_eq!(s, "a&#10;&#10;b &lt;c&gt;");
    }

    #[test]
    fn a_long_text_is_cut_after_the_cap() {
        let words: String = (0..MAX_UNITS * 2).map(|i| format!("w{i} ")).collect();
        let diff = vec![
            seg(Side::First, &words),
            seg(Side::Second, "x "),
            seg(Side::Both, "end"),
        ];
        let pieces = clip(&diff);
        assert_eq!(pieces.len(), 3, "{pieces:?}");
        let Piece::Text(Side::First, shown) = &pieces[0] else {
            panic!("{pieces:?}")
        };
        assert_eq!(shown.split_whitespace().count(), MAX_UNITS);
        assert_eq!(pieces[1], Piece::Text(Side::Second, "x ".into()));
        // The first text's cut words and the shared "end", counted once at the end.
        assert_eq!(pieces[2], Piece::Cut(MAX_UNITS + 1));
    }
}
