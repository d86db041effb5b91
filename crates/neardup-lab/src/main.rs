//! The `neardup` binary: see `neardup --help`.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::FromArgMatches;
use neardup_lab::cli::Cli;
use neardup_lab::commands::invocation::Invocation;

/// Every allocation counted, so the runner reports each cell's peak heap exactly.
#[global_allocator]
static GLOBAL: neardup_lab::memory::CountingAlloc = neardup_lab::memory::CountingAlloc;

fn main() -> ExitCode {
    // First, before any thread: Ctrl-C and SIGTERM remove this run's temporary files.
    neardup_dedup::temp_files::install_signal_cleanup();
    let command = neardup_lab::cli::command();
    let argv = match neardup_lab::config_file::expand(std::env::args_os().collect(), &command) {
        Ok(argv) => argv,
        Err(e) => {
            eprintln!("neardup: error: {e:#}");
            return ExitCode::from(2);
        }
    };
    let matches = command.get_matches_from(argv);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match run(cli, &matches) {
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

/// Applies the global options, then runs the subcommand with a buffered standard output.
fn run(cli: Cli, matches: &clap::ArgMatches) -> anyhow::Result<()> {
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads as usize)
            .build_global()?;
    }
    neardup::pairs::set_limit(cli.max_pairs.unwrap_or(neardup::pairs::DEFAULT_LIMIT));
    if cli.max_memory.is_some() {
        // A limit the user gave is a bound on the process: freed large blocks go back.
        neardup_dedup::machine::map_large_blocks_apart();
    }
    neardup::resources::set_memory_limit(
        cli.max_memory
            .or_else(|| neardup_dedup::machine::physical_bytes().map(|b| b / 2))
            .unwrap_or(u64::MAX),
    );
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut invocation = Invocation::new(&mut out, matches, neardup_lab::cli::command);
    cli.command.run(&mut invocation)?;
    out.flush()?;
    Ok(())
}
