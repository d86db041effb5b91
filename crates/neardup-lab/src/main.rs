//! The `neardup` binary: see `neardup --help`.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::Parser;
use neardup_lab::cli::{Cli, Command, LshCommand};
use neardup_lab::commands;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed pipe (`neardup … | head`) is not an error worth a message.
            if e.downcast_ref::<io::Error>()
                .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("neardup: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    if let Some(threads) = cli.threads {
        anyhow::ensure!(threads > 0, "--threads must be at least 1");
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()?;
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match cli.command {
        Command::Algorithms => commands::algorithms::run(&mut out)?,
        Command::Similarity {
            file_a,
            file_b,
            shingle,
        } => commands::similarity::run(&file_a, &file_b, shingle, &mut out)?,
        Command::Lsh { command } => match command {
            LshCommand::Scurve { bands, rows } => commands::lsh::scurve(bands, rows, &mut out)?,
            LshCommand::Tune {
                threshold,
                num_perm,
                false_positive_weight,
            } => commands::lsh::tune(threshold, num_perm, false_positive_weight, &mut out)?,
        },
    }
    out.flush()?;
    Ok(())
}
