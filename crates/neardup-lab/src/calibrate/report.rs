//! What `neardup calibrate` shows: the ranking as a table, CSV or JSON, the recommended
//! command line, and the report directory (README.md with the method, the ranking, what
//! banding costs, and the charts; calibration.json).

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};

use super::charts::{Panel, Series};
use super::labelled_pairs;
use super::options::{HARD_NEGATIVE_JACCARD, Options, Outcome, RankBy};
use super::resampling::Intervals;
use crate::output_format::ReportFormat;
use crate::params::{render_params, render_value};
use neardup_dedup::pipeline::next_steps::shell_word;

/// Prints the ranking (best first) in `format`.
pub(crate) fn print(
    outcomes: &[Outcome],
    opts: &Options,
    alerts: &[String],
    format: ReportFormat,
    documents: usize,
    out: &mut impl Write,
) -> Result<()> {
    if format != ReportFormat::Text {
        // The rows are the contract of JSON and CSV; the alerts go where a person sees them.
        for a in alerts {
            eprintln!("neardup: WARNING: {a}");
        }
    }
    match format {
        ReportFormat::Json => {
            let rows: Vec<Value> = outcomes.iter().map(|o| to_json(o, opts)).collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        }
        ReportFormat::Csv => {
            let mut w = csv::Writer::from_writer(&mut *out);
            for (i, o) in outcomes.iter().enumerate() {
                let row = to_json(o, opts);
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
        ReportFormat::Text => write_text(outcomes, opts, alerts, documents, out)?,
    }
    Ok(())
}

/// The configuration to recommend: the best ranked that chose a setting.
pub(crate) fn recommended(outcomes: &[Outcome]) -> Option<&Outcome> {
    outcomes
        .iter()
        .find(|o| o.error.is_none() && o.note.is_none())
}

/// What the threshold was chosen for, in words.
fn objective_label(opts: &Options) -> String {
    match opts.target_precision {
        Some(p) => format!("highest recall at precision ≥ {p}"),
        None => "highest F1".into(),
    }
}

/// How the configurations are ranked, and what the cluster columns are, in a sentence.
fn ranking_rule(opts: &Options) -> String {
    let by = match opts.rank_by {
        Some(RankBy::Clusters) => {
            "Ranked by the B-cubed F1 of the clusters deduplicating the whole \
            corpus would make (verified clusters; * connected components, for algorithms that \
            cannot compare any pair) against its cluster labels: pair F1 does not see a \
            threshold that chains many documents into a few clusters; --rank-by pairs ranks by \
            the pair objective."
                .to_string()
        }
        _ => format!("Ranked by the {}.", objective_label(opts)),
    };
    format!(
        "{by} Removed: the documents deduplicating the whole corpus with the chosen setting \
         would remove, and its largest cluster (`*`: connected components, for algorithms \
         that cannot compare any pair; `!`: more than half the corpus removed or a cluster of \
         more than a quarter of it — look at its pairs before using it)."
    )
}

/// What the 95 % intervals are, in a few sentences: how they are computed and, on a
/// cluster-labelled corpus, that they describe other corpora of such clusters rather than
/// doubt about this one (every pair inside a cluster is labelled: licenses' precision interval
/// [0.336, 0.809] surrounds a point estimate within 0.0014 of the exact value).
fn interval_rule(opts: &Options) -> String {
    let (units, meaning) = match opts.pairs {
        Some(_) => (
            "documents",
            "They say how far the figures may be from those of the whole corpus, given how \
             few pairs are labelled.",
        ),
        None => (
            "clusters",
            "They say how much the figures would move on another corpus of clusters like \
             these, not how far they are from this corpus's own: every pair inside its \
             clusters is labelled, so on this corpus the point estimates are close to exact.",
        ),
    };
    format!(
        "Intervals (95 %): precision and recall are Wilson score intervals on the weighted \
         counts with Kish's effective number of pairs, widened to the bootstrap's where it is \
         wider; ROC-AUC likewise, on the smaller class's effective size (its variance is at \
         most AUC(1 − AUC) over it: Birnbaum and Klose 1957); F1 spans the F1 of the lower \
         and of the upper ends of precision's and recall's 97.5 % Wilson intervals (both hold \
         together at least 95 % of the time), widened likewise; the bootstrap: {} resamples of \
         the {units}, seed {}, threshold held fixed. {meaning}",
        opts.bootstrap, opts.seed
    )
}

/// Why the recommendation is the one it is, in a few words.
fn recommendation_basis(opts: &Options) -> String {
    match opts.rank_by {
        Some(RankBy::Clusters) => format!(
            "best clusters by B-cubed F1; threshold by {}",
            objective_label(opts)
        ),
        _ => objective_label(opts),
    }
}

/// Fewest duplicates and non-duplicates a choice should rest on.
pub(crate) const MIN_LABELS_PER_CLASS: usize = 30;

/// What should make a person wary of the recommendation: too few labels to choose on (fewer
/// than [`MIN_LABELS_PER_CLASS`] of a class), labels that cannot tell the first two
/// configurations apart (ranked by pairs: the runner-up's F1 inside the winner's interval),
/// and a banding that would make an impractical number of candidates on this corpus (the
/// weighted sample's expected candidates beyond the pair limit).
fn warnings(outcomes: &[Outcome], opts: &Options) -> Vec<String> {
    let mut out = Vec::new();
    let Some(best) = recommended(outcomes) else {
        return out;
    };
    let positives = best.observations.iter().filter(|o| o.0).count();
    let negatives = best.observations.len() - positives;
    if best.observations.is_empty() {
        // Measured on the pairs it reports: no observations kept; nothing to count.
    } else if positives.min(negatives) < MIN_LABELS_PER_CLASS {
        out.push(format!(
            "the choice rests on {positives} duplicate and {negatives} non-duplicate pairs, fewer \
             than {MIN_LABELS_PER_CLASS} of one kind: label more pairs before trusting it"
        ));
    }
    if opts.rank_by != Some(RankBy::Clusters)
        && let Some(second) = outcomes
            .iter()
            .filter(|o| o.error.is_none() && o.note.is_none())
            .nth(1)
        && let (Some(iv), Some(c)) = (best.intervals.as_ref(), second.chosen)
        && (iv.f1.0..=iv.f1.1).contains(&c.f1())
    {
        out.push(format!(
            "the labels cannot tell the first two configurations apart: the runner-up's F1 {:.3} \
             lies inside the winner's interval [{:.3}, {:.3}]",
            c.f1(),
            iv.f1.0,
            iv.f1.1
        ));
    }
    if let Some(candidates) = expected_candidates(best) {
        let limit = neardup::pairs::limit().unwrap_or(u64::MAX) as f64;
        if candidates > limit {
            out.push(format!(
                "its banding would make about {} candidate pairs on this corpus, more than the \
                 pair limit ({}): raise the threshold or set bands and rows",
                crate::charts::style::whole(&candidates),
                crate::charts::style::whole(&limit)
            ));
        }
    }
    out
}

/// The candidate pairs minhash-lsh's banding would make on the whole corpus, estimated from
/// the weighted sample: Σ weight × P(candidate | score) over the labelled pairs (each stands
/// for `weight` pairs of the corpus).
fn expected_candidates(o: &Outcome) -> Option<f64> {
    let (b, r, _) = o.banding?;
    (!o.observations.is_empty()).then(|| {
        o.observations
            .iter()
            .zip(&o.weights)
            .map(|(&(_, s), &w)| w * neardup::minhash::banding::candidate_probability(s, b, r))
            .sum()
    })
}

/// Whether the held-out F1 of `o` lands in the interval of its F1, in a sentence.
fn holdout_verdict(o: &Outcome) -> Option<String> {
    let held = o.holdout?.f1();
    let (lo, hi) = o.intervals.as_ref()?.f1;
    Some(if (lo..=hi).contains(&held) {
        format!("Held-out F1 {held:.3} lies in the interval [{lo:.3}, {hi:.3}].")
    } else {
        format!(
            "Held-out F1 {held:.3} lies outside the interval [{lo:.3}, {hi:.3}]: the clusters \
             held out differ from those chosen on (a few large clusters weigh most), so expect \
             the figures to move on other data."
        )
    })
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

/// `neardup dedup …` with the recommendation: the command a user runs next.
fn dedup_command(opts: &Options, o: &Outcome) -> String {
    let mut cmd = format!(
        "neardup dedup {} --output dedup-out --algorithm {}",
        shell_word(&opts.corpus.display().to_string()),
        o.algorithm
    );
    for (k, v) in o.all_params() {
        cmd.push_str(&format!(
            " --param {}",
            shell_word(&format!("{k}={}", render_value(&v)))
        ));
    }
    cmd
}

/// Rounds for display and JSON (6 decimals).
fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn to_json(o: &Outcome, opts: &Options) -> Value {
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
        "resolved_params": resolved_params(o),
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
        "holdout_f1_in_interval": o
            .holdout
            .zip(o.intervals.as_ref())
            .map(|(h, i)| (i.f1.0..=i.f1.1).contains(&h.f1())),
        "holdout_precision": o.holdout.map(|h| r6(h.precision())),
        "holdout_recall": o.holdout.map(|h| r6(h.recall())),
        "clusters": o.clusters.as_ref().map(|c| match c {
            Ok(_) => Value::Null,
            Err(e) => Value::String(e.clone()),
        }),
        "clusters_verified": effects(o).map(|c| c.verified),
        "documents_removed": effects(o).map(|c| c.removed),
        "largest_cluster": effects(o).map(|c| c.largest),
        "connected_documents_removed": effects(o).map(|c| c.connected_removed),
        "connected_removed_below_threshold": effects(o).and_then(|c| c.connected_below_threshold),
        "bcubed_precision": effects(o).and_then(|c| c.bcubed).map(|b| r6(b.0)),
        "bcubed_recall": effects(o).and_then(|c| c.bcubed).map(|b| r6(b.1)),
        "bcubed_f1": effects(o).and_then(|c| c.bcubed).map(|b| r6(b.2)),
        "ari": effects(o).and_then(|c| c.ari).map(r6),
        "bands": o.banding.map(|b| b.0),
        "rows": o.banding.map(|b| b.1),
        "banded_recall": o.banding.map(|b| r6(b.2)),
        "expected_candidates": expected_candidates(o).map(f64::round),
        "command": recommended_command(opts, o),
        "dedup_command": dedup_command(opts, o),
        "error": o.error,
    })
}

/// Every parameter of the chosen setting as it runs (defaults filled in and resolved: the
/// threshold, bands and rows of minhash-lsh), `None` when it has none.
fn resolved_params(o: &Outcome) -> Option<String> {
    let detector = neardup::registry::detector(&o.algorithm, &o.all_params()).ok()?;
    Some(render_params(&detector.resolved_params()))
}

/// What deduplicating with the chosen setting would do, when it was measured.
fn effects(o: &Outcome) -> Option<&super::clusters::ClusterEffects> {
    o.clusters.as_ref().and_then(|c| c.as_ref().ok())
}

/// "2,640 (207)": documents removed and the largest cluster, `*` marking connected
/// components (the algorithm cannot compare any pair, so its clusters are not verified) and
/// `!` a setting that sweeps the corpus (`alerts::sweeps`: the recommendation's loud
/// warning, here on every row, so a user reading the table does not copy such a row).
fn removed_cell(o: &Outcome, documents: usize) -> String {
    match &o.clusters {
        Some(Ok(c)) => format!(
            "{} ({}){}{}",
            crate::charts::style::whole(&c.removed),
            crate::charts::style::whole(&c.largest),
            if c.verified { "" } else { " *" },
            if super::alerts::sweeps(c, documents) {
                " !"
            } else {
                ""
            }
        ),
        Some(Err(e)) => format!("— ({e})"),
        None => "—".into(),
    }
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
fn table_rows(outcomes: &[Outcome], holdout: bool, documents: usize) -> Vec<Vec<String>> {
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
                removed_cell(o, documents),
                effects(o)
                    .and_then(|c| c.bcubed)
                    .map_or("—".into(), |b| format!("{:.3}", b.2)),
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
        "removed (largest cluster)",
        "B³ F1",
    ];
    if holdout {
        h.push("holdout F1");
    }
    h
}

fn write_text(
    outcomes: &[Outcome],
    opts: &Options,
    alerts: &[String],
    documents: usize,
    out: &mut impl Write,
) -> Result<()> {
    for a in alerts {
        writeln!(out, "WARNING: {a}\n")?;
    }
    let holdout = opts.holdout.is_some();
    let head = header(holdout);
    let rows = table_rows(outcomes, holdout, documents);
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
    writeln!(out, "{}", ranking_rule(opts))?;
    writeln!(out, "{}", interval_rule(opts))?;
    match recommended(outcomes) {
        Some(best) => {
            writeln!(
                out,
                "Recommended ({}): {} {}",
                recommendation_basis(opts),
                best.algorithm,
                render_params(&best.all_params())
            )?;
            if let Some(verdict) = holdout_verdict(best) {
                writeln!(out, "{verdict}")?;
            }
            for w in warnings(outcomes, opts) {
                writeln!(out, "Warning: {w}")?;
            }
            if let Some((b, r, recall)) = best.banding {
                writeln!(
                    out,
                    "Banding for that threshold: {b} bands × {r} rows; predicted recall with \
                     banding {recall:.3} (against {:.3} if every pair were verified).",
                    best.chosen.map_or(0.0, |c| c.recall())
                )?;
            }
            writeln!(
                out,
                "Check it on your labels:  {}",
                recommended_command(opts, best)
            )?;
            writeln!(
                out,
                "Next, deduplicate with it:  {}",
                dedup_command(opts, best)
            )?;
        }
        None => writeln!(out, "No configuration succeeded.")?,
    }
    Ok(())
}

/// Writes `DIR/README.md`, `DIR/calibration.json` and the charts.
pub(crate) fn write(
    dir: &Path,
    outcomes: &[Outcome],
    opts: &Options,
    alerts: &[String],
    labelled: &[labelled_pairs::Weighted],
    documents: usize,
) -> Result<()> {
    let charts = super::charts::draw(&panels(outcomes), dir)?;
    let mut md = introduction(opts, labelled, documents);
    for a in alerts {
        md.push_str(&format!("> **WARNING:** {a}\n\n"));
    }
    recommendation(&mut md, outcomes, opts);
    md.push_str(&ranking_rule(opts));
    md.push_str("\n\n");
    ranking(&mut md, outcomes, opts.holdout.is_some(), documents);
    for c in &charts {
        md.push_str(&format!(
            "\n## {}\n\n![{}]({})\n\n{}\n",
            c.title, c.title, c.png, c.caption
        ));
    }
    neardup_dedup::fsutil::write_bytes(&dir.join("README.md"), md.as_bytes())?;
    let rows: Vec<Value> = outcomes.iter().map(|o| to_json(o, opts)).collect();
    neardup_dedup::fsutil::write_bytes(
        &dir.join("calibration.json"),
        serde_json::to_string_pretty(&rows)?.as_bytes(),
    )?;
    Ok(())
}

/// One chart panel per algorithm, a series per configuration with observations.
fn panels(outcomes: &[Outcome]) -> Vec<Panel> {
    let mut panels: Vec<Panel> = Vec::new();
    for o in outcomes
        .iter()
        .filter(|o| !o.observations.is_empty() && o.note.is_none() && o.error.is_none())
    {
        let series = Series {
            name: render_params(&o.params),
            observations: o.observations.clone(),
            weights: o.weights.clone(),
            chosen: o
                .threshold_params
                .as_ref()
                .and(o.chosen.map(|c| c.threshold)),
            decided: o.threshold_params.is_none().then_some(o.chosen).flatten(),
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
    panels
}

/// What was calibrated on, how it was chosen, and how to read the figures.
fn introduction(opts: &Options, labelled: &[labelled_pairs::Weighted], documents: usize) -> String {
    let positives = labelled.iter().filter(|p| p.1).count();
    let mut md = String::new();
    md.push_str("# Calibration\n\n");
    md.push_str(&format!(
        "Corpus `{}`: {} documents. {} labelled pairs ({positives} duplicates, {} not){}.\n\n",
        opts.corpus.display(),
        documents,
        labelled.len(),
        labelled.len() - positives,
        match &opts.pairs {
            Some(p) => format!(" from `{}`", p.display()),
            None => format!(
                " implied by the cluster labels, a stratified sample of all the corpus's pairs: \
                 every pair inside a cluster (a uniform sample of {} when there are more), every \
                 cross-cluster pair with exact word 3-shingle Jaccard ≥ {HARD_NEGATIVE_JACCARD} \
                 (a uniform sample of as many as the duplicates when there are more), and {} × \
                 as many uniformly random other cross-cluster pairs as duplicates (at least {}). \
                 Each pair is weighted by the corpus pairs it stands for (the inverse of its \
                 chance to be drawn), so precision estimates the precision on the whole corpus",
                labelled_pairs::MAX_CLUSTER_POSITIVES,
                labelled_pairs::RANDOM_NEGATIVES_PER_DUPLICATE,
                labelled_pairs::MIN_RANDOM_NEGATIVES
            ),
        }
    ));
    md.push_str(&format!(
        "Chosen for: the {}. {}{}\n\n",
        objective_label(opts),
        interval_rule(opts),
        match opts.holdout {
            Some(f) => format!(
                " The threshold was chosen on the pairs of {:.0} % of the clusters (of the \
                 connected components of the labelled pairs, with `--pairs`); `holdout F1` is \
                 measured on the pairs of the other {:.0} %, which share no document with them \
                 (seed {}; pairs spanning both sides are left out, and each side's weights divided \
                 by its chance to hold a pair, so both estimate the whole corpus).",
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
    md
}

/// The recommended configuration and command, and what its banding costs.
fn recommendation(md: &mut String, outcomes: &[Outcome], opts: &Options) {
    if let Some(best) = recommended(outcomes) {
        md.push_str(&format!(
            "**Recommended:** `{} {}`\n\nCheck it on the labels, then deduplicate with \
             it:\n\n```sh\n{}\n{}\n```\n\n",
            best.algorithm,
            render_params(&best.all_params()),
            recommended_command(opts, best),
            dedup_command(opts, best)
        ));
        if let Some(verdict) = holdout_verdict(best) {
            md.push_str(&format!("{verdict}\n\n"));
        }
        for w in warnings(outcomes, opts) {
            md.push_str(&format!("> **Warning:** {w}\n\n"));
        }
        if let Some((b, r, recall)) = best.banding {
            md.push_str(&format!(
                "MinHash-LSH bands the signatures before verifying: {b} bands × {r} rows for \
                 this threshold give a predicted recall of {recall:.3} (S-curve at the \
                 duplicates' scores) against {:.3} if every pair were verified.\n\n",
                best.chosen.map_or(0.0, |c| c.recall())
            ));
        }
    }
}

/// Every configuration ranked, and the banding table of minhash-lsh.
fn ranking(md: &mut String, outcomes: &[Outcome], holdout: bool, documents: usize) {
    md.push_str("## Ranking\n\n");
    let head = header(holdout);
    md.push_str(&format!("| {} |\n", head.join(" | ")));
    md.push_str(&format!("|{}\n", "---|".repeat(head.len())));
    for r in table_rows(outcomes, holdout, documents) {
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
}
