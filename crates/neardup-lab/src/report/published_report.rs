//! `reports/published/README.md`: every figure of reports/published/SOURCES.md beside neardup's own.
//!
//! Two kinds of rows. Math rows (MMDS, Broder, Manku, Lee et al., FineWeb, Charikar) are
//! computed here by the library's own functions and must match the published value to its last
//! printed digit; the unit test at the bottom fails on any mismatch, and the library has a unit
//! test of its own for each. Configuration rows come from the `published-configs` experiment's
//! stored results (`results.csv`): the published parameters run on our corpora. The published
//! number sits in its own column and is never an input to ours.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use neardup::features::similarity::{jaccard, multiset_resemblance};
use neardup::features::{FeatureParams, ShingleKind};
use neardup::hamming::design::Design;
use neardup::minhash::banding::{candidate_probability, threshold};
use neardup::text::Normalization;

use crate::error::{LabError, Result};
use crate::experiment::config::{AlgorithmGrid, Experiment, Published};
use neardup_dedup::fsutil::write_bytes;

/// The experiment whose cells give the configuration rows.
pub const CONFIG_EXPERIMENT: &str = "published-configs";

/// Seed of the empirical Charikar check (printed in the report).
const CHARIKAR_SEED: u64 = 1_234;

/// One published figure and neardup's.
#[derive(Debug, Clone)]
pub struct MathRow {
    /// What is computed.
    pub quantity: String,
    /// As published.
    pub published: String,
    /// As neardup computes it.
    pub ours: String,
    /// Whether they agree (see [`decimal`] and [`exact`]).
    pub matches: bool,
}

/// The math rows of one source.
#[derive(Debug, Clone)]
pub struct MathTable {
    /// Source, as PUBLISHED.md names it.
    pub source: &'static str,
    /// How the rows were computed.
    pub note: String,
    /// Rows.
    pub rows: Vec<MathRow>,
}

/// A published decimal against a computed value: they match when they differ by less than one
/// unit of the published value's last digit (so both rounded and truncated printings match,
/// and nothing coarser does). Ours is shown with two more digits.
fn decimal(quantity: impl Into<String>, published: &str, ours: f64) -> MathRow {
    let digits = published.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    let value: f64 = published.parse().expect("published decimals are numbers");
    MathRow {
        quantity: quantity.into(),
        published: published.into(),
        ours: format!("{ours:.*}", (digits + 2) as usize),
        // Strictly less than one unit (the factor keeps 0.6 − 0.5 = 0.0999…98 from passing).
        matches: (ours - value).abs() < 10f64.powi(-digits) * (1.0 - 1e-9),
    }
}

/// A published value that must equal ours as text.
fn exact(quantity: impl Into<String>, published: impl ToString, ours: impl ToString) -> MathRow {
    let (published, ours) = (published.to_string(), ours.to_string());
    MathRow {
        quantity: quantity.into(),
        matches: published == ours,
        published,
        ours,
    }
}

/// Every math table, computed now.
pub fn math_tables() -> Vec<MathTable> {
    vec![mmds(), broder(), manku(), llm_settings(), charikar()]
}

fn mmds() -> MathTable {
    let mut rows = vec![decimal(
        "threshold (1/b)^(1/r), b = 16, r = 4",
        "0.5",
        threshold(16, 4),
    )];
    for (s, p) in [
        (0.2, ".006"),
        (0.3, ".047"),
        (0.4, ".186"),
        (0.5, ".470"),
        (0.6, ".802"),
        (0.7, ".975"),
        (0.8, ".9996"),
    ] {
        rows.push(decimal(
            format!("P(candidate | s = {s}), b = 20, r = 5"),
            &format!("0{p}"),
            candidate_probability(s, 20, 5),
        ));
    }
    let one_band = 0.8f64.powi(5);
    rows.push(decimal(
        "one band matches at s = 0.8: s^r",
        "0.328",
        one_band,
    ));
    rows.push(decimal(
        "no band matches at s = 0.8: (1 − s^r)^b (\"one in 3000\")",
        "0.00035",
        (1.0 - one_band).powi(20),
    ));
    rows.push(decimal("threshold (1/20)^(1/5)", "0.549", threshold(20, 5)));
    MathTable {
        source: "MMDS (Leskovec, Rajaraman, Ullman), ch. 3: Fig. 3.8 and Example 3.11",
        note: "`neardup::minhash::banding::{candidate_probability, threshold}`; the S-curve \
               experiment (reports/scurves/) measures the same curve on real signatures."
            .into(),
        rows,
    }
}

fn broder() -> MathTable {
    const A: &str = "a rose is a rose is a rose";
    const B: &str = "a rose is a flower which is a rose";
    let mut rows = Vec::new();
    for (w, set, multi) in [(1, "0.6", "0.7"), (2, "0.5", "0.5"), (3, "0.4285", "0.3")] {
        let p = FeatureParams {
            shingle: ShingleKind::Word,
            k: w,
            normalization: Normalization::none(),
            ..FeatureParams::default()
        };
        let s = p.shingler(0);
        rows.push(decimal(
            format!("resemblance of shingle sets, w = {w}"),
            set,
            jaccard(&s.set(A), &s.set(B)),
        ));
        rows.push(decimal(
            format!("resemblance of labelled shingles (multisets), w = {w}"),
            multi,
            multiset_resemblance(&s.multiset(A), &s.multiset(B)),
        ));
    }
    MathTable {
        source: "Broder 1997, \"On the resemblance and containment of documents\": the rose example",
        note: "A = \"a rose is a rose is a rose\", B = \"a rose is a flower which is a rose\"; \
               word shingles of the library's shingler (no normalization), exact Jaccard of sets \
               and of counted multisets."
            .into(),
        rows,
    }
}

fn manku() -> MathTable {
    let n = 2f64.powi(34);
    let mut rows = Vec::new();
    let designs: [(&str, Design, &str, &str, &str); 4] = [
        (
            "6 blocks, choose 3",
            Design::single(64, 3, 6).expect("valid design"),
            "20",
            "31–33",
            "≤ 8",
        ),
        (
            "4 blocks, then 4 blocks of the rest",
            Design::two_level(64, 3, 4, 4).expect("valid design"),
            "16",
            "28",
            "64",
        ),
        (
            "5 blocks, choose 2",
            Design::single(64, 3, 5).expect("valid design"),
            "10",
            "25–26",
            "≤ 512",
        ),
        (
            "4 blocks, choose 1",
            Design::single(64, 3, 4).expect("valid design"),
            "4",
            "16",
            "2^18",
        ),
    ];
    for (split, d, tables, p, matches) in designs {
        rows.extend(design_rows(split, &d, tables, p, matches, n));
    }
    let (patterns, none_equal) = segments_left_equal();
    rows.push(exact(
        "32 bits in 4 segments of 8, k = 3: flip patterns leaving no segment equal",
        0,
        none_equal,
    ));
    MathTable {
        source: "Manku, Jain, Das Sarma, WWW 2007: permuted-table designs for f = 64, k = 3, d = 34",
        note: format!(
            "`neardup::hamming::design::Design` for 2^34 fingerprints; matches per probe is the \
             expected count for the shortest prefix. The small case enumerates all {patterns} \
             patterns of one to three flipped bits."
        ),
        rows,
    }
}

/// One published design's rows: tables, prefix bits and matches per probe, ours beside them.
fn design_rows(
    split: &str,
    d: &Design,
    tables: &str,
    p: &str,
    matches: &str,
    n: f64,
) -> Vec<MathRow> {
    let mut rows = Vec::new();
    rows.push(exact(format!("{split}: tables"), tables, d.tables.len()));
    let (lo, hi) = (d.min_prefix_bits(), d.max_prefix_bits());
    rows.push(exact(
        format!("{split}: prefix bits p"),
        p,
        if lo == hi {
            lo.to_string()
        } else {
            format!("{lo}–{hi}")
        },
    ));
    let m = d.expected_matches(n);
    let ours = if m >= 1024.0 {
        format!("2^{}", m.log2().round())
    } else {
        format!("{m}")
    };
    let ok = match matches.strip_prefix("≤ ") {
        Some(bound) => m <= bound.parse::<f64>().expect("a number"),
        None => ours == matches,
    };
    rows.push(MathRow {
        quantity: format!("{split}: matches per probe 2^(34 − p)"),
        published: matches.into(),
        ours,
        matches: ok,
    });
    rows
}

/// Seed 004's small case, checked exhaustively: of every way of flipping one to three of 32
/// bits, how many leave no 8-bit segment unchanged (the design's guarantee: none). Returns
/// (patterns, patterns leaving no segment equal).
fn segments_left_equal() -> (usize, usize) {
    let mut flip_patterns = std::collections::BTreeSet::new();
    for a in 0..32 {
        for b in a..32 {
            for c in b..32 {
                flip_patterns.insert((1u32 << a) | (1u32 << b) | (1u32 << c));
            }
        }
    }
    let patterns = flip_patterns.len();
    let none_equal = flip_patterns
        .iter()
        .filter(|&&flips| (0..4).all(|s| (flips >> (8 * s)) & 0xff != 0))
        .count();
    (patterns, none_equal)
}

fn llm_settings() -> MathTable {
    let mut rows = vec![
        decimal(
            "Lee et al. / RefinedWeb 450 × 20: midpoint (1/450)^(1/20)",
            "0.737",
            threshold(450, 20),
        ),
        decimal(
            "Lee et al. / RefinedWeb 450 × 20: P(candidate | s = 0.8)",
            "0.995",
            candidate_probability(0.8, 450, 20),
        ),
    ];
    for (s, p) in [
        (0.70, "0.564"),
        (0.75, "0.772"),
        (0.80, "0.924"),
        (0.85, "0.988"),
    ] {
        rows.push(decimal(
            format!("FineWeb 14 × 8: P(candidate | s = {s:.2})"),
            p,
            candidate_probability(s, 14, 8),
        ));
    }
    MathTable {
        source: "Large-scale MinHash settings: Lee et al. 2022, RefinedWeb, FineWeb",
        note: "`candidate_probability` and `threshold` as above.".into(),
        rows,
    }
}

fn charikar() -> MathTable {
    let mut rows = Vec::new();
    for cos in [0.2f64, 0.5, 0.8, 0.95] {
        let t = neardup::simhash::agreement_trial(CHARIKAR_SEED, cos, 40);
        rows.push(MathRow {
            quantity: format!(
                "bit agreement at cos θ = {cos} (θ = {:.1}°)",
                cos.acos().to_degrees()
            ),
            published: format!("1 − θ/π = {:.4}", t.theory),
            ours: format!("{:.4} (99.9 % interval ± {:.4})", t.rate, t.half_width),
            matches: t.within(),
        });
    }
    MathTable {
        source: "Charikar 2002: random hyperplanes, Pr[h(x) = h(y)] = 1 − θ(x, y)/π",
        note: format!(
            "Measured, not computed: 40 vector pairs of exact angle θ (400 weighted features \
             each), 384-bit fingerprints of `neardup::simhash::SignSketcher`, seed \
             {CHARIKAR_SEED}; a match is a measured agreement inside the 99.9 % normal \
             interval around the theory."
        ),
        rows,
    }
}

/// One row of the configuration experiment's `results.csv`.
#[derive(Debug, Clone, serde::Deserialize)]
struct StoredRow {
    dataset: String,
    label: String,
    build_params: String,
    query_params: String,
    reported_pairs: Option<f64>,
    precision: Option<f64>,
    recall: Option<f64>,
    f1: Option<f64>,
    #[serde(default)]
    error: Option<String>,
}

fn read_rows(path: &Path) -> Result<Vec<StoredRow>> {
    let mut r = csv::Reader::from_path(path).map_err(|e| LabError::file(path, e.to_string()))?;
    let mut out = Vec::new();
    for (i, row) in r.deserialize::<StoredRow>().enumerate() {
        out.push(row.map_err(|e| LabError::line(path, i + 2, e.to_string()))?);
    }
    Ok(out)
}

/// Published, as printed.
fn as_published(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |v| v.to_string())
}

/// The configuration tables from the stored results in `results` (absent: said so).
fn configuration_section(exp: &Experiment, results: &Path) -> Result<String> {
    let mut s = String::from("# Configurations run on our corpora\n\n");
    if !results.is_file() {
        let _ = writeln!(
            s,
            "Not run here: the `{CONFIG_EXPERIMENT}` experiment needs bible-en and licenses \
             from the data directory (`--data-dir`, ../shared/datasets).\n"
        );
        return Ok(s);
    }
    let rows = read_rows(results)?;
    let _ = writeln!(
        s,
        "Each configuration runs with the published parameters on bible-en and licenses \
         ([full report](../{CONFIG_EXPERIMENT}/README.md)). \"Ours\" is pair-level precision and \
         recall against the corpora's clusters; a dash: the source publishes no such figure. \
         Read recall with the corpora in mind: bible-en's clusters are five translations of a \
         chapter, mostly paraphrases far below the similarity these settings were tuned for \
         (near-copies of web pages and training documents), so its recall is low by design and \
         its precision is the informative figure; license variants are closer to the \
         near-copies these settings target.\n"
    );
    // One table per source, in the experiment's order.
    let mut sources: Vec<&str> = Vec::new();
    for g in &exp.algorithms {
        if let Some(p) = &g.published
            && !sources.contains(&p.source.as_str())
        {
            sources.push(&p.source);
        }
    }
    for source in sources {
        source_section(&mut s, exp, &rows, source);
    }
    Ok(s)
}

/// One source's table: each configuration it publishes, on each corpus, with the notes on
/// what was run and whether the figures compare.
fn source_section(s: &mut String, exp: &Experiment, rows: &[StoredRow], source: &str) {
    let _ = writeln!(s, "## {source}\n");
    let _ = writeln!(
        s,
        "| configuration | corpus | published precision | our precision | published recall | our recall | our F1 | pairs reported |\n|---|---|---|---|---|---|---|---|"
    );
    let mut notes = Vec::new();
    for g in exp
        .algorithms
        .iter()
        .filter(|g| g.published.as_ref().is_some_and(|p| p.source == source))
    {
        let p = g.published.as_ref().expect("filtered on published");
        let mut params = BTreeMap::new();
        for r in rows.iter().filter(|r| r.label == g.label) {
            params.insert(r.dataset.clone(), r);
        }
        if params.is_empty() {
            let _ = writeln!(
                s,
                "| {} | – | {} | not run | {} | not run | – | – |",
                g.label,
                as_published(p.precision),
                as_published(p.recall)
            );
        }
        for (dataset, r) in &params {
            result_row(s, g, p, dataset, r, rows);
        }
        let run = params.values().next().map(|r| {
            let q = if r.query_params.is_empty() {
                "defaults"
            } else {
                &r.query_params
            };
            format!(
                "build `{}`, query `{q}`",
                if r.build_params.is_empty() {
                    "defaults"
                } else {
                    &r.build_params
                }
            )
        });
        notes.push(format!(
            "- **{}** ({}): {}",
            g.label,
            run.unwrap_or_else(|| "not run".into()),
            p.comparable
        ));
    }
    let _ = writeln!(s, "\n{}\n", notes.join("\n"));
}

/// One configuration's row on one corpus: published figures beside ours.
fn result_row(
    s: &mut String,
    g: &AlgorithmGrid,
    p: &Published,
    dataset: &str,
    r: &StoredRow,
    rows: &[StoredRow],
) {
    if let Some(e) = r.error.as_ref().filter(|e| !e.is_empty()) {
        let _ = writeln!(
            s,
            "| {} | {dataset} | {} | failed: {} | {} | – | – | – |",
            g.label,
            as_published(p.precision),
            e.replace('|', "\\|"),
            as_published(p.recall)
        );
        return;
    }
    let recall = match &p.recall_relative_to {
        Some(base) => {
            let base_recall = rows
                .iter()
                .find(|b| &b.label == base && b.dataset == dataset)
                .and_then(|b| b.recall);
            match (r.recall, base_recall) {
                (Some(a), Some(b)) if b > 0.0 => {
                    format!("{:.3} of {base}'s", a / b)
                }
                _ => "–".into(),
            }
        }
        None => super::tables::fmt(r.recall),
    };
    let published_recall = match (&p.recall_relative_to, p.recall) {
        (Some(base), Some(v)) => format!("{v:.2} of {base}'s"),
        _ => as_published(p.recall),
    };
    let _ = writeln!(
        s,
        "| {} | {dataset} | {} | {} | {published_recall} | {recall} | {} | {} |",
        g.label,
        as_published(p.precision),
        super::tables::fmt(r.precision),
        super::tables::fmt(r.f1),
        r.reported_pairs.map_or("–".into(), |v| format!("{v:.0}")),
    );
}

/// The README: the math (the configurations are on CONFIGURATION.md).
pub fn markdown() -> String {
    let tables = math_tables();
    let (total, matching) = tables
        .iter()
        .flat_map(|t| &t.rows)
        .fold((0, 0), |(n, m), r| (n + 1, m + r.matches as usize));
    let mut s = format!(
        "# Published results, regenerated\n\n\
         Generated by `neardup reproduce`. Every figure of [SOURCES.md](SOURCES.md) (the published figures with their sources) beside \
         neardup's own: math rows are computed by the library now ({matching} of {total} \
         match; a decimal matches when it differs from the published one by less than one unit \
         of its last printed digit), and configuration rows run the published parameters on \
         our corpora. The published column is never an input to ours.\n\n\
         # Math\n\n"
    );
    for t in &tables {
        let _ = writeln!(
            s,
            "## {}\n\n{}\n\n| quantity | published | neardup | match |\n|---|---|---|---|",
            t.source, t.note
        );
        for r in &t.rows {
            let cell = |c: &str| c.replace('|', "\\|");
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                cell(&r.quantity),
                cell(&r.published),
                cell(&r.ours),
                if r.matches { "yes" } else { "**no**" }
            );
        }
        s.push('\n');
    }
    s.push_str(
        "Not computed: MMDS's shingle-size guidance (k = 5 characters for e-mail, 9 for papers) \
         and Broder's sketch sizes (100 samples reasonable, 200 more than enough) are advice, \
         not results; the experiments report what such choices do on our corpora.\n\n",
    );
    let _ = writeln!(
        s,
        "# Configurations run on our corpora\n\n[{0}]({0}): the published parameters (Henzinger, \
         SpotSigs, text-dedup, Manku et al., Lee et al. and RefinedWeb, FineWeb, BigCode) run on \
         our corpora, what each paper reported beside what they find here, and SpotSigs on news \
         pages.\n",
        super::CONFIGURATION_FILE
    );
    let info = super::RunInfo::current();
    let _ = writeln!(
        s,
        "Revision `{}`, neardup {}, on {}.",
        info.revision, info.version, info.machine
    );
    s
}

/// `markdown` with every heading one level lower (outside fenced code): its H1s become
/// sections of the page that holds them.
fn demoted(markdown: &str) -> String {
    let mut fenced = false;
    let mut out = String::with_capacity(markdown.len() + 64);
    for line in markdown.split_inclusive('\n') {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with('#') {
            out.push('#');
        }
        out.push_str(line);
    }
    out
}

/// Writes `out/published/README.md` (the math) and its CONFIGURATION.md (the published
/// configurations on our corpora, from the stored results of `out/published-configs/`, and
/// SpotSigs on news pages).
pub fn write(out: &Path, exp: &Experiment) -> Result<()> {
    let results = out.join(CONFIG_EXPERIMENT).join("results.csv");
    let text = markdown();
    let sections = format!(
        "{}{}",
        configuration_section(exp, &results)?,
        super::published_pages::section(out)?
    );
    let configurations = format!(
        "# Published configurations on our corpora\n\n{}",
        demoted(&sections)
    );
    let dir = out.join("published");
    std::fs::create_dir_all(&dir).map_err(|e| LabError::io(&dir, e))?;
    write_bytes(
        &dir.join(super::CONFIGURATION_FILE),
        configurations.as_bytes(),
    )?;
    write_bytes(&dir.join("README.md"), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every math row of PUBLISHED.md matches (the reason `reproduce` can claim it).
    #[test]
    fn every_math_row_matches() {
        println!("Charikar check seed {CHARIKAR_SEED}");
        for t in math_tables() {
            for r in &t.rows {
                assert!(
                    r.matches,
                    "{}: {}: published {}, ours {}",
                    t.source, r.quantity, r.published, r.ours
                );
            }
        }
    }

    /// The match rule can fail: one unit of the last digit off is a mismatch, rounding and
    /// truncation are not.
    #[test]
    fn decimal_match_rule() {
        assert!(decimal("x", "0.549", 0.54928).matches);
        assert!(decimal("x", "0.00035", 0.000356).matches);
        assert!(!decimal("x", "0.549", 0.5501).matches);
        assert!(!decimal("x", "0.5", 0.6).matches);
        assert!(!exact("x", 20, 19).matches);
    }
}
