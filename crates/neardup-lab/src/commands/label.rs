//! `neardup label`'s command line (the feature itself is `crate::label`).

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Result;

use super::args::CorpusArgs;
use super::invocation::{Invocation, Run};
use crate::label::queue::Queue;
use crate::label::{sample, server, session::Session, terminal};

/// Label pairs of your own corpus for `neardup calibrate --pairs`. Pairs are drawn
/// stratified by minhash-lsh's similarity estimate (strata 0.1–0.3, 0.3–0.5, 0.5–0.7,
/// 0.7–0.8, 0.8–0.9, 0.9–1 and uniformly random other pairs, up to --per-stratum each), each
/// with its stratum and weight, so that calibrate's precision and recall estimate the whole
/// corpus. A page on 127.0.0.1 (its address is printed; nothing listens beyond this machine)
/// shows each pair side by side with the differences highlighted; keys: d (duplicate), n
/// (not), s (skip), u (undo). --terminal asks in the terminal instead. Every answer is
/// written at once; run the same command again to go on where you stopped.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus.
    #[arg(long)]
    pub corpus: PathBuf,
    /// The labels file (`id_a,id_b,label,stratum,weight,similarity`): created, or resumed.
    #[arg(long = "output", short = 'o', alias = "out")]
    pub out: PathBuf,
    /// Pairs drawn per stratum.
    #[arg(long, default_value_t = 15)]
    pub per_stratum: usize,
    /// minhash-lsh parameters of the similarity the strata follow (`key=value`, repeatable;
    /// its banding and cutoff are the sampler's).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// A minhash-lsh `neardup dedup` output whose parameters (shingles, signature) the
    /// strata follow, so the labels judge the similarity that run used; --param overrides.
    #[arg(long, value_name = "OUT_DIR")]
    pub from: Option<PathBuf>,
    /// Seed of the sample (the same seed draws the same pairs: what makes resuming work).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Only write the sample, with empty labels, to fill in elsewhere.
    #[arg(long)]
    pub sample_only: bool,
    /// Ask in the terminal instead of on a page.
    #[arg(long)]
    pub terminal: bool,
    /// What counts as a duplicate, asked above every pair: say what your deduplication is for
    /// (e.g. "Is one of these a repost of the other, edits and signatures aside?").
    #[arg(long, default_value = DEFAULT_QUESTION)]
    pub question: String,
    /// The page's port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// How to read the corpus.
    #[command(flatten)]
    pub input: CorpusArgs,
}

/// The question asked when `--question` is not given: a duplicate is what deduplication should
/// remove.
pub const DEFAULT_QUESTION: &str = "Should deduplication keep only one of these two documents \
     (is one a copy of the other, give or take edits, boilerplate or formatting)?";

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        if self.per_stratum == 0 {
            anyhow::bail!("--per-stratum must be at least 1");
        }
        if self.question.trim().is_empty() {
            anyhow::bail!("--question is empty: say what counts as a duplicate");
        }
        let mut params = match &self.from {
            Some(dir) => run_params(dir)?,
            None => Default::default(),
        };
        params.extend(crate::params::parse_params(&self.params)?);
        neardup::registry::detector("minhash-lsh", &params)?;
        let corpus = crate::corpus::load(&self.corpus, &self.input.options())?;
        let texts = corpus.texts();
        let drawn = sample::stratified(&texts, &params, self.per_stratum, self.seed)?;
        let id = |d: u32| corpus.id(d as usize).to_string();
        if self.sample_only {
            if self.out.exists() {
                anyhow::bail!(
                    "{} exists: --sample-only writes a new file and keeps every label made",
                    self.out.display()
                );
            }
            return write_sample(&self.out, &drawn, &id);
        }
        let session = Session::open(&self.out)?;
        let answered_before = session.answered();
        let mut queue = Queue::new(session, &drawn, id);
        let (done, left) = queue.done();
        eprintln!(
            "neardup: {} pairs drawn, {answered_before} answered in {}, {} to go",
            drawn.len(),
            self.out.display(),
            done + left
        );
        let text = |d: u32| texts[d as usize].to_string();
        let next = format!(
            "neardup calibrate --corpus {} --pairs {}",
            self.corpus.display(),
            self.out.display()
        );
        if self.terminal {
            let colour = std::io::stdout().is_terminal();
            writeln!(invocation.out, "{}", self.question)?;
            terminal::label(
                &mut queue,
                &text,
                &mut std::io::stdin().lock(),
                &mut invocation.out,
                colour,
            )?;
            let (done, left) = queue.done();
            eprintln!("neardup: {done} answered now, {left} left; then: {next}");
            return Ok(());
        }
        let bound = server::bind(self.port)?;
        eprintln!(
            "neardup: label at http://{}/ (Ctrl-C stops; every answer is already saved)",
            bound.address
        );
        let context = server::Context {
            out: self.out.display().to_string(),
            next,
            question: self.question,
        };
        server::serve(bound, queue, &text, &context)
    }
}

/// The sample with empty labels, written atomically.
fn write_sample(
    out: &std::path::Path,
    drawn: &[sample::ToLabel],
    id: &dyn Fn(u32) -> String,
) -> Result<()> {
    let mut text = format!("{}\n", crate::label::session::HEADER).into_bytes();
    for p in drawn {
        text.extend(crate::label::session::row(&id(p.a), &id(p.b), "", p));
    }
    neardup_dedup::fsutil::write_bytes(out, &text)?;
    eprintln!(
        "neardup: wrote {} pairs to label to {}",
        drawn.len(),
        out.display()
    );
    Ok(())
}

/// The build parameters a minhash-lsh dedup run in `dir` ran with (its `summary.json`),
/// without those the sampler sets itself.
fn run_params(dir: &std::path::Path) -> Result<neardup::detector::ParamMap> {
    let path = dir.join("summary.json");
    let summary: serde_json::Value = serde_json::from_slice(
        &std::fs::read(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
    )
    .map_err(|e| anyhow::anyhow!("{}: not JSON: {e}", path.display()))?;
    if summary["algorithm"] != "minhash-lsh" {
        anyhow::bail!(
            "{}: the run used {}; --from needs a minhash-lsh run (its estimate makes the strata)",
            path.display(),
            summary["algorithm"]
        );
    }
    let mut params = summary["params"].as_object().cloned().unwrap_or_default();
    for own in [
        "threshold",
        "bands",
        "rows",
        "min_similarity",
        "tuning",
        "verify",
    ] {
        params.remove(own);
    }
    Ok(params)
}
