//! `neardup inspect`: what a `neardup dedup` run found, for a person to look at. It reads the
//! run's `summary.json` and audit tables (`pairs.*`, `clusters.*`, in whichever format the
//! run wrote), samples pairs per similarity band — the bands just above the threshold first,
//! and the pairs below it that connected components removed — reads the sampled documents'
//! texts back from the run's inputs, and shows each pair side by side with the words that
//! differ highlighted ([`diff`]), its similarity as the algorithm measured it and the exact
//! Jaccard of its shingles, and what deduplication decided; then the cluster sizes and the
//! largest clusters with every member's similarity to the document kept. One static HTML
//! page ([`html`]), a text summary, or JSON.

pub mod corpus;
pub mod diff;
pub mod eval_dump;
pub mod html;
pub mod tables;
pub mod texts;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};
use neardup_dedup::input::Fields;
use neardup_dedup::web::extract::Extract;
use serde::Serialize;

use tables::{ClusterRow, PairRow};

/// What to sample.
#[derive(Debug, Clone, Copy)]
pub struct Sampling {
    /// Pairs shown per similarity band.
    pub per_band: usize,
    /// Largest clusters shown.
    pub clusters: usize,
    /// Members shown per cluster (the least similar to the kept document first).
    pub members: usize,
    /// Seed of the sample within a band.
    pub seed: u64,
}

/// Everything the page, the text summary and the JSON show.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The output directory (or the corpus file).
    pub output: String,
    /// Whether it is a dedup run's output (else a corpus under a configuration: what a run
    /// would find).
    pub from_run: bool,
    /// Algorithm and every parameter as it ran.
    pub algorithm: String,
    pub params: serde_json::Map<String, serde_json::Value>,
    /// The threshold the pairs were decided at, when the algorithm has one.
    pub threshold: Option<f64>,
    /// `verified` or `connected`.
    pub cluster_mode: String,
    /// What the exact similarity is computed on.
    pub exact_features: String,
    /// Documents, removed, pairs, as the run counted them.
    pub documents: u64,
    pub removed: u64,
    pub removed_below_threshold: Option<u64>,
    pub pairs: usize,
    /// Pairs per band, with a sample of each.
    pub bands: Vec<Band>,
    /// Cluster sizes (from `summary.json`).
    pub cluster_sizes: serde_json::Value,
    /// The largest clusters.
    pub largest: Vec<ClusterView>,
}

/// A range of similarities and a sample of its pairs.
#[derive(Debug, Clone, Serialize)]
pub struct Band {
    /// What it holds, for people ("0.80–0.82: just above the threshold").
    pub name: String,
    pub low: f64,
    pub high: f64,
    /// Pairs in it.
    pub count: usize,
    /// The sample, by similarity.
    pub samples: Vec<PairView>,
}

/// One pair, as shown.
#[derive(Debug, Clone, Serialize)]
pub struct PairView {
    pub id_a: String,
    pub id_b: String,
    /// The algorithm's similarity (null when it cannot measure one).
    pub similarity: Option<f64>,
    /// Exact Jaccard of the two documents' shingles (`exact_features`), when both texts
    /// were found.
    pub exact: Option<f64>,
    /// Which stage reported it: `verify` (a verified pair) or `clusters` (a member and the
    /// document kept for it).
    pub stage: String,
    /// What deduplication did with the two documents.
    pub decision: String,
    /// The texts, as segments marked equal, removed (only in a) or added (only in b); empty
    /// when a text was not found (an indexed document).
    pub diff: Vec<diff::Segment>,
}

/// One cluster, as shown.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterView {
    pub cluster: u32,
    pub size: usize,
    pub representative: String,
    /// Members (the least similar to the representative first), at most `Sampling::members`.
    pub members: Vec<Member>,
}

/// A member of a cluster and its similarity to the document kept.
#[derive(Debug, Clone, Serialize)]
pub struct Member {
    pub id: String,
    pub similarity: Option<f64>,
    pub kept: bool,
    /// The text's beginning, whitespace collapsed ([`SNIPPET_CHARS`] characters at most;
    /// `None` when the text was not found, an indexed document).
    pub snippet: Option<String>,
}

/// Characters of a member's text a cluster table shows: enough to tell a 404 page from an
/// article at a glance.
pub const SNIPPET_CHARS: usize = 140;

/// The beginning of `text`, whitespace collapsed, cut at [`SNIPPET_CHARS`] with an ellipsis.
pub fn snippet(text: &str) -> String {
    let mut out = String::new();
    for (n, word) in text.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > SNIPPET_CHARS {
            let cut: String = out.chars().take(SNIPPET_CHARS).collect();
            return format!("{cut}…");
        }
    }
    out
}

/// What an inspection is made from: a run's figures, its pairs and clusters.
#[derive(Debug, Clone)]
pub struct Found {
    /// Where it comes from (an output directory, or a corpus file).
    pub source: String,
    /// Whether it is a dedup run's output.
    pub from_run: bool,
    pub algorithm: String,
    pub params: serde_json::Map<String, serde_json::Value>,
    pub cluster_mode: String,
    pub documents: u64,
    pub removed: u64,
    pub removed_below_threshold: Option<u64>,
    pub cluster_sizes: serde_json::Value,
    pub pairs: Vec<PairRow>,
    pub clusters: Vec<ClusterRow>,
}

/// Inspects the `neardup dedup` output in `dir`.
pub fn inspect(dir: &Path, sampling: Sampling) -> Result<Inspection> {
    let summary_path = dir.join("summary.json");
    let summary: serde_json::Value = serde_json::from_slice(
        &std::fs::read(&summary_path)
            .with_context(|| format!("{}: not a neardup dedup output", summary_path.display()))?,
    )
    .with_context(|| format!("{}: not JSON", summary_path.display()))?;
    let field = |name: &str| {
        summary
            .get(name)
            .with_context(|| format!("{}: no `{name}`", summary_path.display()))
    };
    let (pairs, clusters) = tables::read(dir, field("tables")?)?;
    let found = Found {
        source: dir.display().to_string(),
        from_run: true,
        algorithm: field("algorithm")?.as_str().unwrap_or_default().to_string(),
        params: field("params")?.as_object().cloned().unwrap_or_default(),
        cluster_mode: summary["cluster_mode"]
            .as_str()
            .unwrap_or("connected")
            .into(),
        documents: summary["documents"].as_u64().unwrap_or(0),
        removed: summary["removed"].as_u64().unwrap_or(0),
        removed_below_threshold: summary["removed_below_threshold"].as_u64(),
        cluster_sizes: summary["cluster_sizes"].clone(),
        pairs,
        clusters,
    };
    let inputs: Vec<String> = field("inputs")?
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let mut fields = Fields::new(
        summary["text_field"].as_str().unwrap_or("text"),
        summary["id_field"].as_str().unwrap_or("id"),
    );
    // Web pages are shown as the run compared them: the same field, the same extraction.
    fields.html = summary["html_field"].as_str().map(String::from);
    if let Some(extract) = summary["extract"].as_str().and_then(Extract::parse) {
        fields.extract = extract;
    }
    assemble(found, sampling, |wanted| {
        texts::collect(&inputs, &fields, wanted)
    })
}

/// The inspection of `found`: pairs sampled per band, their texts (`texts` fetches those of
/// the ids asked for), diffs and decisions, and the largest clusters.
pub fn assemble(
    found: Found,
    sampling: Sampling,
    texts: impl FnOnce(&HashSet<&str>) -> Result<HashMap<String, String>>,
) -> Result<Inspection> {
    let threshold = threshold_of(&found.algorithm, &found.params);
    let bands = if found
        .pairs
        .iter()
        .any(|p| tables::OUTCOMES.contains(&p.stage.as_str()))
    {
        by_outcome(&found.pairs, sampling)
    } else {
        bands(&found.pairs, threshold, sampling)
    };
    let mut largest = largest(&found.clusters, sampling);
    let mut wanted: HashSet<&str> = HashSet::new();
    for p in bands.iter().flat_map(|(_, _, _, (_, s))| s.iter()) {
        wanted.extend([p.id_a.as_str(), p.id_b.as_str()]);
    }
    for m in largest.iter().flat_map(|c| &c.members) {
        wanted.insert(m.id.as_str());
    }
    let texts = texts(&wanted)?;
    for m in largest.iter_mut().flat_map(|c| &mut c.members) {
        m.snippet = texts.get(&m.id).map(|t| snippet(t));
    }
    let features = exact_features(&found.algorithm, &found.params);
    let decisions: BTreeMap<&str, &ClusterRow> =
        found.clusters.iter().map(|c| (c.id.as_str(), c)).collect();
    Ok(Inspection {
        output: found.source.clone(),
        from_run: found.from_run,
        exact_features: features.describe(),
        cluster_mode: found.cluster_mode.clone(),
        documents: found.documents,
        removed: found.removed,
        removed_below_threshold: found.removed_below_threshold,
        pairs: found.pairs.len(),
        bands: bands
            .into_iter()
            .map(|(name, low, high, (count, sample))| Band {
                name,
                low,
                high,
                count,
                samples: sample
                    .into_iter()
                    .map(|p| view(p, &texts, &features, &decisions))
                    .collect(),
            })
            .collect(),
        cluster_sizes: found.cluster_sizes.clone(),
        largest,
        algorithm: found.algorithm.clone(),
        params: found.params.clone(),
        threshold,
    })
}

/// The threshold pairs were decided at: minhash-lsh's `min_similarity` or `threshold`, else
/// none (the similarities are shown as they are).
pub(crate) fn threshold_of(
    algorithm: &str,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Option<f64> {
    let get = |k: &str| params.get(k).and_then(|v| v.as_f64());
    match algorithm {
        "minhash-lsh" => get("min_similarity").or_else(|| get("threshold")),
        _ => None,
    }
}

/// (name, low, high, (pairs in it, sample)) per band.
type Banded<'a> = Vec<(String, f64, f64, (usize, Vec<&'a PairRow>))>;

/// The bands: below the threshold (what connected components removed), then just above it
/// in steps that widen away from it, then identical texts; without a threshold, tenths.
fn bands(pairs: &[PairRow], threshold: Option<f64>, sampling: Sampling) -> Banded<'_> {
    let mut edges: Vec<(String, f64, f64)> = Vec::new();
    match threshold {
        Some(t) => {
            edges.push(("below the threshold".into(), f64::NEG_INFINITY, t));
            let mut low = t;
            for (step, what) in [
                (0.02, "just above the threshold"),
                (0.03, ""),
                (0.05, ""),
                (1.0, ""),
            ] {
                let high = (low + step).min(1.0);
                if high > low {
                    let name = if what.is_empty() {
                        format!("{low:.2}–{high:.2}")
                    } else {
                        format!("{low:.2}–{high:.2}: {what}")
                    };
                    edges.push((name, low, high));
                }
                low = high;
            }
        }
        None => {
            edges.push(("no similarity".into(), f64::NEG_INFINITY, f64::NEG_INFINITY));
            for i in 0..10 {
                let (low, high) = (i as f64 / 10.0, (i + 1) as f64 / 10.0);
                edges.push((format!("{low:.1}–{high:.1}"), low, high));
            }
        }
    }
    edges.push(("similarity 1.0".into(), 1.0, f64::INFINITY));
    edges
        .into_iter()
        .map(|(name, low, high)| {
            let inside: Vec<&PairRow> = pairs
                .iter()
                .filter(|p| {
                    let s = p.similarity.unwrap_or(f64::NEG_INFINITY);
                    (low == high && p.similarity.is_none()) || (s >= low && s < high)
                })
                .collect();
            let count = inside.len();
            (name, low, high, (count, sample(inside, sampling)))
        })
        .filter(|b| b.3.0 > 0)
        .collect()
}

/// The pairs of an eval run grouped by outcome (missed duplicates first), each group sampled.
fn by_outcome(pairs: &[PairRow], sampling: Sampling) -> Banded<'_> {
    tables::OUTCOMES
        .iter()
        .map(|&outcome| {
            let inside: Vec<&PairRow> = pairs.iter().filter(|p| p.stage == outcome).collect();
            let count = inside.len();
            (
                outcome.to_string(),
                f64::NAN,
                f64::NAN,
                (count, sample(inside, sampling)),
            )
        })
        .filter(|b| b.3.0 > 0)
        .collect()
}

/// `per_band` of `pairs` drawn by a seeded hash (the same sample on every run), by similarity.
fn sample(mut pairs: Vec<&PairRow>, sampling: Sampling) -> Vec<&PairRow> {
    let key = |p: &PairRow| {
        let h = xxhash_rust::xxh3::xxh3_64_with_seed(
            format!("{}\u{0}{}", p.id_a, p.id_b).as_bytes(),
            sampling.seed,
        );
        (h, p.id_a.clone(), p.id_b.clone())
    };
    pairs.sort_by_cached_key(|p| key(p));
    pairs.truncate(sampling.per_band);
    pairs.sort_by(|x, y| {
        x.similarity
            .unwrap_or(0.0)
            .total_cmp(&y.similarity.unwrap_or(0.0))
            .then(x.id_a.cmp(&y.id_a))
    });
    pairs
}

/// The largest clusters, each with its least similar members first.
fn largest(clusters: &[ClusterRow], sampling: Sampling) -> Vec<ClusterView> {
    let mut by_cluster: BTreeMap<u32, Vec<&ClusterRow>> = BTreeMap::new();
    for c in clusters.iter().filter(|c| c.cluster_size > 1) {
        by_cluster.entry(c.cluster).or_default().push(c);
    }
    let mut all: Vec<(u32, Vec<&ClusterRow>)> = by_cluster.into_iter().collect();
    all.sort_by(|x, y| y.1.len().cmp(&x.1.len()).then(x.0.cmp(&y.0)));
    all.into_iter()
        .take(sampling.clusters)
        .map(|(cluster, mut members)| {
            members.sort_by(|x, y| {
                x.similarity
                    .unwrap_or(1.0)
                    .total_cmp(&y.similarity.unwrap_or(1.0))
                    .then(x.id.cmp(&y.id))
            });
            ClusterView {
                cluster,
                size: members.len(),
                representative: members[0].representative.clone(),
                members: members
                    .iter()
                    .take(sampling.members)
                    .map(|m| Member {
                        id: m.id.clone(),
                        similarity: m.similarity,
                        kept: m.kept,
                        snippet: None,
                    })
                    .collect(),
            }
        })
        .collect()
}

/// A pair with its texts' diff, exact similarity and the decision.
fn view(
    p: &PairRow,
    texts: &HashMap<String, String>,
    features: &ExactFeatures,
    decisions: &BTreeMap<&str, &ClusterRow>,
) -> PairView {
    let (a, b) = (texts.get(&p.id_a), texts.get(&p.id_b));
    PairView {
        id_a: p.id_a.clone(),
        id_b: p.id_b.clone(),
        similarity: p.similarity,
        exact: a.zip(b).map(|(a, b)| features.jaccard(a, b)),
        stage: p.stage.clone(),
        decision: decision(&p.id_a, &p.id_b, decisions),
        diff: a
            .zip(b)
            .map(|(a, b)| diff::segments(a, b))
            .unwrap_or_default(),
    }
}

/// What deduplication did with the two documents, in words.
fn decision(a: &str, b: &str, decisions: &BTreeMap<&str, &ClusterRow>) -> String {
    if decisions.is_empty() {
        // An eval run: the pair's outcome is its stage; no document was removed.
        return String::new();
    }
    let fate = |id: &str| match decisions.get(id) {
        Some(c) if c.kept => format!("{id} kept"),
        Some(c) => format!("{id} removed for {}", c.representative),
        None => format!("{id} (indexed)"),
    };
    format!("{}; {}", fate(a), fate(b))
}

/// The shingles exact similarities are computed on: the algorithm's own when it has them
/// (minhash-lsh), else word 5-shingles.
pub struct ExactFeatures {
    shingler: neardup::features::Shingler,
    description: String,
}

impl std::fmt::Debug for ExactFeatures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.description)
    }
}

impl ExactFeatures {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn jaccard(&self, a: &str, b: &str) -> f64 {
        neardup::features::similarity::jaccard(&self.shingler.set(a), &self.shingler.set(b))
    }
}

fn exact_features(
    algorithm: &str,
    params: &serde_json::Map<String, serde_json::Value>,
) -> ExactFeatures {
    let own = (algorithm == "minhash-lsh")
        .then(|| {
            serde_json::from_value::<neardup::detectors::minhash_lsh::MinHashLshParams>(
                serde_json::Value::Object(params.clone()),
            )
            .ok()
        })
        .flatten()
        .map(|p| p.features);
    let shingles = |f: &neardup::features::FeatureParams| {
        format!("{:?} {}-shingles", f.shingle, f.k).to_lowercase()
    };
    let (features, description) = match own {
        Some(f) => {
            let d = format!("the algorithm's own {}", shingles(&f));
            (f, d)
        }
        None => {
            let f = neardup::features::FeatureParams::default();
            let d = format!(
                "{} (the algorithm has no shingles of its own)",
                shingles(&f)
            );
            (f, d)
        }
    };
    ExactFeatures {
        description,
        shingler: features.shingler(0),
    }
}
