//! Inspecting an `eval` run (`neardup eval --dump-pairs FILE`): one configuration's pairs,
//! grouped by what they were — duplicates it missed, false positives, true positives — each
//! shown with its texts from the corpus.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::tables::PairRow;
use super::{Found, Inspection, Sampling, assemble};
use crate::corpus::{LoadOptions, load};

/// Inspects configuration `config` (0 = the first) of the dump at `dump`, over `corpus`.
pub fn inspect_eval(
    dump: &Path,
    corpus_path: &Path,
    options: &LoadOptions,
    config: usize,
    sampling: Sampling,
) -> Result<Inspection> {
    let mut reader =
        csv::Reader::from_path(dump).with_context(|| format!("{}: cannot read", dump.display()))?;
    let header: Vec<String> = reader.headers()?.iter().map(String::from).collect();
    let expected = crate::eval::DUMP_HEADER.split(',').collect::<Vec<_>>();
    if header != expected {
        bail!(
            "{}:1: not a pairs dump of neardup eval (expected {})",
            dump.display(),
            expected.join(",")
        );
    }
    let (mut algorithm, mut given) = (None, String::new());
    let mut pairs = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let r = record.with_context(|| format!("{}:{}: malformed CSV", dump.display(), i + 2))?;
        if r[0].parse::<usize>().ok() != Some(config) {
            continue;
        }
        algorithm.get_or_insert_with(|| r[1].to_string());
        given = r[2].to_string();
        pairs.push(PairRow {
            id_a: r[3].to_string(),
            id_b: r[4].to_string(),
            similarity: r[5].parse().ok(),
            stage: r[6].to_string(),
        });
    }
    let Some(algorithm) = algorithm else {
        bail!("{}: no pair of configuration {config}", dump.display());
    };
    let given = crate::params::parse_params(
        &given
            .split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>(),
    )?;
    let detector = neardup::registry::detector(&algorithm, &given)?;
    let params = detector.resolved_params();
    let corpus = load(corpus_path, options)?;
    let by_id: HashMap<&str, usize> = (0..corpus.len()).map(|i| (corpus.id(i), i)).collect();
    let found = Found {
        source: format!(
            "{} (configuration {config}) on {}",
            dump.display(),
            corpus_path.display()
        ),
        from_run: false,
        algorithm,
        params,
        cluster_mode: "none (pairs only)".into(),
        documents: corpus.len() as u64,
        removed: 0,
        removed_below_threshold: None,
        cluster_sizes: serde_json::Value::Null,
        pairs,
        clusters: Vec::new(),
    };
    assemble(found, sampling, |wanted| {
        Ok(wanted
            .iter()
            .filter_map(|w| {
                by_id
                    .get(w)
                    .map(|&i| (w.to_string(), corpus.text(i).to_string()))
            })
            .collect())
    })
}
