//! `neardup bench --corpus FILE --task TASK [--truth FILE] [--repeat N]`: one JSON line in the
//! schema of `../shared/peers` (`tool`, `task`, `docs`, `mb`, `seconds`, `docs_per_s`,
//! `mb_per_s`, `cpu_s`, `version`, and for LSH `threshold`, `bands`, `rows` plus, with
//! `--truth`, `pairs_found`, `planted_found`, `planted`, `recall`, `precision`).
//!
//! Shingles are the peers' definition — lower-cased, split on whitespace, word 5-shingles — so
//! that sketches, candidates and recall are comparable. Loading the file is not timed; every
//! figure is the best of `--repeat` runs.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Result, bail};
use neardup::detector::ParamMap;
use neardup::features::{FeatureParams, Scratch};
use neardup::minhash::lsh::{Banding, candidate_pairs, unpack};
use neardup::minhash::{Signatures, SketchKind, Sketcher};
use neardup::text::{Normalization, Tokenizer, UnicodeForm};
use rayon::prelude::*;
use serde_json::{Value, json};

use crate::corpus::{self, Corpus, LoadOptions, pairs};

/// Tasks with a fixed definition; any registered algorithm name is also a task (build + query
/// with default parameters, end to end from text).
pub const FIXED_TASKS: &[&str] = &[
    "shingle_word5",
    "minhash128_sketch",
    "minhash128_end_to_end",
    "minhash128_oph_end_to_end",
    "lsh_insert_query",
];

/// Every task name.
pub fn tasks() -> Vec<String> {
    FIXED_TASKS
        .iter()
        .map(|s| s.to_string())
        .chain(
            neardup::registry::algorithms()
                .into_iter()
                .map(|a| a.name.to_string()),
        )
        .collect()
}

/// The peers' shingles: `text.lower().split()`, 5 words.
pub fn peer_features() -> FeatureParams {
    FeatureParams {
        tokenizer: Tokenizer::Whitespace,
        normalization: Normalization {
            lowercase: true,
            unicode: UnicodeForm::None,
            collapse_whitespace: false,
            ..Normalization::default()
        },
        ..FeatureParams::words(5)
    }
}

/// Process CPU seconds (user + system) from /proc (10 ms resolution); `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Runs `f` `repeat` times; returns its last result and the (wall, cpu) of the fastest run.
fn best_of<T>(repeat: usize, mut f: impl FnMut() -> T) -> (T, f64, f64) {
    let mut best = (f64::INFINITY, 0.0);
    let mut last = None;
    for _ in 0..repeat.max(1) {
        drop(last.take());
        let c0 = cpu_seconds().unwrap_or(0.0);
        let t = Instant::now();
        let r = f();
        let wall = t.elapsed().as_secs_f64();
        let cpu = cpu_seconds().unwrap_or(0.0) - c0;
        if wall < best.0 {
            best = (wall, cpu);
        }
        last = Some(r);
    }
    (last.expect("at least one run"), best.0, best.1)
}

/// Runs one task and prints its JSON line.
pub fn run(
    corpus_path: &Path,
    task: &str,
    truth_path: Option<&Path>,
    repeat: usize,
    threshold: f64,
    out: &mut impl Write,
) -> Result<()> {
    if !tasks().iter().any(|t| t == task) {
        bail!("unknown task `{task}`; tasks: {}", tasks().join(", "));
    }
    neardup::error::check_unit_threshold("bench", "threshold", threshold)?;
    let corpus = corpus::load(corpus_path, &LoadOptions::default())?;
    let truth = truth_path.map(|p| pairs::load(p, &corpus)).transpose()?;
    let docs = corpus.texts();
    let features = peer_features();
    let shingler = features.shingler(1);
    let mut extra = serde_json::Map::new();
    let (wall, cpu) = match task {
        "shingle_word5" => {
            let (_, w, c) = best_of(repeat, || {
                docs.par_iter()
                    .map_init(Scratch::default, |s, d| {
                        let mut v = Vec::new();
                        shingler.hashes_into(d, s, &mut v);
                        v.sort_unstable();
                        v.dedup();
                        v
                    })
                    .collect::<Vec<_>>()
            });
            (w, c)
        }
        "minhash128_sketch" => {
            let shingled: Vec<Vec<u64>> = docs.par_iter().map(|d| shingler.set(d)).collect();
            let sketcher = Sketcher::new(SketchKind::Classic, 128, 42)?;
            let (_, w, c) = best_of(repeat, || {
                let mut data = vec![0u32; shingled.len() * 128];
                data.par_chunks_mut(128)
                    .zip(shingled.par_iter())
                    .for_each(|(row, h)| sketcher.sketch_into(h, row));
                data
            });
            (w, c)
        }
        "minhash128_end_to_end" | "minhash128_oph_end_to_end" => {
            let kind = if task.contains("oph") {
                SketchKind::Oph
            } else {
                SketchKind::Classic
            };
            let sketcher = Sketcher::new(kind, 128, 42)?;
            let (_, w, c) = best_of(repeat, || {
                Signatures::compute(&docs, &shingler, &sketcher, 128)
            });
            (w, c)
        }
        "lsh_insert_query" => {
            let sketcher = Sketcher::new(SketchKind::Classic, 128, 42)?;
            let sigs = Signatures::compute(&docs, &shingler, &sketcher, 128);
            let tuned = neardup::minhash::banding::tune(threshold, 128, 0.5)?;
            let banding = Banding::new(tuned.bands, tuned.rows, 128)?;
            let (cands, w, c) = best_of(repeat, || candidate_pairs(&sigs, &banding));
            extra.insert("threshold".into(), threshold.into());
            extra.insert("bands".into(), tuned.bands.into());
            extra.insert("rows".into(), tuned.rows.into());
            if let Some(t) = &truth {
                add_recall(&mut extra, cands.iter().map(|&p| unpack(p)), t);
            }
            (w, c)
        }
        algorithm => {
            let detector = neardup::registry::detector(algorithm, &ParamMap::new())?;
            let (pairs, w, c) = best_of(repeat, || -> Result<_> {
                let index = detector.build(&docs)?;
                Ok(index.query(&ParamMap::new())?)
            });
            let pairs = pairs?;
            if let Some(t) = &truth {
                add_recall(&mut extra, pairs.iter().map(|p| (p.a, p.b)), t);
            }
            (w, c)
        }
    };
    writeln!(out, "{}", line(&corpus, task, wall, cpu, extra))?;
    Ok(())
}

fn add_recall(
    extra: &mut serde_json::Map<String, Value>,
    found: impl Iterator<Item = (u32, u32)>,
    truth: &[pairs::LabelledPair],
) {
    let planted: Vec<(u32, u32)> = truth
        .iter()
        .filter(|p| p.positive())
        .map(|p| (p.a, p.b))
        .collect();
    let mut n = 0;
    let mut hit = 0;
    for pair in found {
        n += 1;
        hit += planted.binary_search(&pair).is_ok() as usize;
    }
    let round4 = |x: f64| (x * 1e4).round() / 1e4;
    extra.insert("pairs_found".into(), n.into());
    extra.insert("planted_found".into(), hit.into());
    extra.insert("planted".into(), planted.len().into());
    extra.insert(
        "recall".into(),
        if planted.is_empty() {
            Value::Null
        } else {
            round4(hit as f64 / planted.len() as f64).into()
        },
    );
    extra.insert(
        "precision".into(),
        if n == 0 {
            Value::Null
        } else {
            round4(hit as f64 / n as f64).into()
        },
    );
}

fn line(
    corpus: &Corpus,
    task: &str,
    wall: f64,
    cpu: f64,
    extra: serde_json::Map<String, Value>,
) -> Value {
    let mb = corpus.text_bytes() as f64 / 1e6;
    let mut rec = json!({
        "tool": "neardup",
        "task": task,
        "docs": corpus.len(),
        "mb": (mb * 1e3).round() / 1e3,
        "seconds": (wall * 1e4).round() / 1e4,
        "docs_per_s": (corpus.len() as f64 / wall * 10.0).round() / 10.0,
        "mb_per_s": (mb / wall * 1e3).round() / 1e3,
        "cpu_s": (cpu * 1e4).round() / 1e4,
        "version": env!("CARGO_PKG_VERSION"),
        "threads": rayon::current_num_threads(),
    });
    let obj = rec.as_object_mut().expect("object");
    obj.extend(extra);
    rec
}
