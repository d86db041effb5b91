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
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use neardup::detector::ParamMap;
use neardup::features::FeatureParams;
use neardup::minhash::banding;
use neardup::pairs::{pack, unpack};
use serde_json::{Value, json};

use crate::calibration::{self, AtThreshold, Intervals, Objective};
use crate::charts::calibration::{Panel, Series};
use crate::cli::ReportFormat;
use crate::corpus::{self, Corpus, LoadOptions, pairs};
use crate::params::{render_params, render_value};

/// Exact word 3-shingle Jaccard above which a cross-cluster pair is a "hard" non-duplicate.
pub const HARD_NEGATIVE_JACCARD: f64 = 0.3;

/// Options of one calibration run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The corpus file.
    pub corpus: PathBuf,
    /// How to read it.
    pub load: LoadOptions,
    /// Labelled pairs CSV (else the corpus's cluster labels).
    pub pairs: Option<PathBuf>,
    /// (algorithm, user parameters laid over every grid point).
    pub algorithms: Vec<(String, ParamMap)>,
    /// Highest recall at this precision instead of the highest F1.
    pub target_precision: Option<f64>,
    /// Share of pairs held out from the choice.
    pub holdout: Option<f64>,
    /// Bootstrap resamples.
    pub bootstrap: usize,
    /// Seed of the bootstrap, the holdout split and the negative sample.
    pub seed: u64,
    /// Report directory.
    pub out: Option<PathBuf>,
}

/// One configuration's result.
#[derive(Debug, Clone)]
struct Outcome {
    algorithm: String,
    /// Grid point with the user's parameters.
    params: ParamMap,
    /// Parameters realizing the threshold (`None`: decided by the algorithm's own query).
    threshold_params: Option<ParamMap>,
    chosen: Option<AtThreshold>,
    roc_auc: Option<f64>,
    intervals: Option<Intervals>,
    holdout: Option<AtThreshold>,
    /// minhash-lsh: (bands, rows, predicted recall with banding).
    banding: Option<(usize, usize, f64)>,
    observations: Vec<(bool, f64)>,
    /// Their weights (corpus pairs each stands for).
    weights: Vec<f64>,
    /// Why no threshold was chosen (nothing scores above 0, or the target precision is out of
    /// reach): a result, not a failure.
    note: Option<String>,
    error: Option<String>,
}

impl Outcome {
    fn objective(&self, target: Option<f64>) -> f64 {
        match (&self.chosen, target) {
            (None, _) => -1.0,
            (Some(_), _) if self.note.is_some() => -0.5,
            (Some(c), None) => c.f1(),
            (Some(c), Some(p)) if c.precision() >= p => c.recall(),
            _ => -1.0,
        }
    }

    /// Every parameter of the recommended command line.
    fn all_params(&self) -> ParamMap {
        let mut p = self.params.clone();
        if let Some(t) = &self.threshold_params {
            p.extend(t.clone());
        }
        p
    }
}

/// Runs the calibration and prints the ranking (text or JSON).
pub fn run(opts: &Options, format: ReportFormat, out: &mut impl Write) -> Result<()> {
    if let Some(p) = opts.target_precision.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
        bail!("--target-precision must be in (0, 1], not {p}");
    }
    if let Some(h) = opts.holdout.filter(|h| !(*h > 0.0 && *h < 1.0)) {
        bail!("--holdout must be a fraction in (0, 1), not {h}");
    }
    if opts.bootstrap == 0 {
        bail!("--bootstrap must be at least 1 resample");
    }
    // Every configuration is checked before the corpus is read: a typo fails fast.
    let configs = expand(&opts.algorithms)?;
    if let Some(dir) = &opts.out {
        crate::fsutil::check_dir(dir)?;
    }
    let corpus = corpus::load(&opts.corpus, &opts.load)?;
    let labelled = labelled_pairs(opts, &corpus)?;
    let labels: Vec<bool> = labelled.iter().map(|p| p.1).collect();
    let (choose_idx, hold_idx) = match opts.holdout {
        Some(f) => calibration::holdout_split(&labels, f, opts.seed ^ 0x401d),
        None => ((0..labels.len()).collect(), Vec::new()),
    };
    for (set, name) in [(&choose_idx, "choosing"), (&hold_idx, "holdout")] {
        if name == "holdout" && opts.holdout.is_none() {
            continue;
        }
        let positives = set.iter().filter(|&&i| labels[i]).count();
        if positives == 0 || positives == set.len() {
            bail!(
                "the {name} set has {positives} duplicate and {} non-duplicate pairs: \
                 calibration needs both (label more pairs, or use a smaller --holdout)",
                set.len() - positives
            );
        }
    }
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
    let bar = crate::progress::items(configs.len() as u64, "calibrate");
    let mut outcomes = Vec::new();
    for (algorithm, params) in &configs {
        bar.set_message(format!("{algorithm} {}", render_params(params)));
        let o = evaluate(
            algorithm,
            params,
            &texts,
            &labelled,
            (&choose_idx, &hold_idx),
            opts,
        );
        if let Some(e) = &o.error {
            bar.suspend(|| eprintln!("neardup: {algorithm} {} failed: {e}", render_params(params)));
        }
        outcomes.push(o);
        bar.inc(1);
    }
    bar.finish_and_clear();
    outcomes.sort_by(|x, y| {
        y.objective(opts.target_precision)
            .total_cmp(&x.objective(opts.target_precision))
            .then(
                y.roc_auc
                    .unwrap_or(-1.0)
                    .total_cmp(&x.roc_auc.unwrap_or(-1.0)),
            )
            .then(x.algorithm.cmp(&y.algorithm))
    });
    let command = |o: &Outcome| recommended_command(opts, o);
    match format {
        ReportFormat::Json => {
            let rows: Vec<Value> = outcomes.iter().map(|o| to_json(o, &command(o))).collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        }
        ReportFormat::Csv => {
            let mut w = csv::Writer::from_writer(&mut *out);
            for (i, o) in outcomes.iter().enumerate() {
                let row = to_json(o, &command(o));
                let obj = row.as_object().expect("an object");
                if i == 0 {
                    w.write_record(obj.keys())?;
                }
                w.write_record(obj.values().map(|v| match v {
                    Value::Null => String::new(),
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }))?;
            }
            w.flush()?;
        }
        ReportFormat::Text => write_text(&outcomes, opts, &command, out)?,
    }
    if let Some(dir) = &opts.out {
        write_report(dir, &outcomes, opts, &labelled, &corpus, &command)?;
        eprintln!("neardup: wrote {}", dir.join("README.md").display());
    }
    if outcomes.iter().all(|o| o.error.is_some()) {
        bail!("every configuration failed");
    }
    Ok(())
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
/// cluster-labelled corpus implies ([`calibration::cluster_pairs`], with hard negatives from
/// the exact word 3-shingle join at Jaccard ≥ [`HARD_NEGATIVE_JACCARD`]).
fn labelled_pairs(opts: &Options, corpus: &Corpus) -> Result<Vec<calibration::Weighted>> {
    if let Some(path) = &opts.pairs {
        let listed = pairs::load(path, corpus)?;
        return Ok(listed
            .iter()
            .map(|p| (pack(p.a, p.b), p.positive(), 1.0))
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
    Ok(calibration::cluster_pairs(
        &positives,
        &hard,
        corpus.len(),
        opts.seed ^ 0x9e6,
    ))
}

/// Builds one configuration and measures it.
fn evaluate(
    algorithm: &str,
    params: &ParamMap,
    texts: &[&str],
    labelled: &[calibration::Weighted],
    (choose_idx, hold_idx): (&[usize], &[usize]),
    opts: &Options,
) -> Outcome {
    let mut o = Outcome {
        algorithm: algorithm.to_string(),
        params: params.clone(),
        threshold_params: None,
        chosen: None,
        roc_auc: None,
        intervals: None,
        holdout: None,
        banding: None,
        observations: Vec::new(),
        weights: Vec::new(),
        note: None,
        error: None,
    };
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
        let choose_obs = pick(choose_idx);
        let hold_obs = pick(hold_idx);
        // Weights: how many corpus pairs each labelled pair stands for (1 for a pairs file).
        let weights = |idx: &[usize]| -> Vec<f64> { idx.iter().map(|&i| labelled[i].2).collect() };
        let (cw, hw) = (weights(choose_idx), weights(hold_idx));
        let (cw, hw) = (Some(cw.as_slice()), Some(hw.as_slice()));
        let objective = opts
            .target_precision
            .map_or(Objective::F1, Objective::Precision);
        let seed = opts.seed ^ 0xb007;
        match (scorable, detector.threshold_params(0.5)) {
            (true, Some(_)) => {
                o.roc_auc = calibration::weighted_auc(&choose_obs, cw);
                let Some(chosen) = calibration::choose(&choose_obs, cw, objective) else {
                    // Not a failure: the measurement is that nothing qualifies.
                    o.note = Some(match objective {
                        Objective::F1 => "no labelled pair scores above 0".into(),
                        Objective::Precision(p) => format!("no threshold reaches precision {p}"),
                    });
                    o.chosen = Some(calibration::at(&choose_obs, cw, f64::INFINITY));
                    if !hold_idx.is_empty() {
                        o.holdout = Some(calibration::at(&hold_obs, hw, f64::INFINITY));
                    }
                    o.observations = choose_obs;
                    o.weights = cw.map(<[f64]>::to_vec).unwrap_or_default();
                    return Ok(());
                };
                let t = calibration::round_threshold(&choose_obs, chosen.threshold);
                let chosen = calibration::AtThreshold {
                    threshold: t,
                    ..chosen
                };
                o.threshold_params = detector.threshold_params(t);
                o.chosen = Some(chosen);
                o.intervals = Some(calibration::bootstrap(
                    &choose_obs,
                    cw,
                    true,
                    opts.bootstrap,
                    seed,
                    |w| calibration::at(&choose_obs, Some(w), t),
                ));
                if !hold_idx.is_empty() {
                    o.holdout = Some(calibration::at(&hold_obs, hw, t));
                }
                if algorithm == "minhash-lsh" {
                    o.banding = banded_recall(&o.all_params(), &choose_obs, cw, t)?;
                }
            }
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
                let choose_flags = pick_flags(choose_idx);
                if scorable {
                    o.roc_auc = calibration::weighted_auc(&choose_obs, cw);
                }
                o.chosen = Some(calibration::decided(&choose_obs, &choose_flags, cw));
                o.intervals = Some(calibration::bootstrap(
                    &choose_obs,
                    cw,
                    scorable,
                    opts.bootstrap,
                    seed,
                    |w| calibration::decided(&choose_obs, &choose_flags, Some(w)),
                ));
                if !hold_idx.is_empty() {
                    o.holdout = Some(calibration::decided(&hold_obs, &pick_flags(hold_idx), hw));
                }
            }
        }
        if scorable {
            o.observations = choose_obs;
            o.weights = cw.map(<[f64]>::to_vec).unwrap_or_default();
        }
        Ok(())
    })();
    if let Err(e) = result {
        o.error = Some(format!("{e:#}"));
    }
    o
}

/// The banding `minhash-lsh` tunes for threshold `t` with these parameters, and its predicted
/// recall: Σ over duplicates scoring ≥ t of P(candidate | s) = 1 − (1 − s^r)^b, divided by all
/// duplicates (the scores stand in for the pairs' similarities).
fn banded_recall(
    params: &ParamMap,
    obs: &[(bool, f64)],
    weights: Option<&[f64]>,
    t: f64,
) -> Result<Option<(usize, usize, f64)>> {
    let w = |i: usize| weights.map_or(1.0, |w| w[i]);
    let num_perm = params
        .get("num_perm")
        .and_then(Value::as_u64)
        .unwrap_or(128) as usize;
    let tuned = banding::tune(t, num_perm, 0.5)?;
    let positives: f64 = (0..obs.len()).filter(|&i| obs[i].0).map(w).sum();
    let expected: f64 = (0..obs.len())
        .filter(|&i| obs[i].0 && obs[i].1 >= t)
        .map(|i| w(i) * banding::candidate_probability(obs[i].1, tuned.bands, tuned.rows))
        .sum();
    Ok(Some((
        tuned.bands,
        tuned.rows,
        expected / positives.max(1e-300),
    )))
}

/// `neardup eval …` checking the recommendation on the user's own data.
fn recommended_command(opts: &Options, o: &Outcome) -> String {
    let mut cmd = format!(
        "neardup eval --corpus {}",
        shell_word(&opts.corpus.display().to_string())
    );
    if let Some(p) = &opts.pairs {
        cmd.push_str(&format!(
            " --pairs {}",
            shell_word(&p.display().to_string())
        ));
    }
    cmd.push_str(&format!(" --algorithm {}", o.algorithm));
    for (k, v) in o.all_params() {
        cmd.push_str(&format!(
            " --param {}",
            shell_word(&format!("{k}={}", render_value(&v)))
        ));
    }
    cmd
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Rounds for display and JSON (6 decimals).
fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn to_json(o: &Outcome, command: &str) -> Value {
    let iv = |f: fn(&Intervals) -> Option<(f64, f64)>, end: usize| {
        o.intervals
            .as_ref()
            .and_then(f)
            .map(|i| r6(if end == 0 { i.0 } else { i.1 }))
    };
    let c = o.chosen;
    json!({
        "algorithm": o.algorithm,
        "params": render_params(&o.params),
        "threshold": c
            .filter(|_| o.threshold_params.is_some() && o.note.is_none())
            .map(|c| c.threshold),
        "threshold_params": o.threshold_params.as_ref().map(render_params),
        "roc_auc": o.roc_auc.map(r6),
        "roc_auc_low": iv(|i| i.roc_auc, 0),
        "roc_auc_high": iv(|i| i.roc_auc, 1),
        "f1": c.map(|c| r6(c.f1())),
        "f1_low": iv(|i| Some(i.f1), 0),
        "f1_high": iv(|i| Some(i.f1), 1),
        "precision": precision(o).map(r6),
        "note": o.note,
        "precision_low": iv(|i| Some(i.precision), 0),
        "precision_high": iv(|i| Some(i.precision), 1),
        "recall": c.map(|c| r6(c.recall())),
        "recall_low": iv(|i| Some(i.recall), 0),
        "recall_high": iv(|i| Some(i.recall), 1),
        "holdout_f1": o.holdout.map(|h| r6(h.f1())),
        "holdout_precision": o.holdout.map(|h| r6(h.precision())),
        "holdout_recall": o.holdout.map(|h| r6(h.recall())),
        "bands": o.banding.map(|b| b.0),
        "rows": o.banding.map(|b| b.1),
        "banded_recall": o.banding.map(|b| r6(b.2)),
        "command": command,
        "error": o.error,
    })
}

/// Precision of the chosen setting, `None` when it reports no labelled pair (undefined).
fn precision(o: &Outcome) -> Option<f64> {
    o.chosen
        .filter(|c| c.tp + c.fp > 0.0)
        .map(|c| c.precision())
}

fn fmt_iv(x: Option<f64>, iv: Option<(f64, f64)>) -> String {
    match (x, iv) {
        (Some(x), Some((lo, hi))) => format!("{x:.3} [{lo:.3}, {hi:.3}]"),
        (Some(x), None) => format!("{x:.3}"),
        _ => "—".into(),
    }
}

/// Table rows (algorithm, params, threshold, ROC-AUC, F1, P, R[, holdout F1]).
fn table_rows(outcomes: &[Outcome], holdout: bool) -> Vec<Vec<String>> {
    outcomes
        .iter()
        .map(|o| {
            let iv = o.intervals.as_ref();
            let mut row = vec![
                o.algorithm.clone(),
                render_params(&o.params),
                match (&o.note, &o.chosen, &o.threshold_params) {
                    (Some(note), _, _) => format!("— ({note})"),
                    (None, Some(c), Some(tp)) => format!("{} ({})", c.threshold, render_params(tp)),
                    (None, Some(_), None) => "its own decision".into(),
                    _ => "—".into(),
                },
                fmt_iv(o.roc_auc, iv.and_then(|i| i.roc_auc)),
                fmt_iv(o.chosen.map(|c| c.f1()), iv.map(|i| i.f1)),
                fmt_iv(precision(o), iv.map(|i| i.precision)),
                fmt_iv(o.chosen.map(|c| c.recall()), iv.map(|i| i.recall)),
            ];
            if holdout {
                row.push(o.holdout.map_or("—".into(), |h| format!("{:.3}", h.f1())));
            }
            if let Some(e) = &o.error {
                row[2] = format!("failed: {e}");
            }
            row
        })
        .collect()
}

fn header(holdout: bool) -> Vec<&'static str> {
    let mut h = vec![
        "algorithm",
        "parameters",
        "threshold",
        "ROC-AUC [95 % CI]",
        "F1 [95 % CI]",
        "precision [95 % CI]",
        "recall [95 % CI]",
    ];
    if holdout {
        h.push("holdout F1");
    }
    h
}

fn write_text(
    outcomes: &[Outcome],
    opts: &Options,
    command: &dyn Fn(&Outcome) -> String,
    out: &mut impl Write,
) -> Result<()> {
    let holdout = opts.holdout.is_some();
    let head = header(holdout);
    let rows = table_rows(outcomes, holdout);
    let widths: Vec<usize> = (0..head.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([head[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
    };
    writeln!(
        out,
        "{}",
        line(head.iter().map(|s| s.to_string()).collect())
    )?;
    for r in rows {
        writeln!(out, "{}", line(r).trim_end())?;
    }
    writeln!(out)?;
    match outcomes
        .iter()
        .find(|o| o.error.is_none() && o.note.is_none())
    {
        Some(best) => {
            writeln!(
                out,
                "Recommended ({}): {} {}",
                match opts.target_precision {
                    Some(p) => format!("highest recall at precision ≥ {p}"),
                    None => "highest F1".into(),
                },
                best.algorithm,
                render_params(&best.all_params())
            )?;
            if let Some((b, r, recall)) = best.banding {
                writeln!(
                    out,
                    "Banding for that threshold: {b} bands × {r} rows; predicted recall with \
                     banding {recall:.3} (against {:.3} if every pair were verified).",
                    best.chosen.map_or(0.0, |c| c.recall())
                )?;
            }
            writeln!(out, "Check it:  {}", command(best))?;
        }
        None => writeln!(out, "No configuration succeeded.")?,
    }
    Ok(())
}

fn write_report(
    dir: &Path,
    outcomes: &[Outcome],
    opts: &Options,
    labelled: &[calibration::Weighted],
    corpus: &Corpus,
    command: &dyn Fn(&Outcome) -> String,
) -> Result<()> {
    let mut panels: Vec<Panel> = Vec::new();
    for o in outcomes.iter().filter(|o| !o.observations.is_empty()) {
        let series = Series {
            name: render_params(&o.params),
            observations: o.observations.clone(),
            weights: o.weights.clone(),
            chosen: o
                .threshold_params
                .as_ref()
                .and(o.chosen.map(|c| c.threshold)),
        };
        match panels.iter_mut().find(|p| p.algorithm == o.algorithm) {
            Some(p) => p.series.push(series),
            None => panels.push(Panel {
                algorithm: o.algorithm.clone(),
                series: vec![series],
            }),
        }
    }
    panels.sort_by(|a, b| a.algorithm.cmp(&b.algorithm));
    let charts = crate::charts::calibration::draw(&panels, dir)?;
    let positives = labelled.iter().filter(|p| p.1).count();
    let holdout = opts.holdout.is_some();
    let mut md = String::new();
    md.push_str("# Calibration\n\n");
    md.push_str(&format!(
        "Corpus `{}`: {} documents. {} labelled pairs ({positives} duplicates, {} not){}.\n\n",
        opts.corpus.display(),
        corpus.len(),
        labelled.len(),
        labelled.len() - positives,
        match &opts.pairs {
            Some(p) => format!(" from `{}`", p.display()),
            None => format!(
                " implied by the cluster labels, a stratified sample of all the corpus's pairs: \
                 every pair inside a cluster (at most {}), every cross-cluster pair with exact \
                 word 3-shingle Jaccard ≥ {HARD_NEGATIVE_JACCARD} (at most as many as \
                 duplicates, most similar first), and as many uniformly random other \
                 cross-cluster pairs as duplicates. Each pair is weighted by the corpus pairs it \
                 stands for, so precision estimates the precision on the whole corpus",
                calibration::MAX_CLUSTER_POSITIVES
            ),
        }
    ));
    md.push_str(&format!(
        "Chosen for: {}. Intervals: 95 % percentile bootstrap over the labelled pairs, {} \
         resamples, seed {}, with the threshold held fixed.{}\n\n",
        match opts.target_precision {
            Some(p) => format!("the highest recall at precision ≥ {p}"),
            None => "the highest F1".into(),
        },
        opts.bootstrap,
        opts.seed,
        match opts.holdout {
            Some(f) => format!(
                " The threshold was chosen on {:.0} % of the pairs; `holdout F1` is measured on \
                 the other {:.0} % (stratified split, seed {}).",
                (1.0 - f) * 100.0,
                f * 100.0,
                opts.seed
            ),
            None => " Without `--holdout` the metrics are measured on the pairs the threshold was \
                      chosen on, and so are optimistic."
                .into(),
        }
    ));
    md.push_str(if opts.pairs.is_some() {
        "Precision here is precision on the labelled pairs: a corpus has far more \
         non-duplicate pairs than most labelled samples, so expect lower precision on the whole \
         corpus at the same threshold. "
    } else {
        ""
    });
    md.push_str(
        "Algorithms marked \"its own decision\" decide by something \
         their score does not follow (supershingle votes, MD5 equality); they are measured on the \
         pairs they report.\n\n",
    );
    if let Some(best) = outcomes
        .iter()
        .find(|o| o.error.is_none() && o.note.is_none())
    {
        md.push_str(&format!(
            "**Recommended:** `{} {}`\n\n```sh\n{}\n```\n\n",
            best.algorithm,
            render_params(&best.all_params()),
            command(best)
        ));
        if let Some((b, r, recall)) = best.banding {
            md.push_str(&format!(
                "MinHash-LSH bands the signatures before verifying: {b} bands × {r} rows for \
                 this threshold give a predicted recall of {recall:.3} (S-curve at the \
                 duplicates' scores) against {:.3} if every pair were verified.\n\n",
                best.chosen.map_or(0.0, |c| c.recall())
            ));
        }
    }
    md.push_str("## Ranking\n\n");
    let head = header(holdout);
    md.push_str(&format!("| {} |\n", head.join(" | ")));
    md.push_str(&format!("|{}\n", "---|".repeat(head.len())));
    for r in table_rows(outcomes, holdout) {
        md.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    let lsh: Vec<&Outcome> = outcomes.iter().filter(|o| o.banding.is_some()).collect();
    if !lsh.is_empty() {
        md.push_str(
            "\n## What banding costs (minhash-lsh)\n\n| parameters | threshold | bands × rows | \
             recall, all pairs verified | predicted recall with banding |\n|---|---|---|---|---|\n",
        );
        for o in lsh {
            let (b, r, rec) = o.banding.unwrap_or_default();
            md.push_str(&format!(
                "| {} | {} | {b} × {r} | {:.3} | {rec:.3} |\n",
                render_params(&o.params),
                o.chosen.map_or(0.0, |c| c.threshold),
                o.chosen.map_or(0.0, |c| c.recall())
            ));
        }
    }
    for c in &charts {
        md.push_str(&format!(
            "\n## {}\n\n![{}]({})\n\n{}\n",
            c.title, c.title, c.png, c.caption
        ));
    }
    crate::fsutil::write_bytes(&dir.join("README.md"), md.as_bytes())?;
    let rows: Vec<Value> = outcomes.iter().map(|o| to_json(o, &command(o))).collect();
    crate::fsutil::write_bytes(
        &dir.join("calibration.json"),
        serde_json::to_string_pretty(&rows)?.as_bytes(),
    )?;
    Ok(())
}
