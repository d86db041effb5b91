//! The command-line interface (clap derive). Contracts that other tools rely on are noted on
//! each subcommand; keep their output formats exact.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// neardup: a workbench for near-duplicate text detection.
#[derive(Debug, Parser)]
#[command(name = "neardup", version, about, long_about = None)]
pub struct Cli {
    /// Worker threads (default: all cores). Results never depend on it.
    #[arg(long, global = true, env = "NEARDUP_THREADS")]
    pub threads: Option<usize>,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every registered algorithm with its default parameters, one line each.
    Algorithms,
    /// Exact similarities and every estimator's score for two text files.
    Similarity {
        /// First file (UTF-8 text).
        file_a: PathBuf,
        /// Second file (UTF-8 text).
        file_b: PathBuf,
        /// Shingle size k for the exact measures and every estimator that has one.
        #[arg(long)]
        shingle: Option<usize>,
    },
    /// LSH banding math.
    Lsh {
        /// What to compute.
        #[command(subcommand)]
        command: LshCommand,
    },
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
    /// Choose (b, r) with b·r ≤ num_perm for a target threshold (datasketch's weighted areas).
    Tune {
        /// Target Jaccard threshold in (0, 1].
        #[arg(long)]
        threshold: f64,
        /// Signature length available.
        #[arg(long)]
        num_perm: usize,
        /// Weight of the false-positive area in [0, 1]; false negatives get 1 − W.
        #[arg(long, default_value_t = 0.5)]
        false_positive_weight: f64,
    },
}
