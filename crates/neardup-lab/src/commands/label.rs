//! `neardup label`'s command line (the feature itself is `crate::label`).

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Result;

use super::args::CorpusArgs;
use super::invocation::{Invocation, Run};
use crate::label::{sample, session::Session, terminal};

/// Label pairs of your own corpus for `neardup calibrate --pairs`. Pairs are drawn
/// stratified by minhash-lsh's similarity estimate (strata 0.1–0.3, 0.3–0.5, 0.5–0.7,
/// 0.7–0.8, 0.8–0.9, 0.9–1 and uniformly random other pairs, up to --per-stratum each), each
/// with its stratum and weight, so that calibrate's precision and recall estimate the whole
/// corpus. You judge each pair in the terminal from a word-level diff: d (duplicate), n
/// (not), s (skip), u (undo), q (quit). Every answer is written at once; run the same command
/// again to go on where you stopped.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus.
    #[arg(long)]
    pub corpus: PathBuf,
    /// The labels file (`id_a,id_b,label,stratum,weight,similarity`): created, or resumed.
    #[arg(long)]
    pub out: PathBuf,
    /// Pairs drawn per stratum.
    #[arg(long, default_value_t = 15)]
    pub per_stratum: usize,
    /// minhash-lsh parameters of the similarity the strata follow (`key=value`, repeatable;
    /// its banding and cutoff are the sampler's).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Seed of the sample (the same seed draws the same pairs: what makes resuming work).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Only write the sample, with empty labels, to fill in elsewhere.
    #[arg(long)]
    pub sample_only: bool,
    /// How to read the corpus.
    #[command(flatten)]
    pub input: CorpusArgs,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        if self.per_stratum == 0 {
            anyhow::bail!("--per-stratum must be at least 1");
        }
        let params = crate::params::parse_params(&self.params)?;
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
        let mut session = Session::open(&self.out)?;
        let pending = session.pending(&drawn, id);
        eprintln!(
            "neardup: {} pairs drawn, {} answered in {}, {} to go",
            drawn.len(),
            session.answered(),
            self.out.display(),
            pending.len()
        );
        let text = |d: u32| texts[d as usize].to_string();
        let colour = std::io::stdout().is_terminal();
        let done = terminal::label(
            &mut session,
            &pending,
            &id,
            &text,
            &mut std::io::stdin().lock(),
            &mut invocation.out,
            colour,
        )?;
        eprintln!(
            "neardup: {} answered now, {} left; labels in {} (neardup calibrate --corpus {} --pairs {})",
            done.answered,
            done.left,
            self.out.display(),
            self.corpus.display(),
            self.out.display()
        );
        Ok(())
    }
}

/// The sample with empty labels, written atomically.
fn write_sample(
    out: &std::path::Path,
    drawn: &[sample::ToLabel],
    id: &dyn Fn(u32) -> String,
) -> Result<()> {
    let mut text = format!("{}\n", crate::label::session::HEADER);
    for p in drawn {
        text.push_str(&format!(
            "{},{},,{},{},{}\n",
            id(p.a),
            id(p.b),
            p.stratum,
            p.weight,
            p.similarity
        ));
    }
    neardup_dedup::fsutil::write_bytes(out, text.as_bytes())?;
    eprintln!(
        "neardup: wrote {} pairs to label to {}",
        drawn.len(),
        out.display()
    );
    Ok(())
}
