//! The corpora of an experiment: each (dataset, edit model, seed) becomes one labelled
//! corpus, and its ground truth is stored once per corpus checksum.

use std::borrow::Cow;
use std::path::Path;

use neardup::pairs::pack;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::config::{DatasetSpec, EditSpec, TruthSpec};
use crate::corpus::pages::reading::{self, ReadingStats};
use crate::corpus::pages::{PageSource, Pages};
use crate::corpus::synthetic::{SyntheticSpec, generate};
use crate::corpus::{Corpus, manifest};
use crate::edits::derive::{DeriveOptions, derive, to_corpus};
use crate::error::Result;

/// Corpora larger than this get no all-pairs similarity join (it is quadratic at worst).
pub const SIMILARITY_JOIN_LIMIT: usize = 50_000;

/// The stored ground truth of one corpus.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CorpusTruth {
    /// Checksum of the corpus (its JSONL serialization or its file).
    pub sha256: String,
    /// Documents.
    pub docs: usize,
    /// Bytes of text.
    pub text_bytes: usize,
    /// Cluster label per document.
    pub labels: Vec<Option<u32>>,
    /// Features of the exact similarities.
    pub truth: TruthSpec,
    /// Every pair with exact Jaccard ≥ the floor, as (packed pair, Jaccard), sorted; empty
    /// above [`SIMILARITY_JOIN_LIMIT`] documents.
    pub similar: Vec<(u64, f64)>,
}

impl CorpusTruth {
    /// Computes the truth of `corpus`.
    pub fn compute(corpus: &Corpus, truth: &TruthSpec) -> CorpusTruth {
        let similar = if corpus.len() <= SIMILARITY_JOIN_LIMIT {
            let sets = shingle_sets(corpus, truth);
            crate::truth::similar_pairs(&sets, truth.similarity_floor)
        } else {
            Vec::new()
        };
        CorpusTruth {
            sha256: corpus.sha256.clone(),
            docs: corpus.len(),
            text_bytes: corpus.text_bytes(),
            labels: corpus.labels().to_vec(),
            truth: truth.clone(),
            similar,
        }
    }

    /// Exact Jaccard of a pair if it is at or above the floor.
    pub fn jaccard(&self, a: u32, b: u32) -> Option<f64> {
        self.similar
            .binary_search_by_key(&pack(a, b), |p| p.0)
            .ok()
            .map(|i| self.similar[i].1)
    }
}

/// The shingle sets of the truth features.
pub fn shingle_sets(corpus: &Corpus, truth: &TruthSpec) -> Vec<Vec<u64>> {
    shingle_sets_of(&corpus.texts(), truth)
}

/// The shingle sets of the truth features of `texts` (texts that are not a [`Corpus`]).
pub fn shingle_sets_of(texts: &[&str], truth: &TruthSpec) -> Vec<Vec<u64>> {
    let shingler = truth.features().shingler(0x7e57);
    texts.par_iter().map(|t| shingler.set(t)).collect()
}

/// Exact Jaccard of packed pairs (for reported pairs below the stored floor).
pub fn exact_jaccard(sets: &[Vec<u64>], pairs: &[(u32, u32)]) -> Vec<f64> {
    let packed: Vec<u64> = pairs.iter().map(|&(a, b)| pack(a, b)).collect();
    crate::truth::jaccard_of(sets, &packed)
}

/// Why a dataset could not be used.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Unavailable {
    /// Dataset name.
    pub dataset: String,
    /// Reason.
    pub reason: String,
}

/// What a dataset's corpora are made from.
#[derive(Debug)]
pub enum Base {
    /// A text corpus (edit models derive from it).
    Texts(Corpus),
    /// A page set (edit models derive from its articles, pages are generated and read).
    Pages(PageSource),
}

/// One (dataset, edit model, seed) made, before a page corpus is read.
#[derive(Debug)]
pub enum Made {
    /// The edited text corpus.
    Texts(Corpus),
    /// The generated pages.
    Pages(Pages),
}

/// A corpus and, for a page corpus, how its reading did.
pub type ReadCorpus<'m> = (Cow<'m, Corpus>, Option<ReadingStats>);

impl Made {
    /// The corpus `dataset` runs on: the text corpus, or the pages read its way.
    pub fn corpus(&self, dataset: &DatasetSpec) -> Result<ReadCorpus<'_>> {
        match (self, dataset.pages) {
            (Made::Texts(c), _) => Ok((Cow::Borrowed(c), None)),
            (Made::Pages(pages), Some(p)) => {
                let (corpus, stats) = reading::read(pages, p.reading, &dataset.name)?;
                Ok((Cow::Owned(corpus), Some(stats)))
            }
            (Made::Pages(_), None) => unreachable!("pages are made for page datasets only"),
        }
    }
}

/// Loads a dataset's base: the embedded generator, a user's file (`path`), a manifest's file
/// in `data_dir`, or a page set.
/// A missing file is `Ok(Err(..))` (skipped and reported); a corrupt one is an error.
pub fn base_corpus(
    spec: &DatasetSpec,
    data_dir: &Path,
) -> Result<std::result::Result<Base, Unavailable>> {
    if let Some(p) = spec.pages {
        return Ok(match PageSource::load(p.set, data_dir, spec.docs)? {
            Some(source) => Ok(Base::Pages(source)),
            None => Err(Unavailable {
                dataset: spec.label.clone(),
                reason: format!(
                    "the page benchmark needs {} under {}",
                    p.set.needs(),
                    data_dir.display()
                ),
            }),
        });
    }
    Ok(text_corpus(spec, data_dir)?.map(Base::Texts))
}

/// A text dataset's corpus.
fn text_corpus(
    spec: &DatasetSpec,
    data_dir: &Path,
) -> Result<std::result::Result<Corpus, Unavailable>> {
    if spec.name == "default" {
        let defaults = SyntheticSpec::default();
        let s = SyntheticSpec {
            docs: spec.docs.unwrap_or(defaults.docs),
            seed: spec.seed.unwrap_or(defaults.seed),
        };
        return Ok(Ok(generate(s)?));
    }
    if let Some(path) = &spec.path {
        // The user named this file: missing or malformed is an error, not a skipped dataset.
        let options = crate::corpus::LoadOptions {
            fields: spec.fields.clone(),
            limit: spec.docs,
            ..Default::default()
        };
        let mut corpus = crate::corpus::load(path, &options)?;
        corpus.name = spec.name.clone();
        return Ok(Ok(corpus));
    }
    let m = manifest::find(&spec.name)?;
    let path = m.path(data_dir);
    if !path.is_file() {
        return Ok(Err(Unavailable {
            dataset: spec.label.clone(),
            reason: format!("no file at {}", path.display()),
        }));
    }
    let mut corpus = m.load(data_dir)?;
    if let Some(limit) = spec.docs.filter(|&l| l < corpus.len()) {
        corpus = take_first(&corpus, limit)?;
    }
    Ok(Ok(corpus))
}

/// The first `n` documents of a corpus (checksum of the JSONL serialization of what is kept).
fn take_first(c: &Corpus, n: usize) -> Result<Corpus> {
    use sha2::Digest;
    let mut b = crate::corpus::CorpusBuilder::new(Path::new(&c.source));
    let mut sha = sha2::Sha256::new();
    sha.update(c.sha256.as_bytes());
    sha.update(n.to_le_bytes());
    for i in 0..n {
        let label = c.label(i).map(|l| c.label_name(l).to_string());
        b.push(i + 1, c.id(i).to_string(), c.text(i), label.as_deref())?;
    }
    b.finish(
        c.name.clone(),
        format!("{} (first {n} documents)", c.source),
        neardup_dedup::input::checksummed::hex(&sha.finalize()),
    )
}

/// Makes one (dataset, edit model, seed) of a base: the edited text corpus, or the pages.
pub fn make(base: &Base, dataset: &DatasetSpec, edit: &EditSpec, seed: u64) -> Result<Made> {
    let opts = DeriveOptions {
        copies: dataset.copies,
        fraction: dataset.fraction,
        seed,
        chain: dataset.chain,
    };
    match base {
        Base::Texts(corpus) => Ok(Made::Texts(edited_texts(corpus, edit, opts)?)),
        Base::Pages(source) => Ok(Made::Pages(source.generate(edit.model.as_ref(), opts)?)),
    }
}

/// Applies an edit model (if any) to a text corpus.
fn edited_texts(base: &Corpus, edit: &EditSpec, opts: DeriveOptions) -> Result<Corpus> {
    match &edit.model {
        None => Ok(base.clone()),
        Some(model) => {
            let records = derive(base, model, opts)?;
            to_corpus(
                &records,
                &base.name,
                &format!(
                    "{} edited with {} (seed {})",
                    base.source,
                    model.spec(),
                    opts.seed
                ),
            )
        }
    }
}
