//! `neardup lsh scurve` and `neardup lsh tune`: the banding math of MMDS §3.4.

use std::io::Write;

use anyhow::Result;
use neardup::minhash::banding;

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

/// One line: the tuned banding for `threshold` within `num_perm` hashes.
pub fn tune(threshold: f64, num_perm: usize, fp_weight: f64, out: &mut impl Write) -> Result<()> {
    let t = banding::tune(threshold, num_perm, fp_weight)?;
    writeln!(
        out,
        "bands={} rows={} threshold={:.6} false_positive_area={:.6} false_negative_area={:.6}",
        t.bands, t.rows, t.threshold, t.false_positive_area, t.false_negative_area
    )?;
    Ok(())
}
