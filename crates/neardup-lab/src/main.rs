//! The `neardup` binary: see `neardup --help`.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::FromArgMatches;
use neardup_lab::cli::{
    Cli, Command, DatasetsCommand, HammingCommand, IdfCommand, IndexCommand, LshCommand,
};
use neardup_lab::commands;
use neardup_lab::corpus::manifest::data_dir;
use neardup_lab::edits::derive::DeriveOptions;

/// Every allocation counted, so the runner reports each cell's peak heap exactly.
#[global_allocator]
static GLOBAL: neardup_lab::memory::CountingAlloc = neardup_lab::memory::CountingAlloc;

fn main() -> ExitCode {
    let matches = neardup_lab::cli::command().get_matches();
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

/// `(position, value)` of every occurrence of an argument of the subcommand at `path`
/// (`["eval"]`, `["idf", "build"]`).
fn positioned(matches: &clap::ArgMatches, path: &[&str], id: &str) -> Vec<(usize, String)> {
    let mut m = matches;
    for sub in path {
        let Some(next) = m.subcommand_matches(sub) else {
            return Vec::new();
        };
        m = next;
    }
    match (m.indices_of(id), m.get_many::<String>(id)) {
        (Some(i), Some(v)) => i.zip(v.cloned()).collect(),
        _ => Vec::new(),
    }
}

fn run(cli: Cli, matches: &clap::ArgMatches) -> anyhow::Result<()> {
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads as usize)
            .build_global()?;
    }
    neardup::pairs::set_limit(cli.max_pairs.unwrap_or(neardup::pairs::DEFAULT_LIMIT));
    neardup::resources::set_memory_limit(
        cli.max_memory
            .or_else(|| neardup_dedup::machine::physical_bytes().map(|b| b / 2))
            .unwrap_or(u64::MAX),
    );
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match cli.command {
        Command::Algorithms => commands::algorithms::run(&mut out)?,
        Command::Similarity {
            file_a,
            file_b,
            shingle,
            idf_from,
        } => commands::similarity::run(&file_a, &file_b, shingle, idf_from.as_deref(), &mut out)?,
        Command::Eval {
            corpus,
            pairs,
            algorithms: _,
            params: _,
            format,
            seed,
            input,
        } => {
            let configs = commands::eval::configs(
                &positioned(matches, &["eval"], "algorithms"),
                &positioned(matches, &["eval"], "params"),
            )?;
            commands::eval::run(
                &corpus,
                &input.options(),
                pairs.as_deref(),
                &configs,
                format,
                seed,
                &mut out,
            )?
        }
        Command::Edit {
            input,
            edits,
            seed,
            output,
            copies,
            fraction,
            input_args,
        } => {
            let opts = DeriveOptions {
                copies,
                fraction,
                seed,
            };
            let summary =
                commands::edit::run(&input, &input_args.options(), &edits, opts, &output)?;
            eprintln!("neardup: {summary}");
        }
        Command::Datasets {
            data_dir: dir,
            command,
        } => {
            let dir = data_dir(dir.as_deref());
            match command {
                DatasetsCommand::List => commands::datasets::list(&dir, &mut out)?,
                DatasetsCommand::Verify { names } => {
                    commands::datasets::verify(&dir, &names, &mut out)?
                }
            }
        }
        Command::Run {
            experiment,
            out,
            force,
            cache,
            data_dir: dir,
        } => commands::run::run(
            &experiment,
            out.as_deref(),
            &cache,
            &data_dir(dir.as_deref()),
            force,
        )?,
        Command::Reproduce {
            data_dir: dir,
            out,
            cache,
            force,
            only,
        } => commands::run::reproduce(&out, &cache, &data_dir(dir.as_deref()), force, &only)?,
        Command::Bench {
            corpus,
            task,
            fingerprints,
            truth,
            repeat,
            threshold,
            params,
            label,
            dedup_memory,
        } => {
            let opts = commands::bench_tasks::BenchOptions {
                corpus,
                task,
                truth,
                repeat: repeat as usize,
                threshold,
                fingerprints,
                params,
                label,
                dedup_memory,
            };
            commands::bench::run(&opts, &mut out)?
        }
        Command::BenchReport {
            results,
            peers_header,
            out: dir,
        } => commands::bench_report::run(&results, peers_header.as_deref(), &dir)?,
        Command::Idf { command } => match command {
            IdfCommand::Build {
                corpora,
                output,
                input,
                ..
            } => {
                let algorithms = positioned(matches, &["idf", "build"], "algorithms");
                let params = positioned(matches, &["idf", "build"], "params");
                let configs = if algorithms.is_empty() && params.is_empty() {
                    commands::idf::default_configs()
                } else {
                    commands::eval::configs(&algorithms, &params)?
                };
                let summary = commands::idf::build(&corpora, &input.options(), &configs, &output)?;
                eprintln!("neardup: {summary}");
            }
            IdfCommand::Show { table } => commands::idf::show(&table, &mut out)?,
        },
        Command::Calibrate {
            corpus,
            pairs,
            target_precision,
            holdout,
            bootstrap,
            seed,
            out: out_dir,
            format,
            input,
            ..
        } => {
            let algorithms = positioned(matches, &["calibrate"], "algorithms");
            let params = positioned(matches, &["calibrate"], "params");
            let configs = commands::eval::configs(&algorithms, &params)?;
            let opts = neardup_lab::calibrate::Options {
                corpus,
                load: input.options(),
                pairs,
                algorithms: configs
                    .into_iter()
                    .map(|c| (c.algorithm, c.params))
                    .collect(),
                target_precision,
                holdout,
                bootstrap,
                seed,
                out: out_dir,
            };
            neardup_lab::calibrate::run(&opts, format, &mut out)?;
        }
        Command::Dedup(args) => commands::dedup::run(&args.options()?, &mut out)?,
        Command::Index { command } => match command {
            IndexCommand::Remove { index, ids } => {
                commands::dedup_index::remove(&index, &ids, &mut out)?
            }
            IndexCommand::Show { index } => commands::dedup_index::show(&index, &mut out)?,
        },
        Command::Completions { shell } => {
            // clap_complete panics on a write error; render into memory and write ourselves, so
            // `neardup completions bash | head` ends quietly like every other command.
            let mut script = Vec::new();
            clap_complete::generate(
                shell,
                &mut neardup_lab::cli::command(),
                "neardup",
                &mut script,
            );
            out.write_all(&script)?;
        }
        Command::Man { output } => {
            let pages = commands::man::write(&neardup_lab::cli::command(), &output)?;
            eprintln!(
                "neardup: wrote {pages} manual pages to {}",
                output.display()
            );
        }
        Command::Hamming {
            command:
                HammingCommand::Tune {
                    bits,
                    distance,
                    fingerprints,
                    memory,
                    format,
                },
        } => commands::hamming::tune(bits, distance, fingerprints, memory, format, &mut out)?,
        Command::Lsh { command } => match command {
            LshCommand::Scurve { bands, rows } => commands::lsh::scurve(bands, rows, &mut out)?,
            LshCommand::Tune {
                threshold,
                num_perm,
                false_positive_weight,
                format,
            } => commands::lsh::tune(threshold, num_perm, false_positive_weight, format, &mut out)?,
        },
    }
    out.flush()?;
    Ok(())
}
