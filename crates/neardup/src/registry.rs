//! The detector registry: every algorithm, by name, with its default parameters.
//!
//! Adding an algorithm = one file in `detectors/` plus one line in [`REGISTRY`].

use crate::detector::{Algorithm, Configured, Detector, ParamMap, to_map};
use crate::detectors::*;
use crate::error::{Error, Result};

/// Everything the registry knows about one algorithm.
#[derive(Debug, Clone)]
pub struct AlgorithmInfo {
    /// Registered name.
    pub name: &'static str,
    /// One-line description with the paper it follows.
    pub summary: &'static str,
    /// What its score measures, and on what scale.
    pub score: &'static str,
    /// Default build parameters.
    pub build_defaults: ParamMap,
    /// Default query parameters.
    pub query_defaults: ParamMap,
    /// Build parameters `neardup calibrate` sweeps (see [`Algorithm::calibration_grid`]).
    pub calibration_grid: Vec<ParamMap>,
    /// Which non-default configurations stream (see [`Algorithm::STREAMS_WHEN`]).
    pub streams_when: Option<&'static str>,
    make: fn(&ParamMap) -> Result<Box<dyn Detector>>,
}

impl AlgorithmInfo {
    /// A detector with `params` (build and query parameters mixed) over the defaults.
    pub fn detector(&self, params: &ParamMap) -> Result<Box<dyn Detector>> {
        (self.make)(params)
    }

    /// Whether its default configuration has a streamable split
    /// ([`Algorithm::streaming`]): `neardup dedup` then never holds the texts.
    pub fn streams_by_default(&self) -> bool {
        self.detector(&ParamMap::new())
            .is_ok_and(|d| d.streaming().is_some())
    }

    /// Its description as JSON: `name`, `summary`, `build_defaults`, `query_defaults` and
    /// `streamed` (what `neardup algorithms --format json` and Python's
    /// `neardup.algorithms()` give).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "summary": self.summary,
            "build_defaults": self.build_defaults,
            "query_defaults": self.query_defaults,
            "streamed": self.streams_by_default(),
        })
    }
}

fn info<A: Algorithm>() -> AlgorithmInfo {
    AlgorithmInfo {
        name: A::NAME,
        summary: A::SUMMARY,
        score: A::SCORE,
        build_defaults: to_map(&A::Params::default()),
        query_defaults: to_map(&A::Query::default()),
        calibration_grid: A::calibration_grid(),
        streams_when: A::STREAMS_WHEN,
        make: |p| Ok(Box::new(Configured::<A>::from_params(p)?)),
    }
}

/// The registered algorithms, in listing order.
const REGISTRY: &[fn() -> AlgorithmInfo] = &[
    info::<minhash_lsh::MinHashLsh>,
    info::<supershingles::Supershingles>,
    info::<simhash::SimHash>,
    info::<random_projection::RandomProjection>,
    info::<henzinger::Henzinger>,
    info::<imatch::IMatch>,
    info::<spotsigs::SpotSigs>,
    info::<tianwang::Tianwang>,
    info::<longest_sentences::LongestSentences>,
    info::<exact::Exact>,
];

/// Every registered algorithm.
pub fn algorithms() -> Vec<AlgorithmInfo> {
    REGISTRY.iter().map(|f| f()).collect()
}

/// The algorithm called `name`.
pub fn find(name: &str) -> Result<AlgorithmInfo> {
    algorithms()
        .into_iter()
        .find(|a| a.name == name)
        .ok_or_else(|| Error::UnknownAlgorithm {
            name: name.to_string(),
            known: REGISTRY
                .iter()
                .map(|f| f().name)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// A configured detector: `find(name)?.detector(params)`.
pub fn detector(name: &str, params: &ParamMap) -> Result<Box<dyn Detector>> {
    find(name)?.detector(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_defaults_valid() {
        let all = algorithms();
        let mut names: Vec<_> = all.iter().map(|a| a.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for a in &all {
            a.detector(&ParamMap::new())
                .unwrap_or_else(|e| panic!("{}: {e}", a.name));
            // Build and query parameter names never overlap.
            assert!(
                a.build_defaults
                    .keys()
                    .all(|k| !a.query_defaults.contains_key(k)),
                "{}",
                a.name
            );
        }
    }

    #[test]
    fn unknown_algorithm_lists_known_ones() {
        let e = find("nope").unwrap_err().to_string();
        assert!(e.contains("minhash-lsh"), "{e}");
    }

    /// Regression (issue 11): identical one-sentence documents score 1 on every algorithm
    /// that reports them (longest-sentences gave 1/3, I-Match and SpotSigs 0 as if different).
    /// Among unrelated filler every algorithm reports them; alone, as a pair, those that need
    /// collection statistics give no score rather than a wrong one.
    #[test]
    fn identical_one_sentence_documents_score_one() {
        let s = "The council said the new bridge will be open by spring, and the mayor has promised \
                 that the work is on schedule and the city is ready for the traffic.";
        let filler: Vec<String> = (0..10)
            .map(|i| {
                format!(
                    "Report {i} was about topic {} and weather number {} with words like item{i} here today.",
                    i * 7 % 13,
                    i * 3 % 11
                )
            })
            .collect();
        let mut docs: Vec<&str> = vec![s, s];
        docs.extend(filler.iter().map(String::as_str));
        for a in algorithms() {
            let d = a.detector(&ParamMap::new()).unwrap();
            for corpus in [&docs[..2], &docs[..]] {
                let index = d.build(corpus).unwrap();
                let pairs = index.query(&ParamMap::new()).unwrap();
                let reported = pairs.iter().find(|p| (p.a, p.b) == (0, 1));
                if let Some(p) = reported {
                    assert_eq!(p.score, 1.0, "{} reported score", a.name);
                }
                match index.score(0, 1) {
                    Some(score) => assert!(
                        score == 1.0 || reported.is_none(),
                        "{}: score {score} for a reported pair",
                        a.name
                    ),
                    None => assert!(reported.is_none(), "{}: reported without a score", a.name),
                }
                if corpus.len() > 2 {
                    assert!(reported.is_some(), "{} finds the identical pair", a.name);
                    assert_eq!(index.score(0, 1), Some(1.0), "{}", a.name);
                }
            }
        }
    }

    /// Determinism: every algorithm's pairs are identical with 1 and 2 threads.
    #[test]
    fn results_do_not_depend_on_thread_count() {
        let docs: Vec<String> = (0..60)
            .map(|i| {
                let base = i / 3;
                format!(
                    "document {base} talks about topic {} and topic {} with filler words here {}",
                    base * 7 % 11,
                    base * 3 % 5,
                    if i % 3 == 0 { "alpha" } else { "beta" }
                )
            })
            .collect();
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        for a in algorithms() {
            let run = |threads| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    let d = a.detector(&ParamMap::new()).unwrap();
                    let index = d.build(&refs).unwrap();
                    let pairs = index.query(&ParamMap::new()).unwrap();
                    serde_json::to_string(&pairs).unwrap()
                })
            };
            assert_eq!(run(1), run(2), "{}", a.name);
        }
    }

    /// The streamable split is the batch path: for every algorithm and configuration that
    /// streams, sketching document by document and joining the signature table reports
    /// exactly the pairs (and scores) of `build` + `query`.
    #[test]
    fn streaming_sketch_and_join_equal_build_and_query() {
        let docs: Vec<String> = (0..90)
            .map(|i| {
                let base = i / 3;
                match i % 3 {
                    0 => format!("Document {base} talks about topic {} and topic {} with the same filler words here, then more.", base * 7 % 11, base * 3 % 5),
                    1 => format!("document {base} talks about topic {} and topic {} with the same filler words here, then more.", base * 7 % 11, base * 3 % 5),
                    _ if base % 4 == 0 => String::from("   "),
                    _ => format!("document {base} talks about topic {} and subject {} with other filler words", base * 7 % 11, base % 5),
                }
            })
            .collect();
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let mut streamed = Vec::new();
        for a in algorithms() {
            let mut configs = vec![ParamMap::new()];
            configs.extend(a.calibration_grid.iter().cloned());
            if a.name == "minhash-lsh" {
                configs.push(crate::detector::params(&[("threshold", 0.5.into())]));
                configs.push(crate::detector::params(&[("verify", "none".into())]));
                configs.push(crate::detector::params(&[("sketch", "oph".into())]));
            }
            if a.name == "simhash" {
                // tf-idf streams only from a reference table; binary and tf always.
                let p = crate::detector::params;
                configs.push(p(&[("weighting", "tf".into())]));
                configs.push(p(&[("weighting", "binary".into()), ("bits", 128.into())]));
                configs.push(p(&[("weighting", "tf".into()), ("blocks", 5.into())]));
                configs.push(p(&[("weighting", "tf".into()), ("max_distance", 0.into())]));
                configs.push(p(&[("idf_from", simhash_idf_table(&refs).into())]));
            }
            for config in configs {
                let d = a.detector(&config).unwrap();
                let Some(stream) = d.streaming() else {
                    continue;
                };
                let want = d.build(&refs).unwrap().query(&ParamMap::new()).unwrap();
                let table = crate::streaming::SignatureTable::sketch_all(stream.as_ref(), &refs);
                assert_eq!(table.len(), refs.len());
                let got = stream.join(&table).unwrap();
                assert_eq!(got, want, "{} {config:?}", a.name);
                assert!(!want.is_empty(), "{} {config:?} finds pairs", a.name);
                // Oracle for the key join (what a distributed join groups by): every pair of
                // non-empty documents sharing a key at some position, then verified, gives
                // the same pairs.
                let width = stream.keys_per_doc();
                let keys: Vec<Vec<u64>> = (0..table.len())
                    .map(|i| {
                        let mut k = vec![0; width];
                        stream.keys(table.row(i), &mut k);
                        k
                    })
                    .collect();
                let mut by_keys = Vec::new();
                for x in 0..table.len() {
                    for y in x + 1..table.len() {
                        let shared = (0..width).any(|j| keys[x][j] == keys[y][j]);
                        if shared
                            && !table.is_empty_doc(x)
                            && !table.is_empty_doc(y)
                            && let Some(score) = stream.verify(&table, x as u32, y as u32)
                        {
                            by_keys.push(crate::detector::ScoredPair {
                                a: x as u32,
                                b: y as u32,
                                score,
                            });
                        }
                    }
                }
                assert_eq!(by_keys, want, "key join, {} {config:?}", a.name);
                streamed.push(a.name);
            }
        }
        streamed.dedup();
        assert_eq!(streamed, ["minhash-lsh", "simhash", "exact"]);
        let by_default: Vec<_> = algorithms()
            .into_iter()
            .filter(AlgorithmInfo::streams_by_default)
            .map(|a| a.name)
            .collect();
        assert_eq!(by_default, ["minhash-lsh", "exact"]);
        // What streams only when configured so says when.
        for a in algorithms() {
            let conditional = streamed.contains(&a.name) && !by_default.contains(&a.name);
            assert_eq!(a.streams_when.is_some(), conditional, "{}", a.name);
        }
    }

    /// A reference document-frequency table of `docs` for `simhash`'s default features (what
    /// `neardup idf build` writes), in a temporary file; its path.
    fn simhash_idf_table(docs: &[&str]) -> String {
        use crate::features::dftable::{DfTable, Section};
        let features = crate::features::statistics::shingles(
            &crate::detectors::simhash::SimHashParams::default().features,
        );
        let df = features.count(docs);
        let mut entries: Vec<(u64, u32)> = df.iter().collect();
        entries.sort_unstable();
        let table = DfTable {
            sections: vec![Section {
                description: features.description.clone(),
                docs: df.docs() as u64,
                entries,
            }],
            sources: vec![],
        };
        let path = std::env::temp_dir().join(format!("neardup-registry-{}.df", std::process::id()));
        std::fs::write(&path, table.to_bytes()).unwrap();
        path.to_string_lossy().into_owned()
    }

    /// Oracle for `neardup calibrate`: for every algorithm, every grid configuration and every
    /// threshold equal to a pair's score, the threshold parameters report exactly the pairs
    /// scoring ≥ t (a subset for minhash-lsh, which reports only banding candidates).
    #[test]
    fn threshold_params_report_the_pairs_scoring_at_least_t() {
        const SEED: u64 = 77;
        println!("threshold_params oracle: seed {SEED}");
        let mut rng = crate::hash::SplitMix64::new(SEED);
        let words: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
        // 12 bases of six sentences; each with 3 copies that change 0–40 % of the words.
        let mut docs = Vec::new();
        for _ in 0..12 {
            let base: Vec<&str> = (0..60)
                .map(|_| words[rng.below(words.len() as u64) as usize].as_str())
                .collect();
            for copy in 0..4u64 {
                let text: Vec<String> = base
                    .iter()
                    .enumerate()
                    .map(|(i, w)| {
                        let word = if rng.below(10) < copy {
                            words[rng.below(words.len() as u64) as usize].as_str()
                        } else {
                            w
                        };
                        if i % 10 == 9 {
                            format!("{word}.")
                        } else {
                            word.to_string()
                        }
                    })
                    .collect();
                docs.push(text.join(" "));
            }
        }
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        for a in algorithms() {
            for grid in &a.calibration_grid {
                let base = a.detector(grid).unwrap();
                let Some(_) = base.threshold_params(0.5) else {
                    continue;
                };
                let index = base.build(&refs).unwrap();
                let mut scored = Vec::new();
                for x in 0..refs.len() {
                    for y in x + 1..refs.len() {
                        if let Some(s) = index.score(x, y) {
                            scored.push((x as u32, y as u32, s));
                        }
                    }
                }
                let mut thresholds: Vec<f64> =
                    scored.iter().map(|p| p.2).filter(|&s| s > 0.0).collect();
                thresholds.sort_by(f64::total_cmp);
                thresholds.dedup();
                for &t in thresholds
                    .iter()
                    .step_by(thresholds.len().div_ceil(8).max(1))
                {
                    let mut params = grid.clone();
                    params.extend(base.threshold_params(t).unwrap());
                    let index = a.detector(&params).unwrap().build(&refs).unwrap();
                    let got: Vec<(u32, u32)> = index
                        .query(&ParamMap::new())
                        .unwrap()
                        .iter()
                        .map(|p| (p.a, p.b))
                        .collect();
                    let want: Vec<(u32, u32)> = scored
                        .iter()
                        .filter(|p| index.score(p.0 as usize, p.1 as usize) >= Some(t))
                        .map(|p| (p.0, p.1))
                        .collect();
                    let ctx = format!("{} {grid:?} at t = {t}", a.name);
                    if a.name == "minhash-lsh" {
                        assert!(got.iter().all(|p| want.contains(p)), "{ctx}");
                    } else {
                        assert_eq!(got, want, "{ctx}");
                    }
                }
            }
        }
    }
}
