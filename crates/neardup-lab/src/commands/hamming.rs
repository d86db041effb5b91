//! `neardup hamming tune --bits F --distance K --fingerprints N [--memory SIZE]`: the
//! permuted-table designs of Manku et al. §3.1.1 for a corpus of N fingerprints, what each
//! costs (memory, fingerprints examined per query), the cheapest within a memory budget, and
//! the precision warning: how many unrelated pairs fall within k by chance.

use std::io::Write;

use anyhow::{Result, bail};
use clap::Subcommand;
use neardup::hamming::design::{DesignsReport, designs_report};
use neardup::resources::human_bytes;

use super::args::{parse_count, parse_size};
use super::invocation::{Invocation, Run};
use crate::output_format::ReportFormat;

fn check_fingerprints(fingerprints: f64) -> Result<()> {
    if !(fingerprints >= 1.0 && fingerprints.is_finite()) {
        bail!("--fingerprints must be a number ≥ 1 (e.g. 17179869184 or 2^34), not {fingerprints}");
    }
    Ok(())
}

/// Prints the designs and the recommendation. Fails (after printing the table) when no design
/// fits in `memory`.
pub fn tune(
    bits: u32,
    distance: u32,
    fingerprints: f64,
    memory: Option<u64>,
    format: ReportFormat,
    out: &mut impl Write,
) -> Result<()> {
    check_fingerprints(fingerprints)?;
    let report = designs_report(bits, distance, fingerprints, memory)?;
    match format {
        ReportFormat::Csv => write_csv(&report, out)?,
        ReportFormat::Json => writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?,
        ReportFormat::Text => write_text(&report, out)?,
    }
    if report.recommended.is_none() {
        let smallest = report
            .designs
            .iter()
            .min_by(|a, b| a.memory_bytes.total_cmp(&b.memory_bytes))
            .map_or_else(|| "—".to_string(), |d| d.memory.clone());
        bail!(
            "no design for f = {bits}, k = {distance} fits in --memory {}: the smallest needs {} \
             for {} fingerprints",
            human_bytes(memory.unwrap_or(0)),
            smallest,
            group(fingerprints)
        );
    }
    Ok(())
}

/// One CSV row per design.
fn write_csv(report: &DesignsReport, out: &mut impl Write) -> Result<()> {
    writeln!(
        out,
        "tables,blocks,prefix_bits,expected_matches_per_probe,memory_bytes,\
         examined_per_query,fits_memory,recommended"
    )?;
    for d in &report.designs {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{}",
            d.tables,
            d.blocks,
            d.prefix_bits,
            format_number(d.expected_matches_per_probe),
            format_number(d.memory_bytes),
            format_number(d.examined_per_query),
            d.fits_memory,
            report.recommended.as_ref() == Some(d)
        )?;
    }
    Ok(())
}

/// The designs as aligned columns, the recommendation and the precision warning.
fn write_text(report: &DesignsReport, out: &mut impl Write) -> Result<()> {
    let (bits, distance, n) = (report.bits, report.distance, report.fingerprints);
    writeln!(
        out,
        "Permuted-table designs for f = {bits}, k = {distance}, N = {} fingerprints{}\n",
        group(n),
        report
            .memory_budget_bytes
            .map_or(String::new(), |m| format!(
                ", memory budget {}",
                human_bytes(m)
            ))
    )?;
    writeln!(
        out,
        "  tables  blocks  prefix bits  matches/probe  examined/query      memory"
    )?;
    for d in &report.designs {
        let mark = if report.recommended.as_ref() == Some(d) {
            "  ← recommended"
        } else if !d.fits_memory {
            "  (over budget)"
        } else {
            ""
        };
        writeln!(
            out,
            "  {:>6}  {:>6}  {:>11}  {:>13}  {:>14}  {:>10}{mark}",
            d.tables,
            d.blocks,
            d.prefix_bits,
            group(d.expected_matches_per_probe),
            group(d.examined_per_query),
            d.memory,
        )?;
    }
    writeln!(out)?;
    if let Some(b) = &report.recommended {
        writeln!(
            out,
            "Recommended: {} tables (blocks {}, {}-bit prefixes): about {} fingerprints \
             examined per query, {} of tables. (The lowest modelled cost of finding every pair: \
             a sort per table plus the candidates checked; neardup's join and the parameter guide \
             choose by the same rule.)",
            b.tables,
            b.blocks,
            b.prefix_bits,
            group(b.examined_per_query),
            b.memory
        )?;
    }
    writeln!(
        out,
        "Precision warning: among {} unrelated {bits}-bit fingerprints about {} pairs \
         fall within distance {distance} by chance.",
        group(n),
        group(report.random_pairs_within_distance)
    )?;
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

/// `17,179,869,184`, `0.25`, `3.5e21`: readable counts for the text table.
fn group(x: f64) -> String {
    if x >= 1e18 {
        return format!("{x:.2e}");
    }
    if x > 0.0 && x < 0.01 {
        return format!("{x:.1e}");
    }
    if x < 10.0 && x.fract() != 0.0 {
        return format!("{x:.2}");
    }
    crate::charts::style::whole(&x)
}

/// Hamming search design.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to compute.
    #[command(subcommand)]
    pub command: HammingCommand,
}

/// `neardup hamming …`
#[derive(Debug, Subcommand)]
pub enum HammingCommand {
    /// Permuted-table designs (Manku et al. §3.1.1) for N fingerprints: tables, memory,
    /// fingerprints examined per query, the cheapest design within `--memory`, and how many
    /// unrelated pairs fall within k by chance.
    Tune {
        /// Fingerprint width f (32, 64, 128, 192, 256, 384, 512).
        #[arg(long)]
        bits: u32,
        /// Hamming distance k to guarantee.
        #[arg(long)]
        distance: u32,
        /// Number of fingerprints N (a number or 2^D).
        #[arg(long, value_parser = parse_count)]
        fingerprints: f64,
        /// Memory the tables may take (16GiB, 2TB…); the recommendation is the design with
        /// the lowest modelled cost of finding every pair (a sort per table plus the
        /// candidates checked) within it — the rule neardup's own join and the parameter
        /// guide use (default: no limit).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        memory: Option<u64>,
        /// Output: a readable table with the recommendation, CSV (one row per permuted-table
        /// design, `recommended` marking the chosen one), or JSON.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let HammingCommand::Tune {
            bits,
            distance,
            fingerprints,
            memory,
            format,
        } = self.command;
        tune(
            bits,
            distance,
            fingerprints,
            memory,
            format,
            &mut invocation.out,
        )
    }
}
