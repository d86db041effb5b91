//! `neardup dedup`: runs the stages (`crate::dedup`) and prints what was done.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use neardup_dedup::pipeline::next_steps::next_steps;
use neardup_dedup::pipeline::{ClusterMode, TableFormat};
use neardup_dedup::pipeline::{DedupOptions, run as run_stages};
use neardup_dedup::{Keep, Stage};

use super::args::{PageArgs, named_choice, parse_shard, parse_size};
use super::invocation::{Invocation, Run};
use crate::output_format::ListFormat;

/// Runs `neardup dedup` and prints the summary (or what a partial run did): for people, or as
/// JSON (`summary.json`'s object with the next steps; a partial run's `finished` and
/// `output`).
pub fn run(options: &DedupOptions, format: ListFormat, out: &mut impl Write) -> Result<()> {
    let ran = run_stages(options)?;
    if format == ListFormat::Json {
        let json = match &ran {
            Some(s) => {
                let mut v = serde_json::to_value(s)?;
                v["next"] = next_steps(&options.output, &s.inputs, &s.algorithm)
                    .into_iter()
                    .map(|step| step.command)
                    .collect::<Vec<_>>()
                    .into();
                v
            }
            None => serde_json::json!({
                "finished": partial(options),
                "output": options.output.display().to_string(),
            }),
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(());
    }
    match ran {
        Some(s) => {
            writeln!(
                out,
                "{} documents, {} clusters of near-duplicates ({} documents), {} removed, {} kept; {:.2} s ({:.1} MB/s)",
                s.documents,
                s.clusters,
                s.documents_in_clusters,
                s.removed,
                s.kept,
                s.seconds,
                s.text_bytes as f64 / 1e6 / s.seconds.max(1e-9)
            )?;
            if s.min_words > 0 {
                writeln!(
                    out,
                    "{} documents of fewer than {} words: matched by their exact text only",
                    s.short_documents, s.min_words
                )?;
            }
            if s.invalid_records > 0 {
                writeln!(out, "{} malformed records skipped", s.invalid_records)?;
            }
            writeln!(out, "wrote {}", options.output.display())?;
            writeln!(out, "next:")?;
            let steps = next_steps(&options.output, &s.inputs, &s.algorithm);
            for step in steps {
                writeln!(out, "  {}  # {}", step.command, step.why)?;
            }
        }
        None => {
            let what = partial(options);
            writeln!(out, "finished {what} in {}", options.output.display())?;
        }
    }
    Ok(())
}

/// What a run that stopped early did.
fn partial(options: &DedupOptions) -> String {
    match (options.shard, options.stage) {
        (Some((i, n)), _) => format!("sketch shard {i}/{n}"),
        (None, Some(stage)) => format!("stage {}", stage.name()),
        (None, None) => "nothing".into(),
    }
}

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
#[derive(Debug, clap::Args)]
pub struct Args {
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
    /// Text field (JSONL) or column (CSV, Parquet); in JSONL, `meta.body` is the `body` of
    /// a nested `meta` object when no key is named `meta.body` itself.
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// Id field or column (document numbers when a record has none).
    #[arg(long, default_value = "id")]
    pub id_field: String,
    /// How web pages are read.
    #[command(flatten)]
    pub pages: PageArgs,
    /// Also write `kept-text.jsonl`: each kept record's text as it was compared (for web pages
    /// the extracted text, with `url`, `host`, `date`, `charset` and `title`), for tools that
    /// want text rather than the input's format.
    #[arg(long)]
    pub write_text: bool,
    /// Documents of fewer words (CJK characters count one each) are left out of
    /// near-duplicate detection, their exact copies still found (case and spacing aside):
    /// "test" is otherwise a near-duplicate of every "test" at 1.0 and short texts match on
    /// little evidence. Counted in the summary. Needs an algorithm that streams.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub min_words: usize,
    /// Skip malformed JSON Lines records (bad JSON, no text field, a text that is not a
    /// string) instead of stopping at the first: they are counted in the summary, not
    /// compared, and copied to the deduplicated output as they are (nothing is lost).
    #[arg(long)]
    pub skip_invalid: bool,
    /// Which document of a cluster is kept: first (the first in input order), longest (the
    /// longest text), max:FIELD or min:FIELD (the largest or smallest value of a field
    /// holding numbers or ISO 8601 dates: `max:date` keeps the newest, `max:score` the best
    /// scored; documents without a value come last); the first among equals. A value that is
    /// neither a number nor a date is an error naming its file and line.
    #[arg(
        long,
        default_value = "first",
        value_name = "first|longest|max:FIELD|min:FIELD"
    )]
    pub keep: Keep,
    /// How verified pairs become clusters. Default: verified, when the algorithm can compare
    /// any two documents (every streamed one, and minhash-lsh with verify=exact); connected
    /// otherwise.
    #[arg(long, value_parser = named_choice(&ClusterMode::ALL, ClusterMode::name, ClusterMode::description))]
    pub clusters: Option<ClusterMode>,
    /// Format of the audit tables `clusters.*` and `pairs.*` (ids, clusters, the kept
    /// document and each one's similarity to it; the verified pairs).
    #[arg(long, default_value = "parquet", value_parser = named_choice(&TableFormat::ALL, TableFormat::name, TableFormat::description))]
    pub clusters_format: TableFormat,
    /// Memory the run may use (4GiB, 500MB…; default: --max-memory): each file is sketched a
    /// row group at a time, and a join whose signatures do not fit spills its keys to disk and
    /// reads candidates' signatures back from the sketch shards (same output). At least about
    /// 100 MB per input file sketched at a time (the limit is refused before any work, naming
    /// the least it takes).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<u64>,
    /// Run only this stage (the stages before it must have finished).
    #[arg(long, value_parser = named_choice(&Stage::ALL, Stage::name, Stage::description))]
    pub stage: Option<Stage>,
    /// Sketch only shard I of N (input files I, I + N, …; 0-based), then stop: several
    /// processes or machines sharing DIR split the sketch stage.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// A persistent index (created if missing): deduplicate against the documents indexed
    /// before, then add the inputs to it. Needs an algorithm that streams.
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Do not keep gzipped JSONL inputs inflated under DIR/stages/ between the sketch and
    /// outputs stages (the copy takes as much disk as the inflated text, until the outputs
    /// are written; without it the outputs stage inflates the inputs again, as it always does
    /// for .zst, which inflates faster than the copy is read back).
    #[arg(long)]
    pub no_inflated_copy: bool,
    /// How much text of an input file the sketch stage reads between checkpoints (each
    /// closes a piece of the file's shard): a killed run resumes at the last checkpoint
    /// instead of the file's start.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "256MiB")]
    pub checkpoint_every: u64,
    /// Flags from a TOML file, by their long names (`text_field = "body"`, `min_words = 5`,
    /// `[param]` `threshold = 0.7`, `inputs = ["a.jsonl"]`); the command line overrides them.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// What is printed when the run ends: a summary for people, or `summary.json`'s object
    /// (with `next`, the commands to run next) for programs.
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

impl Args {
    /// The options of `neardup_dedup::run` (parameters parsed).
    pub fn options(self) -> anyhow::Result<DedupOptions> {
        let params = crate::params::parse_params(&self.params)?;
        if let Some(note) = crate::params::ambiguity(&self.algorithm, &params) {
            eprintln!("neardup: note: {note}");
        }
        Ok(DedupOptions {
            inputs: self.inputs,
            output: self.output,
            algorithm: self.algorithm,
            params,
            text_field: self.text_field,
            id_field: self.id_field,
            html_field: self.pages.html_field,
            extract: self.pages.extract,
            boilerplate_lines: self.pages.boilerplate_lines,
            write_text: self.write_text,
            keep: self.keep.clone(),
            clusters: self.clusters,
            clusters_format: self.clusters_format,
            // Without --memory, the global limit bounds dedup as every other command.
            memory: match self.memory {
                Some(m) => Some(m),
                None => neardup::resources::memory_limit()?,
            },
            stage: self.stage,
            shard: self.shard,
            index: self.index,
            inflated_copy: !self.no_inflated_copy,
            checkpoint_bytes: self.checkpoint_every.max(1),
            min_words: self.min_words,
            skip_invalid: self.skip_invalid,
        })
    }
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let format = self.format;
        run(&self.options()?, format, &mut invocation.out)
    }
}
