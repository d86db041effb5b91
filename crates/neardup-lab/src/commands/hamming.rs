//! `neardup hamming tune --bits F --distance K --fingerprints N`: candidate permuted-table
//! designs (Manku et al. §3.1.1) as CSV `tables,blocks,prefix_bits,expected_matches_per_probe,
//! memory_bytes`.

use std::io::Write;

use anyhow::{Result, bail};
use neardup::hamming::design::candidates;

/// Prints the design table.
pub fn tune(bits: u32, distance: u32, fingerprints: f64, out: &mut impl Write) -> Result<()> {
    if !(fingerprints >= 1.0 && fingerprints.is_finite()) {
        bail!("--fingerprints must be a number ≥ 1 (e.g. 17179869184 or 2^34), not {fingerprints}");
    }
    let designs = candidates(bits, distance)?;
    writeln!(
        out,
        "tables,blocks,prefix_bits,expected_matches_per_probe,memory_bytes"
    )?;
    for d in designs {
        writeln!(
            out,
            "{},{},{},{},{}",
            d.tables.len(),
            d.blocks(),
            d.min_prefix_bits(),
            format_number(d.expected_matches(fingerprints)),
            format_number(d.memory_bytes(fingerprints).round())
        )?;
    }
    Ok(())
}

/// Integers as integers, other values with up to 6 significant digits.
fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e18 {
        format!("{}", x as u64)
    } else {
        format!("{}", (x * 1e6).round() / 1e6)
    }
}

/// Parses `N` or `2^D`.
pub fn parse_count(s: &str) -> Result<f64, String> {
    let s = s.trim();
    if let Some((base, exp)) = s.split_once('^') {
        let (b, e): (f64, i32) = (
            base.trim()
                .parse()
                .map_err(|_| format!("bad base in `{s}`"))?,
            exp.trim()
                .parse()
                .map_err(|_| format!("bad exponent in `{s}`"))?,
        );
        return Ok(b.powi(e));
    }
    s.parse::<f64>()
        .map_err(|_| format!("`{s}` is not a number (or 2^D)"))
}
