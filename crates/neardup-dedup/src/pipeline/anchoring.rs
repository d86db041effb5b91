//! Each connected component anchored on the document kept for it
//! (`neardup::cluster::anchored`): its members compared with the representative on their
//! signatures — from memory, read back from the sketch shards a batch of components at a time
//! when the join spilled, or from the index's segments for indexed documents — or, for
//! algorithms that run in memory, by their built index.

use neardup::cluster::anchored::{self, Assignment, Components};
use neardup::detector::Index;
use neardup::streaming::{SignatureTable, StreamingDetector};
use rayon::prelude::*;

use super::clusters::Clusters;
use super::documents::Documents;
use super::options::Keep;
use crate::error::Result;
use crate::index::segment::Segment;

/// How members are compared with their representative.
pub(super) enum Comparer<'a> {
    /// On signatures: `docs.table` (empty when the join spilled: then read from the shards),
    /// and with `--index` the segments of the indexed documents.
    Signatures {
        stream: &'a dyn StreamingDetector,
        segments: Option<&'a [Segment]>,
    },
    /// By an in-memory algorithm's built index.
    Built(&'a dyn Index),
}

/// What anchoring needs to know.
pub(super) struct Anchoring<'a> {
    pub docs: &'a Documents,
    pub keep: Keep,
    /// Cut components (`--clusters verified`), or only measure (`connected`).
    pub cut: bool,
    pub comparer: Comparer<'a>,
}

impl Anchoring<'_> {
    /// Which member represents a group, least first: an indexed document (it is kept
    /// already), then the one `--keep` keeps; ties to the smaller document number.
    fn rank(&self, d: u32) -> (bool, u32) {
        let n = self.docs.len() as u32;
        if d >= n {
            return (false, 0);
        }
        let bytes = match self.keep {
            Keep::First => 0,
            Keep::Longest => {
                let (f, i) = self.docs.locate(d as usize);
                self.docs.shards[f].bytes[i]
            }
        };
        (true, u32::MAX - bytes)
    }

    /// Every document's cluster from the connected components `labels` (over every
    /// document, new then indexed) and the pairs inside them.
    pub(super) fn clusters(&self, components: &Components, total: usize) -> Result<Clusters> {
        let mut representative: Vec<u32> = (0..total as u32).collect();
        let mut similarity = vec![1.0; total];
        let mut within_threshold = vec![true; total];
        for batch in components.batches(self.members_at_a_time()) {
            for a in self.anchor_batch(components, batch)? {
                representative[a.document as usize] = a.representative;
                similarity[a.document as usize] = a.similarity;
                within_threshold[a.document as usize] = a.within;
            }
        }
        Ok(Clusters {
            labels: anchored::labels_of(&representative),
            representative,
            similarity,
            within_threshold,
        })
    }

    /// Members whose signatures are held at once: every one unless the join spilled.
    fn members_at_a_time(&self) -> usize {
        match (&self.comparer, &self.docs.spill) {
            (Comparer::Signatures { .. }, Some((shards, budget))) => {
                (*budget / (shards.width as u64 * 4 + 8)) as usize
            }
            _ => usize::MAX,
        }
    }

    fn anchor_batch(
        &self,
        components: &Components,
        batch: std::ops::Range<usize>,
    ) -> Result<Vec<Assignment>> {
        let anchor_with = |compare: &(dyn Fn(u32, u32) -> (f64, bool) + Sync)| {
            batch
                .clone()
                .into_par_iter()
                .flat_map_iter(|i| {
                    let (members, edges) = components.get(i);
                    anchored::anchor_component(members, edges, |d| self.rank(d), compare, self.cut)
                })
                .collect::<Vec<_>>()
        };
        match &self.comparer {
            Comparer::Built(index) => {
                Ok(anchor_with(&|a, b| {
                    index.compare(a as usize, b as usize).unwrap_or_else(|| {
                        // Connected mode on an algorithm that cannot score this pair.
                        (
                            index.score(a as usize, b as usize).unwrap_or(f64::NAN),
                            false,
                        )
                    })
                }))
            }
            Comparer::Signatures { stream, segments } => {
                let (table, rows) = self.signatures_of(components, &batch, *segments, *stream)?;
                let row = |d: u32| match &rows {
                    Some(rows) => rows.binary_search(&d).expect("gathered") as u32,
                    None => d,
                };
                let compare = |a, b| stream.compare(&table, row(a), row(b));
                // The candidates of a heavy cluster are sparse (`neardup::heavy`): the
                // members a cut leaves over are split by re-joining them on their keys —
                // never two indexed documents, whose pairs this run does not join.
                let new = self.docs.len() as u32;
                let rejoin = |docs: &[u32]| {
                    let local: Vec<u32> = docs.iter().map(|&d| row(d)).collect();
                    let joined = |a: u32, b: u32| docs[a as usize] < new || docs[b as usize] < new;
                    neardup::heavy::connecting_pairs_where(*stream, &table, &local, &joined)
                };
                let anchored: Vec<Vec<Assignment>> = batch
                    .clone()
                    .into_par_iter()
                    .map(|i| {
                        let members = components.get(i).0;
                        let rank = |d| self.rank(d);
                        anchored::anchor_component_rejoined(
                            members, rank, compare, self.cut, &rejoin,
                        )
                    })
                    .collect::<neardup::Result<_>>()?;
                Ok(anchored.into_iter().flatten().collect())
            }
        }
    }

    /// The signatures of a batch's members: `docs.table` itself (rows = documents) when it
    /// holds every document, else a table of the members (sorted; `Some(rows)`).
    fn signatures_of(
        &self,
        components: &Components,
        batch: &std::ops::Range<usize>,
        segments: Option<&[Segment]>,
        stream: &dyn StreamingDetector,
    ) -> Result<(std::borrow::Cow<'_, SignatureTable>, Option<Vec<u32>>)> {
        let docs = self.docs;
        if docs.spill.is_none() && segments.is_none() {
            return Ok((std::borrow::Cow::Borrowed(&docs.table), None));
        }
        let mut rows: Vec<u32> = (batch.start..batch.end)
            .flat_map(|i| components.get(i).0.iter().copied())
            .collect();
        rows.sort_unstable();
        let table = if let Some(segments) = segments {
            docs.rows_with_indexed(&rows, segments, stream.width())?
        } else {
            let (shards, _) = docs.spill.as_ref().expect("in memory returned above");
            super::spilled_join::gather_rows(shards, &rows)?
        };
        Ok((std::borrow::Cow::Owned(table), Some(rows)))
    }
}
