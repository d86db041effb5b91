//! `neardup hamming tune --bits F --distance K --fingerprints N [--memory SIZE]`: the
//! permuted-table designs of Manku et al. §3.1.1 for a corpus of N fingerprints, what each
//! costs (memory, fingerprints examined per query), the cheapest within a memory budget, and
//! the precision warning: how many unrelated pairs fall within k by chance.

use std::io::Write;

use anyhow::{Result, bail};
use neardup::hamming::design::{
    Design, candidates, cheapest_within, designs_report, examined_per_query, random_pairs_within,
};
use neardup::resources::human_bytes;

use crate::output_format::ReportFormat;
use clap::Subcommand;

use super::args::{parse_count, parse_size};
use super::invocation::{Invocation, Run};

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
    let n = fingerprints;
    let designs = candidates(bits, distance)?;
    let budget = memory.map_or(f64::INFINITY, |m| m as f64);
    let best = cheapest_within(bits, distance, n, budget)?;
    let chance = random_pairs_within(bits, distance, n);
    let fits = |d: &Design| d.memory_bytes(n) <= budget;
    let memory_of = |d: &Design| human_bytes(d.memory_bytes(n).min(u64::MAX as f64) as u64);
    let is_best = |d: &Design| best.as_ref().is_some_and(|b| b == d);
    match format {
        ReportFormat::Csv => {
            writeln!(
                out,
                "tables,blocks,prefix_bits,expected_matches_per_probe,memory_bytes,\
                 examined_per_query,fits_memory,recommended"
            )?;
            for d in &designs {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{},{}",
                    d.tables.len(),
                    d.blocks(),
                    d.min_prefix_bits(),
                    format_number(d.expected_matches(n)),
                    format_number(d.memory_bytes(n).round()),
                    format_number(examined_per_query(d, n)),
                    fits(d),
                    is_best(d)
                )?;
            }
        }
        ReportFormat::Json => {
            let doc = designs_report(bits, distance, fingerprints, memory)?;
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
        ReportFormat::Text => {
            writeln!(
                out,
                "Permuted-table designs for f = {bits}, k = {distance}, N = {} fingerprints{}\n",
                group(n),
                memory.map_or(String::new(), |m| format!(
                    ", memory budget {}",
                    human_bytes(m)
                ))
            )?;
            writeln!(
                out,
                "  tables  blocks  prefix bits  matches/probe  examined/query      memory"
            )?;
            for d in &designs {
                let mark = if is_best(d) {
                    "  ← recommended"
                } else if !fits(d) {
                    "  (over budget)"
                } else {
                    ""
                };
                writeln!(
                    out,
                    "  {:>6}  {:>6}  {:>11}  {:>13}  {:>14}  {:>10}{mark}",
                    d.tables.len(),
                    d.blocks(),
                    d.min_prefix_bits(),
                    group(d.expected_matches(n)),
                    group(examined_per_query(d, n)),
                    memory_of(d),
                )?;
            }
            writeln!(out)?;
            if let Some(b) = &best {
                writeln!(
                    out,
                    "Recommended: {} tables (blocks {}, {}-bit prefixes): about {} fingerprints \
                     examined per query, {} of tables.",
                    b.tables.len(),
                    b.blocks(),
                    b.min_prefix_bits(),
                    group(examined_per_query(b, n)),
                    memory_of(b)
                )?;
            }
            writeln!(
                out,
                "Precision warning: among {} unrelated {bits}-bit fingerprints about {} pairs \
                 fall within distance {distance} by chance.",
                group(n),
                group(chance)
            )?;
        }
    }
    if best.is_none() {
        let smallest = designs
            .iter()
            .min_by(|a, b| a.memory_bytes(n).total_cmp(&b.memory_bytes(n)))
            .map_or_else(|| "—".to_string(), memory_of);
        bail!(
            "no design for f = {bits}, k = {distance} fits in --memory {}: the smallest needs {} \
             for {} fingerprints",
            human_bytes(memory.unwrap_or(0)),
            smallest,
            group(n)
        );
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
        /// Memory the tables may take (16GiB, 2TB…); the recommendation is the design that
        /// examines the fewest fingerprints per query within it (default: no limit).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        memory: Option<u64>,
        /// Output: a readable table with the recommendation, CSV, or JSON.
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
