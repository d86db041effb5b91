//! Which pairs an example block shows: those the best setting reports around its cut, and
//! the true pair it misses that its index, built again on the corpus rebuilt as the runner
//! built it, scores highest.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result};

use super::shown::{Pick, Role, Shown};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::results::best_points;
    use std::collections::HashSet;

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
