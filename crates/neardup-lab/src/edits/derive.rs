//! Deriving an edited corpus: sources plus edited copies, with exact ground truth.
//!
//! Every source document is kept; a deterministic `fraction` of them get `copies` edited
//! copies. A copy's cluster is its source's cluster label, or the source's id when the source
//! is unlabelled, so source, copies and siblings all share a cluster: that is the ground truth.
//! Each copy records its source id and its edit log.

use std::path::Path;

use neardup::hash::{SplitMix64, mix64};
use rayon::prelude::*;
use serde::Serialize;

use super::{EditContext, EditLog, EditModel};
use crate::corpus::{Corpus, CorpusBuilder};
use crate::error::{LabError, Result};

/// How many copies to derive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeriveOptions {
    /// Edited copies per selected source. Default 1.
    pub copies: usize,
    /// Fraction of sources that get copies, in [0, 1]. Default 1.
    pub fraction: f64,
    /// Seed of the selection and of the edits.
    pub seed: u64,
}

impl Default for DeriveOptions {
    fn default() -> Self {
        DeriveOptions {
            copies: 1,
            fraction: 1.0,
            seed: 1,
        }
    }
}

/// One document of a derived corpus.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    /// Id (`<source id>~<copy>` for copies).
    pub id: String,
    /// Text.
    pub text: String,
    /// Cluster: the source's label or id; `None` for unlabelled, uncopied sources.
    pub cluster: Option<String>,
    /// Source id (copies only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Edits applied (copies only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<EditLog>,
}

/// Unigram samples of the corpus's words and Han characters.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    /// Words (Unicode words; jieba words of Chinese documents).
    pub words: Vec<String>,
    /// Han characters, repeats kept.
    pub characters: Vec<char>,
}

/// Unigram samples of the corpus (the words and Han characters of up to 2,000 documents
/// spread over the corpus, at most 200,000 of each): replacement words and typo characters
/// follow the corpus's own frequencies.
pub fn vocabulary(corpus: &Corpus) -> Vocabulary {
    const MAX: usize = 200_000;
    let step = (corpus.len() / 2000).max(1);
    let (mut words, mut characters) = (Vec::new(), Vec::new());
    let splitter = neardup::text::WordParams::default();
    for i in (0..corpus.len()).step_by(step) {
        let text = corpus.text(i);
        if words.len() < MAX {
            splitter.for_each_word(text, |t| {
                if words.len() < MAX {
                    words.push(t.to_string());
                }
            });
        }
        characters.extend(
            text.chars()
                .filter(|&c| neardup::text::language::is_han(c))
                .take(MAX - characters.len()),
        );
    }
    if words.is_empty() {
        words.push("word".into());
    }
    Vocabulary { words, characters }
}

/// Whether source `i` gets copies.
fn selected(seed: u64, i: usize, fraction: f64) -> bool {
    fraction >= 1.0
        || SplitMix64::new(mix64(seed ^ 0x5e1e_c7ed ^ (i as u64) << 20)).next_f64() < fraction
}

/// Derives the edited corpus (in parallel; output identical for any thread count).
pub fn derive(corpus: &Corpus, model: &EditModel, opts: DeriveOptions) -> Result<Vec<Record>> {
    if !(0.0..=1.0).contains(&opts.fraction) {
        return Err(LabError::file(
            Path::new(&corpus.source),
            format!("fraction {} is outside [0, 1]", opts.fraction),
        ));
    }
    let vocab = vocabulary(corpus);
    let donors = corpus.texts();
    let per_source: Vec<Vec<Record>> = (0..corpus.len())
        .into_par_iter()
        .map(|i| {
            let id = corpus.id(i);
            let chosen = selected(opts.seed, i, opts.fraction) && opts.copies > 0;
            let label = corpus.label(i).map(|l| corpus.label_name(l).to_string());
            let cluster = label.or_else(|| chosen.then(|| id.to_string()));
            let mut out = vec![Record {
                id: id.to_string(),
                text: corpus.text(i).to_string(),
                cluster: cluster.clone(),
                source: None,
                edits: vec![],
            }];
            if chosen {
                let ctx = EditContext {
                    vocabulary: &vocab.words,
                    characters: &vocab.characters,
                    donors: &donors,
                    source: i,
                };
                for c in 0..opts.copies {
                    let (text, edits) =
                        model.apply(corpus.text(i), &ctx, opts.seed, (i as u64) << 16 | c as u64);
                    out.push(Record {
                        id: format!("{id}~{}", c + 1),
                        text,
                        cluster: cluster.clone(),
                        source: Some(id.to_string()),
                        edits,
                    });
                }
            }
            out
        })
        .collect();
    Ok(per_source.into_iter().flatten().collect())
}

/// The derived records as a labelled corpus (in memory; no file).
pub fn to_corpus(records: &[Record], name: &str, source: &str) -> Result<Corpus> {
    use sha2::Digest;
    let mut b = CorpusBuilder::new(Path::new(source));
    let mut sha = sha2::Sha256::new();
    for (n, r) in records.iter().enumerate() {
        let line = serde_json::to_string(r).expect("records serialize");
        sha.update(line.as_bytes());
        sha.update(b"\n");
        b.push(n + 1, r.id.clone(), &r.text, r.cluster.as_deref())?;
    }
    b.finish(
        name.to_string(),
        source.to_string(),
        crate::corpus::reader::hex(&sha.finalize()),
    )
}

/// Writes records as JSONL atomically (a temporary file renamed into place).
pub fn write_jsonl(records: &[Record], path: &Path) -> Result<()> {
    crate::fsutil::write_atomic(path, |w| {
        for r in records {
            serde_json::to_writer(&mut *w, r).map_err(std::io::Error::other)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::synthetic::{SyntheticSpec, generate};

    #[test]
    fn copies_share_the_source_cluster_and_log_edits() {
        let corpus = generate(SyntheticSpec { docs: 20, seed: 4 }).unwrap();
        let model = EditModel::parse("substitute=0.1,reorder=0.2").unwrap();
        let recs = derive(
            &corpus,
            &model,
            DeriveOptions {
                copies: 2,
                fraction: 0.5,
                seed: 3,
            },
        )
        .unwrap();
        let copies: Vec<&Record> = recs.iter().filter(|r| r.source.is_some()).collect();
        assert!(!copies.is_empty() && copies.len() < 40 && copies.len() % 2 == 0);
        for c in &copies {
            let src = recs
                .iter()
                .find(|r| Some(&r.id) == c.source.as_ref())
                .unwrap();
            assert_eq!(c.cluster, src.cluster);
            assert_eq!(c.cluster.as_deref(), c.source.as_deref());
            assert_eq!(c.edits.len(), 2);
        }
        // Determinism regardless of threads.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let again = pool.install(|| {
            derive(
                &corpus,
                &model,
                DeriveOptions {
                    copies: 2,
                    fraction: 0.5,
                    seed: 3,
                },
            )
            .unwrap()
        });
        assert_eq!(
            serde_json::to_string(&recs).unwrap(),
            serde_json::to_string(&again).unwrap()
        );
        let c = to_corpus(&recs, "x", "test").unwrap();
        assert_eq!(c.len(), recs.len());
    }
}
