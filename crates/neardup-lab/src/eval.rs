//! `neardup eval`: run algorithm configurations on one corpus and score them.
//!
//! Output columns (the contract): `algorithm,params,resolved_params,docs`, every column of
//! `metrics::METRICS` in order, and `error`; empty where a metric does not apply. `params` are
//! the user's; `resolved_params` every build and query parameter as it ran (defaults filled
//! in and resolved: minhash-lsh's threshold, bands and rows, tuning). `--format
//! json` prints one JSON object per configuration with the same fields and the index's
//! `stats`. Each row is printed as soon as its configuration is done; a configuration that
//! fails gets a row with its `error` and the others still run.

use std::io::Write;

use neardup::detector::{Index, ParamMap};
use neardup::hash::SplitMix64;
use neardup::pairs::pack;

use crate::corpus::Corpus;
use crate::harness;
use crate::metrics::{EvalInput, Kind, ScoredSample, compute_all};
use crate::params::render_params;
use crate::truth::Truth;

/// Columns of `neardup eval`'s CSV: the configuration, every metric column, the error.
pub fn eval_columns() -> Vec<&'static str> {
    let mut c = vec!["algorithm", "params", "resolved_params", "docs"];
    c.extend(crate::metrics::columns().map(|m| m.name));
    c.push("error");
    c
}

/// Largest number of positive (and of negative) pairs scored for the AUC columns.
pub const AUC_SAMPLE: usize = 20_000;

/// One algorithm configuration to evaluate.
#[derive(Debug, Clone)]
pub struct Config {
    /// Registered name.
    pub algorithm: String,
    /// Parameters given by the user (build and query mixed).
    pub params: ParamMap,
}

/// One evaluated configuration.
#[derive(Debug, Clone)]
pub struct Row {
    /// Algorithm name.
    pub algorithm: String,
    /// The user's parameters, `key=value` separated by spaces (empty = defaults).
    pub params: String,
    /// Every build and query parameter as it ran (empty when the configuration is invalid).
    pub resolved_params: String,
    /// Documents.
    pub docs: usize,
    /// Every metric column with its value.
    pub metrics: Vec<(&'static str, Option<f64>)>,
    /// What the index reports about itself.
    pub stats: ParamMap,
    /// Why the configuration failed, if it did (the metrics are then empty).
    pub error: Option<String>,
}

impl Row {
    /// A metric's value.
    pub fn get(&self, column: &str) -> Option<f64> {
        self.metrics
            .iter()
            .find(|(c, _)| *c == column)
            .and_then(|(_, v)| *v)
    }
}

/// The header of `eval --dump-pairs`' file (what `neardup inspect --eval` reads).
pub const DUMP_HEADER: &str = "config,algorithm,params,id_a,id_b,score,outcome";

/// One pair of a configuration's outcome, for `--dump-pairs`: reported or a missed duplicate.
#[derive(Debug, Clone, PartialEq)]
pub struct DumpRow {
    pub a: u32,
    pub b: u32,
    /// The algorithm's score of the pair, when it scores pairs.
    pub score: Option<f64>,
    /// `true positive`, `false positive`, `unlabelled` (reported, not in a pairs file) or
    /// `missed` (a duplicate not reported).
    pub outcome: &'static str,
}

/// Every reported pair with its outcome, then every duplicate of `truth` not reported.
fn dump_rows(
    truth: &Truth,
    index: &dyn Index,
    reported: &[neardup::detector::ScoredPair],
) -> Vec<DumpRow> {
    let listed: std::collections::HashMap<u64, bool> = match truth {
        Truth::Clusters { positives, .. } => positives.iter().map(|&p| (p, true)).collect(),
        Truth::Pairs(pairs) => pairs
            .iter()
            .map(|p| (pack(p.a, p.b), p.positive()))
            .collect(),
    };
    let is_cluster_truth = matches!(truth, Truth::Clusters { .. });
    let mut out: Vec<DumpRow> = reported
        .iter()
        .map(|p| DumpRow {
            a: p.a,
            b: p.b,
            score: Some(p.score),
            outcome: match listed.get(&pack(p.a, p.b)) {
                Some(true) => "true positive",
                Some(false) => "false positive",
                None if is_cluster_truth => "false positive",
                None => "unlabelled",
            },
        })
        .collect();
    let found: std::collections::HashSet<u64> = reported.iter().map(|p| pack(p.a, p.b)).collect();
    let mut missed: Vec<u64> = listed
        .iter()
        .filter(|&(p, &positive)| positive && !found.contains(p))
        .map(|(&p, _)| p)
        .collect();
    missed.sort_unstable();
    out.extend(missed.into_iter().map(|p| {
        let (a, b) = neardup::pairs::unpack(p);
        DumpRow {
            a,
            b,
            score: index.score(a as usize, b as usize),
            outcome: "missed",
        }
    }));
    out
}

/// Evaluates one configuration on `corpus` against `truth`; a failure becomes the row's
/// `error`, and the index's warnings go to stderr. With `dump`, its pairs are kept there.
pub fn evaluate_one(
    corpus: &Corpus,
    truth: &Truth,
    config: &Config,
    seed: u64,
    dump: Option<&mut Vec<DumpRow>>,
) -> Row {
    let docs = corpus.texts();
    // What ran, also on a failed row (empty when the configuration itself is invalid).
    let resolved = neardup::registry::detector(&config.algorithm, &config.params)
        .map(|d| render_params(&d.resolved_params()))
        .unwrap_or_default();
    let result = (|| -> anyhow::Result<Row> {
        let detector = neardup::registry::detector(&config.algorithm, &config.params)?;
        let built = harness::build(detector.as_ref(), &docs)?;
        for w in built.index.warnings() {
            eprintln!("neardup: warning: {w}");
        }
        let queried = harness::query(
            &config.algorithm,
            built.index.as_ref(),
            &ParamMap::new(),
            docs.len(),
        )?;
        let scored = auc_sample(truth, docs.len(), built.index.as_ref(), seed);
        if let Some(dump) = dump {
            *dump = dump_rows(truth, built.index.as_ref(), &queried.pairs);
        }
        let input = EvalInput {
            docs: docs.len(),
            text_bytes: corpus.text_bytes(),
            truth,
            predicted: &queried.pairs,
            representative: None,
            removed_below_threshold: None,
            scored: scored.as_ref(),
            seconds: built.seconds + queried.seconds,
            peak_bytes: Some(built.peak_bytes.max(built.index_bytes + queried.peak_bytes)),
        };
        Ok(Row {
            algorithm: config.algorithm.clone(),
            params: render_params(&config.params),
            resolved_params: resolved.clone(),
            docs: docs.len(),
            metrics: compute_all(&input),
            stats: built.index.stats(),
            error: None,
        })
    })();
    result.unwrap_or_else(|e| Row {
        algorithm: config.algorithm.clone(),
        params: render_params(&config.params),
        resolved_params: resolved.clone(),
        docs: docs.len(),
        metrics: Vec::new(),
        stats: ParamMap::new(),
        error: Some(format!("{e:#}")),
    })
}

/// The (is positive, score) sample behind the AUC columns, or `None` when the algorithm cannot
/// score pairs or the truth has no positives.
///
/// Labelled pairs: every listed pair. Cluster labels: every pair of the corpus when there are
/// at most 2 × [`AUC_SAMPLE`] pairs (exact AUC); otherwise up to [`AUC_SAMPLE`] positive pairs
/// (evenly spaced through the sorted list) and as many uniformly random non-positive pairs
/// (at least 1,000), drawn with `seed`. With uniform negatives the ROC-AUC estimates
/// P(score of a duplicate pair > score of a random pair).
pub fn auc_sample(
    truth: &Truth,
    docs: usize,
    index: &dyn Index,
    seed: u64,
) -> Option<ScoredSample> {
    if docs < 2 || index.score(0, 1).is_none() {
        return None;
    }
    let score = |a: u32, b: u32| index.score(a as usize, b as usize).unwrap_or(0.0);
    let mut sample = ScoredSample::default();
    let mut add = |positive: bool, s: f64| {
        if positive {
            sample.positive.push(s)
        } else {
            sample.negative.push(s)
        }
    };
    match truth {
        Truth::Pairs(listed) => {
            for p in listed {
                add(p.positive(), score(p.a, p.b));
            }
            Some(sample)
        }
        Truth::Clusters { positives, .. } => {
            if positives.is_empty() {
                return None;
            }
            let total_pairs = docs as u64 * (docs as u64 - 1) / 2;
            if total_pairs <= 2 * AUC_SAMPLE as u64 {
                for a in 0..docs as u32 {
                    for b in a + 1..docs as u32 {
                        add(positives.binary_search(&pack(a, b)).is_ok(), score(a, b));
                    }
                }
                return Some(sample);
            }
            let take = positives.len().min(AUC_SAMPLE);
            let step = positives.len() as f64 / take as f64;
            for i in 0..take {
                let (a, b) = neardup::pairs::unpack(positives[(i as f64 * step) as usize]);
                add(true, score(a, b));
            }
            let negatives_available = total_pairs - positives.len() as u64;
            let want = (take.max(1000) as u64).min(negatives_available) as usize;
            let mut rng = SplitMix64::new(seed ^ 0xa0c);
            let mut drawn = 0;
            let mut attempts = 0u64;
            while drawn < want && attempts < 100 * want as u64 + 1000 {
                attempts += 1;
                let a = rng.below(docs as u64) as u32;
                let b = rng.below(docs as u64) as u32;
                if a == b || positives.binary_search(&pack(a.min(b), a.max(b))).is_ok() {
                    continue;
                }
                add(false, score(a.min(b), a.max(b)));
                drawn += 1;
            }
            Some(sample)
        }
    }
}

/// Formats a metric value for CSV: counts without decimals, others with 6.
pub fn format_value(column: &str, v: Option<f64>) -> String {
    match v {
        None => String::new(),
        Some(x) if crate::metrics::column(column).is_some_and(|c| c.kind == Kind::Count) => {
            format!("{}", x as u64)
        }
        Some(x) => format!("{x:.6}"),
    }
}

/// A metric's JSON value: counts as integers (as in the CSV), the rest as numbers, a
/// metric that does not apply as null.
fn json_value(column: &str, v: Option<f64>) -> serde_json::Value {
    match v {
        None => serde_json::Value::Null,
        Some(x) if crate::metrics::column(column).is_some_and(|c| c.kind == Kind::Count) => {
            (x as u64).into()
        }
        Some(x) => x.into(),
    }
}

/// The contract CSV's header.
pub fn write_csv_header(out: &mut impl Write) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(eval_columns())?;
    w.flush()?;
    Ok(())
}

/// One row of the contract CSV.
pub fn write_csv_row(r: &Row, out: &mut impl Write) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut rec = vec![
        r.algorithm.clone(),
        r.params.clone(),
        r.resolved_params.clone(),
        r.docs.to_string(),
    ];
    for c in crate::metrics::columns() {
        rec.push(format_value(c.name, r.get(c.name)));
    }
    rec.push(r.error.clone().unwrap_or_default());
    w.write_record(&rec)?;
    w.flush()?;
    Ok(())
}

/// One row as a JSON line with every metric.
pub fn write_json_row(r: &Row, out: &mut impl Write) -> anyhow::Result<()> {
    let mut obj = serde_json::Map::new();
    obj.insert("algorithm".into(), r.algorithm.clone().into());
    obj.insert("params".into(), r.params.clone().into());
    obj.insert("resolved_params".into(), r.resolved_params.clone().into());
    obj.insert("docs".into(), r.docs.into());
    for (c, v) in &r.metrics {
        obj.insert((*c).into(), json_value(c, *v));
    }
    obj.insert("stats".into(), serde_json::Value::Object(r.stats.clone()));
    obj.insert(
        "error".into(),
        r.error
            .clone()
            .map_or(serde_json::Value::Null, serde_json::Value::String),
    );
    writeln!(out, "{}", serde_json::Value::Object(obj))?;
    Ok(())
}
