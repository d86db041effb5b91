//! `neardup lsh scurve` and `neardup lsh tune`: the banding math of MMDS §3.4.

use std::io::Write;

use anyhow::Result;
use neardup::minhash::banding;

use crate::output_format::ReportFormat;

/// `similarity,probability` for s = 0.00, 0.05, …, 1.00 under `bands` × `rows`.
pub fn scurve(bands: usize, rows: usize, out: &mut impl Write) -> Result<()> {
    banding::validate(bands, rows, usize::MAX, "lsh scurve")?;
    writeln!(out, "similarity,probability")?;
    for i in 0..=20 {
        let s = i as f64 / 20.0;
        writeln!(
            out,
            "{s:.2},{:.6}",
            banding::candidate_probability(s, bands, rows)
        )?;
    }
    Ok(())
}

/// The tuned banding for `threshold` within `num_perm` hashes: a `key=value` summary line then
/// P(candidate) around the threshold (text), `similarity,probability` rows (CSV), or one JSON
/// object.
pub fn tune(
    threshold: f64,
    num_perm: usize,
    fp_weight: f64,
    format: ReportFormat,
    out: &mut impl Write,
) -> Result<()> {
    let t = banding::tune_report(threshold, num_perm, fp_weight)?;
    let unused = t.unused_permutations;
    let probabilities: Vec<(f64, f64)> = t
        .candidate_probability
        .iter()
        .map(|c| (c.similarity, c.probability))
        .collect();
    match format {
        ReportFormat::Text => {
            writeln!(
                out,
                "bands={} rows={} threshold={:.6} false_positive_area={:.6} \
                 false_negative_area={:.6} unused_permutations={unused}",
                t.bands, t.rows, t.threshold, t.false_positive_area, t.false_negative_area
            )?;
            writeln!(out)?;
            writeln!(out, "  similarity  P(candidate)")?;
            for (s, p) in &probabilities {
                let mark = if (s - threshold).abs() < 1e-9 {
                    "  ← target"
                } else {
                    ""
                };
                writeln!(out, "  {s:>10.2}  {p:>12.6}{mark}")?;
            }
            if unused > 0 {
                writeln!(
                    out,
                    "\n{unused} of {num_perm} permutations are not in any band: a signature of \
                     {} is enough, or they sharpen verification only.",
                    t.bands * t.rows
                )?;
            }
        }
        ReportFormat::Csv => {
            writeln!(out, "similarity,probability")?;
            for (s, p) in &probabilities {
                writeln!(out, "{s},{p:.6}")?;
            }
        }
        ReportFormat::Json => {
            writeln!(out, "{}", serde_json::to_string_pretty(&t)?)?;
        }
    }
    Ok(())
}
