//! `neardup bench --corpus FILE --task TASK [--truth FILE] [--repeat N]`: one JSON line in the
//! schema of `bench/peers` (`tool`, `task`, `docs`, `mb`, `seconds`, `docs_per_s`,
//! `mb_per_s`, `cpu_s`, `version`, and for LSH `threshold`, `bands`, `rows` plus, with
//! `--truth`, `pairs_found`, `planted_found`, `planted`, `recall`, `precision`).
//!
//! Shingles are the peers' definition — lower-cased, split on whitespace, word 5-shingles — so
//! that sketches, candidates and recall are comparable. Loading the file is not timed; every
//! figure is the best of `--repeat` runs.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use neardup::detector::ParamMap;
use neardup::features::{FeatureParams, Scratch};
use neardup::minhash::lsh::{Banding, candidate_pairs};
use neardup::minhash::{Signatures, SketchKind, Sketcher};
use neardup::pairs::unpack;
use neardup::simhash::{Fingerprints, SignSketcher, Weights};
use neardup::text::{CjkUnit, Language, Normalization, Tokenizer, UnicodeForm, WordParams};
use rayon::prelude::*;
use serde_json::{Value, json};

use super::args::parse_size;
use super::bench_tasks::{BenchOptions, tasks};
use super::invocation::{Invocation, Run};
use crate::corpus::{self, Corpus, LoadOptions, pairs};

/// The peers' shingles: `text.lower().split()`, 5 words.
pub fn peer_features() -> FeatureParams {
    FeatureParams {
        // Python's split(): no segmentation, whatever the script.
        words: WordParams {
            tokenizer: Tokenizer::Whitespace,
            language: Language::En,
            cjk_unit: CjkUnit::Char,
        },
        normalization: Normalization {
            lowercase: true,
            unicode: UnicodeForm::None,
            collapse_whitespace: false,
            fold_width: false,
            fold_punctuation: false,
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
pub fn run(opts: &BenchOptions, out: &mut impl Write) -> Result<()> {
    let (task, repeat, threshold) = (opts.task.as_str(), opts.repeat, opts.threshold);
    if !tasks().iter().any(|t| t == task) {
        bail!("unknown task `{task}`; tasks: {}", tasks().join(", "));
    }
    neardup::error::check_unit_threshold("bench", "threshold", threshold)?;
    if let (Some(n), "hamming_all_pairs") = (opts.fingerprints, task) {
        return hamming_synthetic(n, repeat, out);
    }
    if task == "dedup_end_to_end" {
        return super::bench_dedup::run(opts, out);
    }
    let Some(corpus_path) = opts.corpus.as_deref() else {
        bail!(
            "--corpus is needed for task `{task}` (only hamming_all_pairs can use --fingerprints instead)"
        );
    };
    let corpus = corpus::load(corpus_path, &LoadOptions::default())?;
    let truth = opts
        .truth
        .as_deref()
        .map(|p| pairs::load(p, &corpus))
        .transpose()?;
    let input = TaskInput {
        task,
        docs: &corpus.texts(),
        shingler: &peer_features().shingler(1),
        repeat,
        threshold,
        truth,
    };
    let mut extra = serde_json::Map::new();
    let time = match task {
        "shingle_word5" => shingle_word5,
        "minhash128_sketch" => minhash_sketch,
        "minhash128_end_to_end" | "minhash128_oph_end_to_end" => minhash_end_to_end,
        "lsh_insert_query" => lsh_insert_query,
        "simhash64_end_to_end" => simhash_end_to_end,
        "hamming_all_pairs" => hamming_all_pairs,
        "minhash_lsh_end_to_end" => minhash_lsh_peer_setting,
        _ => registered_algorithm,
    };
    let (wall, cpu) = time(&input, &mut extra)?;
    writeln!(out, "{}", line(&corpus, task, wall, cpu, extra))?;
    Ok(())
}

/// What a timed task runs on.
struct TaskInput<'a> {
    task: &'a str,
    docs: &'a [&'a str],
    shingler: &'a neardup::features::Shingler,
    repeat: usize,
    threshold: f64,
    truth: Option<Vec<pairs::LabelledPair>>,
}

/// Word 5-shingles of every document, sorted and unique.
fn shingle_word5(
    t: &TaskInput<'_>,
    _extra: &mut serde_json::Map<String, Value>,
) -> Result<(f64, f64)> {
    let (_, w, c) = best_of(t.repeat, || {
        t.docs
            .par_iter()
            .map_init(Scratch::default, |s, d| {
                let mut v = Vec::new();
                t.shingler.hashes_into(d, s, &mut v);
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect::<Vec<_>>()
    });
    Ok((w, c))
}

/// MinHash-128 of pre-shingled documents (the kernel alone).
fn minhash_sketch(
    t: &TaskInput<'_>,
    _extra: &mut serde_json::Map<String, Value>,
) -> Result<(f64, f64)> {
    let shingled: Vec<Vec<u64>> = t.docs.par_iter().map(|d| t.shingler.set(d)).collect();
    let sketcher = Sketcher::new(SketchKind::Classic, 128, 42)?;
    let (_, w, c) = best_of(t.repeat, || {
        let mut data = vec![0u32; shingled.len() * 128];
        data.par_chunks_mut(128)
            .zip(shingled.par_iter())
            .for_each(|(row, h)| sketcher.sketch_into(h, row));
        data
    });
    Ok((w, c))
}

/// MinHash-128 (classic or one-permutation) from text.
fn minhash_end_to_end(
    t: &TaskInput<'_>,
    _extra: &mut serde_json::Map<String, Value>,
) -> Result<(f64, f64)> {
    let kind = if t.task.contains("oph") {
        SketchKind::Oph
    } else {
        SketchKind::Classic
    };
    let sketcher = Sketcher::new(kind, 128, 42)?;
    let (_, w, c) = best_of(t.repeat, || {
        Signatures::compute(t.docs, t.shingler, &sketcher, 128)
    });
    Ok((w, c))
}

/// Signatures banded at the tuned (b, r) and joined into candidates.
fn lsh_insert_query(
    t: &TaskInput<'_>,
    extra: &mut serde_json::Map<String, Value>,
) -> Result<(f64, f64)> {
    let sketcher = Sketcher::new(SketchKind::Classic, 128, 42)?;
    let sigs = Signatures::compute(t.docs, t.shingler, &sketcher, 128);
    let tuned = neardup::minhash::banding::tune(t.threshold, 128, 0.5)?;
    let banding = Banding::new(tuned.bands, tuned.rows, 128)?;
    let (cands, w, c) = best_of(t.repeat, || candidate_pairs(&sigs, &banding));
    let cands = cands?;
    extra.insert("threshold".into(), t.threshold.into());
    extra.insert("bands".into(), tuned.bands.into());
    extra.insert("rows".into(), tuned.rows.into());
    if let Some(truth) = &t.truth {
        add_recall(extra, cands.iter().map(|&p| unpack(p)), truth);
    }
    Ok((w, c))
}

/// SimHash-64 with tf weights from text.
fn simhash_end_to_end(
    t: &TaskInput<'_>,
    extra: &mut serde_json::Map<String, Value>,
) -> Result<(f64, f64)> {
    // One pass over raw text with tf weights: the fingerprinting speed itself. The
    // `simhash` detector task measures the default tf-idf (a second pass for document
    // frequencies) plus the Hamming join.
    let p = neardup::detectors::simhash::SimHashParams::default();
    let shingler = p.features.shingler(1);
    let sketcher = SignSketcher::new(1, 42);
    let (_, w, c) = best_of(t.repeat, || {
        Fingerprints::compute(t.docs, &shingler, Weights::Tf, &sketcher)
    });
    extra.insert("weighting".into(), "tf".into());
    Ok((w, c))
}

/// The Hamming join (k = 3) over the default simhash fingerprints.
fn hamming_all_pairs(
    t: &TaskInput<'_>,
    extra: &mut serde_json::Map<String, Value>,
) -> Result<(f64, f64)> {
    // The default simhash detector's fingerprints (tf-idf over the corpus).
    let p = neardup::detectors::simhash::SimHashParams::default();
    let df = neardup::features::statistics::shingles(&p.features).count(t.docs);
    let fps = Fingerprints::compute(
        t.docs,
        &p.features
            .shingler(neardup::features::statistics::STATISTICS_SEED),
        Weights::Tfidf(&df),
        &SignSketcher::new(1, 42),
    );
    let (pairs, w, c) = best_of(t.repeat, || fps.pairs_within(3, None));
    extra.insert("pairs_found".into(), pairs?.len().into());
    extra.insert("distance".into(), 3.into());
    Ok((w, c))
}

/// A registered algorithm, build + query with defaults.
fn registered_algorithm(
    t: &TaskInput<'_>,
    extra: &mut serde_json::Map<String, Value>,
) -> Result<(f64, f64)> {
    detector_pairs(t, extra, t.task, &ParamMap::new())
}

/// `minhash_lsh_end_to_end`: text → verified pairs as the peer kit runs gaoya, fastsketchlsh
/// and dedup-rs: the peers' shingles ([`peer_features`]), 128 permutations banded 9 × 13,
/// pairs kept when their estimated Jaccard is at least the threshold (0.8).
fn minhash_lsh_peer_setting(
    t: &TaskInput<'_>,
    extra: &mut serde_json::Map<String, Value>,
) -> Result<(f64, f64)> {
    let mut params = neardup::detector::to_map(&peer_features());
    for (key, value) in [
        ("bands", json!(9)),
        ("rows", json!(13)),
        ("threshold", json!(t.threshold)),
        ("verify", json!("estimate")),
    ] {
        params.insert(key.into(), value);
    }
    extra.insert("bands".into(), json!(9));
    extra.insert("rows".into(), json!(13));
    detector_pairs(t, extra, "minhash-lsh", &params)
}

/// Builds algorithm `name` with `params` on the corpus and queries every pair, end to end
/// from text (best of `repeat`), with recall against the truth when there is one.
fn detector_pairs(
    t: &TaskInput<'_>,
    extra: &mut serde_json::Map<String, Value>,
    name: &str,
    params: &ParamMap,
) -> Result<(f64, f64)> {
    let detector = neardup::registry::detector(name, params)?;
    let (pairs, w, c) = best_of(t.repeat, || -> Result<_> {
        let index = detector.build(t.docs)?;
        Ok(index.query(&ParamMap::new())?)
    });
    let pairs = pairs?;
    if let Some(truth) = &t.truth {
        add_recall(extra, pairs.iter().map(|p| (p.a, p.b)), truth);
    }
    Ok((w, c))
}

/// `hamming_all_pairs` over `n` random fingerprints with n/100 planted neighbours (1–3 bits
/// flipped): checks that every planted pair is found.
fn hamming_synthetic(n: usize, repeat: usize, out: &mut impl Write) -> Result<()> {
    use neardup::hamming::Bits;
    let mut rng = neardup::hash::SplitMix64::new(3);
    let mut fps: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let mut planted = Vec::new();
    for _ in 0..n / 100 {
        let src = rng.below(n as u64) as usize;
        let mut f = fps[src];
        for _ in 0..1 + rng.below(3) {
            f = f.flip(rng.below(64) as u32);
        }
        planted.push(neardup::pairs::pack(src as u32, fps.len() as u32));
        fps.push(f);
    }
    let (pairs, wall, cpu) = best_of(repeat, || {
        neardup::hamming::tables::all_pairs(&fps, 3, None)
    });
    let pairs = pairs?;
    let missing = planted
        .iter()
        .filter(|p| pairs.binary_search(p).is_err())
        .count();
    anyhow::ensure!(missing == 0, "{missing} planted pairs not found");
    let design = neardup::hamming::design::best_for_join(64, 3, fps.len())?;
    let rec = json!({
        "tool": "neardup",
        "task": "hamming_all_pairs",
        "docs": fps.len(),
        "mb": 0.0,
        "seconds": (wall * 1e4).round() / 1e4,
        "docs_per_s": (fps.len() as f64 / wall).round(),
        "mb_per_s": 0.0,
        "cpu_s": (cpu * 1e4).round() / 1e4,
        "version": env!("CARGO_PKG_VERSION"),
        "threads": rayon::current_num_threads(),
        "distance": 3,
        "pairs_found": pairs.len(),
        "planted": planted.len(),
        "planted_found": planted.len() - missing,
        "tables": design.tables.len(),
        "blocks": design.blocks(),
    });
    writeln!(out, "{rec}")?;
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

/// Time one task on a corpus; print one JSON line in the peer benchmark kit's schema
/// (tool, task, docs, mb, seconds, docs_per_s, …), so neardup and its peers compare in one
/// file.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus (JSONL with `id` and `text`).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Task: shingle_word5, minhash128_sketch, minhash128_end_to_end,
    /// minhash128_oph_end_to_end, lsh_insert_query, simhash64_end_to_end,
    /// hamming_all_pairs, dedup_end_to_end (`neardup dedup` in a child process, file in →
    /// outputs written, default parameters at --threshold, peak RSS and CPU from
    /// getrusage), or a registered algorithm's name (build + query, defaults).
    #[arg(long)]
    pub task: String,
    /// hamming_all_pairs only: this many random 64-bit fingerprints (1 % planted
    /// neighbours) instead of the corpus's SimHashes.
    #[arg(long)]
    pub fingerprints: Option<usize>,
    /// Planted pairs CSV (`id_a,id_b`): adds recall and precision to LSH and algorithm tasks.
    #[arg(long)]
    pub truth: Option<PathBuf>,
    /// Best of this many runs (at least 1).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    pub repeat: u64,
    /// Jaccard threshold the LSH banding is tuned for.
    #[arg(long, default_value_t = 0.8)]
    pub threshold: f64,
    /// dedup_end_to_end only: `key=value` passed to `neardup dedup --param` (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// dedup_end_to_end only: a name for this configuration in the JSON line (`config`).
    #[arg(long)]
    pub label: Option<String>,
    /// dedup_end_to_end only: passed to `neardup dedup --memory` (the spilled join).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub dedup_memory: Option<u64>,
    /// dedup_end_to_end only: passed to `neardup dedup --clusters` (the peers form connected
    /// components: `connected` compares machinery at their setting).
    #[arg(long, value_name = "MODE")]
    pub dedup_clusters: Option<String>,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let options = BenchOptions {
            corpus: self.corpus,
            task: self.task,
            truth: self.truth,
            repeat: self.repeat as usize,
            threshold: self.threshold,
            fingerprints: self.fingerprints,
            params: self.params,
            label: self.label,
            dedup_memory: self.dedup_memory,
            dedup_clusters: self.dedup_clusters,
        };
        run(&options, &mut invocation.out)
    }
}
