//! The command-line interface (clap derive). Contracts that other tools rely on are noted on
//! each subcommand; keep their output formats exact.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use neardup_dedup::{DedupOptions, Keep, Stage};

use crate::commands::eval::OutputFormat;
use crate::corpus::{Fields, Format, LoadOptions};
pub use crate::output_format::ReportFormat;

/// neardup: a workbench for near-duplicate text detection.
#[derive(Debug, Parser)]
#[command(name = "neardup", version = crate::VERSION, about, long_about = None)]
pub struct Cli {
    /// Worker threads (default: all cores). Results never depend on it.
    #[arg(long, global = true, env = "NEARDUP_THREADS", value_name = "N", help_heading = "Global options", value_parser = clap::value_parser!(u64).range(1..))]
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
        /// Collection statistics for the algorithms that read them (a table written by
        /// `neardup idf build`); without it they count two documents, and those that cannot
        /// score two lone documents print `n/a`.
        #[arg(long, value_name = "TABLE")]
        idf_from: Option<PathBuf>,
    },
    /// Score algorithms on a corpus: one CSV row per algorithm configuration.
    ///
    /// Columns: algorithm,params,docs,true_pairs,tp,fp,fn,precision,recall,f1,ari,roc_auc,
    /// seconds,docs_per_s,error (empty where a metric does not apply). Each --param applies to
    /// the --algorithm before it; with no --algorithm every registered one runs with defaults.
    /// Rows are printed as configurations finish; a failing one gets its error in `error`, the
    /// others still run, and the exit status says that something failed.
    Eval {
        /// The corpus (JSONL[.gz], CSV[.gz], Parquet, or a directory of .txt files).
        #[arg(long)]
        corpus: PathBuf,
        /// Labelled pairs CSV `id_a,id_b[,label]`: score only these pairs.
        #[arg(long)]
        pairs: Option<PathBuf>,
        /// Algorithm to run (repeatable).
        #[arg(long = "algorithm", value_name = "NAME")]
        algorithms: Vec<String>,
        /// `key=value` parameter of the preceding --algorithm (repeatable).
        #[arg(long = "param", value_name = "KEY=VALUE")]
        params: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Csv)]
        format: OutputFormat,
        /// Seed of the negative-pair sample behind roc_auc.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// How to read the corpus.
        #[command(flatten)]
        input: CorpusArgs,
    },
    /// Choose parameters from your own labelled pairs: sweep each algorithm's grid (shingles,
    /// signature length, variants), pick the threshold with the best F1 (or the best recall at
    /// --target-precision) with 95 % bootstrap intervals, rank the configurations and print the
    /// recommended command.
    ///
    /// Labels: --pairs FILE (id_a,id_b[,label]) or, without it, the corpus's cluster labels:
    /// every pair inside a cluster plus as many non-duplicates, the most similar cross-cluster
    /// pairs (exact word 3-shingle Jaccard ≥ 0.3) and uniformly random ones.
    Calibrate {
        /// The corpus (JSONL[.gz], CSV[.gz], Parquet, or a directory of .txt files).
        #[arg(long)]
        corpus: PathBuf,
        /// Labelled pairs CSV `id_a,id_b[,label]` (default: pairs from the cluster labels).
        #[arg(long)]
        pairs: Option<PathBuf>,
        /// Algorithm to calibrate (repeatable; default: every registered one).
        #[arg(long = "algorithm", value_name = "NAME")]
        algorithms: Vec<String>,
        /// `key=value` fixed for every grid point of the preceding --algorithm (repeatable).
        #[arg(long = "param", value_name = "KEY=VALUE")]
        params: Vec<String>,
        /// Highest recall among thresholds with at least this precision, instead of the
        /// highest F1.
        #[arg(long, value_name = "P")]
        target_precision: Option<f64>,
        /// Choose on the other pairs and report the chosen setting on this fraction (e.g. 0.3),
        /// split per class with --seed.
        #[arg(long, value_name = "FRACTION")]
        holdout: Option<f64>,
        /// Bootstrap resamples behind the 95 % intervals.
        #[arg(long, default_value_t = 1000)]
        bootstrap: usize,
        /// Seed of the bootstrap, the holdout split and the sampled non-duplicates.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write a report here: README.md, calibration.json, charts/.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Output: a ranking table with the recommendation, CSV, or JSON (one object per
        /// configuration).
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
        /// How to read the corpus.
        #[command(flatten)]
        input: CorpusArgs,
    },
    /// Derive edited copies of a corpus's documents with exact ground truth (JSONL output).
    Edit {
        /// The source corpus.
        input: PathBuf,
        /// Edit model: `kind=rate[,kind=rate…]`, applied in order (the kinds are listed
        /// below).
        #[arg(long)]
        edits: String,
        /// Seed of the edits and of the choice of sources.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output JSONL (written atomically).
        #[arg(long)]
        output: PathBuf,
        /// Edited copies per chosen source.
        #[arg(long, default_value_t = 1)]
        copies: usize,
        /// Fraction of sources that get copies.
        #[arg(long, default_value_t = 1.0)]
        fraction: f64,
        /// How to read the corpus.
        #[command(flatten)]
        input_args: CorpusArgs,
    },
    /// The real corpora the project knows (manifests in datasets/*.toml).
    Datasets {
        /// Data directory (default: $NEARDUP_DATA_DIR, else datasets/cache).
        #[arg(long, global = true)]
        data_dir: Option<PathBuf>,
        /// What to do.
        #[command(subcommand)]
        command: DatasetsCommand,
    },
    /// Run an experiment: build every cell not already cached, then write results, charts and
    /// a report.
    Run {
        /// The experiment TOML.
        experiment: PathBuf,
        /// Report directory (default: reports/<experiment name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Recompute cells even when cached.
        #[arg(long)]
        force: bool,
        /// Raw-result cache (one subfolder per experiment).
        #[arg(long, default_value = ".neardup-cache")]
        cache: PathBuf,
        /// Data directory for real corpora (default: $NEARDUP_DATA_DIR, else datasets/cache).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// The main job: run the standard experiments (real corpora when the data directory has
    /// them, the embedded corpus otherwise) and regenerate the reports and their index.
    Reproduce {
        /// Data directory for real corpora (default: $NEARDUP_DATA_DIR, else datasets/cache).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Reports directory.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
        /// Raw-result cache.
        #[arg(long, default_value = ".neardup-cache")]
        cache: PathBuf,
        /// Recompute cells even when cached.
        #[arg(long)]
        force: bool,
        /// Only these standard experiments (repeatable).
        #[arg(long = "only", value_name = "NAME")]
        only: Vec<String>,
    },
    /// Time one task on a corpus; print one JSON line in the peer benchmark kit's schema
    /// (tool, task, docs, mb, seconds, docs_per_s, …), so neardup and its peers compare in one
    /// file.
    Bench {
        /// Corpus (JSONL with `id` and `text`).
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// Task: shingle_word5, minhash128_sketch, minhash128_end_to_end,
        /// minhash128_oph_end_to_end, lsh_insert_query, simhash64_end_to_end,
        /// hamming_all_pairs, dedup_end_to_end (`neardup dedup` in a child process, file in →
        /// outputs written, default parameters at --threshold, peak RSS and CPU from
        /// getrusage), or a registered algorithm's name (build + query, defaults).
        #[arg(long)]
        task: String,
        /// hamming_all_pairs only: this many random 64-bit fingerprints (1 % planted
        /// neighbours) instead of the corpus's SimHashes.
        #[arg(long)]
        fingerprints: Option<usize>,
        /// Planted pairs CSV (`id_a,id_b`): adds recall and precision to LSH and algorithm tasks.
        #[arg(long)]
        truth: Option<PathBuf>,
        /// Best of this many runs (at least 1).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
        repeat: u64,
        /// Jaccard threshold the LSH banding is tuned for.
        #[arg(long, default_value_t = 0.8)]
        threshold: f64,
        /// dedup_end_to_end only: `key=value` passed to `neardup dedup --param` (repeatable).
        #[arg(long = "param", value_name = "KEY=VALUE")]
        params: Vec<String>,
        /// dedup_end_to_end only: a name for this configuration in the JSON line (`config`).
        #[arg(long)]
        label: Option<String>,
        /// dedup_end_to_end only: passed to `neardup dedup --memory` (the spilled join).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        dedup_memory: Option<u64>,
    },
    /// Write the side-by-side performance report from `scripts/bench-peers.sh`'s JSON lines.
    BenchReport {
        /// JSON lines of the peers and of `neardup bench`.
        results: PathBuf,
        /// The peer kit's stderr (its `# {...}` header names the corpus and versions).
        #[arg(long)]
        peers_header: Option<PathBuf>,
        /// Report directory.
        #[arg(long, default_value = "reports/performance")]
        out: PathBuf,
    },
    /// Collection statistics of a reference corpus, for the algorithms' `idf_from`.
    Idf {
        /// What to do.
        #[command(subcommand)]
        command: IdfCommand,
    },
    /// Deduplicate a corpus: near-duplicate clusters, the ids removed, and the corpus without
    /// them, in stages that stream, resume and can be split across processes.
    ///
    /// Inputs: JSONL (.jsonl, .json, .ndjson), CSV and Parquet files, optionally .gz / .zst
    /// (not Parquet); directories (recursively) and glob patterns. Ids are optional (the
    /// document number when absent). Default: minhash-lsh, word 5-shingles, threshold 0.8, a
    /// tuned banding, candidates verified on the full signature.
    ///
    /// Stages write under DIR/stages/ and are skipped on rerun while their inputs and
    /// parameters are unchanged: sketch (one shard per input file) → candidates → verify →
    /// components → outputs. Outputs: clusters.parquet (id, cluster, cluster_size, kept),
    /// removed.txt, deduplicated.<ext> (deduplicated/ for several inputs), summary.json,
    /// README.md. `neardup algorithms` says which algorithms stream; the others read every
    /// text into memory in the verify stage.
    ///
    /// Incremental: with --index DIR, the inputs are deduplicated against every document
    /// indexed before (and each other) and then added to the index; `neardup index remove`
    /// takes documents out. Give documents ids (--id-field) to remove them later.
    Dedup(DedupArgs),
    /// The persistent index of `neardup dedup --index`.
    Index {
        /// What to do.
        #[command(subcommand)]
        command: IndexCommand,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    ///
    /// For example: `neardup completions bash > ~/.local/share/bash-completion/completions/neardup`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Write the manual pages (neardup.1 and one per subcommand) into a directory.
    Man {
        /// Where to write them (created if missing).
        #[arg(long, default_value = "man")]
        output: PathBuf,
    },
    /// Hamming search design.
    Hamming {
        /// What to compute.
        #[command(subcommand)]
        command: HammingCommand,
    },
    /// LSH banding math.
    Lsh {
        /// What to compute.
        #[command(subcommand)]
        command: LshCommand,
    },
}

/// `neardup index …`
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Remove documents from an index by id (every indexed document with that id).
    Remove {
        /// The index directory.
        #[arg(long)]
        index: PathBuf,
        /// A file of ids, one per line (`removed.txt` of a dedup run is one).
        #[arg(long)]
        ids: PathBuf,
    },
    /// Describe an index: algorithm, signatures, segments and where they came from.
    Show {
        /// The index directory.
        #[arg(long)]
        index: PathBuf,
    },
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
        #[arg(long)]
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
        .mut_subcommand("edit", |c| {
            c.after_help(format!("Edit kinds (rate = …):\n{}", kinds.join("\n")))
        })
        .mut_subcommand("eval", |c| {
            c.after_help(format!(
                "Algorithms (`neardup algorithms` lists their parameters):\n{}",
                algorithms.join("\n")
            ))
        })
}

/// A size with an optional unit (`4GiB`, `500MB`, bytes).
pub fn parse_size(s: &str) -> Result<u64, String> {
    neardup::resources::parse_bytes(s)
}

/// `neardup dedup`'s arguments.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Input files, directories or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output directory.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Algorithm.
    #[arg(long, default_value = "minhash-lsh", value_name = "NAME")]
    pub algorithm: String,
    /// `key=value` parameter of the algorithm (repeatable), e.g. threshold=0.7.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Text field (JSONL) or column (CSV, Parquet).
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// Id field or column (document numbers when a record has none).
    #[arg(long, default_value = "id")]
    pub id_field: String,
    /// Which document of a cluster is kept.
    #[arg(long, default_value = "first", value_parser = named_choice(&Keep::ALL, Keep::name))]
    pub keep: Keep,
    /// Memory the run may use (4GiB, 500MB…): each file is sketched a row group at a time,
    /// and a join whose signatures do not fit spills its keys to disk and reads candidates'
    /// signatures back from the sketch shards (same output). Not below a few hundred MB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<u64>,
    /// Run only this stage (the stages before it must have finished).
    #[arg(long, value_parser = named_choice(&Stage::ALL, Stage::name))]
    pub stage: Option<Stage>,
    /// Sketch only shard I of N (input files I, I + N, …; 0-based), then stop: several
    /// processes or machines sharing DIR split the sketch stage.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// A persistent index (created if missing): deduplicate against the documents indexed
    /// before, then add the inputs to it. Needs an algorithm that streams.
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Do not keep compressed JSONL inputs inflated under DIR/stages/ between the sketch and
    /// outputs stages (the copy takes as much disk as the inflated text, until the outputs
    /// are written; without it the outputs stage inflates the inputs again).
    #[arg(long)]
    pub no_inflated_copy: bool,
    /// How much text of an input file the sketch stage reads between checkpoints (each
    /// closes a piece of the file's shard): a killed run resumes at the last checkpoint
    /// instead of the file's start.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "256MiB")]
    pub checkpoint_every: u64,
}

impl DedupArgs {
    /// The options of `neardup_dedup::run` (parameters parsed).
    pub fn options(self) -> anyhow::Result<DedupOptions> {
        Ok(DedupOptions {
            inputs: self.inputs,
            output: self.output,
            algorithm: self.algorithm,
            params: crate::params::parse_params(&self.params)?,
            text_field: self.text_field,
            id_field: self.id_field,
            keep: self.keep,
            memory: self.memory,
            stage: self.stage,
            shard: self.shard,
            index: self.index,
            inflated_copy: !self.no_inflated_copy,
            checkpoint_bytes: self.checkpoint_every.max(1),
        })
    }
}

/// A parser for a choice among named values (the pipeline's enums know their names; clap stays
/// out of the pipeline crate), listing the names in `--help` as `value_enum` would.
fn named_choice<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
) -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(all.iter().map(|&v| name(v))).map(move |s| {
        *all.iter()
            .find(|&&v| name(v) == s)
            .expect("clap accepts only the listed names")
    })
}

/// `I/N` with 0 ≤ I < N.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}` is not a shard: expected I/N with 0 <= I < N, e.g. 0/4");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i >= n {
        return Err(bad());
    }
    Ok((i, n))
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
    /// Choose (b, r) with b·r ≤ num_perm for a target threshold (datasketch's weighted areas),
    /// with P(candidate) around the threshold and the permutations the banding leaves unused.
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
        /// Output: one `key=value` line followed by the probabilities, or JSON.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
}

/// `neardup datasets …`
#[derive(Debug, Subcommand)]
pub enum DatasetsCommand {
    /// List the manifests and whether each file is in the data directory.
    List,
    /// Check the SHA-256 of the files present (or of the named datasets).
    Verify {
        /// Dataset names (default: every present file).
        names: Vec<String>,
    },
}

/// How to read a corpus file.
#[derive(Debug, Clone, Args)]
pub struct CorpusArgs {
    /// Input format (default: guessed from the name).
    #[arg(long = "input-format", value_enum)]
    pub input_format: Option<FormatArg>,
    /// Field holding the document id.
    #[arg(long, default_value = "id")]
    pub id_field: String,
    /// Field holding the text.
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// Field holding the cluster label (null = unlabelled). Every record must have it when
    /// given explicitly; by default `cluster`, optional.
    #[arg(long)]
    pub label_field: Option<String>,
    /// Ignore labels: treat the corpus as unlabelled.
    #[arg(long, conflicts_with = "label_field")]
    pub no_labels: bool,
    /// Skip malformed records (counted and reported) instead of stopping at the first.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Read at most this many documents (at least 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
}

/// Input formats on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// JSON Lines.
    Jsonl,
    /// CSV with a header.
    Csv,
    /// Parquet.
    Parquet,
    /// Directory of .txt files.
    Txt,
}

impl CorpusArgs {
    /// The load options these arguments describe.
    pub fn options(&self) -> LoadOptions {
        LoadOptions {
            format: self.input_format.map(|f| match f {
                FormatArg::Jsonl => Format::Jsonl,
                FormatArg::Csv => Format::Csv,
                FormatArg::Parquet => Format::Parquet,
                FormatArg::Txt => Format::Txt,
            }),
            fields: Fields {
                id: self.id_field.clone(),
                text: self.text_field.clone(),
                label: if self.no_labels {
                    None
                } else {
                    Some(self.label_field.clone().unwrap_or_else(|| "cluster".into()))
                },
            },
            label_required: self.label_field.is_some(),
            skip_invalid: self.skip_invalid,
            limit: self.limit.map(|l| l as usize),
            keep: Vec::new(),
        }
    }
}

/// Parses `N` or `2^D`.
pub fn parse_count(s: &str) -> Result<f64, String> {
    let s = s.trim();
    if let Some((base, exp)) = s.split_once('^') {
        let (b, e): (f64, i32) = (
            base.trim()
                .parse()
                .map_err(|_| format!("bad base in `{s}`"))?,
            exp.trim()
                .parse()
                .map_err(|_| format!("bad exponent in `{s}`"))?,
        );
        return Ok(b.powi(e));
    }
    s.parse::<f64>()
        .map_err(|_| format!("`{s}` is not a number (or 2^D)"))
}
