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

mod choose;
mod render;
mod shown;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

use crate::experiment::config::Experiment;
use crate::experiment::results::{ResultRow, Results, best_points_on};
use crate::experiment::runner::PlannedCell;
use choose::{PagesMade, pick, rebuild};
use render::{overview_cell, page, render_shown};
use shown::Block;

/// The file, beside README.md.
pub const FILE: &str = "EXAMPLES.md";

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
