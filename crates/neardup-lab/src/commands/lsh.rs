//! `neardup lsh scurve` and `neardup lsh tune`: the banding math of MMDS §3.4.

use std::io::Write;

use anyhow::Result;
use clap::Subcommand;
use neardup::minhash::banding;

use super::invocation::{Invocation, Run};
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
/// P(candidate) around the threshold (text), one row per similarity point with the banding
/// (CSV), or one JSON object.
pub fn tune(
    threshold: f64,
    num_perm: usize,
    objective: banding::Objective,
    format: ReportFormat,
    out: &mut impl Write,
) -> Result<()> {
    let t = banding::tune_report(threshold, num_perm, objective)?;
    let unused = t.unused_permutations;
    let probabilities: Vec<(f64, f64)> = t
        .candidate_probability
        .iter()
        .map(|c| (c.similarity, c.probability))
        .collect();
    match format {
        ReportFormat::Text => write_text(&t, threshold, num_perm, &probabilities, out)?,
        ReportFormat::Csv => {
            // One row per similarity point, each with the banding it belongs to, so the answer
            // is in every row a spreadsheet keeps.
            writeln!(
                out,
                "bands,rows,threshold,objective,unused_permutations,similarity,probability"
            )?;
            for (s, p) in &probabilities {
                writeln!(
                    out,
                    "{},{},{:.6},{},{unused},{s},{p:.6}",
                    t.bands, t.rows, t.threshold, t.objective
                )?;
            }
        }
        ReportFormat::Json => {
            writeln!(out, "{}", serde_json::to_string_pretty(&t)?)?;
        }
    }
    Ok(())
}

/// `lsh tune`'s text: the `key=value` line, what the banding finds at the threshold, then
/// P(candidate) around it.
fn write_text(
    t: &banding::TuneReport,
    threshold: f64,
    num_perm: usize,
    probabilities: &[(f64, f64)],
    out: &mut impl Write,
) -> Result<()> {
    let unused = t.unused_permutations;
    writeln!(
        out,
        "bands={} rows={} threshold={:.6} objective={} false_positive_area={:.6} \
         false_negative_area={:.6} unused_permutations={unused}",
        t.bands, t.rows, t.threshold, t.objective, t.false_positive_area, t.false_negative_area
    )?;
    let at_t = banding::candidate_probability(threshold, t.bands, t.rows);
    if t.objective != "balanced" {
        writeln!(
            out,
            "\nWhat `neardup dedup` runs for this threshold: it finds {:.0} % of the pairs \
             at J = {threshold} and costs {:.2}× the false-positive area of the balanced \
             banding (dissimilar pairs that become candidates and are then verified).",
            100.0 * at_t,
            t.false_positive_area_vs_balanced
        )?;
    } else {
        writeln!(
            out,
            "\nBalanced (for candidates that are not verified): it finds only {:.0} % of \
             the pairs at J = {threshold}. `neardup dedup` verifies every candidate and \
             runs the recall-at-threshold banding (the default objective).",
            100.0 * at_t
        )?;
    }
    writeln!(out)?;
    writeln!(out, "  similarity  P(candidate)")?;
    for (s, p) in probabilities {
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
    Ok(())
}

/// LSH banding math.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to compute.
    #[command(subcommand)]
    pub command: LshCommand,
}

/// `neardup lsh …`
#[derive(Debug, Subcommand)]
pub enum LshCommand {
    /// Print the S-curve 1 − (1 − s^r)^b as CSV `similarity,probability` for s = 0, 0.05, …, 1.
    Scurve {
        /// Number of bands b.
        #[arg(long)]
        bands: usize,
        /// Rows per band r.
        #[arg(long)]
        rows: usize,
    },
    /// Choose (b, r) with b·r ≤ num_perm for a target threshold, with P(candidate) around the
    /// threshold and the permutations the banding leaves unused. The default,
    /// `recall-at-threshold` (P(candidate | J = t) ≥ 0.95 with the fewest false candidates), is
    /// what `neardup dedup` runs, since it verifies every candidate; `balanced` (datasketch's
    /// weighted areas) suits candidates that are not verified, and misses more pairs at t.
    Tune {
        /// Target Jaccard threshold in (0, 1].
        #[arg(long)]
        threshold: f64,
        /// Signature length available.
        #[arg(long)]
        num_perm: usize,
        /// Weight of the false-positive area in [0, 1]; false negatives get 1 − W (balanced
        /// objective only).
        #[arg(long, default_value_t = 0.5)]
        false_positive_weight: f64,
        /// What the banding is chosen for.
        #[arg(long, value_enum, default_value_t = TuneObjective::RecallAtThreshold)]
        objective: TuneObjective,
        /// The least P(candidate | J = threshold) (recall-at-threshold objective only).
        #[arg(long, default_value_t = banding::RECALL_AT_THRESHOLD)]
        min_probability: f64,
        /// Output: text (a `key=value` line, then P(candidate) around the threshold), CSV (one
        /// row per similarity point: bands, rows, threshold, objective, unused_permutations,
        /// similarity, probability), or JSON (one document).
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
}

/// `--objective` of `lsh tune`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum TuneObjective {
    /// Least equal-weight false-positive and false-negative areas (datasketch).
    Balanced,
    /// P(candidate | J = threshold) ≥ --min-probability with the fewest false candidates.
    RecallAtThreshold,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        match self.command {
            LshCommand::Scurve { bands, rows } => scurve(bands, rows, &mut invocation.out),
            LshCommand::Tune {
                threshold,
                num_perm,
                false_positive_weight,
                objective,
                min_probability,
                format,
            } => tune(
                threshold,
                num_perm,
                match objective {
                    TuneObjective::Balanced => banding::Objective::Balanced {
                        false_positive_weight,
                    },
                    TuneObjective::RecallAtThreshold => {
                        banding::Objective::RecallAtThreshold { min_probability }
                    }
                },
                format,
                &mut invocation.out,
            ),
        }
    }
}
