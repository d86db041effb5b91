//! Executing an experiment: corpora → cells (cached) → a plan that the results, charts and
//! report are computed from.
//!
//! Cells run one after another and each uses every worker thread inside (rayon), so timings
//! and peak memory are per cell and results never depend on the thread count.

use std::collections::HashMap;
use std::path::PathBuf;

use neardup::detector::{ParamMap, ScoredPair};
use serde::Serialize;

use super::cells::{Cache, CellResult, Limits, PairColumns, QueryResult, key};
use super::config::{EditSpec, Experiment};
use super::corpora::{CorpusTruth, Unavailable, base_corpus, edited, exact_jaccard, shingle_sets};
use crate::eval::auc_sample;
use crate::harness;
use crate::truth::Truth;

/// Where things go.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Report directory.
    pub out: PathBuf,
    /// Cache directory.
    pub cache: PathBuf,
    /// Data directory for manifest datasets.
    pub data_dir: PathBuf,
    /// Recompute cells even when cached.
    pub force: bool,
}

/// One planned cell: where it came from and its cache key.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedCell {
    /// Dataset name.
    pub dataset: String,
    /// Edit kind (`none`, a kind, `composite`).
    pub edit: String,
    /// Edit rate.
    pub rate: f64,
    /// Canonical edit spec.
    pub edit_spec: String,
    /// Seed.
    pub seed: u64,
    /// Corpus checksum.
    pub corpus_sha256: String,
    /// Algorithm name.
    pub algorithm: String,
    /// Label in tables and charts.
    pub label: String,
    /// Index of the build point in the algorithm's grid.
    pub build_index: usize,
    /// Cache key.
    pub key: String,
}

/// What a run produced.
#[derive(Debug, Default)]
pub struct RunOutcome {
    /// Every cell, in plan order.
    pub cells: Vec<PlannedCell>,
    /// Ground truth by corpus checksum.
    pub truths: HashMap<String, CorpusTruth>,
    /// Cells computed in this run.
    pub computed: usize,
    /// Cells found in the cache.
    pub cached: usize,
    /// Cells whose algorithm failed, now or in an earlier run under the same limits (stored
    /// with their error; reported every time).
    pub failed: Vec<String>,
    /// Warnings of the indexes, each once, with the cells that gave it.
    pub warnings: Vec<(String, usize)>,
    /// Datasets that could not be used.
    pub unavailable: Vec<Unavailable>,
}

/// Runs every cell that is not cached (all of them with `force`).
pub fn run(exp: &Experiment, opts: &RunOptions) -> anyhow::Result<RunOutcome> {
    let cache = Cache::new(&opts.cache);
    let limits = Limits::current()?;
    let mut outcome = RunOutcome::default();
    let total_cells = exp.datasets.len()
        * exp.edits.len()
        * exp.seeds.len()
        * exp.algorithms.iter().map(|a| a.builds.len()).sum::<usize>();
    let bar = neardup_dedup::progress::items(total_cells as u64, format!("{}: cells", exp.name));
    for dataset in &exp.datasets {
        let base = match base_corpus(dataset, &opts.data_dir)? {
            Ok(c) => c,
            Err(unavailable) => {
                bar.inc(
                    (exp.edits.len()
                        * exp.seeds.len()
                        * exp.algorithms.iter().map(|a| a.builds.len()).sum::<usize>())
                        as u64,
                );
                outcome.unavailable.push(unavailable);
                continue;
            }
        };
        for edit in &exp.edits {
            // An unedited dataset is the same corpus under every seed: its cells still get
            // one row per seed (seeds also drive the AUC sample), keyed by seed.
            for &seed in &exp.seeds {
                let corpus = edited(&base, dataset, edit, seed)?;
                let truth = match cache.corpus(&corpus.sha256, &exp.truth) {
                    Some(t) if !opts.force => t,
                    _ => {
                        let t = CorpusTruth::compute(&corpus, &exp.truth);
                        cache.put_corpus(&t)?;
                        t
                    }
                };
                let labels_truth = Truth::from_labels(&truth.labels);
                let mut sets: Option<Vec<Vec<u64>>> = None;
                let docs = corpus.texts();
                for alg in &exp.algorithms {
                    let info = neardup::registry::find(&alg.name)?;
                    for (bi, build) in alg.builds.iter().enumerate() {
                        let detector = info.detector(build)?;
                        let full_build = detector.build_params();
                        let full_queries: Vec<ParamMap> = alg
                            .queries
                            .iter()
                            .map(|q| overlay(&detector.query_params(), q))
                            .collect();
                        let k = key(
                            &corpus.sha256,
                            &exp.truth,
                            &alg.name,
                            &full_build,
                            &full_queries,
                            seed,
                        );
                        outcome.cells.push(PlannedCell {
                            dataset: dataset.label.clone(),
                            edit: edit.kind.clone(),
                            rate: edit.rate,
                            edit_spec: EditSpec::spec(edit),
                            seed,
                            corpus_sha256: corpus.sha256.clone(),
                            algorithm: alg.name.clone(),
                            label: alg.label.clone(),
                            build_index: bi,
                            key: k.clone(),
                        });
                        bar.inc(1);
                        let describe = |e: &str| {
                            format!(
                                "{} on {} ({}, seed {seed}): {e}",
                                alg.label,
                                dataset.label,
                                edit.spec()
                            )
                        };
                        if let Some(cached) = cache.cell(&k).filter(|_| !opts.force) {
                            match &cached.error {
                                None => {
                                    note_warnings(&mut outcome, &cached.warnings);
                                    outcome.cached += 1;
                                    continue;
                                }
                                Some(e) if cached.limits.as_ref() == Some(&limits) => {
                                    outcome.failed.push(describe(e));
                                    outcome.cached += 1;
                                    continue;
                                }
                                Some(_) => bar.suspend(|| {
                                    eprintln!(
                                        "neardup: retrying cell {k} ({} on {}): it failed under other limits",
                                        alg.label, dataset.label
                                    )
                                }),
                            }
                        }
                        bar.set_message(format!("{} {} {}", exp.name, alg.label, dataset.label));
                        let sets = sets.get_or_insert_with(|| shingle_sets(&corpus, &exp.truth));
                        let cell = execute(
                            &k,
                            &alg.name,
                            build,
                            &full_build,
                            &alg.queries,
                            &full_queries,
                            &docs,
                            &labels_truth,
                            sets,
                            seed,
                            &corpus.sha256,
                        );
                        let mut cell = cell;
                        if let Some(e) = &cell.error {
                            bar.suspend(|| {
                                eprintln!(
                                    "neardup: cell {} ({} on {}) failed: {e}",
                                    k, alg.name, dataset.label
                                )
                            });
                            outcome.failed.push(describe(e));
                            cell.limits = Some(limits.clone());
                        }
                        for w in &cell.warnings {
                            if !outcome.warnings.iter().any(|(seen, _)| seen == w) {
                                bar.suspend(|| eprintln!("neardup: warning: {w}"));
                            }
                        }
                        note_warnings(&mut outcome, &cell.warnings);
                        cache.put_cell(&cell)?;
                        outcome.computed += 1;
                        simulate_kill(outcome.computed);
                    }
                }
                outcome.truths.insert(truth.sha256.clone(), truth);
            }
        }
    }
    bar.finish_and_clear();
    Ok(outcome)
}

/// Counts each warning once per cell.
fn note_warnings(outcome: &mut RunOutcome, warnings: &[String]) {
    for w in warnings {
        match outcome.warnings.iter_mut().find(|(seen, _)| seen == w) {
            Some((_, n)) => *n += 1,
            None => outcome.warnings.push((w.clone(), 1)),
        }
    }
}

/// Test hook: with `NEARDUP_KILL_AFTER_CELLS=n` the process exits abruptly (no cleanup, like
/// a kill) right after storing its n-th computed cell, so tests can check that a killed run
/// resumes. Unset in normal use.
fn simulate_kill(computed: usize) {
    if let Some(n) = std::env::var("NEARDUP_KILL_AFTER_CELLS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        && computed >= n
    {
        std::process::exit(137);
    }
}

/// `base` overridden by `over`.
fn overlay(base: &ParamMap, over: &ParamMap) -> ParamMap {
    let mut m = base.clone();
    m.extend(over.iter().map(|(k, v)| (k.clone(), v.clone())));
    m
}

/// Builds once and sweeps the queries; failures are recorded in the result, not raised.
#[allow(clippy::too_many_arguments)]
fn execute(
    key: &str,
    algorithm: &str,
    given: &ParamMap,
    full: &ParamMap,
    queries: &[ParamMap],
    full_queries: &[ParamMap],
    docs: &[&str],
    truth: &Truth,
    sets: &[Vec<u64>],
    seed: u64,
    sha: &str,
) -> CellResult {
    let mut cell = CellResult {
        key: key.to_string(),
        algorithm: algorithm.to_string(),
        given: given.clone(),
        params: full.clone(),
        corpus_sha256: sha.to_string(),
        build_seconds: 0.0,
        build_peak_bytes: 0,
        index_bytes: 0,
        scored: None,
        stats: ParamMap::new(),
        queries: Vec::new(),
        error: None,
        limits: None,
        warnings: Vec::new(),
    };
    let result = (|| -> anyhow::Result<()> {
        let detector = neardup::registry::detector(algorithm, given)?;
        let built = harness::build(detector.as_ref(), docs)?;
        cell.build_seconds = built.seconds;
        cell.build_peak_bytes = built.peak_bytes;
        cell.index_bytes = built.index_bytes;
        cell.stats = built.index.stats();
        cell.warnings = built.index.warnings();
        cell.scored = auc_sample(truth, docs.len(), built.index.as_ref(), seed);
        for (q, fq) in queries.iter().zip(full_queries) {
            let r = harness::query(algorithm, built.index.as_ref(), q, docs.len())?;
            cell.queries.push(QueryResult {
                given: q.clone(),
                params: fq.clone(),
                seconds: r.seconds,
                peak_bytes: r.peak_bytes,
                pairs: columns(&r.pairs, sets),
            });
        }
        Ok(())
    })();
    if let Err(e) = result {
        cell.error = Some(format!("{e:#}"));
        cell.queries.clear();
    }
    cell
}

fn columns(pairs: &[ScoredPair], sets: &[Vec<u64>]) -> PairColumns {
    let ab: Vec<(u32, u32)> = pairs.iter().map(|p| (p.a, p.b)).collect();
    PairColumns {
        a: pairs.iter().map(|p| p.a).collect(),
        b: pairs.iter().map(|p| p.b).collect(),
        score: pairs.iter().map(|p| p.score).collect(),
        jaccard: exact_jaccard(sets, &ab),
    }
}
