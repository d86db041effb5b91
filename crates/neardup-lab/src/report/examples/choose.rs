//! Which pairs an example block shows: those the best setting reports around its cut, and
//! the true pair it misses that its index, built again on the corpus rebuilt as the runner
//! built it, scores highest.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result};

use super::{Pick, Role, Shown};
use crate::corpus::Corpus;
use crate::experiment::cells::CellResult;
use crate::experiment::config::{EditSpec, Experiment};
use crate::experiment::corpora::{Made, base_corpus, make};
use crate::experiment::results::ResultRow;
use crate::experiment::runner::PlannedCell;

/// The pairs one algorithm shows on one corpus: those its best setting reports (true and
/// false, around the cut) and the true pair it misses that its index scores highest.
pub(super) fn pick(
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
pub(super) type PagesMade = std::collections::HashMap<(String, String, u64), Made>;

/// The corpus a cell ran on, built again as the runner built it.
pub(super) fn rebuild(
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
