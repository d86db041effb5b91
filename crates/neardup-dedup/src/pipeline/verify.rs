//! Candidates → verified pairs with their scores: each candidate's full signatures compared
//! (`StreamingDetector::verify`), or, for algorithms without a streamable split, every text
//! read into memory and run through `build` + `query`.

use neardup::detector::{Detector, Index};

use super::documents::Documents;
use super::options::{DedupOptions, Stage};
use super::signature_checks::{candidate_documents, verify_candidates};
use super::spilled_join;
use super::stage::{pairs_path, run_stage};
use super::stage_files;
use super::state::Run;
use crate::error::{Error, Result};
use crate::input::{self, Fields, InputFile};

/// The verified pairs (packed) and, for an algorithm that runs in memory, its built index.
pub(super) type Verified = (Vec<u64>, Option<Box<dyn Index>>);

impl Run<'_> {
    /// Candidates → verified pairs with their scores; in memory (`build` + `query` over every
    /// text) for algorithms without a streamable split, whose built index it also returns
    /// (the components stage compares members with their representative by it).
    pub(super) fn verify_stage(
        &mut self,
        docs: &Documents,
        candidates: Option<Vec<u64>>,
        stage_key: &str,
        run_it: bool,
    ) -> Result<Option<Verified>> {
        let (out, stream) = (&self.options.output, &self.stream);
        let (files, options, detector) = (&self.files, self.options, &self.detector);
        let fields = &self.fields;
        let indexed = &mut self.indexed;
        run_stage(
            out,
            &mut self.reports,
            Stage::Verify,
            stage_key,
            run_it,
            || true,
            |dir| {
                let mut built = None;
                let (pairs, scores): (Vec<u64>, Vec<f64>) = match stream {
                    Some(stream) => {
                        let candidates = match candidates {
                            Some(c) => c,
                            None => stage_files::read_pairs(&pairs_path(out, Stage::Candidates))?.0,
                        };
                        match (&docs.spill, indexed) {
                            (Some((shards, budget)), _) => {
                                spilled_join::verify(stream.as_ref(), shards, &candidates, *budget)?
                            }
                            (None, Some(indexed)) => {
                                // A table of the candidates' signatures only, so
                                // verification holds no more rows than there are candidates.
                                let rows = candidate_documents(&candidates);
                                let segments = Self::index_segments(indexed, stream.as_ref())?;
                                let t = docs.rows_with_indexed(&rows, segments, stream.width())?;
                                verify_candidates(stream.as_ref(), &t, Some(&rows), &candidates)
                            }
                            (None, None) => {
                                verify_candidates(stream.as_ref(), &docs.table, None, &candidates)
                            }
                        }
                    }
                    None => {
                        let index =
                            build_in_memory(files, options, fields, docs, detector.as_ref())?;
                        // Connectivity is what the components stage needs: a heavy
                        // cluster's runs connected, not enumerated (`neardup::heavy`).
                        let pairs = index
                            .connecting_query()?
                            .into_iter()
                            .map(|p| (neardup::pairs::pack(p.a, p.b), p.score))
                            .unzip();
                        built = Some(index);
                        pairs
                    }
                };
                stage_files::write_pairs(&dir.join("pairs.parquet"), &pairs, Some(&scores))?;
                let rows = pairs.len() as u64;
                Ok(((pairs, built), rows))
            },
        )
    }
}

/// An algorithm that runs in memory, built over every text (read again from the inputs).
pub(super) fn build_in_memory(
    files: &[InputFile],
    options: &DedupOptions,
    fields: &Fields,
    docs: &Documents,
    detector: &dyn Detector,
) -> Result<Box<dyn Index>> {
    let texts = read_texts(files, options, &texts_fields(files, options, fields)?, docs)?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    Ok(detector.build(&refs)?)
}

/// What the texts are read with again: the run's fields with the template lines counted (a
/// run that reused the sketch has not counted them) and a tally of their own (the sketch
/// counted the pages).
pub(super) fn texts_fields(
    files: &[InputFile],
    options: &DedupOptions,
    fields: &Fields,
) -> Result<Fields> {
    let mut fields = Fields {
        tally: Default::default(),
        ..fields.clone()
    };
    let pages = files.iter().any(|f| fields.reads_pages(f));
    if let (Some(k), None, true) = (options.boilerplate_lines, &fields.boilerplate, pages) {
        fields.boilerplate = Some(std::sync::Arc::new(
            crate::web::host_templates::count_boilerplate(files, &fields, k)?,
        ));
    }
    Ok(fields)
}

/// Every document's text, in document order (algorithms that run in memory).
fn read_texts(
    files: &[InputFile],
    options: &DedupOptions,
    fields: &Fields,
    docs: &Documents,
) -> Result<Vec<String>> {
    let mut texts = Vec::with_capacity(docs.len());
    for file in files {
        input::for_each_record_block(file, fields, |block| {
            texts.extend(block.into_iter().map(|r| r.text.into_owned()));
            Ok(())
        })?;
    }
    if texts.len() != docs.len() {
        return Err(Error::file(
            &options.output,
            "the inputs changed while dedup ran (a different number of documents); rerun",
        ));
    }
    Ok(texts)
}
