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
use super::clustering;
use super::config::{AlgorithmGrid, DatasetSpec, EditSpec, Experiment};
use super::corpora::{CorpusTruth, Unavailable, base_corpus, exact_jaccard, make, shingle_sets};
use crate::corpus::Corpus;
use crate::corpus::pages::reading::ReadingStats;
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
    /// How each page corpus was read (page datasets only), in plan order.
    pub readings: Vec<ReadingRow>,
}

/// How one page corpus (dataset, edit model, seed) was read.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ReadingRow {
    /// Dataset label (the page set and its reading).
    pub dataset: String,
    /// The reading's name.
    pub reading: String,
    /// The `neardup dedup` flags of that reading.
    pub flags: String,
    /// Edit model spec.
    pub edit: String,
    /// Seed.
    pub seed: u64,
    /// What the reading recovered, and how fast.
    pub stats: ReadingStats,
}

/// Runs every cell that is not cached (all of them with `force`).
pub fn run(exp: &Experiment, opts: &RunOptions) -> anyhow::Result<RunOutcome> {
    let per_dataset = |d: &DatasetSpec| {
        let cells_per_corpus: usize = exp
            .algorithms
            .iter()
            .filter(|a| a.runs_on(&d.label))
            .map(|a| a.builds.len())
            .sum();
        (d.edit_models(&exp.edits).len() * exp.seeds.len() * cells_per_corpus) as u64
    };
    let mut runner = Runner {
        exp,
        opts,
        cache: Cache::new(&opts.cache),
        limits: Limits::current()?,
        bar: neardup_dedup::progress::items(
            exp.datasets.iter().map(per_dataset).sum(),
            format!("{}: cells", exp.name),
        ),
        outcome: RunOutcome::default(),
    };
    for group in generation_groups(&exp.datasets) {
        let base = match base_corpus(&group[0], &opts.data_dir)? {
            Ok(c) => c,
            Err(unavailable) => {
                for dataset in group {
                    runner.bar.inc(per_dataset(dataset));
                    runner.outcome.unavailable.push(Unavailable {
                        dataset: dataset.label.clone(),
                        ..unavailable.clone()
                    });
                }
                continue;
            }
        };
        for edit in group[0].edit_models(&exp.edits) {
            // An unedited dataset is the same corpus under every seed: its cells still get
            // one row per seed (seeds also drive the AUC sample), keyed by seed.
            for &seed in &exp.seeds {
                // Pages are generated once for every reading of them.
                let made = make(&base, &group[0], edit, seed)?;
                for dataset in group {
                    let (corpus, stats) = made.corpus(dataset)?;
                    if let (Some(stats), Some(p)) = (stats, dataset.pages) {
                        runner.outcome.readings.push(ReadingRow {
                            dataset: dataset.label.clone(),
                            reading: p.reading.name(),
                            flags: p.reading.flags(),
                            edit: edit.spec(),
                            seed,
                            stats,
                        });
                    }
                    runner.corpus(dataset, edit, seed, &corpus)?;
                }
            }
        }
    }
    runner.bar.finish_and_clear();
    Ok(runner.outcome)
}

/// The datasets in runs that share one making: adjacent readings of one page corpus, or a
/// dataset alone.
fn generation_groups(datasets: &[DatasetSpec]) -> Vec<&[DatasetSpec]> {
    let mut groups = Vec::new();
    let mut start = 0;
    for i in 1..=datasets.len() {
        let same = i < datasets.len()
            && datasets[i].generation_key().is_some()
            && datasets[i].generation_key() == datasets[start].generation_key();
        if !same {
            groups.push(&datasets[start..i]);
            start = i;
        }
    }
    groups
}

/// One run of an experiment's cells.
struct Runner<'a> {
    exp: &'a Experiment,
    opts: &'a RunOptions,
    cache: Cache,
    limits: Limits,
    bar: neardup_dedup::progress::Items,
    outcome: RunOutcome,
}

/// One corpus of the grid (dataset × edit model × seed) and what its cells share.
struct CorpusCells<'c> {
    dataset: &'c DatasetSpec,
    edit: &'c EditSpec,
    seed: u64,
    corpus: &'c Corpus,
    /// Its texts, in document order.
    docs: Vec<&'c str>,
    labels_truth: Truth,
    /// The exact shingle sets, computed when a cell first needs them.
    sets: Option<Vec<Vec<u64>>>,
}

impl Runner<'_> {
    /// Plans every cell of one corpus and computes those not cached.
    fn corpus(
        &mut self,
        dataset: &DatasetSpec,
        edit: &EditSpec,
        seed: u64,
        corpus: &Corpus,
    ) -> anyhow::Result<()> {
        let truth = match self.cache.corpus(&corpus.sha256, &self.exp.truth) {
            Some(t) if !self.opts.force => t,
            _ => {
                let t = CorpusTruth::compute(corpus, &self.exp.truth);
                self.cache.put_corpus(&t)?;
                t
            }
        };
        let mut at = CorpusCells {
            dataset,
            edit,
            seed,
            corpus,
            docs: corpus.texts(),
            labels_truth: Truth::from_labels(&truth.labels),
            sets: None,
        };
        for alg in self
            .exp
            .algorithms
            .iter()
            .filter(|a| a.runs_on(&dataset.label))
        {
            let info = neardup::registry::find(&alg.name)?;
            for (bi, build) in alg.builds.iter().enumerate() {
                self.cell(&mut at, alg, &info, bi, build)?;
            }
        }
        self.outcome.truths.insert(truth.sha256.clone(), truth);
        Ok(())
    }

    /// Plans one cell (build point `bi` of `alg` on a corpus) and computes it unless cached.
    fn cell(
        &mut self,
        at: &mut CorpusCells<'_>,
        alg: &AlgorithmGrid,
        info: &neardup::registry::AlgorithmInfo,
        bi: usize,
        build: &ParamMap,
    ) -> anyhow::Result<()> {
        let (exp, corpus, seed) = (self.exp, at.corpus, at.seed);
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
        self.outcome.cells.push(PlannedCell {
            dataset: at.dataset.label.clone(),
            edit: at.edit.kind.clone(),
            rate: at.edit.rate,
            edit_spec: EditSpec::spec(at.edit),
            seed,
            corpus_sha256: corpus.sha256.clone(),
            algorithm: alg.name.clone(),
            label: alg.label.clone(),
            build_index: bi,
            key: k.clone(),
        });
        self.bar.inc(1);
        let describe = |e: &str| {
            format!(
                "{} on {} ({}, seed {seed}): {e}",
                alg.label,
                at.dataset.label,
                at.edit.spec()
            )
        };
        if self.reuse_cached(&k, alg, at.dataset, &describe) {
            return Ok(());
        }
        self.bar
            .set_message(format!("{} {} {}", exp.name, alg.label, at.dataset.label));
        let sets = at
            .sets
            .get_or_insert_with(|| shingle_sets(corpus, &exp.truth));
        let mut cell = execute(
            &k,
            &alg.name,
            build,
            &full_build,
            &alg.queries,
            &full_queries,
            &at.docs,
            &at.labels_truth,
            sets,
            seed,
            &corpus.sha256,
        );
        self.report_failure_and_warnings(&mut cell, alg, at.dataset, &describe);
        self.cache.put_cell(&cell)?;
        self.outcome.computed += 1;
        neardup_dedup::fault_injection::reached(neardup_dedup::fault_injection::KillPoint::Cells);
        Ok(())
    }

    /// Says on stderr that a cell failed (recording the limits it failed under) and what it
    /// warned of for the first time.
    fn report_failure_and_warnings(
        &mut self,
        cell: &mut CellResult,
        alg: &AlgorithmGrid,
        dataset: &DatasetSpec,
        describe: &dyn Fn(&str) -> String,
    ) {
        let k = &cell.key;
        if let Some(e) = &cell.error {
            self.bar.suspend(|| {
                eprintln!(
                    "neardup: cell {} ({} on {}) failed: {e}",
                    k, alg.name, dataset.label
                )
            });
            self.outcome.failed.push(describe(e));
            cell.limits = Some(self.limits.clone());
        }
        for w in &cell.warnings {
            if !self.outcome.warnings.iter().any(|(seen, _)| seen == w) {
                self.bar.suspend(|| eprintln!("neardup: warning: {w}"));
            }
        }
        note_warnings(&mut self.outcome, &cell.warnings);
    }

    /// Whether cell `k` is taken from the cache: a success, or a failure under the same
    /// limits (a failure under other limits is retried).
    fn reuse_cached(
        &mut self,
        k: &str,
        alg: &AlgorithmGrid,
        dataset: &DatasetSpec,
        describe: &dyn Fn(&str) -> String,
    ) -> bool {
        let Some(cached) = self.cache.cell(k).filter(|_| !self.opts.force) else {
            return false;
        };
        match &cached.error {
            None => {
                note_warnings(&mut self.outcome, &cached.warnings);
                self.outcome.cached += 1;
                true
            }
            Some(e) if cached.limits.as_ref() == Some(&self.limits) => {
                self.outcome.failed.push(describe(e));
                self.outcome.cached += 1;
                true
            }
            Some(_) => {
                self.bar.suspend(|| {
                    eprintln!(
                        "neardup: retrying cell {k} ({} on {}): it failed under other limits",
                        alg.label, dataset.label
                    )
                });
                false
            }
        }
    }
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
        // Signatures to compare cluster members on, made once per cell when first needed.
        let mut table = None;
        for (q, fq) in queries.iter().zip(full_queries) {
            let (overrides, mode) = clustering::split(q).map_err(anyhow::Error::msg)?;
            let index = built.index.as_ref();
            let r = harness::query(algorithm, index, &overrides, docs.len())?;
            let clusters = mode.map(|mode| {
                let pairs: Vec<(u32, u32)> = r.pairs.iter().map(|p| (p.a, p.b)).collect();
                clustering::anchor(mode, detector.as_ref(), index, &mut table, docs, &pairs)
            });
            cell.queries.push(QueryResult {
                given: q.clone(),
                params: fq.clone(),
                seconds: r.seconds,
                peak_bytes: r.peak_bytes,
                pairs: columns(&r.pairs, sets),
                clusters,
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
