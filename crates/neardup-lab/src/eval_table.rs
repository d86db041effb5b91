//! `neardup eval --format table`: the evaluation for a person — one aligned row per
//! configuration with the parameters that decided it — and, where a configuration missed
//! duplicates, why: the exact Jaccard similarity of the missed pairs' word 5-shingles (the
//! unit the defaults are tuned for) against what the configuration looks for. A newcomer who
//! sees minhash-lsh find a fifth of 5 %-substituted copies learns there and then that such
//! copies sit near Jaccard 0.55 while the default threshold is 0.8.

use std::io::Write;

use neardup::features::FeatureParams;
use neardup::features::similarity::jaccard;

use crate::corpus::Corpus;
use crate::eval::{Config, DumpRow, Row};

/// At most this many missed pairs are measured per configuration (the first, in document
/// order): enough for a median, bounded on a large corpus.
const MEASURED: usize = 2_000;

/// One configuration's line and what its missed pairs look like.
#[derive(Debug)]
pub struct TableRow {
    row: Row,
    decided_by: String,
    /// Exact word 5-shingle Jaccard of (up to [`MEASURED`]) missed duplicates, sorted.
    missed: Vec<f64>,
}

/// The row of `config`, with its missed pairs among `pairs` measured on `corpus`.
pub fn table_row(row: Row, config: &Config, pairs: &[DumpRow], corpus: &Corpus) -> TableRow {
    let decided_by = neardup::registry::detector(&config.algorithm, &config.params)
        .map(|d| crate::params::deciding_params(d.as_ref()))
        .unwrap_or_default();
    let texts = corpus.texts();
    let shingler = FeatureParams::words(5).shingler(0);
    let mut missed: Vec<f64> = pairs
        .iter()
        .filter(|p| p.outcome == "missed")
        .take(MEASURED)
        .map(|p| {
            jaccard(
                &shingler.set(texts[p.a as usize]),
                &shingler.set(texts[p.b as usize]),
            )
        })
        .collect();
    missed.sort_by(f64::total_cmp);
    TableRow {
        row,
        decided_by,
        missed,
    }
}

fn cell(v: Option<f64>, decimals: usize) -> String {
    v.map_or("–".into(), |x| format!("{x:.decimals$}"))
}

/// Prints the table, then a note per configuration that missed duplicates.
pub fn print(rows: &[TableRow], out: &mut impl Write) -> anyhow::Result<()> {
    let name = |r: &TableRow| {
        if r.row.params.is_empty() {
            r.row.algorithm.clone()
        } else {
            format!("{} {}", r.row.algorithm, r.row.params)
        }
    };
    let width = rows
        .iter()
        .map(|r| name(r).len())
        .max()
        .unwrap_or(0)
        .max(13);
    let cut = rows
        .iter()
        .map(|r| r.decided_by.len())
        .max()
        .unwrap_or(0)
        .max(10);
    writeln!(
        out,
        "{:<width$}  {:<cut$}  {:>9}  {:>9}  {:>6}  {:>6}  {:>6}  {:>8}",
        "configuration", "decided by", "reported", "true", "P", "R", "F1", "docs/s"
    )?;
    for r in rows {
        let g = |c: &str| r.row.get(c);
        let count = |c: &str| g(c).map_or("–".into(), |v| format!("{v:.0}"));
        writeln!(
            out,
            "{:<width$}  {:<cut$}  {:>9}  {:>9}  {:>6}  {:>6}  {:>6}  {:>8}",
            name(r),
            r.decided_by,
            count("reported_pairs"),
            count("true_pairs"),
            cell(g("precision"), 3),
            cell(g("recall"), 3),
            cell(g("f1"), 3),
            count("docs_per_s"),
        )?;
    }
    for r in rows {
        if let Some(note) = missed_note(r) {
            writeln!(out, "\n{note}")?;
        }
        if let Some(e) = &r.row.error {
            writeln!(out, "\n{}: failed: {e}", name(r))?;
        }
    }
    Ok(())
}

/// Why `r` missed what it missed, when it missed anything.
fn missed_note(r: &TableRow) -> Option<String> {
    let missed = r.row.get("fn")? as usize;
    if missed == 0 || r.missed.is_empty() {
        return None;
    }
    let at = |q: f64| r.missed[((r.missed.len() - 1) as f64 * q).round() as usize];
    let measured = if r.missed.len() < missed {
        format!(" (the first {} measured)", r.missed.len())
    } else {
        String::new()
    };
    Some(format!(
        "{}: missed {missed} duplicates{measured}; their exact Jaccard of word 5-shingles has \
         median {:.2} (quartiles {:.2}–{:.2}), and it ran with {}. The defaults are set for close \
         copies (minhash-lsh: Jaccard ≥ 0.8 of word 5-shingles, where a copy with 5 % of its \
         words changed sits near 0.55): lower the cut to where the missed pairs are (minhash-lsh: \
         --param threshold=0.5), or let `neardup calibrate` choose it from labelled pairs.",
        r.row.algorithm,
        at(0.5),
        at(0.25),
        at(0.75),
        if r.decided_by.is_empty() {
            "its defaults".to_string()
        } else {
            r.decided_by.clone()
        }
    ))
}
