//! `reports/choosing-parameters/README.md`: the guide that answers "which b, r, k and tables
//! should I use?" — tuned LSH bandings over thresholds × permutations, permuted-table designs
//! over corpus sizes × distances with the chance pairs each k lets in, and pointers to the
//! measured reports. Everything here is computed by the same library functions `neardup lsh
//! tune` and `neardup hamming tune` print, so the guide and the tuners never disagree.

use std::fmt::Write as _;
use std::path::Path;

use neardup::hamming::design::{best_for_join, examined_per_query, random_pairs_within};
use neardup::minhash::banding::{candidate_probability, tune};
use neardup::resources::human_bytes;

use crate::charts::guide_charts;
use crate::error::LabError;
use crate::fsutil::write_bytes;

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
         The banding neardup picks (`threshold` given, `bands`/`rows` left at 0) for each \
         target threshold t and number of permutations: b × r, the banding's own threshold \
         (1/b)^(1/r) in brackets. It minimizes the false-positive plus false-negative area \
         under the S-curve around t with equal weights, as datasketch does; `neardup lsh tune \
         --threshold T --num-perm N` prints every candidate with these areas. Unused \
         permutations (b·r < N) cost sketching time for nothing, so a count b·r fills is \
         cheaper for the same curve.\n"
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
            let b = tune(t, n, 0.5)?;
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
        let b = tune(t, DETAIL_PERMS, 0.5)?;
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
    let _ = writeln!(
        s,
        "\n![{}]({})\n\n{} ([SVG]({}))\n",
        chart.title, chart.png, chart.caption, chart.svg
    );
    Ok(())
}

fn hamming_section(dir: &Path, s: &mut String) -> anyhow::Result<()> {
    let _ = writeln!(
        s,
        "## Which permuted-table design for N SimHash fingerprints and distance k?\n\n\
         Manku et al. (WWW 2007, §3.1.1) find every fingerprint within k bits by keeping T \
         copies of the fingerprints, each sorted on a different p-bit prefix: a query \
         examines about T · 2^(log2 N − p) fingerprints, the tables take T · N · 12 bytes \
         (64-bit fingerprint + 4-byte id). Each cell is the design neardup's join picks for \
         f = 64 (lowest modelled cost of a batch join): tables, shortest prefix p, \
         fingerprints examined per query, memory. `neardup hamming tune --bits 64 --distance \
         K --fingerprints N --memory BYTES` lists every design and the cheapest one within a \
         memory budget.\n"
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
    let _ = writeln!(
        s,
        "\n![{}]({})\n\n{} ([SVG]({}))\n",
        chart.title, chart.png, chart.caption, chart.svg
    );
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

fn measured_section(s: &mut String) {
    let _ = writeln!(
        s,
        "## What do k and t give on real text?\n\n\
         The formulas above say what the index does with a pair of a given similarity; what \
         a threshold means for a corpus is measured in the experiment reports:\n\n\
         - [SimHash k and random projection's agreement](../simhash-k/README.md): precision \
           and recall of k = 0 … 10 at f = 64 and 128 on 1,000 documents with planted edits.\n\
         - [LSH S-curves](../scurves/README.md): the share of pairs that become candidates \
           at each true Jaccard similarity, for the (b, r) people use, against the formula.\n\
         - [Real corpora](../real-corpora/README.md) and [published \
           configurations](../published/README.md): what the usual settings find on \
           translations and license variants.\n\
         - Your own labelled pairs: `neardup calibrate --corpus FILE --pairs FILE` sweeps \
           the build grid, picks the threshold with bootstrap intervals and prints the \
           command line to use.\n\n\
         Not measured yet: precision and recall of k and t against exact similarity at \
         10^5–10^6 documents (the experiments' exact ground truth is computed all-pairs and \
         stops at 50,000 documents); the throughput and scaling reports measure cost at \
         those sizes, not quality.\n"
    );
}

/// Writes `out/choosing-parameters/README.md` and its charts.
pub fn write(out: &Path) -> anyhow::Result<()> {
    let dir = out.join("choosing-parameters");
    std::fs::create_dir_all(&dir).map_err(|e| LabError::io(&dir, e))?;
    let mut s = String::from(
        "# Choosing parameters: b, r, k and tables\n\n\
         Generated by `neardup reproduce` from the library's formulas (the same ones `neardup \
         lsh tune` and `neardup hamming tune` print). Start from your threshold: a MinHash \
         Jaccard threshold t picks (b, r); a SimHash distance k and your corpus size pick the \
         tables. Then check on your data with `neardup calibrate`.\n\n",
    );
    lsh_section(&dir, &mut s)?;
    hamming_section(&dir, &mut s)?;
    measured_section(&mut s);
    let info = super::RunInfo::current();
    let _ = writeln!(s, "Revision `{}`, neardup {}.", info.revision, info.version);
    write_bytes(&dir.join("README.md"), s.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guide's tables are the tuners' answers: MMDS's b = 20, r = 5 region for t ≈ 0.55
    /// is not asserted here (the tuner weighs areas, not the midpoint), but every tuned
    /// banding fits its permutations and its S-curve crosses ½ near t.
    #[test]
    fn tuned_bandings_fit_and_sit_near_their_threshold() {
        for t in THRESHOLDS {
            for n in NUM_PERMS {
                let b = tune(t, n, 0.5).unwrap();
                assert!(b.bands * b.rows <= n, "t={t} n={n}: {b:?}");
                assert!((b.threshold - t).abs() < 0.15, "t={t} n={n}: {b:?}");
            }
        }
    }

    #[test]
    fn writes_the_guide_with_both_charts() {
        let dir = std::env::temp_dir().join(format!("neardup-guide-{}", std::process::id()));
        write(&dir).unwrap();
        let text = std::fs::read_to_string(dir.join("choosing-parameters/README.md")).unwrap();
        assert!(text.contains("## Which (b, r)") && text.contains("N = 2^34"));
        for c in ["tuned-scurves.png", "design-costs.png"] {
            assert!(
                dir.join("choosing-parameters/charts").join(c).is_file(),
                "{c}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
