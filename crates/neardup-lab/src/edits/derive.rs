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

/// The random stream of copy `c` of source `i`. Copies up to 65,536 per source keep the
/// layout every committed corpus was derived with; beyond, streams come from a hash, so no
/// two copies share one.
fn stream(i: usize, c: usize) -> u64 {
    if c < 1 << 16 {
        (i as u64) << 16 | c as u64
    } else {
        1 << 63 | mix64((i as u64) << 32 | c as u64) >> 1
    }
}

/// Records made in parallel at a time by [`derive_each`]: memory is bounded by this many
/// records, whatever `copies` is.
const BLOCK: usize = 4096;

/// What [`derive_each`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Derived {
    /// Records in all.
    pub records: usize,
    /// Edited copies among them.
    pub copies: usize,
}

/// Calls `sink` with every record of the derived corpus in order — each source, then its
/// copies — making them in parallel a block at a time (output identical for any thread
/// count; memory bounded by the block, not by `copies`).
pub fn derive_each(
    corpus: &Corpus,
    model: &EditModel,
    opts: DeriveOptions,
    mut sink: impl FnMut(Record) -> Result<()>,
) -> Result<Derived> {
    if !(0.0..=1.0).contains(&opts.fraction) {
        return Err(LabError::file(
            Path::new(&corpus.source),
            format!("fraction {} is outside [0, 1]", opts.fraction),
        ));
    }
    let vocab = vocabulary(corpus);
    let donors = corpus.texts();
    let cluster_of = |i: usize, chosen: bool| {
        let label = corpus.label(i).map(|l| corpus.label_name(l).to_string());
        label.or_else(|| chosen.then(|| corpus.id(i).to_string()))
    };
    let make = |(i, copy): (usize, Option<usize>)| -> Record {
        let id = corpus.id(i);
        let chosen = selected(opts.seed, i, opts.fraction) && opts.copies > 0;
        match copy {
            None => Record {
                id: id.to_string(),
                text: corpus.text(i).to_string(),
                cluster: cluster_of(i, chosen),
                source: None,
                edits: vec![],
            },
            Some(c) => {
                let ctx = EditContext {
                    vocabulary: &vocab.words,
                    characters: &vocab.characters,
                    donors: &donors,
                    source: i,
                };
                let (text, edits) = model.apply(corpus.text(i), &ctx, opts.seed, stream(i, c));
                Record {
                    id: format!("{id}~{}", c + 1),
                    text,
                    cluster: cluster_of(i, true),
                    source: Some(id.to_string()),
                    edits,
                }
            }
        }
    };
    let items = (0..corpus.len()).flat_map(|i| {
        let copies = if selected(opts.seed, i, opts.fraction) {
            opts.copies
        } else {
            0
        };
        std::iter::once((i, None)).chain((0..copies).map(move |c| (i, Some(c))))
    });
    let mut done = Derived::default();
    let mut block = Vec::with_capacity(BLOCK);
    let mut flush = |block: &mut Vec<(usize, Option<usize>)>, done: &mut Derived| -> Result<()> {
        let records: Vec<Record> = block.par_iter().map(|&item| make(item)).collect();
        block.clear();
        for r in records {
            done.records += 1;
            done.copies += r.source.is_some() as usize;
            sink(r)?;
        }
        Ok(())
    };
    for item in items {
        block.push(item);
        if block.len() == BLOCK {
            flush(&mut block, &mut done)?;
        }
    }
    flush(&mut block, &mut done)?;
    Ok(done)
}

/// Derives the edited corpus into memory (see [`derive_each`]).
pub fn derive(corpus: &Corpus, model: &EditModel, opts: DeriveOptions) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    derive_each(corpus, model, opts, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
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
        neardup_dedup::input::checksummed::hex(&sha.finalize()),
    )
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
        assert!(!copies.is_empty() && copies.len() < 40 && copies.len().is_multiple_of(2));
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

    /// Copies beyond 65,536 per source get their own random streams (they used to repeat
    /// the streams of the next source's copies).
    #[test]
    fn copy_streams_never_repeat() {
        let mut seen = std::collections::HashSet::new();
        for i in [0usize, 1, 2, 70_000] {
            for c in (0..200).chain(65_530..65_600).chain(131_070..131_080) {
                assert!(seen.insert(stream(i, c)), "source {i} copy {c}");
            }
        }
        assert_eq!(stream(3, 7), 3 << 16 | 7, "the committed corpora's layout");
    }
}
