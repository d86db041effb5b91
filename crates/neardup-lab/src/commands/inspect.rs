//! `neardup inspect`'s command line (the feature itself is `crate::inspect`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use super::invocation::{Invocation, Run};
use crate::inspect::corpus::{Configuration, inspect_corpus};
use crate::inspect::eval_dump::inspect_eval;
use crate::inspect::{Inspection, Sampling, html, inspect};

/// See what a `neardup dedup` run found: pairs sampled per similarity band (just above the
/// threshold first, and those connected components removed below it), each shown side by
/// side with the words that differ highlighted, its similarity and exact Jaccard and what
/// deduplication decided; the cluster sizes and the largest clusters with each member's
/// similarity to the document kept. Writes one static HTML page (no server: open it in a
/// browser) and prints a summary, or JSON with --format json.
///
/// Or, without a dedup run, a corpus under a configuration (--corpus FILE [--algorithm A]
/// [--param k=v]…): its pairs down to --below under the threshold are shown too, the near
/// misses verification rejects and a dedup output does not keep. Or an eval run (--eval
/// FILE --corpus FILE, from `neardup eval --dump-pairs FILE`): the duplicates a
/// configuration missed, its false positives and its true positives.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The output directory of a `neardup dedup` run (or give --corpus).
    #[arg(
        required_unless_present = "corpus",
        conflicts_with = "corpus",
        value_name = "DEDUP_OUTPUT"
    )]
    pub run: Option<PathBuf>,
    /// A corpus to inspect under a configuration, instead of a dedup output.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// The algorithm (with --corpus).
    #[arg(long, default_value = "minhash-lsh", requires = "corpus")]
    pub algorithm: String,
    /// `key=value` parameters of the algorithm (with --corpus; repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE", requires = "corpus")]
    pub params: Vec<String>,
    /// An `eval --dump-pairs` file to look at (with --corpus): its pairs grouped by outcome —
    /// the duplicates it missed, its false positives, its true positives.
    #[arg(long, value_name = "FILE", requires = "corpus")]
    pub eval: Option<PathBuf>,
    /// Which configuration of the --eval file (0 = the first).
    #[arg(long, default_value_t = 0, requires = "eval")]
    pub config: usize,
    /// How far under the threshold rejected pairs are shown (with --corpus).
    #[arg(long, default_value_t = 0.1, requires = "corpus")]
    pub below: f64,
    /// How to read the corpus.
    #[command(flatten)]
    pub input: super::args::CorpusArgs,
    /// Where to write the page (default: DEDUP_OUTPUT/inspect.html, or inspect.html here with
    /// --corpus).
    #[arg(long = "output", short = 'o', alias = "html", value_name = "PAGE")]
    pub page: Option<PathBuf>,
    /// Pairs shown per similarity band.
    #[arg(long, default_value_t = 5)]
    pub per_band: usize,
    /// Largest clusters shown.
    #[arg(long, default_value_t = 5)]
    pub clusters: usize,
    /// Members shown per cluster (the least similar to the kept document first).
    #[arg(long, default_value_t = 20)]
    pub members: usize,
    /// Seed of the sample within each band (the same seed shows the same pairs).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The summary printed: text for people, or the whole inspection (texts and diffs
    /// included) as JSON.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// How the inspection is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A summary per band and cluster.
    Text,
    /// Everything, as one JSON document.
    Json,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let sampling = Sampling {
            per_band: self.per_band,
            clusters: self.clusters,
            members: self.members,
            seed: self.seed,
        };
        if !(0.0..1.0).contains(&self.below) {
            anyhow::bail!("--below {} is outside [0, 1)", self.below);
        }
        let (found, default_page) = match (&self.run, &self.corpus) {
            (Some(dir), _) => (inspect(dir, sampling)?, dir.join("inspect.html")),
            (None, Some(corpus)) if self.eval.is_some() => {
                let dump = self.eval.as_deref().expect("matched");
                let options = self.input.options();
                let found = inspect_eval(dump, corpus, &options, self.config, sampling)?;
                (found, PathBuf::from("inspect.html"))
            }
            (None, Some(corpus)) => {
                let params = crate::params::parse_params(&self.params)?;
                let config = Configuration {
                    algorithm: &self.algorithm,
                    params: &params,
                    below: self.below,
                };
                let options = self.input.options();
                let found = inspect_corpus(corpus, &options, &config, sampling)?;
                (found, PathBuf::from("inspect.html"))
            }
            (None, None) => unreachable!("clap requires one of them"),
        };
        let page = self.page.unwrap_or(default_page);
        neardup_dedup::fsutil::write_bytes(&page, html::page(&found).as_bytes())?;
        let out = &mut invocation.out;
        let steps = next_steps(
            self.run.as_deref(),
            self.corpus.as_deref(),
            &found.algorithm,
        );
        match self.format {
            Format::Json => {
                writeln!(out, "{}", serde_json::to_string_pretty(&found)?)?;
                eprintln!("neardup: wrote {}", page.display());
            }
            Format::Text => {
                summary(&found, out)?;
                writeln!(
                    out,
                    "\nwrote {} (open it in a browser)\nnext:",
                    page.display()
                )?;
                for step in steps {
                    writeln!(out, "  {}  # {}", step.command, step.why)?;
                }
            }
        }
        Ok(())
    }
}

/// After looking at what a run (or a configuration) finds: label pairs of the corpus, then
/// calibrate on them. The corpus is the run's first input (from its `summary.json`).
fn next_steps(
    run: Option<&std::path::Path>,
    corpus: Option<&std::path::Path>,
    algorithm: &str,
) -> Vec<neardup_dedup::pipeline::next_steps::NextStep> {
    let inputs: Vec<String> = match (run, corpus) {
        (Some(dir), _) => std::fs::read(dir.join("summary.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| serde_json::from_value(v["inputs"].clone()).ok())
            .unwrap_or_default(),
        (None, Some(c)) => vec![c.display().to_string()],
        (None, None) => Vec::new(),
    };
    // Without a run, labels follow the sampler's own minhash-lsh (no --from).
    let (dir, algorithm) = match run {
        Some(dir) => (dir, algorithm),
        None => (std::path::Path::new("."), "none"),
    };
    let mut steps = neardup_dedup::pipeline::next_steps::next_steps(dir, &inputs, algorithm);
    steps.remove(0);
    steps
}

/// The text summary: what ran, the bands with their sampled pairs, the largest clusters.
fn summary(i: &Inspection, out: &mut impl Write) -> Result<()> {
    let num = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:.3}"));
    writeln!(
        out,
        "{}: {} documents, {} removed{}, {} pairs ({} clusters; {}{})",
        i.output,
        i.documents,
        i.removed,
        i.removed_below_threshold
            .map(|n| format!(" ({n} below the threshold from the kept document)"))
            .unwrap_or_default(),
        i.pairs,
        i.cluster_mode,
        i.algorithm,
        i.threshold
            .map(|t| format!(", threshold {t}"))
            .unwrap_or_default()
    )?;
    for b in &i.bands {
        writeln!(out, "\n{} — {} pairs", b.name, b.count)?;
        for p in &b.samples {
            writeln!(
                out,
                "  {:<24} {:<24} similarity {}  exact {}  {}",
                p.id_a,
                p.id_b,
                num(p.similarity),
                num(p.exact),
                p.decision
            )?;
        }
    }
    for c in &i.largest {
        let least = c.members.first().and_then(|m| m.similarity);
        writeln!(
            out,
            "\ncluster {}: {} documents, {} kept; least similar member {}",
            c.cluster,
            c.size,
            c.representative,
            num(least)
        )?;
    }
    Ok(())
}
