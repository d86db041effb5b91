//! Example pairs, `reports/<experiment>/EXAMPLES.md`: what a threshold decides, in texts.
//! For each algorithm at its best grid point and each corpus of the experiment (one rate per
//! edit kind: the middle one of the sweep), the pairs a reader sets a cut by:
//!
//! - the true pair its best setting reports with the lowest score (found, just above the
//!   cut);
//! - the true pair it misses that its index, built again on the corpus, scores highest
//!   (just below the cut);
//! - the reported pairs that are not in the truth, scored highest and lowest (on real
//!   corpora often natural near-duplicates the truth does not know, such as a quoted reply
//!   on 20news).
//!
//! The cut is the one the histogram chart draws (the lowest score the best query point
//! reports). Each pair is shown side by side with the differing words highlighted, as
//! `neardup inspect` shows them ([`crate::inspect::diff`]); long equal runs are elided.
//!
//! The file is Markdown with HTML blocks: GitHub shows the texts with the removed and added
//! words marked, the report site styles them as cards. An HTML block ends at a blank line,
//! so the texts' newlines are written as character references.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::corpus::Corpus;
use crate::experiment::cells::CellResult;
use crate::experiment::config::{EditSpec, Experiment, TruthSpec};
use crate::experiment::corpora::{Made, base_corpus, exact_jaccard, make, shingle_sets_of};
use crate::experiment::results::{ResultRow, Results, best_points_on};
use crate::experiment::runner::PlannedCell;
use crate::inspect::diff::{Segment, Side, by_characters, segments};
use crate::inspect::html::esc;

/// The file, beside README.md.
pub const FILE: &str = "EXAMPLES.md";

/// Equal words kept on each side of a difference; longer equal runs are elided.
const CONTEXT_WORDS: usize = 12;
/// Equal characters kept around a difference in Chinese (no spaces between words).
const CONTEXT_CHARS: usize = 30;
/// Units (words or characters) shown of one text at most.
const MAX_UNITS: usize = 260;
/// Bytes of each text compared at most: a diff is quadratic at worst, and a page read as HTML
/// is hundreds of kilobytes of which [`MAX_UNITS`] units are shown.
const MAX_DIFF_BYTES: usize = 12_000;

/// Why a pair is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A true pair reported at the best setting, scored lowest.
    FoundJustAbove,
    /// A true pair not reported at the best setting, scored highest.
    MissedJustBelow,
    /// A false pair reported at the best setting, scored highest.
    FalseHighest,
    /// A false pair reported at the best setting, scored lowest.
    FalseJustAbove,
}

impl Role {
    fn title(self) -> &'static str {
        match self {
            Role::FoundJustAbove => "true pair just above the cut: found",
            Role::MissedJustBelow => "true pair just below the cut: missed",
            Role::FalseHighest => "not in the truth, scored highest: found",
            Role::FalseJustAbove => "not in the truth, just above the cut: found",
        }
    }
}

/// One pair to show, with the algorithm's score (none where it cannot score a pair).
#[derive(Debug, Clone, Copy)]
struct Pick {
    role: Role,
    a: u32,
    b: u32,
    score: Option<f64>,
}

/// What one algorithm shows on one corpus.
#[derive(Debug)]
struct Shown {
    cut: Option<f64>,
    picks: Vec<Pick>,
    /// True pairs its best setting misses, of how many.
    missed: usize,
    positives: usize,
}

/// One algorithm on one corpus, as the page shows it: a cell of the overview table and the
/// folded pairs.
#[derive(Debug)]
struct Block {
    /// The overview's cell ("75/304"), and the block's summary line in words.
    overview: String,
    summary: String,
    html: String,
}

/// Writes `dir/EXAMPLES.md` when the experiment asks for examples (and removes a stale one
/// when it no longer does). Corpora are rebuilt from `data_dir` exactly as the runner built
/// them (their checksums are compared), and each algorithm's index once more at its best
/// build, to score the true pairs it does not report.
pub fn write(dir: &Path, exp: &Experiment, results: &Results, data_dir: &Path) -> Result<bool> {
    let path = dir.join(FILE);
    if !exp.examples {
        if path.is_file() {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
        return Ok(false);
    }
    let corpora = chosen_corpora(&results.rows, exp);
    let labels = labels_in_order(exp);
    // Each corpus shows the grid point best on its own dataset, as the best-configuration
    // table and the heat map do: the point best over all datasets showed minhash-lsh
    // missing 11,874 of bible-en's 11,890 pairs where the table's row is its best there.
    let mut best_on: BTreeMap<&str, crate::experiment::results::BestPoints> = BTreeMap::new();
    let bar = neardup_dedup::progress::items(
        (corpora.len() * labels.len()) as u64,
        format!("{}: example pairs", exp.name),
    );
    // (label, corpus) → its block; corpora rebuilt one at a time.
    let mut blocks: BTreeMap<(usize, usize), Block> = BTreeMap::new();
    let mut pages = PagesMade::default();
    for (ci, planned) in corpora.iter().enumerate() {
        let corpus = rebuild(exp, planned, data_dir, &mut pages)?;
        let positives: Vec<(u32, u32)> = crate::truth::positive_pairs(corpus.labels())
            .into_iter()
            .map(neardup::pairs::unpack)
            .collect();
        let best = best_on
            .entry(planned.dataset.as_str())
            .or_insert_with(|| best_points_on(&results.rows, &planned.dataset));
        for (li, label) in labels.iter().enumerate() {
            bar.inc(1);
            let at_best = results.rows.iter().find(|r| {
                r.error.is_none()
                    && r.cell.label == *label
                    && r.cell.corpus_sha256 == planned.corpus_sha256
                    && r.cell.seed == planned.seed
                    && best.includes(r)
            });
            let Some((row, cell)) =
                at_best.and_then(|r| results.cells.get(&r.cell.key).map(|c| (r, c)))
            else {
                continue;
            };
            let shown = pick(row, cell, &corpus, &positives)?;
            blocks.insert(
                (li, ci),
                Block {
                    overview: overview_cell(&shown, false),
                    summary: overview_cell(&shown, true),
                    html: render_shown(&shown, &corpus, &exp.truth),
                },
            );
        }
    }
    bar.finish_and_clear();
    let text = page(exp, &labels, &corpora, &blocks);
    neardup_dedup::fsutil::write_bytes(&path, text.as_bytes())?;
    Ok(true)
}

/// The experiment's labels, each once, in file order.
fn labels_in_order(exp: &Experiment) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for a in &exp.algorithms {
        if !labels.contains(&a.label) {
            labels.push(a.label.clone());
        }
    }
    labels
}

/// One corpus per dataset and edit kind (composite models each their own), of the first
/// seed; where a kind runs at several rates, the middle rate of its sweep. A page dataset
/// shows its first edit model only: its examples are about how pages are read (every index is
/// built again per corpus shown, and a page corpus read as HTML is large).
fn chosen_corpora<'r>(rows: &'r [ResultRow], exp: &Experiment) -> Vec<&'r PlannedCell> {
    let first_seed = exp.seeds.first().copied().unwrap_or(1);
    let first_edit_of_pages = |c: &PlannedCell| {
        let Some(d) = exp.datasets.iter().find(|d| d.label == c.dataset) else {
            return true;
        };
        d.pages.is_none()
            || d.edit_models(&exp.edits)
                .first()
                .is_some_and(|e| e.spec() == c.edit_spec)
    };
    let mut groups: Vec<((&str, &str), Vec<&PlannedCell>)> = Vec::new();
    for c in rows
        .iter()
        .map(|r| &r.cell)
        .filter(|c| c.seed == first_seed && first_edit_of_pages(c))
    {
        let kind = if c.edit == "composite" {
            c.edit_spec.as_str()
        } else {
            c.edit.as_str()
        };
        let key = (c.dataset.as_str(), kind);
        let at = match groups.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                groups.push((key, Vec::new()));
                groups.len() - 1
            }
        };
        let members = &mut groups[at].1;
        if !members.iter().any(|m| m.corpus_sha256 == c.corpus_sha256) {
            members.push(c);
        }
    }
    groups
        .into_iter()
        .map(|(_, mut members)| {
            members.sort_by(|x, y| x.rate.total_cmp(&y.rate));
            members[members.len() / 2]
        })
        .collect()
}

/// The pairs one algorithm shows on one corpus: those its best setting reports (true and
/// false, around the cut) and the true pair it misses that its index scores highest.
fn pick(
    row: &ResultRow,
    cell: &CellResult,
    corpus: &Corpus,
    positives: &[(u32, u32)],
) -> Result<Shown> {
    let at_best = &cell.queries[row.query_index];
    let p = &at_best.pairs;
    let reported: HashSet<(u32, u32)> = (0..p.len()).map(|i| (p.a[i], p.b[i])).collect();
    let labels = corpus.labels();
    let is_true = |i: usize| {
        let (a, b) = (p.a[i] as usize, p.b[i] as usize);
        labels[a].is_some() && labels[a] == labels[b]
    };
    // The reported pair of those that pass `keep` with the highest `key` (ties: the earlier).
    let best_by = |keep: &dyn Fn(usize) -> bool, key: &dyn Fn(usize) -> f64| {
        (0..p.len())
            .filter(|&i| keep(i))
            .fold(None, |best: Option<usize>, i| match best {
                Some(j) if key(j) >= key(i) => Some(j),
                _ => Some(i),
            })
    };
    let mut picks: Vec<Pick> = Vec::new();
    let mut add = |role: Role, i: Option<usize>| {
        if let Some(i) = i
            && !picks.iter().any(|q| (q.a, q.b) == (p.a[i], p.b[i]))
        {
            picks.push(Pick {
                role,
                a: p.a[i],
                b: p.b[i],
                score: Some(p.score[i]),
            });
        }
    };
    add(Role::FoundJustAbove, best_by(&is_true, &|i| -p.score[i]));
    let missed: Vec<(u32, u32)> = positives
        .iter()
        .copied()
        .filter(|x| !reported.contains(x))
        .collect();
    let below = highest_scored(cell, corpus, &missed)?;
    add(
        Role::FalseHighest,
        best_by(&|i| !is_true(i), &|i| p.score[i]),
    );
    add(
        Role::FalseJustAbove,
        best_by(&|i| !is_true(i), &|i| -p.score[i]),
    );
    if let Some((a, b, score)) = below {
        let at = picks
            .iter()
            .position(|q| q.role != Role::FoundJustAbove)
            .unwrap_or(picks.len());
        picks.insert(
            at,
            Pick {
                role: Role::MissedJustBelow,
                a,
                b,
                score,
            },
        );
    }
    Ok(Shown {
        cut: at_best.lowest_score(),
        picks,
        missed: missed.len(),
        positives: positives.len(),
    })
}

/// Of the true pairs a setting misses, the one the algorithm's index (built again at the
/// cell's build parameters) scores highest; the first when it cannot score pairs.
fn highest_scored(
    cell: &CellResult,
    corpus: &Corpus,
    missed: &[(u32, u32)],
) -> Result<Option<(u32, u32, Option<f64>)>> {
    if missed.is_empty() {
        return Ok(None);
    }
    let detector = neardup::registry::detector(&cell.algorithm, &cell.given)?;
    let index = detector.build(&corpus.texts())?;
    let mut best: Option<(u32, u32, Option<f64>)> = None;
    for &(a, b) in missed {
        let score = index.score(a as usize, b as usize);
        if best.is_none_or(|(_, _, s)| {
            score.unwrap_or(f64::NEG_INFINITY) > s.unwrap_or(f64::NEG_INFINITY)
        }) {
            best = Some((a, b, score));
        }
    }
    Ok(best)
}

/// Page corpora made so far, by generation key, edit model and seed: the readings of one
/// page corpus are made once, as the runner makes them.
type PagesMade = std::collections::HashMap<(String, String, u64), Made>;

/// The corpus a cell ran on, built again as the runner built it.
fn rebuild(
    exp: &Experiment,
    planned: &PlannedCell,
    data_dir: &Path,
    pages: &mut PagesMade,
) -> Result<Corpus> {
    let dataset = exp
        .datasets
        .iter()
        .find(|d| d.label == planned.dataset)
        .with_context(|| format!("examples: no dataset {}", planned.dataset))?;
    let edit: &EditSpec = dataset
        .edit_models(&exp.edits)
        .iter()
        .find(|e| e.kind == planned.edit && e.rate == planned.rate && e.spec() == planned.edit_spec)
        .with_context(|| format!("examples: no edit model {}", planned.edit_spec))?;
    let make_it = || -> Result<Made> {
        let base = base_corpus(dataset, data_dir)?.map_err(|u| {
            anyhow::anyhow!("examples: {} is not available ({})", u.dataset, u.reason)
        })?;
        Ok(make(&base, dataset, edit, planned.seed)?)
    };
    let corpus = match dataset.generation_key() {
        Some(key) => {
            let key = (key, edit.spec(), planned.seed);
            if !pages.contains_key(&key) {
                pages.insert(key.clone(), make_it()?);
            }
            pages[&key].corpus(dataset)?.0.into_owned()
        }
        None => make_it()?.corpus(dataset)?.0.into_owned(),
    };
    anyhow::ensure!(
        corpus.sha256 == planned.corpus_sha256,
        "examples: {} under {} rebuilt with checksum {}, not the {} its cells ran on",
        planned.dataset,
        planned.edit_spec,
        corpus.sha256,
        planned.corpus_sha256
    );
    Ok(corpus)
}

/// The page: the overview table (an algorithm a row, a corpus a column, each cell what the
/// algorithm misses there, linked to its pairs), then one folded section per algorithm with
/// a folded block per corpus. Unfolded, the blocks ran 12–20 screens (#53 item 13).
fn page(
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
fn overview_cell(shown: &Shown, in_words: bool) -> String {
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
fn render_shown(shown: &Shown, corpus: &Corpus, truth: &TruthSpec) -> String {
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
    use crate::experiment::results::best_points;

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

    /// The picks against a brute-force reading of the same run: the detector built and
    /// queried again at the best point, every pair classified by the corpus labels.
    #[test]
    fn picks_are_the_extremes_of_a_brute_force_classification() {
        let toml = r#"
name = "examples-oracle"
title = "t"
question = "q"
examples = true
[[datasets]]
name = "default"
docs = 120
copies = 1
fraction = 0.5
[edits]
kinds = ["substitute"]
rates = [0.08]
[[algorithms]]
name = "minhash-lsh"
build = { threshold = 0.3 }
query = { min_similarity = [0.3, 0.5, 0.7] }
"#;
        let exp = crate::experiment::config::parse(Path::new("oracle.toml"), toml).unwrap();
        let dir = std::env::temp_dir().join(format!("neardup-examples-{}", std::process::id()));
        let opts = crate::experiment::runner::RunOptions {
            out: dir.join("out"),
            cache: dir.join("cache"),
            data_dir: dir.join("no-data"),
            force: false,
        };
        let outcome = crate::experiment::runner::run(&exp, &opts).unwrap();
        let results = crate::experiment::results::collect(&outcome, &opts.cache).unwrap();
        let best = best_points(&results.rows);
        let row = results.rows.iter().find(|r| best.includes(r)).unwrap();
        let cell = &results.cells[&row.cell.key];
        let corpus = rebuild(&exp, &row.cell, &opts.data_dir, &mut PagesMade::default()).unwrap();
        let positives: Vec<(u32, u32)> = crate::truth::positive_pairs(corpus.labels())
            .into_iter()
            .map(neardup::pairs::unpack)
            .collect();
        let shown = pick(row, cell, &corpus, &positives).unwrap();
        println!("seed 1, best query {}: {shown:?}", row.query_params);

        // Brute force: the same detector, queried at the best point, every pair classified.
        let detector = neardup::registry::detector("minhash-lsh", &cell.given).unwrap();
        let index = detector.build(&corpus.texts()).unwrap();
        let reported = index.query(&row.query_full).unwrap();
        let labels = corpus.labels();
        let truly = |a: u32, b: u32| {
            labels[a as usize].is_some() && labels[a as usize] == labels[b as usize]
        };
        let found: Vec<f64> = reported
            .iter()
            .filter(|p| truly(p.a, p.b))
            .map(|p| p.score)
            .collect();
        let false_found: Vec<f64> = reported
            .iter()
            .filter(|p| !truly(p.a, p.b))
            .map(|p| p.score)
            .collect();
        let reported_set: HashSet<(u32, u32)> = reported.iter().map(|p| (p.a, p.b)).collect();
        let missed: Vec<f64> = positives
            .iter()
            .filter(|p| !reported_set.contains(p))
            .map(|&(a, b)| index.score(a as usize, b as usize).unwrap())
            .collect();
        let score_of = |role| {
            shown
                .picks
                .iter()
                .find(|p| p.role == role)
                .and_then(|p| p.score)
        };
        let min = |v: &[f64]| v.iter().copied().reduce(f64::min);
        let max = |v: &[f64]| v.iter().copied().reduce(f64::max);
        assert!(
            !found.is_empty() && !missed.is_empty(),
            "the corpus must have both"
        );
        assert_eq!(score_of(Role::FoundJustAbove), min(&found));
        assert_eq!(score_of(Role::MissedJustBelow), max(&missed));
        assert_eq!(score_of(Role::FalseHighest), max(&false_found));
        assert_eq!(shown.missed, missed.len());
        assert_eq!(shown.positives, positives.len());
        assert_eq!(
            shown.cut,
            min(&reported.iter().map(|p| p.score).collect::<Vec<_>>())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
