//! `neardup similarity FILE_A FILE_B [--shingle K] [--idf-from TABLE]`: exact similarities and
//! every estimator's score of the pair.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use anyhow::{Context, Result};
use neardup::detector::ParamMap;
use neardup::features::FeatureParams;
use neardup::features::similarity::{cosine, jaccard, multiset_resemblance};
use neardup::text::{Normalization, Tokenizer};

use super::invocation::{Invocation, Run};

/// Prints `name=value` lines: exact measures on word `shingle`-shingles (default 5), then
/// each registered algorithm's score of the pair (with `k = shingle` when given, and
/// `idf_from = idf_from` for the algorithms that read collection statistics). An algorithm
/// that cannot score two lone documents prints `n/a`; its warning goes to stderr.
pub fn run(
    a: &Path,
    b: &Path,
    shingle: Option<usize>,
    idf_from: Option<&Path>,
    out: &mut impl Write,
) -> Result<()> {
    let text_a = neardup::error::read_text_file(a)?;
    let text_b = neardup::error::read_text_file(b)?;
    let k = shingle.unwrap_or(5);
    let features = FeatureParams::words(k);
    features.validate("similarity")?;
    let s = features.shingler(0);
    writeln!(
        out,
        "jaccard={:.6}",
        jaccard(&s.set(&text_a), &s.set(&text_b))
    )?;
    writeln!(
        out,
        "multiset_resemblance={:.6}",
        multiset_resemblance(&s.multiset(&text_a), &s.multiset(&text_b))
    )?;
    writeln!(
        out,
        "cosine={:.6}",
        cosine(&term_frequencies(&text_a), &term_frequencies(&text_b))
    )?;
    for algo in neardup::registry::algorithms() {
        let mut params = ParamMap::new();
        if let Some(k) = shingle
            && algo.build_defaults.contains_key("k")
        {
            params.insert("k".into(), k.into());
        }
        if let Some(table) = idf_from
            && algo.build_defaults.contains_key("idf_from")
        {
            params.insert("idf_from".into(), table.display().to_string().into());
        }
        let detector = algo
            .detector(&params)
            .with_context(|| format!("configuring {}", algo.name))?;
        let index = detector
            .build(&[&text_a, &text_b])
            .with_context(|| format!("running {}", algo.name))?;
        for w in index.warnings() {
            eprintln!("neardup: warning: {w}");
        }
        match index.score(0, 1) {
            Some(score) => writeln!(out, "{}={score:.6}", algo.name)?,
            None => writeln!(out, "{}=n/a", algo.name)?,
        }
    }
    Ok(())
}

/// Word term frequencies (default normalization, Unicode words) as sorted (hash, count).
fn term_frequencies(text: &str) -> Vec<(u64, u32)> {
    let mut norm = String::new();
    Normalization::default().apply_into(text, &mut norm);
    let mut hashes = Vec::new();
    Tokenizer::Unicode.for_each_token(&norm, |t| {
        hashes.push(neardup::hash::hash_bytes(t.as_bytes(), 0))
    });
    hashes.sort_unstable();
    neardup::features::counts(&hashes)
}

/// Exact similarities and every estimator's score for two text files.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// First file (UTF-8 text).
    pub file_a: PathBuf,
    /// Second file (UTF-8 text).
    pub file_b: PathBuf,
    /// Shingle size k for the exact measures and every estimator that has one.
    #[arg(long)]
    pub shingle: Option<usize>,
    /// Collection statistics for the algorithms that read them (a table written by
    /// `neardup idf build`); without it they count two documents, and those that cannot
    /// score two lone documents print `n/a`.
    #[arg(long, value_name = "TABLE")]
    pub idf_from: Option<PathBuf>,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        run(
            &self.file_a,
            &self.file_b,
            self.shingle,
            self.idf_from.as_deref(),
            &mut invocation.out,
        )
    }
}
