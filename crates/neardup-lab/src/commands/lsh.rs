//! `neardup lsh scurve` and `neardup lsh tune`: the banding math of MMDS §3.4.

use std::io::Write;

use anyhow::Result;
use neardup::minhash::banding;
use serde_json::json;

use crate::cli::ReportFormat;

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

/// Similarities at which `lsh tune` shows P(candidate): the threshold ± 0.05 and ± 0.1, inside
/// [0, 1] — where a user sees how sharp the banding's step is.
fn around(threshold: f64) -> Vec<f64> {
    [-0.1, -0.05, 0.0, 0.05, 0.1]
        .iter()
        .map(|d| ((threshold + d) * 1e6).round() / 1e6)
        .filter(|s| (0.0..=1.0).contains(s))
        .collect()
}

/// `lsh tune --format json`'s document (also what Python's `neardup.lsh_tune` returns).
pub fn tune_json(threshold: f64, num_perm: usize, fp_weight: f64) -> Result<serde_json::Value> {
    let t = banding::tune(threshold, num_perm, fp_weight)?;
    Ok(json!({
        "target_threshold": threshold,
        "num_perm": num_perm,
        "false_positive_weight": fp_weight,
        "bands": t.bands,
        "rows": t.rows,
        "threshold": t.threshold,
        "false_positive_area": t.false_positive_area,
        "false_negative_area": t.false_negative_area,
        "unused_permutations": num_perm - t.bands * t.rows,
        "candidate_probability": around(threshold)
            .into_iter()
            .map(|s| json!({
                "similarity": s,
                "probability": banding::candidate_probability(s, t.bands, t.rows),
            }))
            .collect::<Vec<_>>(),
    }))
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
    let t = banding::tune(threshold, num_perm, fp_weight)?;
    let unused = num_perm - t.bands * t.rows;
    let probabilities: Vec<(f64, f64)> = around(threshold)
        .into_iter()
        .map(|s| (s, banding::candidate_probability(s, t.bands, t.rows)))
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
            let doc = tune_json(threshold, num_perm, fp_weight)?;
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
    }
    Ok(())
}
