//! `neardup idf build CORPUS... --output TABLE [--algorithm NAME [--param k=v]...]...`: the
//! collection statistics of a reference collection, for `idf_from`.
//!
//! One section per distinct kind of feature that the chosen configurations read (terms for
//! I-Match and Tianwang, shingles for tf-idf SimHash, spots for SpotSigs…); without
//! `--algorithm`, every registered algorithm that reads statistics, at its defaults. Counts
//! add up over the corpora, so one table can describe a collection split into files.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use neardup::features::dftable::{DfTable, Section};
use neardup::features::statistics::StatisticsFeatures;

use super::args::CorpusArgs;
use super::invocation::{Invocation, Run};
use crate::corpus::{self, LoadOptions};
use crate::eval::Config;

/// Counts of one section so far.
struct Counting {
    features: StatisticsFeatures,
    docs: u64,
    counts: HashMap<u64, u32, std::hash::BuildHasherDefault<neardup::hash::PassThroughHasher>>,
    readers: Vec<String>,
}

/// The sections the configurations need, each once, in configuration order.
fn sections(configs: &[Config]) -> Result<Vec<Counting>> {
    let mut out: Vec<Counting> = Vec::new();
    for c in configs {
        let detector = neardup::registry::detector(&c.algorithm, &c.params)?;
        let Some(features) = detector.statistics() else {
            bail!(
                "`{}` reads no collection statistics; algorithms that do: {}",
                c.algorithm,
                statistics_algorithms().join(", ")
            );
        };
        let label = format!("{}{}", c.algorithm, {
            let p = crate::params::render_params(&c.params);
            if p.is_empty() { p } else { format!(" ({p})") }
        });
        match out
            .iter_mut()
            .find(|s| s.features.description == features.description)
        {
            Some(s) => s.readers.push(label),
            None => out.push(Counting {
                features,
                docs: 0,
                counts: HashMap::default(),
                readers: vec![label],
            }),
        }
    }
    Ok(out)
}

/// Registered algorithms that read collection statistics at their defaults.
fn statistics_algorithms() -> Vec<&'static str> {
    neardup::registry::algorithms()
        .into_iter()
        .filter(|a| {
            a.detector(&Default::default())
                .map(|d| d.statistics().is_some())
                .unwrap_or(false)
        })
        .map(|a| a.name)
        .collect()
}

/// The default configurations: every algorithm that reads statistics.
pub fn default_configs() -> Vec<Config> {
    statistics_algorithms()
        .into_iter()
        .map(|name| Config {
            algorithm: name.to_string(),
            params: Default::default(),
        })
        .collect()
}

/// Builds the table and writes it atomically to `output`; returns a summary for stderr.
pub fn build(
    corpora: &[PathBuf],
    options: &LoadOptions,
    configs: &[Config],
    output: &Path,
) -> Result<String> {
    if corpora.is_empty() {
        bail!("give at least one corpus to count");
    }
    neardup_dedup::fsutil::check_output(output, corpora)?;
    let mut sections = sections(configs)?;
    let mut sources = Vec::new();
    for path in corpora {
        let corpus = corpus::load(path, options)?;
        let texts = corpus.texts();
        for s in &mut sections {
            let df = s.features.count(&texts);
            s.docs += df.docs() as u64;
            for (f, c) in df.iter() {
                let e = s.counts.entry(f).or_default();
                *e = e.saturating_add(c);
            }
        }
        sources.push(format!(
            "{} (sha256 {}, {} documents)",
            path.display(),
            corpus.sha256,
            corpus.len()
        ));
    }
    let table = DfTable {
        sections: sections
            .iter()
            .map(|s| {
                let mut entries: Vec<(u64, u32)> = s.counts.iter().map(|(&k, &v)| (k, v)).collect();
                entries.sort_unstable();
                Section {
                    description: s.features.description.clone(),
                    docs: s.docs,
                    entries,
                }
            })
            .collect(),
        sources,
    };
    neardup_dedup::fsutil::write_atomic(output, |w| table.write(w))
        .with_context(|| format!("writing {}", output.display()))?;
    let mut summary = format!(
        "wrote {} ({} section{}) from {} corpus file{}:",
        output.display(),
        table.sections.len(),
        if table.sections.len() == 1 { "" } else { "s" },
        corpora.len(),
        if corpora.len() == 1 { "" } else { "s" }
    );
    for (s, t) in sections.iter().zip(&table.sections) {
        summary.push_str(&format!(
            "\n  {} distinct features over {} documents, read by {}",
            t.entries.len(),
            t.docs,
            s.readers.join(", ")
        ));
    }
    Ok(summary)
}

/// Prints a table's sections: `idf show TABLE`.
pub fn show(path: &Path, out: &mut impl Write) -> Result<()> {
    let table = DfTable::read(path)?;
    writeln!(out, "{}", path.display())?;
    for s in &table.sources {
        writeln!(out, "  source: {s}")?;
    }
    for s in &table.sections {
        writeln!(
            out,
            "  section: {} documents, {} features: {}",
            s.docs,
            s.entries.len(),
            s.description
        )?;
    }
    Ok(())
}

/// Collection statistics of a reference corpus, for the algorithms' `idf_from`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: IdfCommand,
}

/// `neardup idf …`
#[derive(Debug, Subcommand)]
pub enum IdfCommand {
    /// Count document frequencies of the features that algorithms weigh or filter by, over
    /// one or more corpora, into a table for `--param idf_from=TABLE`.
    ///
    /// One section per kind of feature the chosen configurations read (I-Match and Tianwang:
    /// terms; tf-idf SimHash: its shingles; SpotSigs: spots). Without --algorithm: every
    /// algorithm that reads statistics, at its defaults. An algorithm refuses a table without
    /// a section for its own parameters.
    Build {
        /// Corpora to count (JSONL[.gz], CSV[.gz], Parquet, or a directory of .txt files).
        #[arg(required = true)]
        corpora: Vec<PathBuf>,
        /// The table to write (atomically).
        #[arg(long, short)]
        output: PathBuf,
        /// Algorithm whose statistics to count (repeatable).
        #[arg(long = "algorithm", value_name = "NAME")]
        algorithms: Vec<String>,
        /// `key=value` parameter of the preceding --algorithm (repeatable).
        #[arg(long = "param", value_name = "KEY=VALUE")]
        params: Vec<String>,
        /// How to read the corpora.
        #[command(flatten)]
        input: CorpusArgs,
    },
    /// Describe a table: its sources and sections.
    Show {
        /// The table.
        table: PathBuf,
    },
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        match self.command {
            IdfCommand::Build {
                corpora,
                output,
                input,
                ..
            } => {
                let algorithms = invocation.positioned(&["idf", "build"], "algorithms");
                let params = invocation.positioned(&["idf", "build"], "params");
                let configs = if algorithms.is_empty() && params.is_empty() {
                    default_configs()
                } else {
                    super::eval::configs(&algorithms, &params)?
                };
                let summary = build(&corpora, &input.options(), &configs, &output)?;
                eprintln!("neardup: {summary}");
                Ok(())
            }
            IdfCommand::Show { table } => show(&table, &mut invocation.out),
        }
    }
}
