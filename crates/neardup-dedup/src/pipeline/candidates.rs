//! Signatures → candidate pairs: the algorithm's join keys (LSH bands, permuted-table
//! prefixes) grouped in memory (a heavy cluster's identical signatures collapsed and its long
//! runs connected by edges rather than enumerated: `neardup::heavy`), against the index's key
//! tables with `--index`, or on disk when the signatures do not fit `--memory`
//! (`spilled_join`).

use super::documents::Documents;
use super::options::Stage;
use super::spilled_join::{self, Candidates};
use super::stage::run_stage;
use super::stage_files;
use super::state::Run;
use crate::error::Result;
use crate::index::segment;

impl Run<'_> {
    /// Signatures → candidate pairs (`None`: the algorithm has no streamable split, or the
    /// stage had finished; its pairs are read back only if verification needs them).
    pub(super) fn candidates_stage(
        &mut self,
        docs: &mut Documents,
        stage_key: &str,
        run_it: bool,
    ) -> Result<Option<Vec<u64>>> {
        let Some(stream) = &self.stream else {
            return Ok(None);
        };
        let out = &self.options.output;
        let indexed = &mut self.indexed;
        let memory = &self.memory;
        run_stage(
            out,
            &mut self.reports,
            Stage::Candidates,
            stage_key,
            run_it,
            || true,
            |dir| {
                let pairs = if let Some((shards, budget)) = &docs.spill {
                    let spill_dir = dir.join("spill");
                    let cap = memory.candidate_cap(docs.len());
                    let found = spilled_join::candidates(
                        stream.as_ref(),
                        shards,
                        *budget,
                        cap,
                        &spill_dir,
                    )?;
                    let _ = std::fs::remove_dir(&spill_dir);
                    match found {
                        Candidates::Found(pairs) => pairs,
                        // Refused, naming the limit that holds them.
                        Candidates::TooMany(bound) => {
                            return Err(memory.candidates_refused(
                                docs.len(),
                                bound,
                                true,
                                true,
                                out,
                            ));
                        }
                    }
                } else {
                    // Heavy clusters (thousands of copies of a page) joined in linear time:
                    // their runs give edges that connect them, not every pair.
                    let mut pairs = neardup::heavy::candidates(stream.as_ref(), &mut docs.table)?;
                    if let Some(indexed) = indexed {
                        let segments = Self::index_segments(indexed, stream.as_ref())?;
                        let against =
                            segment::candidates_against(stream.as_ref(), &docs.table, segments)?;
                        // Both lists are sorted and disjoint (b < n against b ≥ n): one sort
                        // merges.
                        pairs.extend(against);
                        pairs.sort_unstable();
                    }
                    pairs
                };
                stage_files::write_pairs(&dir.join("pairs.parquet"), &pairs, None)?;
                let rows = pairs.len() as u64;
                Ok((pairs, rows))
            },
        )
    }
}
