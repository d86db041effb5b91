//! The measured half of the parameter guide: what MinHash-LSH thresholds t and SimHash
//! distances k report on corpora of 10^4–10^6 documents, scored against the exact Jaccard
//! similarity of every pair.
//!
//! The corpus is the embedded synthetic English with planted copies: ten edit models (word
//! substitution at 0.5 %–8 %, sentence reordering, boilerplate, truncation, typos), each
//! applied to 1 % of the sources, so pair similarities spread over 0.4–1.0 and copies of one
//! source under two models are near-duplicates of each other as well. The truth is not the
//! planted pairs but every pair whose word 5-shingle sets (the experiments' truth features,
//! the detectors' default features) have Jaccard ≥ 0.5, found by the exact prefix-filtered
//! join (`neardup::join`, tested against brute force), so accidental near-duplicates count
//! and an algorithm is judged by the definition users state: "Jaccard at least t".
//!
//! Results are cached per corpus size under the reproduce cache (the measurement at 10^6
//! documents takes minutes); `--force` recomputes.

use std::path::Path;
use std::time::Instant;

use neardup::detector::{ParamMap, params};
use neardup::hash::{SplitMix64, mix64};
use neardup::join::jaccard_join;
use neardup::pairs::pack;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::corpus::CorpusBuilder;
use crate::corpus::synthetic::SyntheticSpec;
use crate::edits::EditModel;
use crate::edits::derive::{DeriveOptions, derive_each};
use anyhow::Result;

use crate::error::LabError;
use crate::experiment::config::TruthSpec;
use crate::experiment::corpora::shingle_sets_of;
use neardup_dedup::fsutil::write_bytes;

/// Corpus sizes measured by every `neardup reproduce` (documents, approximately: the sources
/// plus their copies): together well under a minute on two cores.
pub const SIZES: [usize; 2] = [10_000, 100_000];
/// The size measured only by `neardup reproduce --guide-full` (minutes, and about 7 GB for
/// its exact ground truth); other runs show the rows of its committed record
/// ([`COMMITTED_FILE`]) with the revision and date that measured them.
pub const FULL_SIZE: usize = 1_000_000;
/// The committed record of the [`FULL_SIZE`] measurement, in the guide's report folder.
pub const COMMITTED_FILE: &str = "measured-1000000.json";
/// The seed of the corpus and its edits (printed in the guide).
pub const SEED: u64 = 20_261_122;
/// MinHash-LSH thresholds, each run and scored against every one of them as a level.
pub const MINHASH_THRESHOLDS: [f64; 5] = [0.5, 0.6, 0.7, 0.8, 0.9];
/// SimHash distances.
pub const SIMHASH_DISTANCES: [u32; 7] = [0, 1, 2, 3, 4, 5, 6];
/// The similarity levels SimHash is scored against.
pub const SIMHASH_LEVELS: [f64; 2] = [0.5, 0.8];
/// The lowest similarity any row is scored against: the exact join's threshold.
const FLOOR: f64 = 0.5;
/// Edit models of the planted copies, each applied to [`COPY_FRACTION`] of the sources.
const COPY_MODELS: [&str; 10] = [
    "substitute=0.005",
    "substitute=0.01",
    "substitute=0.02",
    "substitute=0.03",
    "substitute=0.05",
    "substitute=0.08",
    "reorder=0.3",
    "boilerplate=0.2",
    "truncate=0.2",
    "typo=0.01",
];
/// Share of the sources each copy model copies.
const COPY_FRACTION: f64 = 0.01;
/// Bump when the measurement changes, so cached rows are not reused.
const VERSION: u32 = 2;

/// One measured setting on one corpus.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Measured {
    /// Documents in the corpus.
    pub docs: usize,
    /// Bytes of text.
    pub text_bytes: usize,
    /// Registered algorithm.
    pub algorithm: String,
    /// The setting: the threshold t (minhash-lsh) or the distance k (simhash).
    pub setting: f64,
    /// The similarity level the pairs are scored against (Jaccard ≥ level is a true pair).
    pub level: f64,
    /// Pairs reported.
    pub reported: u64,
    /// Pairs with exact Jaccard ≥ level.
    pub true_pairs: u64,
    /// Reported pairs with exact Jaccard ≥ level.
    pub tp: u64,
    /// Seconds of build + query (all cores).
    pub seconds: f64,
}

impl Measured {
    /// TP / reported; `None` when nothing is reported.
    pub fn precision(&self) -> Option<f64> {
        (self.reported > 0).then(|| self.tp as f64 / self.reported as f64)
    }
    /// TP / true pairs; `None` without true pairs.
    pub fn recall(&self) -> Option<f64> {
        (self.true_pairs > 0).then(|| self.tp as f64 / self.true_pairs as f64)
    }
}

/// The measurements of one corpus size, as cached (and, for [`FULL_SIZE`], as committed).
#[derive(Debug, Serialize, Deserialize)]
struct Cached {
    key: String,
    rows: Vec<Measured>,
    /// Pairs with Jaccard ≥ the floor, and seconds the exact join took.
    similar_pairs: usize,
    join_seconds: f64,
    /// The build that measured the rows and the day (UTC), for a committed record.
    #[serde(default)]
    measured_by: Option<Provenance>,
}

/// Which build measured committed rows, and when.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Provenance {
    /// Git revision of the binary.
    pub revision: String,
    /// `YYYY-MM-DD`, UTC.
    pub date: String,
}

/// What was measured at every size, plus the exact join's cost.
#[derive(Debug, Default)]
pub struct Measurements {
    /// Every row, sizes ascending.
    pub rows: Vec<Measured>,
    /// (documents, pairs with Jaccard ≥ 0.5, seconds of the exact join) per size.
    pub joins: Vec<(usize, usize, f64)>,
    /// Sizes (documents) shown from a committed record rather than measured in this run,
    /// with who measured them.
    pub committed: Vec<(usize, Provenance)>,
}

/// The cache key of a size's measurement: a stored record of another key is stale.
fn key_of(n: usize) -> String {
    format!(
        "v{VERSION} neardup {} docs={n} seed={SEED}",
        env!("CARGO_PKG_VERSION")
    )
}

/// The record at `path` when it holds the current measurement of `n` documents.
fn stored(path: &Path, n: usize) -> Option<Cached> {
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice::<Cached>(&bytes)
        .ok()
        .filter(|c| c.key == key_of(n))
}

/// Measures every size in `sizes`, reusing rows cached under `cache` unless `force`. With a
/// `committed` folder, the [`FULL_SIZE`] measurement is either measured too (`full`: its
/// record is written there with this build's revision and today's date) or shown from the
/// record found there (left out, and said so by the guide, when there is none).
pub fn measure_all(
    sizes: &[usize],
    cache: &Path,
    force: bool,
    committed: Option<(&Path, bool)>,
) -> Result<Measurements> {
    std::fs::create_dir_all(cache).map_err(|e| LabError::io(cache, e))?;
    let mut all = Measurements::default();
    let full = committed.filter(|(_, full)| *full).map(|(dir, _)| dir);
    for &n in sizes.iter().chain(full.map(|_| &FULL_SIZE)) {
        let path = cache.join(format!("measured-{n}.json"));
        let c = match (!force).then(|| stored(&path, n)).flatten() {
            Some(c) => c,
            None => {
                let c = measure(n, key_of(n))?;
                let bytes = serde_json::to_vec_pretty(&c).expect("rows serialize");
                write_bytes(&path, &bytes)?;
                c
            }
        };
        if let Some(dir) = full.filter(|_| n == FULL_SIZE) {
            let record = Cached {
                measured_by: Some(Provenance {
                    revision: crate::REVISION.to_string(),
                    date: utc_date(std::time::SystemTime::now()),
                }),
                ..c
            };
            let bytes = serde_json::to_vec_pretty(&record).expect("rows serialize");
            write_bytes(&dir.join(COMMITTED_FILE), &bytes)?;
            all.push(record);
        } else {
            all.push(c);
        }
    }
    if let Some((dir, false)) = committed
        && let Some(c) = stored(&dir.join(COMMITTED_FILE), FULL_SIZE)
    {
        if let Some(p) = &c.measured_by {
            let docs = c.rows.first().map_or(0, |r| r.docs);
            all.committed.push((docs, p.clone()));
        }
        all.push(c);
    }
    Ok(all)
}

impl Measurements {
    fn push(&mut self, c: Cached) {
        let docs = c.rows.first().map_or(0, |r| r.docs);
        self.joins.push((docs, c.similar_pairs, c.join_seconds));
        self.rows.extend(c.rows);
    }
}

/// `YYYY-MM-DD` (UTC) of `t`, by the civil-from-days conversion of H. Hinnant's
/// "chrono-Compatible Low-Level Date Algorithms" (no date crate for one line of provenance).
pub fn utc_date(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The corpus of about `n` documents: synthetic sources, then each copy model's copies.
fn corpus(n: usize) -> Result<Vec<String>> {
    let sources = ((n as f64) / (1.0 + COPY_MODELS.len() as f64 * COPY_FRACTION)).round();
    let mut texts = crate::corpus::synthetic::texts(SyntheticSpec {
        docs: sources as usize,
        seed: SEED,
    });
    let sources = texts.len();
    for (m, spec) in COPY_MODELS.iter().enumerate() {
        let model = EditModel::parse(spec).map_err(|e| anyhow::anyhow!("{spec}: {e}"))?;
        let seed = SEED + 1 + m as u64;
        // The sources this model copies, as a corpus of their own: deriving from the whole
        // corpus would clone every unselected text once per model.
        let mut picked = CorpusBuilder::new(Path::new("<embedded>"));
        for (i, text) in texts[..sources].iter().enumerate() {
            let u = SplitMix64::new(mix64(seed ^ (i as u64).wrapping_mul(0x9e37_79b9))).next_f64();
            if u < COPY_FRACTION {
                picked.push(i + 1, format!("syn-{i:07}"), text, None)?;
            }
        }
        let picked = picked.finish(spec.to_string(), "guide copies".into(), String::new())?;
        let opts = DeriveOptions {
            copies: 1,
            fraction: 1.0,
            seed,
            chain: false,
        };
        derive_each(&picked, &model, opts, |r| {
            if r.source.is_some() {
                texts.push(r.text);
            }
            Ok(())
        })?;
    }
    Ok(texts)
}

/// Says how large the corpus made since `t` is; its bytes of text.
fn made(docs: &[&str], t: Instant) -> usize {
    let text_bytes = docs.iter().map(|d| d.len()).sum();
    eprintln!(
        "neardup: guide measurement: {} documents ({:.0} MB, seed {SEED}) made in {:.1} s",
        docs.len(),
        text_bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    text_bytes
}

/// Measures one corpus size.
fn measure(n: usize, key: String) -> Result<Cached> {
    let t = Instant::now();
    let texts = corpus(n)?;
    let docs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let text_bytes = made(&docs, t);
    let t = Instant::now();
    let sets = shingle_sets_of(&docs, &TruthSpec::default());
    let similar = jaccard_join(&sets, FLOOR);
    drop(sets);
    let join_seconds = t.elapsed().as_secs_f64();
    eprintln!(
        "neardup: guide measurement: {} pairs with Jaccard ≥ {FLOOR} ({join_seconds:.1} s)",
        similar.len()
    );
    let jaccard = |a: u32, b: u32| -> f64 {
        similar
            .binary_search_by_key(&pack(a, b), |p| p.0)
            .map_or(0.0, |i| similar[i].1)
    };
    let count_true = |level: f64| similar.iter().filter(|p| p.1 >= level).count() as u64;
    let row =
        |algorithm: &str, setting: f64, level: f64, pairs: &[(u32, u32)], seconds: f64| Measured {
            docs: docs.len(),
            text_bytes,
            algorithm: algorithm.into(),
            setting,
            level,
            reported: pairs.len() as u64,
            true_pairs: count_true(level),
            tp: pairs
                .iter()
                .filter(|&&(a, b)| jaccard(a, b) >= level)
                .count() as u64,
            seconds,
        };
    let mut rows = Vec::new();
    for t_ in MINHASH_THRESHOLDS {
        let (pairs, seconds) = run(
            &docs,
            "minhash-lsh",
            &params(&[("threshold", json!(t_))]),
            &[ParamMap::new()],
        )?
        .pop()
        .expect("one query");
        for level in MINHASH_THRESHOLDS {
            rows.push(row("minhash-lsh", t_, level, &pairs, seconds));
        }
        eprintln!(
            "neardup: guide measurement: minhash-lsh t = {t_}: {} pairs ({seconds:.1} s)",
            pairs.len()
        );
    }
    let queries: Vec<ParamMap> = SIMHASH_DISTANCES
        .iter()
        .map(|&k| params(&[("max_distance", json!(k))]))
        .collect();
    let results = run(&docs, "simhash", &ParamMap::new(), &queries)?;
    for (&k, (pairs, seconds)) in SIMHASH_DISTANCES.iter().zip(&results) {
        eprintln!(
            "neardup: guide measurement: simhash k = {k}: {} pairs ({seconds:.1} s)",
            pairs.len()
        );
        for level in SIMHASH_LEVELS {
            rows.push(row("simhash", k as f64, level, pairs, *seconds));
        }
    }
    Ok(Cached {
        key,
        rows,
        similar_pairs: similar.len(),
        join_seconds,
        measured_by: None,
    })
}

/// One query's answer: pairs (a < b, sorted) and seconds of build + query.
type Answer = (Vec<(u32, u32)>, f64);

/// Builds `algorithm` with `build` over `docs` once and runs each query: the pairs (a < b,
/// sorted) and seconds of build + that query.
fn run(
    docs: &[&str],
    algorithm: &str,
    build: &ParamMap,
    queries: &[ParamMap],
) -> Result<Vec<Answer>> {
    let detector = neardup::registry::detector(algorithm, build)?;
    let built = crate::harness::build(detector.as_ref(), docs)?;
    queries
        .iter()
        .map(|q| {
            let got = crate::harness::query(algorithm, built.index.as_ref(), q, docs.len())?;
            let pairs = got.pairs.iter().map(|p| (p.a, p.b)).collect();
            Ok((pairs, built.seconds + got.seconds))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A committed record of the 10^6 measurement is shown, with who measured it, when its
    /// key is the current one, and left out when it is stale; a full run writes it.
    #[test]
    fn committed_record_is_shown_only_when_current() {
        let dir = std::env::temp_dir().join(format!("neardup-committed-{}", std::process::id()));
        let cache = dir.join("cache");
        std::fs::create_dir_all(&dir).unwrap();
        let row = Measured {
            docs: 999_987,
            text_bytes: 1,
            algorithm: "minhash-lsh".into(),
            setting: 0.8,
            level: 0.8,
            reported: 10,
            true_pairs: 12,
            tp: 9,
            seconds: 1.0,
        };
        let record = |key: String| Cached {
            key,
            rows: vec![row.clone()],
            similar_pairs: 12,
            join_seconds: 1.0,
            measured_by: Some(Provenance {
                revision: "abcdef123456".into(),
                date: "2026-11-26".into(),
            }),
        };
        let write = |c: &Cached| {
            std::fs::write(dir.join(COMMITTED_FILE), serde_json::to_vec(c).unwrap()).unwrap()
        };
        write(&record(key_of(FULL_SIZE)));
        let m = measure_all(&[2_000], &cache, false, Some((&dir, false))).unwrap();
        assert_eq!(m.committed.len(), 1);
        assert_eq!(m.committed[0].0, 999_987);
        assert_eq!(m.committed[0].1.revision, "abcdef123456");
        assert!(m.rows.contains(&row));
        assert_eq!(m.joins.len(), 2);
        // Another version's record is not shown.
        write(&record("v0 stale".into()));
        let m = measure_all(&[2_000], &cache, false, Some((&dir, false))).unwrap();
        assert!(m.committed.is_empty() && !m.rows.contains(&row));
        assert_eq!(m.joins.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Against days counted by hand: the epoch, a leap day, the turn of a century and today's
    /// kind of date.
    #[test]
    fn utc_dates_of_known_days() {
        let day = |d: u64| {
            utc_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(d * 86_400 + 3_600))
        };
        assert_eq!(day(0), "1970-01-01");
        assert_eq!(day(11_016), "2000-02-29");
        assert_eq!(day(11_017), "2000-03-01");
        assert_eq!(day(10_957), "2000-01-01");
        assert_eq!(day(20_783), "2026-11-26");
    }

    /// A small corpus gets copies from every model, and its planted copies are found by the
    /// exact join: the measurement's truth is not empty by construction.
    #[test]
    fn the_corpus_has_copies_across_the_similarity_range() {
        let texts = corpus(3000).unwrap();
        let sources = (3000.0f64 / 1.1).round() as usize;
        assert!(texts.len() > sources + 150, "{} documents", texts.len());
        let docs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let sets = shingle_sets_of(&docs, &TruthSpec::default());
        let similar = jaccard_join(&sets, FLOOR);
        let high = similar.iter().filter(|p| p.1 >= 0.9).count();
        let mid = similar.iter().filter(|p| p.1 >= 0.5 && p.1 < 0.8).count();
        assert!(high > 20 && mid > 20, "high {high}, mid {mid}");
    }

    /// Precision and recall come from the counts, and stay undefined without a denominator.
    #[test]
    fn rates_follow_the_counts() {
        let mut m = Measured {
            docs: 10,
            text_bytes: 100,
            algorithm: "minhash-lsh".into(),
            setting: 0.8,
            level: 0.8,
            reported: 4,
            true_pairs: 5,
            tp: 3,
            seconds: 0.0,
        };
        assert_eq!(m.precision(), Some(0.75));
        assert_eq!(m.recall(), Some(0.6));
        m.reported = 0;
        m.true_pairs = 0;
        assert_eq!((m.precision(), m.recall()), (None, None));
    }
}
