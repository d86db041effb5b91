//! `neardup eval --corpus FILE [--pairs FILE] [--algorithm NAME [--param key=value]...]...
//! [--format csv|json]`.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use anyhow::{Result, bail};

use super::args::CorpusArgs;
use super::invocation::{Invocation, Run};
use crate::corpus::{self, LoadOptions, pairs};
use crate::eval::{self, Config};
use crate::params::parse_params;
use crate::truth::Truth;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// The contract CSV.
    Csv,
    /// One JSON object per configuration, every metric.
    Json,
    /// Aligned columns for people, and for each configuration that missed duplicates how
    /// similar they were (exact Jaccard of word 5-shingles) against the cut it ran with.
    Table,
}

/// Pairs each `--param` with the `--algorithm` before it (by command-line position).
pub fn configs(algorithms: &[(usize, String)], params: &[(usize, String)]) -> Result<Vec<Config>> {
    if algorithms.is_empty() {
        if !params.is_empty() {
            bail!("--param must follow an --algorithm it applies to");
        }
        return Ok(neardup::registry::algorithms()
            .into_iter()
            .map(|a| Config {
                algorithm: a.name.to_string(),
                params: Default::default(),
            })
            .collect());
    }
    let mut out = Vec::new();
    for (k, (pos, name)) in algorithms.iter().enumerate() {
        let next = algorithms.get(k + 1).map_or(usize::MAX, |a| a.0);
        let own: Vec<String> = params
            .iter()
            .filter(|(p, _)| p > pos && *p < next)
            .map(|(_, v)| v.clone())
            .collect();
        let params = parse_params(&own)?;
        if let Some(note) = crate::params::ambiguity(name, &params) {
            eprintln!("neardup: note: {note}");
        }
        out.push(Config {
            algorithm: name.clone(),
            params,
        });
    }
    if let Some((p, v)) = params.iter().find(|(p, _)| *p < algorithms[0].0) {
        bail!("--param {v} (argument {p}) comes before any --algorithm");
    }
    Ok(out)
}

/// Runs the evaluation and prints it.
/// What an evaluation is asked for besides the corpus and the configurations.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// Labelled pairs (else the corpus's cluster labels).
    pub pairs: Option<&'a Path>,
    pub format: OutputFormat,
    /// Seed of the negative-pair sample behind roc_auc.
    pub seed: u64,
    /// Where to dump every configuration's pairs.
    pub dump_pairs: Option<&'a Path>,
}

pub fn run(
    corpus_path: &Path,
    options: &LoadOptions,
    configs: &[Config],
    asked: Asked<'_>,
    out: &mut impl Write,
) -> Result<()> {
    // Validate every configuration before loading anything: a typo fails fast.
    for c in configs {
        neardup::registry::detector(&c.algorithm, &c.params)?;
    }
    let corpus = corpus::load(corpus_path, options)?;
    if corpus.skipped > 0 {
        eprintln!(
            "neardup: skipped {} malformed records of {} (first: {})",
            corpus.skipped,
            corpus_path.display(),
            corpus.first_skip.as_deref().unwrap_or("")
        );
    }
    let (format, seed) = (asked.format, asked.seed);
    let truth = match asked.pairs {
        Some(p) => Truth::Pairs(pairs::load(p, &corpus)?),
        None => Truth::from_labels(corpus.labels()),
    };
    if format == OutputFormat::Csv {
        eval::write_csv_header(out)?;
    }
    let mut dump = asked.dump_pairs.map(Dump::new);
    let mut failed = Vec::new();
    let mut table = Vec::new();
    let table_wanted = format == OutputFormat::Table;
    for config in configs {
        // Each row is out as soon as it is done: a later failure loses nothing.
        let mut pairs = Vec::new();
        let row = eval::evaluate_one(
            &corpus,
            &truth,
            config,
            seed,
            (dump.is_some() || table_wanted).then_some(&mut pairs),
        );
        if let Some(d) = dump.as_mut() {
            d.add(&row, &pairs, &corpus)?;
        }
        if let Some(e) = &row.error {
            eprintln!("neardup: {} ({}) failed: {e}", row.algorithm, row.params);
            failed.push(row.algorithm.clone());
        }
        match format {
            OutputFormat::Csv => eval::write_csv_row(&row, out)?,
            OutputFormat::Json => eval::write_json_row(&row, out)?,
            // A table aligns its columns over every row: printed at the end.
            OutputFormat::Table => {
                table.push(crate::eval_table::table_row(row, config, &pairs, &corpus))
            }
        }
        out.flush()?;
    }
    if table_wanted {
        crate::eval_table::print(&table, out)?;
    }
    if let Some(d) = dump {
        d.write()?;
    }
    if !failed.is_empty() {
        bail!(
            "{} of {} configurations failed ({}); their rows carry the error",
            failed.len(),
            configs.len(),
            failed.join(", ")
        );
    }
    Ok(())
}

/// Score algorithms on a corpus: one CSV row per algorithm configuration.
///
/// Columns: algorithm,params,resolved_params,docs,reported_pairs,clusters,largest_cluster,
/// docs_removed,removed_below_threshold,true_pairs,tp,fp,fn,precision,recall,f1,ari,
/// bcubed_precision,bcubed_recall,roc_auc,pr_auc,seconds,docs_per_s,mb_per_s,peak_mb,error
/// (empty where a metric does not apply; counts are integers in CSV and JSON). Each --param
/// applies to the --algorithm before it; with no --algorithm every registered one runs with
/// defaults.
/// Rows are printed as configurations finish; a failing one gets its error in `error`, the
/// others still run, and the exit status says that something failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus (JSONL[.gz], CSV[.gz], Parquet, or a directory of .txt files).
    #[arg(long)]
    pub corpus: PathBuf,
    /// Labelled pairs CSV `id_a,id_b[,label]`: score only these pairs.
    #[arg(long)]
    pub pairs: Option<PathBuf>,
    /// Algorithm to run (repeatable).
    #[arg(long = "algorithm", value_name = "NAME")]
    pub algorithms: Vec<String>,
    /// `key=value` parameter of the preceding --algorithm (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Csv)]
    pub format: OutputFormat,
    /// Seed of the negative-pair sample behind roc_auc.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write every configuration's reported pairs and missed duplicates here (CSV:
    /// config, algorithm, params, id_a, id_b, score, outcome), to look at with `neardup
    /// inspect --eval FILE --corpus CORPUS`.
    #[arg(long, value_name = "FILE")]
    pub dump_pairs: Option<PathBuf>,
    /// How to read the corpus.
    #[command(flatten)]
    pub input: CorpusArgs,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let configs = configs(
            &invocation.positioned(&["eval"], "algorithms"),
            &invocation.positioned(&["eval"], "params"),
        )?;
        let asked = Asked {
            pairs: self.pairs.as_deref(),
            format: self.format,
            seed: self.seed,
            dump_pairs: self.dump_pairs.as_deref(),
        };
        run(
            &self.corpus,
            &self.input.options(),
            &configs,
            asked,
            &mut invocation.out,
        )
    }
}

/// `--dump-pairs`: every configuration's reported and missed pairs as CSV (`config`,
/// `algorithm`, `params`, `id_a`, `id_b`, `score`, `outcome`), written atomically once every
/// configuration is done — what `neardup inspect --eval FILE` shows.
struct Dump {
    path: PathBuf,
    text: String,
    configs: usize,
}

impl Dump {
    fn new(path: &Path) -> Dump {
        Dump {
            path: path.to_path_buf(),
            text: format!("{}\n", eval::DUMP_HEADER),
            configs: 0,
        }
    }

    fn add(
        &mut self,
        row: &eval::Row,
        pairs: &[eval::DumpRow],
        corpus: &corpus::Corpus,
    ) -> Result<()> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for p in pairs {
            w.write_record([
                self.configs.to_string(),
                row.algorithm.clone(),
                row.params.clone(),
                corpus.id(p.a as usize).to_string(),
                corpus.id(p.b as usize).to_string(),
                p.score.map_or(String::new(), |s| s.to_string()),
                p.outcome.to_string(),
            ])?;
        }
        self.text.push_str(std::str::from_utf8(&w.into_inner()?)?);
        self.configs += 1;
        Ok(())
    }

    fn write(self) -> Result<()> {
        neardup_dedup::fsutil::write_bytes(&self.path, self.text.as_bytes())?;
        eprintln!(
            "neardup: wrote the pairs of {} configurations to {}",
            self.configs,
            self.path.display()
        );
        Ok(())
    }
}
