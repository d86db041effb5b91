//! `reports/choosing-parameters/README.md`: the guide that answers "which b, r, k and tables
//! should I use?" — tuned LSH bandings over thresholds × permutations, permuted-table designs
//! over corpus sizes × distances with the chance pairs each k lets in, and pointers to the
//! measured reports. Everything here is computed by the same library functions `neardup lsh
//! tune` and `neardup hamming tune` print, so the guide and the tuners never disagree.

use std::fmt::Write as _;
use std::path::Path;

use neardup::hamming::design::{best_for_join, examined_per_query, random_pairs_within};
use neardup::minhash::banding::{
    RECALL_AT_THRESHOLD, candidate_probability, tune, tune_for_recall,
};
use neardup::resources::human_bytes;

use super::charts as guide_charts;
use super::measurements::{
    COMMITTED_FILE, FULL_SIZE, Measured, Measurements, SEED, SIMHASH_DISTANCES, SIMHASH_LEVELS,
    measure_all,
};
use crate::error::LabError;
use neardup_dedup::fsutil::write_bytes;

/// Thresholds the guide tunes for.
const THRESHOLDS: [f64; 8] = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
/// Permutation counts, from sketch-only tools' defaults up to Lee et al.'s 9,000.
const NUM_PERMS: [usize; 7] = [64, 128, 256, 512, 1024, 4096, 9000];
/// The permutations whose trade-offs get their own table and chart.
const DETAIL_PERMS: usize = 128;
/// Hamming distances.
const DISTANCES: [u32; 6] = [1, 2, 3, 4, 5, 6];

/// Corpus sizes: 10^6 … 10^9 and Manku's 2^34.
fn sizes() -> Vec<(String, f64)> {
    vec![
        ("10^6".into(), 1e6),
        ("10^7".into(), 1e7),
        ("10^8".into(), 1e8),
        ("10^9".into(), 1e9),
        ("2^34".into(), 2f64.powi(34)),
    ]
}

/// The header of a table with one row per k and one column per corpus size.
fn by_size_header(sizes: &[(String, f64)]) -> String {
    let columns: Vec<String> = sizes.iter().map(|(n, _)| format!("N = {n}")).collect();
    format!(
        "| k | {} |\n|---|{}\n",
        columns.join(" | "),
        "---|".repeat(sizes.len())
    )
}

/// A count with an exponent when large.
fn count(v: f64) -> String {
    if v < 0.01 {
        format!("{v:.1e}")
    } else if v < 10_000.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.2e}")
    }
}

fn lsh_section(dir: &Path, s: &mut String) -> anyhow::Result<()> {
    let _ = writeln!(
        s,
        "## Which (b, r) for a MinHash threshold?\n\n\
         The banding `neardup dedup` runs (`threshold` given, `bands`/`rows` left at 0) \
         for each target threshold t and number of permutations: b × r, the banding's own \
         threshold (1/b)^(1/r) in brackets. Every candidate is verified on the full \
         signature, so a false candidate costs one comparison while a pair the banding \
         misses is lost: the banding is chosen for **recall at the threshold**, \
         P(candidate | J = t) ≥ {RECALL_AT_THRESHOLD}, with the fewest false candidates. \
         `neardup lsh tune --threshold T --num-perm N` gives the same answer. datasketch's \
         balanced banding (`--objective balanced`: the least false-positive plus \
         false-negative area) suits candidates that are not verified; at t = 0.8 and 128 \
         permutations it is {balanced}, finding {found:.0} % of the pairs at t.\n",
        balanced = {
            let b = tune(0.8, 128, 0.5)?;
            format!("{} × {}", b.bands, b.rows)
        },
        found = {
            let b = tune(0.8, 128, 0.5)?;
            100.0 * candidate_probability(0.8, b.bands, b.rows)
        }
    );
    let _ = writeln!(
        s,
        "| t | {} |\n|---|{}",
        NUM_PERMS.map(|n| format!("{n} perms")).join(" | "),
        "---|".repeat(NUM_PERMS.len())
    );
    for t in THRESHOLDS {
        let mut cells = Vec::new();
        for n in NUM_PERMS {
            let b = tune_for_recall(t, n, RECALL_AT_THRESHOLD)?;
            cells.push(format!("{} × {} ({:.2})", b.bands, b.rows, b.threshold));
        }
        let _ = writeln!(s, "| {t} | {} |", cells.join(" | "));
    }
    let _ = writeln!(
        s,
        "\n### What the banding costs at {DETAIL_PERMS} permutations\n\n\
         P(candidate) for pairs just below and above t: the first columns are the share of \
         dissimilar pairs still verified, the last ones the share of similar pairs found.\n\n\
         | t | b × r | unused perms | P(t − 0.1) | P(t − 0.05) | P(t) | P(t + 0.05) | P(t + 0.1) |\n\
         |---|---|---|---|---|---|---|---|"
    );
    let mut tuned = Vec::new();
    for t in THRESHOLDS {
        let b = tune_for_recall(t, DETAIL_PERMS, RECALL_AT_THRESHOLD)?;
        let p = |s: f64| {
            if (0.0..=1.0).contains(&s) {
                format!("{:.3}", candidate_probability(s, b.bands, b.rows))
            } else {
                "–".into()
            }
        };
        let _ = writeln!(
            s,
            "| {t} | {} × {} | {} | {} | {} | {} | {} | {} |",
            b.bands,
            b.rows,
            DETAIL_PERMS - b.bands * b.rows,
            p(t - 0.1),
            p(t - 0.05),
            p(t),
            p(t + 0.05),
            p(t + 0.1)
        );
        tuned.push((t, b));
    }
    let chart = guide_charts::tuned_scurves(dir, DETAIL_PERMS, &tuned)?;
    let _ = writeln!(s, "\n{}", chart.markdown());
    Ok(())
}

fn hamming_section(dir: &Path, s: &mut String) -> anyhow::Result<()> {
    let _ = writeln!(
        s,
        "## Which permuted-table design for N SimHash fingerprints and distance k?\n\n\
         Manku et al. (WWW 2007, §3.1.1) find every fingerprint within k bits by keeping T \
         copies of the fingerprints, each sorted on a different p-bit prefix: a query \
         examines about T · 2^(log2 N − p) fingerprints, the tables take T · N · 12 bytes \
         (64-bit fingerprint + 4-byte id). Each cell is the design neardup picks for f = 64 \
         — the lowest modelled cost of finding every pair: a sort per table plus the \
         candidates checked — with tables, shortest prefix p, fingerprints examined per \
         query, memory. `neardup hamming tune --bits 64 --distance K --fingerprints N` lists \
         every design and recommends by the same rule (`--memory BYTES`: within a budget).\n"
    );
    let sizes = sizes();
    s.push_str(&by_size_header(&sizes));
    let mut points = Vec::new();
    for k in DISTANCES {
        let mut cells = Vec::new();
        for (_, n) in &sizes {
            let d = best_for_join(64, k, *n as usize)?;
            let examined = examined_per_query(&d, *n);
            points.push((k, *n, examined));
            cells.push(format!(
                "{} tables, p = {}, {} examined, {}",
                d.tables.len(),
                d.min_prefix_bits(),
                count(examined),
                human_bytes(d.memory_bytes(*n).min(u64::MAX as f64) as u64)
            ));
        }
        let _ = writeln!(s, "| {k} | {} |", cells.join(" | "));
    }
    let chart = guide_charts::design_costs(dir, &points)?;
    let _ = writeln!(s, "\n{}", chart.markdown());
    let _ = writeln!(
        s,
        "### How many unrelated pairs does k let in?\n\n\
         Unrelated documents have fingerprints that look random, so among N of them about \
         C(N, 2) · Σ_{{i ≤ k}} C(64, i) / 2^64 pairs lie within k bits by chance — reported as \
         near-duplicates whatever the design. This bounds precision on a large corpus: \
         compare the count with the near-duplicate pairs you expect, and when chance pairs \
         approach them, lower k or use 128-bit fingerprints (`bits = 128`).\n"
    );
    s.push_str(&by_size_header(&sizes));
    for k in DISTANCES {
        let cells: Vec<String> = sizes
            .iter()
            .map(|(_, n)| count(random_pairs_within(64, k, *n)))
            .collect();
        let _ = writeln!(s, "| {k} | {} |", cells.join(" | "));
    }
    s.push('\n');
    Ok(())
}

/// "P / R" of a row, two decimals, "–" where undefined.
fn precision_recall(m: &Measured) -> String {
    let f = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.3}"));
    format!("{} / {}", f(m.precision()), f(m.recall()))
}

/// A table with one row per setting and one "pairs: P / R" cell per corpus size.
fn measured_table(s: &mut String, rows: &[&Measured], setting: &str) {
    let mut sizes: Vec<usize> = rows.iter().map(|r| r.docs).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let _ = writeln!(
        s,
        "| {setting} | {} |\n|---|{}",
        sizes
            .iter()
            .map(|n| format!("{} docs: pairs, P / R", group(*n)))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(sizes.len())
    );
    let mut settings: Vec<f64> = rows.iter().map(|r| r.setting).collect();
    settings.sort_by(f64::total_cmp);
    settings.dedup();
    for v in settings {
        let cells: Vec<String> = sizes
            .iter()
            .map(|&n| {
                rows.iter()
                    .find(|r| r.docs == n && r.setting == v)
                    .map_or("–".into(), |r| {
                        format!("{}: {}", group(r.reported as usize), precision_recall(r))
                    })
            })
            .collect();
        let _ = writeln!(s, "| {v} | {} |", cells.join(" | "));
    }
    s.push('\n');
}

/// An integer with thousands separators.
fn group(n: usize) -> String {
    crate::charts::style::whole(&(n as f64))
}

/// The lines of a measured chart: one per setting of the rows `keep` accepts.
fn measured_lines(
    rows: &[Measured],
    keep: impl Fn(&Measured) -> bool,
    name: impl Fn(f64) -> String,
) -> Vec<guide_charts::MeasuredLine> {
    let picked: Vec<&Measured> = rows.iter().filter(|r| keep(r)).collect();
    let mut settings: Vec<f64> = picked.iter().map(|r| r.setting).collect();
    settings.sort_by(f64::total_cmp);
    settings.dedup();
    settings
        .into_iter()
        .map(|v| {
            let points = picked
                .iter()
                .filter(|r| r.setting == v)
                .map(|r| (r.docs as f64, r.precision(), r.recall()))
                .collect();
            (name(v), points)
        })
        .collect()
}

/// F1 of a row (0 when nothing is reported or nothing is true).
fn f1(m: &Measured) -> f64 {
    let d = m.reported + m.true_pairs;
    if d == 0 {
        0.0
    } else {
        2.0 * m.tp as f64 / d as f64
    }
}

fn measured_section(dir: &Path, s: &mut String, m: &Measurements) -> anyhow::Result<()> {
    measured_corpora(s, m);
    let largest = m.rows.iter().map(|r| r.docs).max().unwrap_or(0);
    measured_minhash(dir, s, m)?;
    run_below_the_level(s, m, largest);
    measured_simhash(dir, s, m, largest)?;
    let _ = writeln!(
        s,
        "### More measurements\n\n\
         - [SimHash k and random projection's agreement](../simhash-k/README.md): precision \
           and recall of k = 0 … 10 at f = 64 and 128 on 1,000 documents with planted edits.\n\
         - [LSH S-curves](../scurves/README.md): the share of pairs that become candidates \
           at each true Jaccard similarity, for the (b, r) people use, against the formula.\n\
         - [Real corpora](../real-corpora/README.md) and [published \
           configurations](../published/README.md): what the usual settings find on \
           translations and license variants.\n\
         - Your own labelled pairs: `neardup calibrate --corpus FILE --pairs FILE` sweeps \
           the build grid, picks the threshold with bootstrap intervals and prints the \
           command line to use.\n"
    );
    Ok(())
}

/// What was measured: the corpora and their exact joins.
fn measured_corpora(s: &mut String, m: &Measurements) {
    let _ = writeln!(
        s,
        "## What do t and k report on a corpus of 10^4–10^6 documents?\n\n\
         Measured by `neardup reproduce` on the embedded synthetic English (seed {SEED}) with \
         planted copies: ten edit models (words substituted at 0.5–8 %, sentences reordered, \
         boilerplate, truncation, typos) each copy 1 % of the sources, so pair similarities \
         spread from about 0.4 to 1. A pair is a true near-duplicate at level t when the exact \
         Jaccard similarity of its word 5-shingle sets (the detectors' default features) is \
         at least t — every such pair in the corpus, planted or accidental, found by the exact \
         prefix-filtered similarity join, not by sampling:\n"
    );
    let _ = writeln!(
        s,
        "| documents | text | pairs with Jaccard ≥ 0.5 | exact join |\n|---|---|---|---|"
    );
    for &(docs, pairs, seconds) in &m.joins {
        let bytes = m
            .rows
            .iter()
            .find(|r| r.docs == docs)
            .map_or(0, |r| r.text_bytes);
        let when = match m.committed.iter().find(|(d, _)| *d == docs) {
            Some((_, p)) => format!(" (committed: revision `{}`, {})", p.revision, p.date),
            None => String::new(),
        };
        let _ = writeln!(
            s,
            "| {}{when} | {} | {} | {seconds:.1} s |",
            group(docs),
            human_bytes(bytes as u64),
            group(pairs)
        );
    }
    if !m.committed.is_empty() {
        let _ = writeln!(
            s,
            "\nRows marked *committed* are not measured by every `neardup reproduce`: the \
             corpus of 10^6 documents takes minutes and about 7 GB for its exact ground truth. \
             They come from `{COMMITTED_FILE}` beside this report, written by \
             `neardup reproduce --guide-full` at the revision and on the day shown.\n"
        );
    } else if !m.joins.iter().any(|(d, _, _)| *d >= FULL_SIZE / 2) {
        let _ = writeln!(
            s,
            "\nThe 10^6-document corpus is measured by `neardup reproduce --guide-full` (minutes, \
             about 7 GB); no record of it was found beside this report.\n"
        );
    }
}

/// MinHash-LSH at each threshold t against Jaccard ≥ t: table and chart.
fn measured_minhash(dir: &Path, s: &mut String, m: &Measurements) -> anyhow::Result<()> {
    let minhash: Vec<&Measured> = m
        .rows
        .iter()
        .filter(|r| r.algorithm == "minhash-lsh" && r.level == r.setting)
        .collect();
    let _ = writeln!(
        s,
        "\n### MinHash-LSH: threshold t against Jaccard ≥ t\n\n\
         `minhash-lsh` with its defaults (128 permutations, candidates verified on the full \
         signature, so the banding is tuned for recall at the threshold: P(candidate | J = t) \
         ≥ 0.95, the banding of the table above, `neardup lsh tune`'s answer) at each \
         threshold t; each cell: pairs reported, precision / \
         recall against the pairs with exact Jaccard ≥ t. Recall below 1 has two causes: the \
         banding misses a few pairs near t, and verification drops pairs whose 128-permutation \
         estimate falls under t (and keeps some just below it: precision).\n"
    );
    measured_table(s, &minhash, "t");
    let lines = measured_lines(
        &m.rows,
        |r| r.algorithm == "minhash-lsh" && r.level == r.setting,
        |t| format!("t = {t}"),
    );
    let chart = guide_charts::measured(
        dir,
        "measured-minhash",
        "MinHash-LSH at threshold t against exact Jaccard ≥ t",
        &lines,
        "Precision (left) and recall (right) of `minhash-lsh` at each threshold t, against \
         every pair whose exact Jaccard similarity is at least t, as the corpus grows."
            .into(),
    )?;
    let _ = writeln!(s, "{}", chart.markdown());
    Ok(())
}

/// At the largest corpus, each threshold against each level: to find more of the pairs above
/// a level, run below it.
fn run_below_the_level(s: &mut String, m: &Measurements, largest: usize) {
    // Running below the level you care about: the cross table at the largest corpus.
    let cross: Vec<&Measured> = m
        .rows
        .iter()
        .filter(|r| r.algorithm == "minhash-lsh" && r.docs == largest)
        .collect();
    let mut levels: Vec<f64> = cross.iter().map(|r| r.level).collect();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    let _ = writeln!(
        s,
        "#### To find more of the pairs above a level, run below it\n\n\
         At {} documents: each row runs `minhash-lsh` at threshold t, each column scores its \
         pairs against Jaccard ≥ the column's level (precision / recall).\n\n\
         | run at t | {} |\n|---|{}",
        group(largest),
        levels
            .iter()
            .map(|l| format!("J ≥ {l}"))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(levels.len())
    );
    let mut runs: Vec<f64> = cross.iter().map(|r| r.setting).collect();
    runs.sort_by(f64::total_cmp);
    runs.dedup();
    for &t in &runs {
        let cells: Vec<String> = levels
            .iter()
            .map(|&l| {
                cross
                    .iter()
                    .find(|r| r.setting == t && r.level == l)
                    .map_or("–".into(), |r| precision_recall(r))
            })
            .collect();
        let _ = writeln!(s, "| {t} | {} |", cells.join(" | "));
    }
    let mut advice = Vec::new();
    for &l in &levels {
        let own = cross.iter().find(|r| r.setting == l && r.level == l);
        let enough = cross
            .iter()
            .filter(|r| r.level == l && r.recall().is_some_and(|v| v >= 0.95))
            .max_by(|a, b| a.setting.total_cmp(&b.setting));
        if let (Some(own), Some(e)) = (own, enough)
            && e.setting < l
        {
            advice.push(format!(
                "For recall ≥ 0.95 of the pairs with Jaccard ≥ {l}, run at t = {} \
                     (precision {:.3}); at t = {l} recall is {:.3}.",
                e.setting,
                e.precision().unwrap_or(0.0),
                own.recall().unwrap_or(0.0)
            ));
        }
    }
    let _ = write!(s, "\n{}", advice.join(" "));
    s.push_str("\n\n");
}

/// SimHash at each distance k against the Jaccard levels: tables, best F1, chart.
fn measured_simhash(
    dir: &Path,
    s: &mut String,
    m: &Measurements,
    largest: usize,
) -> anyhow::Result<()> {
    let _ = writeln!(
        s,
        "### SimHash: distance k against Jaccard levels\n\n\
         `simhash` with its defaults (f = 64, words weighted by tf-idf, the join's table \
         design) at each distance k. SimHash estimates the angle between weighted word \
         vectors, not Jaccard of shingles, so no k equals a threshold t: the tables score \
         the same pairs against {} levels.\n",
        SIMHASH_LEVELS.len()
    );
    for level in SIMHASH_LEVELS {
        let rows: Vec<&Measured> = m
            .rows
            .iter()
            .filter(|r| r.algorithm == "simhash" && r.level == level)
            .collect();
        let _ = writeln!(s, "Against Jaccard ≥ {level}:\n");
        measured_table(s, &rows, "k");
        if let Some(best) = rows.iter().filter(|r| r.docs == largest).max_by(|a, b| {
            f1(a)
                .total_cmp(&f1(b))
                .then(b.setting.total_cmp(&a.setting))
        }) {
            let edge = SIMHASH_DISTANCES
                .last()
                .is_some_and(|&k| best.setting == k as f64);
            let _ = writeln!(
                s,
                "At {} documents the best F1 against Jaccard ≥ {level} is {:.3}, at k = {} \
                 (precision {:.3}, recall {:.3}){}.\n",
                group(largest),
                f1(best),
                best.setting,
                best.precision().unwrap_or(0.0),
                best.recall().unwrap_or(0.0),
                if edge {
                    " — the largest k measured, so a larger k may do better still; the \
                     chance pairs above say what it costs at larger N"
                } else {
                    ""
                }
            );
        }
    }
    let level = SIMHASH_LEVELS[SIMHASH_LEVELS.len() - 1];
    let lines = measured_lines(
        &m.rows,
        |r| r.algorithm == "simhash" && r.level == level,
        |k| format!("k = {k}"),
    );
    let chart = guide_charts::measured(
        dir,
        "measured-simhash",
        &format!("SimHash (f = 64) at distance k against exact Jaccard ≥ {level}"),
        &lines,
        format!(
            "Precision (left) and recall (right) of `simhash` at each distance k, against \
             every pair whose exact Jaccard similarity is at least {level}, as the corpus \
             grows."
        ),
    )?;
    let _ = writeln!(s, "{}", chart.markdown());
    Ok(())
}

/// Writes `out/choosing-parameters/README.md` and its charts, measuring corpora of `sizes`
/// documents (`neardup reproduce`: [`SIZES`]); the measurements are cached in `cache`
/// (recomputed with `force`). The 10^6-document measurement runs with `full` and is shown
/// from its committed record otherwise.
pub fn write(
    out: &Path,
    cache: &Path,
    sizes: &[usize],
    force: bool,
    full: bool,
) -> anyhow::Result<()> {
    let dir = out.join("choosing-parameters");
    std::fs::create_dir_all(&dir).map_err(|e| LabError::io(&dir, e))?;
    let mut s = String::from(
        "# Choosing parameters: b, r, k and tables\n\n\
         Generated by `neardup reproduce`: the tables from the library's formulas (the same \
         ones `neardup lsh tune` and `neardup hamming tune` print), the last section measured \
         on corpora of 10^4–10^6 documents. Start from your threshold: a MinHash \
         Jaccard threshold t picks (b, r); a SimHash distance k and your corpus size pick the \
         tables. Then check on your data with `neardup calibrate`.\n\n",
    );
    lsh_section(&dir, &mut s)?;
    hamming_section(&dir, &mut s)?;
    // What t and k report on real corpus sizes: its own page, a link away.
    let charts = crate::report::CHARTS_FILE;
    let _ = writeln!(
        s,
        "## What do t and k report on a corpus of 10^4–10^6 documents?\n\n\
         [{charts}]({charts}): MinHash-LSH's threshold t and SimHash's distance k run on \
         corpora of 10^4–10^6 documents with planted near-duplicates, against their exact \
         joins — the pairs found at each Jaccard level, and how far below a level to run to \
         find more of the pairs above it.\n"
    );
    let measured = measure_all(sizes, cache, force, Some((&dir, full)))?;
    let mut page = String::from("# Choosing parameters: measured on 10^4–10^6 documents\n\n");
    measured_section(&dir, &mut page, &measured)?;
    let info = crate::report::RunInfo::current();
    for text in [&mut s, &mut page] {
        let _ = writeln!(
            text,
            "Revision `{}`, neardup {}.",
            info.revision, info.version
        );
    }
    write_bytes(&dir.join(charts), page.as_bytes())?;
    write_bytes(&dir.join("README.md"), s.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guide's tables are what `neardup dedup` runs: every banding fits its permutations
    /// and finds at least 95 % of the pairs at its threshold.
    #[test]
    fn tuned_bandings_fit_and_find_the_pairs_at_their_threshold() {
        for t in THRESHOLDS {
            for n in NUM_PERMS {
                let b = tune_for_recall(t, n, RECALL_AT_THRESHOLD).unwrap();
                assert!(b.bands * b.rows <= n, "t={t} n={n}: {b:?}");
                let p = candidate_probability(t, b.bands, b.rows);
                assert!(p >= RECALL_AT_THRESHOLD, "t={t} n={n}: {b:?} P = {p}");
            }
        }
    }

    #[test]
    fn writes_the_guide_with_both_charts() {
        let dir = std::env::temp_dir().join(format!("neardup-guide-{}", std::process::id()));
        write(&dir, &dir.join("cache"), &[2_000, 4_000], false, false).unwrap();
        let text = std::fs::read_to_string(dir.join("choosing-parameters/README.md")).unwrap();
        assert!(text.contains("## Which (b, r)") && text.contains("N = 2^34"));
        assert!(text.contains("](CHARTS.md)"), "{text}");
        let text = std::fs::read_to_string(dir.join("choosing-parameters/CHARTS.md")).unwrap();
        // Three measured tables (MinHash, SimHash at two levels), each with both sizes, and
        // the cross table of thresholds against levels.
        assert_eq!(text.matches("docs: pairs, P / R").count(), 6, "{text}");
        assert!(text.contains("| run at t | J ≥ 0.5 |"), "{text}");
        for c in [
            "tuned-scurves.png",
            "design-costs.png",
            "measured-minhash.png",
            "measured-simhash.png",
        ] {
            assert!(
                dir.join("choosing-parameters/charts").join(c).is_file(),
                "{c}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
