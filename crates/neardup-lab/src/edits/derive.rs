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

use super::kind::EditContext;
use super::{EditLog, EditModel};
use crate::corpus::model::{Corpus, CorpusBuilder};
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
    /// Each copy edits the copy before it (copy 1 edits the source): a chain of
    /// accumulating edits, whose far end shares little with the source although every link
    /// is a near-duplicate of the next. Default false (every copy edits the source).
    pub chain: bool,
}

impl Default for DeriveOptions {
    fn default() -> Self {
        DeriveOptions {
            copies: 1,
            fraction: 1.0,
            seed: 1,
            chain: false,
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
    /// Id of the document it was edited from: the source, or in a chain the previous link
    /// (copies only).
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
/// count). Memory is bounded by the block, not by `copies` — except for chains, whose links
/// are made one after another per source, so a block holds whole chains.
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
    let maker = Maker {
        corpus,
        model,
        opts,
        vocab: &vocab,
        donors: &donors,
    };
    let copies_of = |i: usize| {
        if selected(opts.seed, i, opts.fraction) {
            opts.copies
        } else {
            0
        }
    };
    // A work item: a source alone (`None`), one independent copy, or a source's whole chain.
    let items = (0..corpus.len()).flat_map(|i| {
        let copies = copies_of(i);
        let (alone, each) = if opts.chain {
            (copies > 0, 0)
        } else {
            (false, copies)
        };
        let first = if alone {
            Item::Chain(i)
        } else {
            Item::Source(i)
        };
        std::iter::once(first).chain((0..each).map(move |c| Item::Copy(i, c)))
    });
    let mut done = Derived::default();
    let mut block = Vec::new();
    let mut held = 0;
    let mut flush = |block: &mut Vec<Item>, done: &mut Derived| -> Result<()> {
        let records: Vec<Vec<Record>> = block.par_iter().map(|&item| maker.make(item)).collect();
        block.clear();
        for r in records.into_iter().flatten() {
            done.records += 1;
            done.copies += r.source.is_some() as usize;
            sink(r)?;
        }
        Ok(())
    };
    for item in items {
        held += match item {
            Item::Chain(i) => 1 + copies_of(i),
            _ => 1,
        };
        block.push(item);
        if held >= BLOCK {
            flush(&mut block, &mut done)?;
            held = 0;
        }
    }
    flush(&mut block, &mut done)?;
    Ok(done)
}

/// One unit of derivation work (see [`derive_each`]).
#[derive(Debug, Clone, Copy)]
enum Item {
    /// A source document as it is.
    Source(usize),
    /// Copy `c` of source `i`, edited from the source.
    Copy(usize, usize),
    /// Source `i` followed by its chain of copies, each edited from the one before.
    Chain(usize),
}

/// What every derived record is made from.
struct Maker<'a> {
    corpus: &'a Corpus,
    model: &'a EditModel,
    opts: DeriveOptions,
    vocab: &'a Vocabulary,
    donors: &'a [&'a str],
}

impl Maker<'_> {
    /// The records of one work item, in corpus order.
    fn make(&self, item: Item) -> Vec<Record> {
        match item {
            Item::Source(i) => vec![self.source(i)],
            Item::Copy(i, c) => {
                vec![self.copy(i, c, self.corpus.text(i), self.corpus.id(i).to_string())]
            }
            Item::Chain(i) => {
                let mut out = vec![self.source(i)];
                for c in 0..self.opts.copies {
                    let from = out.last().expect("the source comes first");
                    let link = self.copy(i, c, &from.text, from.id.clone());
                    out.push(link);
                }
                out
            }
        }
    }

    /// A copy's cluster is its source's label, or the source's id when it is unlabelled
    /// and chosen for copies.
    fn cluster_of(&self, i: usize, chosen: bool) -> Option<String> {
        let label = self
            .corpus
            .label(i)
            .map(|l| self.corpus.label_name(l).to_string());
        label.or_else(|| chosen.then(|| self.corpus.id(i).to_string()))
    }

    fn source(&self, i: usize) -> Record {
        let chosen = selected(self.opts.seed, i, self.opts.fraction) && self.opts.copies > 0;
        Record {
            id: self.corpus.id(i).to_string(),
            text: self.corpus.text(i).to_string(),
            cluster: self.cluster_of(i, chosen),
            source: None,
            edits: vec![],
        }
    }

    /// Copy `c` of source `i`, made by editing `from` (the source, or the chain's previous
    /// link) whose id is `from_id`.
    fn copy(&self, i: usize, c: usize, from: &str, from_id: String) -> Record {
        let ctx = EditContext {
            vocabulary: &self.vocab.words,
            characters: &self.vocab.characters,
            donors: self.donors,
            source: i,
        };
        let (text, edits) = self.model.apply(from, &ctx, self.opts.seed, stream(i, c));
        Record {
            id: format!("{}~{}", self.corpus.id(i), c + 1),
            text,
            cluster: self.cluster_of(i, true),
            source: Some(from_id),
            edits,
        }
    }
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
                chain: false,
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
                    chain: false,
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

    /// A chain: each link is made from the one before, so consecutive links are close and
    /// the far end has drifted (word 1-gram overlap with the source falls link by link).
    #[test]
    fn chain_links_edit_the_link_before() {
        let corpus = generate(SyntheticSpec { docs: 10, seed: 4 }).unwrap();
        let model = EditModel::parse("substitute=0.05").unwrap();
        let opts = DeriveOptions {
            copies: 12,
            fraction: 0.5,
            seed: 9,
            chain: true,
        };
        println!("seed {}", opts.seed);
        let recs = derive(&corpus, &model, opts).unwrap();
        let overlap = |x: &str, y: &str| {
            let (x, y): (Vec<&str>, Vec<&str>) = (x.split(' ').collect(), y.split(' ').collect());
            x.iter().zip(&y).filter(|(a, b)| a == b).count() as f64 / x.len().max(1) as f64
        };
        let mut chains = 0;
        for (i, r) in recs.iter().enumerate() {
            let Some(from) = &r.source else { continue };
            let before = &recs[i - 1];
            assert_eq!(&before.id, from, "a link names the link before it");
            assert_eq!(r.cluster, before.cluster);
            if r.id.ends_with("~12") {
                chains += 1;
                let source = &recs[i - 12];
                assert!(source.source.is_none());
                // 12 steps of 5 %: about 54 % of the words are still the source's.
                let far = overlap(&source.text, &r.text);
                assert!(far < 0.7, "{far}");
                assert!(overlap(&before.text, &r.text) > 0.9);
            }
        }
        assert!(chains > 0);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let again = pool.install(|| derive(&corpus, &model, opts).unwrap());
        assert_eq!(
            serde_json::to_string(&recs).unwrap(),
            serde_json::to_string(&again).unwrap()
        );
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
