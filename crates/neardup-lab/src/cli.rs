//! The command line: global options, and the list of subcommands (each defined in its own
//! file under `commands/`). Contracts that other tools rely on are noted on each subcommand;
//! keep their output formats exact.

use clap::{Parser, Subcommand};

use crate::commands::args::parse_size;
use crate::commands::invocation::{Invocation, Run};
use crate::commands::*;

/// neardup: a workbench for near-duplicate text detection.
#[derive(Debug, Parser)]
#[command(name = "neardup", version = crate::VERSION, about, long_about = None)]
pub struct Cli {
    /// Worker threads, 1 to 1024 (default: all cores). Results never depend on it.
    #[arg(long, global = true, env = "NEARDUP_THREADS", value_name = "N", help_heading = "Global options", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Most pairs a join may report; it stops with an error beyond (default 20000000).
    #[arg(long, global = true, env = "NEARDUP_MAX_PAIRS", value_name = "N", help_heading = "Global options", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pairs: Option<u64>,
    /// Most memory an index may need (4GiB, 500MB…); larger builds are refused before they
    /// start, with the estimate (default: half of this machine's memory).
    #[arg(long, global = true, env = "NEARDUP_MAX_MEMORY", value_name = "SIZE", help_heading = "Global options", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Declares the subcommands once: the enum clap parses into, and its dispatch to each
/// subcommand's `Run`. Adding a subcommand is its file plus one line here.
macro_rules! subcommands {
    ($($variant:ident => $args:ty,)*) => {
        /// Subcommands (each one's help is its `Args`' doc comment).
        #[derive(Debug, Subcommand)]
        pub enum Command {
            $($variant($args),)*
        }

        impl Command {
            /// Runs the chosen subcommand.
            pub fn run(self, invocation: &mut Invocation<'_>) -> anyhow::Result<()> {
                match self {
                    $(Command::$variant(args) => args.run(invocation),)*
                }
            }
        }
    };
}

subcommands! {
    Algorithms => algorithms::Args,
    Similarity => similarity::Args,
    Eval => eval::Args,
    Calibrate => calibrate::Args,
    Label => label::Args,
    Edit => edit::Args,
    Datasets => datasets::Args,
    Run => run::Args,
    Reproduce => reproduce::Args,
    Site => site::Args,
    Bench => bench::Args,
    BenchReport => bench_report::Args,
    Idf => idf::Args,
    Dedup => dedup::Args,
    Extract => extract::Args,
    Inspect => inspect::Args,
    Index => index::Args,
    Serve => serve::Args,
    Check => check::Args,
    Completions => completions::Args,
    Man => man::Args,
    Hamming => hamming::Args,
    Lsh => lsh::Args,
}

/// The command line with the help that is computed from the registries: the edit kinds
/// with what their rate means, the algorithms. (Used for parsing, completions and man pages,
/// so they all say the same.)
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let kinds: Vec<String> = crate::edits::KINDS
        .iter()
        .map(|k| format!("  {:<12} {}", k.name(), k.rate_meaning()))
        .collect();
    let algorithms: Vec<String> = neardup::registry::algorithms()
        .iter()
        .map(|a| format!("  {:<18} {}", a.name, a.summary))
        .collect();
    Cli::command()
        // A flag given twice (a --config file's, then the command line's) takes the last.
        .mut_subcommand("dedup", |c| c.args_override_self(true))
        .mut_subcommand("edit", |c| {
            c.after_help(format!("Edit kinds (rate = …):\n{}", kinds.join("\n")))
        })
        .mut_subcommand("eval", |c| {
            c.after_help(format!(
                "Algorithms (`neardup algorithms NAME` lists its parameters):\n{}",
                algorithms.join("\n")
            ))
        })
}
