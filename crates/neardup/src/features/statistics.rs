//! Collection statistics: the document frequencies an algorithm weighs or filters its features
//! by (I-Match's idf band, SpotSigs' spot filter, Tianwang's and SimHash's tf-idf).
//!
//! They come from the corpus being indexed, or — as the I-Match paper intends (Chowdhury et
//! al., TOIS 2002, §3: "collection statistics" from a large reference collection) — from a
//! reference collection's table (`idf_from = FILE`, written by `neardup idf build`). A small
//! corpus makes poor statistics: below [`FEW_DOCS`] documents the index carries a warning,
//! and below [`MIN_DOCS`] an idf band cannot tell a shared term from a rare one (with two
//! documents every term is in one or in both), so estimators built on one report no score for
//! such a pair rather than a meaningless 0 or 1.
//!
//! Features are counted with the fixed [`STATISTICS_SEED`], so one table serves every seed of
//! every algorithm; a table section is named by the canonical description of the features
//! (kind, normalization, words, …), and an algorithm only reads the section that matches its
//! own parameters.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::DocFreq;
use super::Scratch;
use super::dftable::DfTable;
use crate::error::{Error, Result};

/// Seed of the feature hashes that statistics are keyed by: the token seed that the
/// shingle-based detectors derive from their default seed 42 (`derive_seed(42, "tokens")`),
/// so their default features are the statistics' features and their results at the default
/// seed did not move when tables were introduced.
pub const STATISTICS_SEED: u64 = 0x78a0_df21_3fca_c435;

/// Below this many documents with features, statistics are flagged as coarse.
pub const FEW_DOCS: usize = 100;
/// The words of the too-few-documents warning after the algorithm's name: what callers that
/// gather the warnings of several algorithms into one note (`neardup similarity`) look for.
pub const FEW_DOCUMENTS_WARNING: &str = "collection statistics from only";

/// Below this many documents an idf band is meaningless.
pub const MIN_DOCS: usize = 3;

/// Extracts one document's statistics features (hashes with [`STATISTICS_SEED`]; repeats
/// allowed) into the buffer.
pub type Extract = Arc<dyn Fn(&str, &mut Scratch, &mut Vec<u64>) + Send + Sync>;

/// What an algorithm counts document frequencies of.
#[derive(Clone)]
pub struct StatisticsFeatures {
    /// Canonical description of the features (the DF table section name): JSON of the
    /// feature kind and every parameter that changes which features a text has.
    pub description: String,
    /// The extractor.
    pub extract: Extract,
}

impl std::fmt::Debug for StatisticsFeatures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatisticsFeatures")
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl StatisticsFeatures {
    /// Features described by `kind` and the serializable `settings` that decide them.
    pub fn new(
        kind: &str,
        settings: &impl serde::Serialize,
        extract: impl Fn(&str, &mut Scratch, &mut Vec<u64>) + Send + Sync + 'static,
    ) -> Self {
        let mut map = serde_json::Map::new();
        map.insert("features".into(), kind.into());
        match serde_json::to_value(settings) {
            Ok(serde_json::Value::Object(m)) => map.extend(m),
            Ok(other) => {
                map.insert("settings".into(), other);
            }
            Err(e) => panic!("feature settings serialize: {e}"),
        }
        StatisticsFeatures {
            description: serde_json::Value::Object(map).to_string(),
            extract: Arc::new(extract),
        }
    }

    /// Document frequencies of these features over `docs` (parallel, thread-count free).
    pub fn count(&self, docs: &[&str]) -> DocFreq {
        let extract = &self.extract;
        DocFreq::count_with(docs, Scratch::default, |d, scratch, out| {
            extract(d, scratch, out)
        })
    }
}

/// The words of a text as statistics features ("terms": I-Match's lexicon, Tianwang's
/// keywords): every word after `normalization`, as cut by `words`.
pub fn terms(
    normalization: &crate::text::Normalization,
    words: &crate::text::WordParams,
) -> StatisticsFeatures {
    #[derive(serde::Serialize)]
    struct Settings<'a> {
        #[serde(flatten)]
        normalization: &'a crate::text::Normalization,
        #[serde(flatten)]
        words: &'a crate::text::WordParams,
    }
    let (n, w) = (normalization.clone(), *words);
    StatisticsFeatures::new(
        "terms",
        &Settings {
            normalization,
            words,
        },
        move |text, scratch, out| {
            n.apply_into(text, &mut scratch.text);
            w.for_each_word(&scratch.text, |t| out.push(term_key(t)));
        },
    )
}

/// A text's shingles as statistics features (tf-idf SimHash and random projection).
pub fn shingles(features: &super::FeatureParams) -> StatisticsFeatures {
    let shingler = features.shingler(STATISTICS_SEED);
    StatisticsFeatures::new("shingles", features, move |text, scratch, out| {
        shingler.hashes_into(text, scratch, out)
    })
}

/// The statistics key of a term.
#[inline]
pub fn term_key(term: &str) -> u64 {
    crate::hash::hash_bytes(term.as_bytes(), STATISTICS_SEED)
}

/// Where statistics came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The corpus being indexed.
    Corpus,
    /// A reference table.
    Reference(PathBuf),
}

/// Document frequencies with their origin.
#[derive(Debug, Clone)]
pub struct Statistics {
    /// The counts.
    pub df: Arc<DocFreq>,
    /// Their origin.
    pub source: Source,
}

impl Statistics {
    /// Counts `features` over `docs`, or reads them from the table at `idf_from`.
    /// `algorithm` names the caller in errors.
    pub fn gather(
        features: &StatisticsFeatures,
        idf_from: Option<&str>,
        docs: &[&str],
        algorithm: &str,
    ) -> Result<Statistics> {
        match idf_from {
            None | Some("") => Ok(Statistics {
                df: Arc::new(features.count(docs)),
                source: Source::Corpus,
            }),
            Some(path) => Ok(Statistics {
                df: load(Path::new(path), &features.description, algorithm)?,
                source: Source::Reference(PathBuf::from(path)),
            }),
        }
    }

    /// Documents the statistics describe.
    pub fn docs(&self) -> usize {
        self.df.docs()
    }

    /// Whether an idf band can separate terms (at least [`MIN_DOCS`] documents).
    pub fn usable(&self) -> bool {
        self.docs() >= MIN_DOCS
    }

    /// Warnings for people: statistics from too few documents (each names the algorithm,
    /// then [`FEW_DOCUMENTS_WARNING`]). `scores` says whether the
    /// algorithm still scores pairs with them.
    pub fn warnings(&self, algorithm: &str, scores: bool) -> Vec<String> {
        if self.source != Source::Corpus || self.docs() >= FEW_DOCS {
            return Vec::new();
        }
        vec![format!(
            "{algorithm}: {FEW_DOCUMENTS_WARNING} {} documents (fewer than {FEW_DOCS}) are coarse{}; \
             pass idf_from=FILE, a table of a reference collection written by `neardup idf build`",
            self.docs(),
            if scores {
                ""
            } else {
                " and cannot tell rare terms from shared ones, so pairs get no score"
            }
        )]
    }
}

/// Reads section `description` of the table at `path`, once per process (tables are reused
/// by every cell of an experiment).
fn load(path: &Path, description: &str, algorithm: &str) -> Result<Arc<DocFreq>> {
    type Loaded = HashMap<(PathBuf, String), (std::time::SystemTime, Arc<DocFreq>)>;
    static CACHE: OnceLock<Mutex<Loaded>> = OnceLock::new();
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_err(|io| Error::Io {
            path: path.to_path_buf(),
            io,
        })?;
    let key = (path.to_path_buf(), description.to_string());
    let cache = CACHE.get_or_init(Default::default);
    if let Some((when, df)) = cache.lock().expect("statistics cache").get(&key)
        && *when == modified
    {
        return Ok(Arc::clone(df));
    }
    let table = DfTable::read(path)?;
    let section = table.section(description).ok_or_else(|| {
        Error::invalid(
            algorithm,
            "idf_from",
            format!(
                "{} has no statistics for these features ({description}); it holds: {}. Build one with \
                 `neardup idf build CORPUS --output FILE --algorithm {algorithm}` and the same parameters",
                path.display(),
                table
                    .sections
                    .iter()
                    .map(|s| s.description.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        )
    })?;
    let df = Arc::new(DocFreq::from_counts(
        section.entries.iter().copied(),
        section.docs as usize,
    ));
    cache
        .lock()
        .expect("statistics cache")
        .insert(key, (modified, Arc::clone(&df)));
    Ok(df)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::dftable::Section;

    fn words() -> StatisticsFeatures {
        StatisticsFeatures::new("test-words", &1u8, |d: &str, _: &mut Scratch, out| {
            out.extend(
                d.split(' ')
                    .map(|w| crate::hash::hash_bytes(w.as_bytes(), 1)),
            )
        })
    }

    #[test]
    fn statistics_seed_is_the_default_token_seed() {
        assert_eq!(STATISTICS_SEED, crate::hash::derive_seed(42, "tokens"));
    }

    #[test]
    fn corpus_or_reference_table() {
        let f = words();
        let docs = ["a b", "b c", "c"];
        let s = Statistics::gather(&f, None, &docs, "x").unwrap();
        assert_eq!((s.docs(), s.source.clone()), (3, Source::Corpus));
        assert!(s.usable());
        assert_eq!(s.warnings("x", true).len(), 1, "3 documents are few");
        let b = crate::hash::hash_bytes(b"b", 1);
        assert_eq!(s.df.get(b), 2);

        let dir = std::env::temp_dir().join(format!("neardup-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ref.df");
        let table = DfTable {
            sections: vec![Section {
                description: f.description.clone(),
                docs: 1000,
                entries: vec![(b, 400)],
            }],
            sources: vec![],
        };
        std::fs::write(&path, table.to_bytes()).unwrap();
        let r = Statistics::gather(&f, path.to_str(), &docs, "x").unwrap();
        assert_eq!((r.docs(), r.df.get(b)), (1000, 400));
        assert!(r.warnings("x", true).is_empty());
        let other = StatisticsFeatures::new("test-words", &2u8, |_: &str, _: &mut Scratch, _| {});
        let e = Statistics::gather(&other, path.to_str(), &docs, "imatch")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`idf_from` of `imatch`") && e.contains("no statistics for these features"),
            "{e}"
        );
        let e = Statistics::gather(&f, Some("/nonexistent/ref.df"), &docs, "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/ref.df"), "{e}");
    }
}
