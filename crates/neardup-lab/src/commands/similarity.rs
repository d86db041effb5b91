//! `neardup similarity A B`: how similar two texts are, exactly and by every registered
//! algorithm — each score with what it measures, and whether the algorithm at its defaults
//! would call the pair a near-duplicate (its whole query: candidates and verification).
//! Texts come from files or `--text`; `--algorithm` keeps some algorithms; `--format json`
//! gives the same for programs.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use neardup::detector::ParamMap;
use neardup::features::FeatureParams;
use neardup::features::similarity::{cosine, jaccard, multiset_resemblance};
use neardup::registry::AlgorithmInfo;
use neardup::text::{Normalization, Tokenizer};
use serde_json::{Value, json};

use super::invocation::{Invocation, Run};
use crate::output_format::ListFormat;

/// One algorithm's answer for the pair.
struct Verdict {
    name: &'static str,
    score: Option<f64>,
    /// Whether its default query reports the pair.
    duplicate: bool,
    /// The parameters that decide it, as they run.
    cut: String,
    score_is: &'static str,
}

/// Exact similarities and every estimator's score of two texts, with what each measures and
/// whether the defaults call the pair a near-duplicate.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exact measures are on word k-shingles (k = --shingle, 5 by default) after \
the default normalization. `at defaults` is what `neardup dedup` and `neardup eval` would decide \
with no parameter: a minhash-lsh score of 0.7 is not a duplicate at its threshold of 0.8."
)]
pub struct Args {
    /// Two text files (UTF-8), or one with one --text.
    #[arg(num_args = 0..=2, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A text given on the command line instead of a file (twice for two texts).
    #[arg(long = "text", value_name = "TEXT")]
    pub texts: Vec<String>,
    /// Shingle size k for the exact measures and every algorithm that has one.
    #[arg(long)]
    pub shingle: Option<usize>,
    /// Only these algorithms (repeatable; `neardup algorithms` lists them).
    #[arg(long = "algorithm", value_name = "NAME")]
    pub algorithms: Vec<String>,
    /// Collection statistics for the algorithms that read them (a table written by
    /// `neardup idf build`); without it they count two documents, and those that cannot
    /// score two lone documents print `n/a`.
    #[arg(long, value_name = "TABLE")]
    pub idf_from: Option<PathBuf>,
    /// A table for people, or JSON for programs.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ListFormat,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let mut texts = Vec::new();
        for f in &self.files {
            texts.push(neardup::error::read_text_file(f)?);
        }
        texts.extend(self.texts.iter().cloned());
        if texts.len() != 2 {
            anyhow::bail!(
                "similarity compares two texts: give two files, a file and a --text, or two --text (got {})",
                texts.len()
            );
        }
        let algorithms = chosen(&self.algorithms)?;
        let k = self.shingle.unwrap_or(5);
        let features = FeatureParams::words(k);
        features.validate("similarity")?;
        let exact = exact_measures(&features, &texts[0], &texts[1]);
        let mut verdicts = Vec::new();
        let mut warnings: Vec<(String, Vec<&'static str>)> = Vec::new();
        for algo in &algorithms {
            let (v, w) = judge(
                algo,
                [&texts[0], &texts[1]],
                self.shingle,
                self.idf_from.as_deref(),
            )?;
            verdicts.push(v);
            for w in w {
                match warnings.iter_mut().find(|(t, _)| *t == w) {
                    Some((_, names)) => names.push(algo.name),
                    None => warnings.push((w, vec![algo.name])),
                }
            }
        }
        let out = &mut invocation.out;
        match self.format {
            ListFormat::Json => {
                let doc = json_document(k, &exact, &verdicts, &warnings);
                writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
            }
            ListFormat::Text => {
                print_text(out, k, &exact, &verdicts)?;
                print_notes(&warnings);
            }
        }
        Ok(())
    }
}

/// The registered algorithms named (all of them when none is).
fn chosen(names: &[String]) -> Result<Vec<AlgorithmInfo>> {
    if names.is_empty() {
        return Ok(neardup::registry::algorithms());
    }
    names
        .iter()
        .map(|n| Ok(neardup::registry::find(n)?))
        .collect()
}

/// (name, value, what it is) of the exact measures.
fn exact_measures(features: &FeatureParams, a: &str, b: &str) -> Vec<(&'static str, f64, String)> {
    let s = features.shingler(0);
    let k = features.k;
    vec![
        (
            "jaccard",
            jaccard(&s.set(a), &s.set(b)),
            format!("Jaccard of the word {k}-shingle sets"),
        ),
        (
            "multiset_resemblance",
            multiset_resemblance(&s.multiset(a), &s.multiset(b)),
            format!("resemblance of the word {k}-shingle multisets (repeats count)"),
        ),
        (
            "cosine",
            cosine(&term_frequencies(a), &term_frequencies(b)),
            "cosine of the word term frequencies".into(),
        ),
    ]
}

/// One algorithm on the pair: its score, whether its default query reports the pair, and
/// the warnings of its index.
fn judge(
    algo: &AlgorithmInfo,
    texts: [&str; 2],
    shingle: Option<usize>,
    idf_from: Option<&Path>,
) -> Result<(Verdict, Vec<String>)> {
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
        .build(&texts)
        .with_context(|| format!("running {}", algo.name))?;
    let duplicate = index
        .query(&ParamMap::new())
        .with_context(|| format!("querying {}", algo.name))?
        .iter()
        .any(|p| (p.a, p.b) == (0, 1));
    let cut = crate::params::deciding_params(detector.as_ref());
    let verdict = Verdict {
        name: algo.name,
        score: index.score(0, 1),
        duplicate,
        cut,
        score_is: algo.score,
    };
    Ok((verdict, index.warnings()))
}

fn print_text(
    out: &mut impl Write,
    k: usize,
    exact: &[(&'static str, f64, String)],
    verdicts: &[Verdict],
) -> Result<()> {
    writeln!(
        out,
        "Exact measures (word {k}-shingles, default normalization):"
    )?;
    for (name, value, what) in exact {
        writeln!(out, "  {name:<22} {value:>8.4}   {what}")?;
    }
    let width = verdicts
        .iter()
        .map(|v| v.name.len())
        .max()
        .unwrap_or(9)
        .max(9);
    let cut_width = verdicts
        .iter()
        .map(|v| v.cut.len())
        .max()
        .unwrap_or(0)
        .max(12);
    writeln!(
        out,
        "\n{:<width$}  {:>8}  {:<11}  {:<cut_width$}  score is",
        "algorithm", "score", "at defaults", "decided by"
    )?;
    for v in verdicts {
        let score = v.score.map_or("n/a".to_string(), |s| format!("{s:.4}"));
        let call = if v.duplicate { "duplicate" } else { "distinct" };
        writeln!(
            out,
            "{:<width$}  {score:>8}  {call:<11}  {:<cut_width$}  {}",
            v.name, v.cut, v.score_is
        )?;
    }
    Ok(())
}

/// The indexes' warnings on stderr, once each; the usual one (collection statistics
/// counted over two texts) as one line for every algorithm that gave it.
fn print_notes(warnings: &[(String, Vec<&'static str>)]) {
    let (statistics, others): (Vec<_>, Vec<_>) = warnings
        .iter()
        .partition(|(w, _)| w.contains(neardup::features::statistics::FEW_DOCUMENTS_WARNING));
    if !statistics.is_empty() {
        let names: Vec<&str> = statistics
            .iter()
            .flat_map(|(_, n)| n.iter().copied())
            .collect();
        eprintln!(
            "neardup: note: {} weigh terms by collection statistics, here counted over these two \
             texts only, which is coarse (imatch then cannot score); --idf-from TABLE gives them a \
             reference collection (`neardup idf build`)",
            names.join(", ")
        );
    }
    for (w, names) in others {
        eprintln!("neardup: note ({}): {w}", names.join(", "));
    }
}

fn json_document(
    k: usize,
    exact: &[(&'static str, f64, String)],
    verdicts: &[Verdict],
    warnings: &[(String, Vec<&'static str>)],
) -> Value {
    json!({
        "features": {"shingle": "word", "k": k, "normalization": "default"},
        "exact": exact.iter().map(|(n, v, what)| json!({"name": n, "value": v, "measures": what})).collect::<Vec<_>>(),
        "algorithms": verdicts.iter().map(|v| json!({
            "name": v.name,
            "score": v.score,
            "duplicate_at_defaults": v.duplicate,
            "decided_by": v.cut,
            "score_measures": v.score_is,
        })).collect::<Vec<_>>(),
        "notes": warnings.iter().map(|(w, names)| json!({"algorithms": names, "note": w})).collect::<Vec<_>>(),
    })
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
