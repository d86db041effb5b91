//! `neardup calibrate`: parameters from a user's own labelled pairs.
//!
//! For each algorithm, every configuration of its calibration grid
//! ([`neardup::detector::Algorithm::calibration_grid`], overridden by the user's `--param`s) is
//! built over the whole corpus and scores every labelled pair. Algorithms whose decision
//! follows the score get the threshold that maximizes F1 (or the highest recall at
//! `--target-precision`), turned into parameters by `threshold_params`; the others are measured
//! on the pairs they report. 95 % bootstrap intervals (seeded, printed) accompany ROC-AUC, F1,
//! precision and recall; `--holdout F` chooses on the other pairs and reports the held-out
//! ones. For `minhash-lsh` the banding tuned for the chosen threshold and its predicted recall
//! (the S-curve at the duplicates' scores) show what banding costs.

use std::io::Write;

use anyhow::{Context, Result, bail};
use neardup::detector::{Algorithm, Configured, ParamMap};
use neardup::detectors::minhash_lsh::MinHashLsh;
use neardup::features::FeatureParams;
use neardup::minhash::banding;
use neardup::pairs::{pack, unpack};

use super::clusters;
use super::labelled_pairs::{Weighted, cluster_pairs};
use super::options::{HARD_NEGATIVE_JACCARD, Options, Outcome, RankBy};
use super::report as calibration_report;
use super::resampling;
use super::statistics::{self as calibration, Objective};
use crate::corpus::{self, Corpus, pairs};
use crate::output_format::ReportFormat;
use crate::params::render_params;

/// Runs the calibration and prints the ranking (text or JSON).
pub fn run(opts: &Options, format: ReportFormat, out: &mut impl Write) -> Result<()> {
    check_options(opts)?;
    // Every configuration is checked before the corpus is read: a typo fails fast.
    let configs = expand(&opts.algorithms)?;
    if let Some(dir) = &opts.out {
        neardup_dedup::fsutil::check_dir(dir)?;
    }
    let corpus = corpus::load(&opts.corpus, &opts.load)?;
    let step = neardup_dedup::progress::step("calibrate: labelled pairs");
    let labelled = labelled_pairs(opts, &corpus)?;
    step.finish(format_args!("{} pairs", labelled.len()));
    let (pair_units, unit_count) = units(opts, &corpus, &labelled);
    let split = split(opts, &corpus, &labelled, &pair_units)?;
    let labels: Vec<bool> = labelled.iter().map(|p| p.1).collect();
    let positives = labels.iter().filter(|&&l| l).count();
    eprintln!(
        "neardup: calibrating on {} labelled pairs ({positives} duplicates) of {} documents; \
         bootstrap {} resamples, seed {}",
        labelled.len(),
        corpus.len(),
        opts.bootstrap,
        opts.seed
    );
    let texts = corpus.texts();
    let truth = corpus
        .is_labelled()
        .then(|| crate::truth::Truth::from_labels(corpus.labels()));
    // By clusters when the labels are the corpus's clusters; a pairs file is the user's
    // truth, so its pair objective ranks (`--rank-by clusters` still asks for clusters).
    let rank_by = opts
        .rank_by
        .unwrap_or(match (&truth, opts.target_precision, &opts.pairs) {
            (Some(_), None, None) => RankBy::Clusters,
            _ => RankBy::Pairs,
        });
    if rank_by == RankBy::Clusters && truth.is_none() {
        bail!("--rank-by clusters needs a corpus with cluster labels (--label-field)");
    }
    let opts = &Options {
        rank_by: Some(rank_by),
        ..opts.clone()
    };
    let bar = neardup_dedup::progress::items(configs.len() as u64, "calibrate");
    let mut outcomes = Vec::new();
    for (algorithm, params) in &configs {
        bar.set_message(format!("{algorithm} {}", render_params(params)));
        let mut o = evaluate(
            algorithm,
            params,
            &texts,
            &labelled,
            (&pair_units, unit_count),
            &split,
            opts,
        );
        if o.error.is_none() && o.note.is_none() && o.chosen.is_some() {
            o.clusters = Some(
                clusters::effects(algorithm, &o.all_params(), &texts, truth.as_ref())
                    .map_err(|e| format!("{e:#}")),
            );
        }
        if let Some(e) = &o.error {
            bar.suspend(|| eprintln!("neardup: {algorithm} {} failed: {e}", render_params(params)));
        }
        outcomes.push(o);
        bar.inc(1);
    }
    bar.finish_and_clear();
    rank(&mut outcomes, opts.target_precision, rank_by);
    let alerts = alerts(opts, &corpus, &labelled, &outcomes);
    calibration_report::print(&outcomes, opts, &alerts, format, corpus.len(), out)?;
    if let Some(dir) = &opts.out {
        calibration_report::write(dir, &outcomes, opts, &alerts, &labelled, corpus.len())?;
        eprintln!("neardup: wrote {}", dir.join("README.md").display());
    }
    if outcomes.iter().all(|o| o.error.is_some()) {
        bail!("every configuration failed");
    }
    Ok(())
}

/// What must be read before the ranking ([`super::alerts`]): a person's labels outweighed by
/// one (a cluster-labelled corpus's weights are the sample's design, not a key pressed), and,
/// unless the labels' clusters rank, a recommendation that would sweep the corpus away.
fn alerts(
    opts: &Options,
    corpus: &Corpus,
    labelled: &[Weighted],
    outcomes: &[Outcome],
) -> Vec<String> {
    let mut out = Vec::new();
    if opts.pairs.is_some() {
        let name = |p: u64| {
            let (a, b) = unpack(p);
            format!("{} / {}", corpus.id(a as usize), corpus.id(b as usize))
        };
        out.extend(super::alerts::heavy_labels(labelled, &name));
    }
    if opts.rank_by != Some(RankBy::Clusters)
        && let Some(best) = calibration_report::recommended(outcomes)
    {
        out.extend(super::alerts::sweeping(best, corpus.len()));
    }
    out
}

/// The most bootstrap resamples `--bootstrap` takes.
pub const MAX_BOOTSTRAP: usize = 100_000;

/// The options' ranges, checked before anything is read.
fn check_options(opts: &Options) -> Result<()> {
    if let Some(p) = opts.target_precision.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
        bail!("--target-precision must be in (0, 1], not {p}");
    }
    if let Some(h) = opts.holdout.filter(|h| !(*h > 0.0 && *h < 1.0)) {
        bail!("--holdout must be a fraction in (0, 1), not {h}");
    }
    if !(1..=MAX_BOOTSTRAP).contains(&opts.bootstrap) {
        bail!(
            "--bootstrap must be from 1 to {MAX_BOOTSTRAP} resamples, not {}: each resample is \
             kept for the percentiles (10^9 asked for 48 GB), and beyond 10^5 the interval's \
             Monte Carlo error (about 1/sqrt(B)) is below its third decimal",
            opts.bootstrap
        );
    }
    Ok(())
}

/// The labelled pairs the choice is made on, and the held-out ones (`--holdout`), with their
/// weights; each set must hold both duplicates and non-duplicates. The holdout is drawn by
/// group so that it shares no document with the rest ([`resampling::grouped_holdout`]):
/// clusters of a cluster-labelled corpus (the bootstrap's units), connected components of the
/// pairs of a `--pairs` file (so no labelled pair is left out).
fn split(
    opts: &Options,
    corpus: &Corpus,
    labelled: &[Weighted],
    pair_units: &[(u32, u32)],
) -> Result<resampling::HoldoutSplit> {
    let weights: Vec<f64> = labelled.iter().map(|p| p.2).collect();
    let Some(f) = opts.holdout else {
        return Ok(resampling::HoldoutSplit {
            choose: (0..labelled.len()).collect(),
            choose_weights: weights,
            hold: Vec::new(),
            hold_weights: Vec::new(),
        });
    };
    let groups: Vec<(u32, u32)> = if opts.pairs.is_some() {
        let component = neardup::cluster::connected_components(
            corpus.len(),
            labelled.iter().map(|&(p, _, _)| unpack(p)),
        );
        labelled
            .iter()
            .map(|&(p, _, _)| {
                let (a, _) = unpack(p);
                (component[a as usize], component[a as usize])
            })
            .collect()
    } else {
        pair_units.to_vec()
    };
    let split = resampling::grouped_holdout(&groups, &weights, f, opts.seed ^ 0x401d);
    for (set, name) in [(&split.choose, "choosing"), (&split.hold, "holdout")] {
        let positives = set.iter().filter(|&&i| labelled[i].1).count();
        if positives == 0 || positives == set.len() {
            bail!(
                "the {name} set has {positives} duplicate and {} non-duplicate pairs: \
                 calibration needs both; the holdout is drawn by cluster (or by connected \
                 component of the labelled pairs), so it needs several (label more pairs, or \
                 use another --holdout or --seed)",
                set.len() - positives
            );
        }
    }
    Ok(split)
}

/// Best first: by the objective, then ROC-AUC, then name.
fn rank(outcomes: &mut [Outcome], target_precision: Option<f64>, by: RankBy) {
    let clusters = |o: &Outcome| match by {
        RankBy::Clusters => o.cluster_objective(),
        RankBy::Pairs => 0.0,
    };
    outcomes.sort_by(|x, y| {
        clusters(y)
            .total_cmp(&clusters(x))
            .then(
                y.objective(target_precision)
                    .total_cmp(&x.objective(target_precision)),
            )
            .then(
                y.roc_auc
                    .unwrap_or(-1.0)
                    .total_cmp(&x.roc_auc.unwrap_or(-1.0)),
            )
            .then(x.algorithm.cmp(&y.algorithm))
    });
}

/// (algorithm, parameters) of every grid point with the user's parameters laid over it,
/// duplicates removed, each checked.
fn expand(algorithms: &[(String, ParamMap)]) -> Result<Vec<(String, ParamMap)>> {
    let mut out: Vec<(String, ParamMap)> = Vec::new();
    for (name, user) in algorithms {
        let info = neardup::registry::find(name)?;
        for grid in &info.calibration_grid {
            let mut p = grid.clone();
            p.extend(user.clone());
            info.detector(&p)
                .with_context(|| format!("{name} with {}", render_params(&p)))?;
            if !out.iter().any(|(n, q)| n == name && *q == p) {
                out.push((name.clone(), p));
            }
        }
    }
    Ok(out)
}

/// The labelled pairs, packed and sorted, with their label: the `--pairs` file, or the pairs a
/// cluster-labelled corpus implies ([`cluster_pairs`], with hard negatives from
/// the exact word 3-shingle join at Jaccard ≥ [`HARD_NEGATIVE_JACCARD`]).
fn labelled_pairs(opts: &Options, corpus: &Corpus) -> Result<Vec<Weighted>> {
    if let Some(path) = &opts.pairs {
        let listed = pairs::load_weighted(path, corpus)?;
        return Ok(listed
            .iter()
            .map(|(p, w)| (pack(p.a, p.b), p.positive(), *w))
            .collect());
    }
    if !corpus.is_labelled() {
        bail!(
            "{} has no cluster labels: give --pairs FILE (id_a,id_b,label) or a corpus with a \
             cluster field (--label-field)",
            opts.corpus.display()
        );
    }
    let positives = crate::truth::positive_pairs(corpus.labels());
    let shingler = FeatureParams::words(3).shingler(0x5eed);
    let sets: Vec<Vec<u64>> = {
        use rayon::prelude::*;
        (0..corpus.len())
            .into_par_iter()
            .map(|i| shingler.set(corpus.text(i)))
            .collect()
    };
    let hard = crate::truth::similar_pairs(&sets, HARD_NEGATIVE_JACCARD);
    Ok(cluster_pairs(
        &positives,
        &hard,
        corpus.len(),
        opts.seed ^ 0x9e6,
    ))
}

/// The units the bootstrap resamples, per labelled pair: clusters of a cluster-labelled corpus
/// (each unlabelled document its own unit), documents for a pairs file. Pairs that share a
/// cluster or a document are not independent observations (see `calibration`).
fn units(opts: &Options, corpus: &Corpus, labelled: &[Weighted]) -> (Vec<(u32, u32)>, usize) {
    let unit_of: Vec<u32> = if opts.pairs.is_some() {
        (0..corpus.len() as u32).collect()
    } else {
        let clusters = corpus.labels().iter().flatten().max().map_or(0, |&m| m + 1);
        corpus
            .labels()
            .iter()
            .enumerate()
            .map(|(doc, l)| l.unwrap_or(clusters + doc as u32))
            .collect()
    };
    let count = unit_of.iter().max().map_or(0, |&m| m as usize + 1);
    let pairs = labelled
        .iter()
        .map(|&(p, _, _)| {
            let (a, b) = unpack(p);
            (unit_of[a as usize], unit_of[b as usize])
        })
        .collect();
    (pairs, count)
}

/// Builds one configuration and measures it.
fn evaluate(
    algorithm: &str,
    params: &ParamMap,
    texts: &[&str],
    labelled: &[Weighted],
    (pair_units, unit_count): (&[(u32, u32)], usize),
    split: &resampling::HoldoutSplit,
    opts: &Options,
) -> Outcome {
    let (choose_idx, hold_idx) = (&split.choose[..], &split.hold[..]);
    let mut o = Outcome::new(algorithm, params);
    let result = (|| -> Result<()> {
        let detector = neardup::registry::detector(algorithm, params)?;
        let index = detector.build(texts)?;
        let scores: Vec<Option<f64>> = labelled
            .iter()
            .map(|&(p, _, _)| {
                let (a, b) = unpack(p);
                index.score(a as usize, b as usize)
            })
            .collect();
        let scorable = scores.iter().all(Option::is_some);
        let obs: Vec<(bool, f64)> = labelled
            .iter()
            .zip(&scores)
            .map(|(&(_, l, _), s)| (l, s.unwrap_or(0.0)))
            .collect();
        let pick = |idx: &[usize]| -> Vec<(bool, f64)> { idx.iter().map(|&i| obs[i]).collect() };
        // Weights: how many corpus pairs each labelled pair stands for (1 for a pairs file),
        // divided by its chance to land in its side of the holdout.
        let sample = Sample {
            choose: pick(choose_idx),
            hold: pick(hold_idx),
            choose_weights: split.choose_weights.clone(),
            hold_weights: split.hold_weights.clone(),
            choose_units: choose_idx.iter().map(|&i| pair_units[i]).collect(),
            unit_count,
        };
        match (scorable, detector.threshold_params(0.5)) {
            (true, Some(_)) => by_threshold(&mut o, detector.as_ref(), &sample, opts)?,
            _ => {
                // The algorithm decides by something its score does not follow (or cannot
                // score): measure the pairs it reports.
                let reported: std::collections::HashSet<u64> = index
                    .query(&ParamMap::new())?
                    .iter()
                    .map(|p| pack(p.a, p.b))
                    .collect();
                let flags: Vec<bool> = labelled
                    .iter()
                    .map(|(p, _, _)| reported.contains(p))
                    .collect();
                let pick_flags =
                    |idx: &[usize]| -> Vec<bool> { idx.iter().map(|&i| flags[i]).collect() };
                let decided = (pick_flags(choose_idx), pick_flags(hold_idx));
                by_reported(&mut o, &sample, &decided, scorable, opts);
            }
        }
        if scorable {
            o.observations = sample.choose;
            o.weights = sample.choose_weights;
        }
        Ok(())
    })();
    if let Err(e) = result {
        o.error = Some(format!("{e:#}"));
    }
    o
}

/// The labelled pairs' scores, split into the pairs the choice is made on and the held-out
/// ones, with their weights and the bootstrap's units.
struct Sample {
    choose: Vec<(bool, f64)>,
    hold: Vec<(bool, f64)>,
    choose_weights: Vec<f64>,
    hold_weights: Vec<f64>,
    /// The bootstrap's resampling units (clusters) of each chosen-on pair.
    choose_units: Vec<(u32, u32)>,
    unit_count: usize,
}

impl Sample {
    fn units(&self) -> Option<resampling::Units<'_>> {
        Some(resampling::Units {
            of_pair: &self.choose_units,
            count: self.unit_count,
        })
    }
}

/// An algorithm whose decision follows its score: the threshold that maximizes the objective,
/// its intervals, the held-out figures at it, and (minhash-lsh) the banding's recall.
fn by_threshold(
    o: &mut Outcome,
    detector: &dyn neardup::detector::Detector,
    sample: &Sample,
    opts: &Options,
) -> Result<()> {
    let (choose, hold) = (&sample.choose, &sample.hold);
    let (cw, hw) = (
        Some(sample.choose_weights.as_slice()),
        Some(sample.hold_weights.as_slice()),
    );
    let objective = opts
        .target_precision
        .map_or(Objective::F1, Objective::Precision);
    o.roc_auc = calibration::weighted_auc(choose, cw);
    let Some(chosen) = calibration::choose(choose, cw, objective) else {
        // Not a failure: the measurement is that nothing qualifies.
        o.note = Some(match objective {
            Objective::F1 => "no labelled pair scores above 0".into(),
            Objective::Precision(p) => format!("no threshold reaches precision {p}"),
        });
        o.chosen = Some(calibration::at(choose, cw, f64::INFINITY));
        if !hold.is_empty() {
            o.holdout = Some(calibration::at(hold, hw, f64::INFINITY));
        }
        return Ok(());
    };
    let t = calibration::round_threshold(choose, chosen.threshold);
    o.threshold_params = detector.threshold_params(t);
    o.chosen = Some(calibration::AtThreshold {
        threshold: t,
        ..chosen
    });
    o.intervals = Some(resampling::bootstrap(
        choose,
        cw,
        sample.units(),
        true,
        opts.bootstrap,
        opts.seed ^ 0xb007,
        |w| calibration::at(choose, Some(w), t),
    ));
    if !hold.is_empty() {
        o.holdout = Some(calibration::at(hold, hw, t));
    }
    if o.algorithm == MinHashLsh::NAME {
        o.banding = Some(banded_recall(&o.all_params(), choose, cw, t)?);
    }
    Ok(())
}

/// An algorithm that decides by something its score does not follow: the pairs it reports
/// (`decided`: flags of the chosen-on and held-out pairs) measured as they are.
fn by_reported(
    o: &mut Outcome,
    sample: &Sample,
    (choose_flags, hold_flags): &(Vec<bool>, Vec<bool>),
    scorable: bool,
    opts: &Options,
) {
    let (choose, hold) = (&sample.choose, &sample.hold);
    let (cw, hw) = (
        Some(sample.choose_weights.as_slice()),
        Some(sample.hold_weights.as_slice()),
    );
    if scorable {
        o.roc_auc = calibration::weighted_auc(choose, cw);
    }
    o.chosen = Some(calibration::decided(choose, choose_flags, cw));
    o.intervals = Some(resampling::bootstrap(
        choose,
        cw,
        sample.units(),
        scorable,
        opts.bootstrap,
        opts.seed ^ 0xb007,
        |w| calibration::decided(choose, choose_flags, Some(w)),
    ));
    if !hold.is_empty() {
        o.holdout = Some(calibration::decided(hold, hold_flags, hw));
    }
}

/// The banding `minhash-lsh` uses with these parameters (tuned for threshold `t`, or the
/// user's explicit bands and rows), and its predicted recall: Σ over duplicates scoring ≥ t
/// of P(candidate | s) = 1 − (1 − s^r)^b, divided by all duplicates (the scores stand in for
/// the pairs' similarities).
fn banded_recall(
    params: &ParamMap,
    obs: &[(bool, f64)],
    weights: Option<&[f64]>,
    t: f64,
) -> Result<(usize, usize, f64)> {
    let w = |i: usize| weights.map_or(1.0, |w| w[i]);
    let configured = Configured::<MinHashLsh>::from_params(params)?;
    let tuned = configured.params().0.banding()?;
    let (bands, rows) = (tuned.bands(), tuned.rows());
    let positives: f64 = (0..obs.len()).filter(|&i| obs[i].0).map(w).sum();
    let expected: f64 = (0..obs.len())
        .filter(|&i| obs[i].0 && obs[i].1 >= t)
        .map(|i| w(i) * banding::candidate_probability(obs[i].1, bands, rows))
        .sum();
    Ok((bands, rows, expected / positives.max(1e-300)))
}
