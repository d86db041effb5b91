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
    pub keep: &'a Keep,
    /// Cut components (`--clusters verified`), or only measure (`connected`).
    pub cut: bool,
    pub comparer: Comparer<'a>,
}

/// The rank of a keep field's value, least kept first: the largest value first when
/// `largest`, else the smallest; a missing value (NaN) after every value.
fn field_rank(value: f64, largest: bool) -> u64 {
    if value.is_nan() {
        return u64::MAX;
    }
    // IEEE 754 bits made to order as the numbers do (-0 and 0 alike).
    let value = if value == 0.0 { 0.0 } else { value };
    let bits = value.to_bits();
    let ordered = if value < 0.0 { !bits } else { bits | (1 << 63) };
    // A finite value's `ordered` is neither 0 nor u64::MAX, so either way it ranks before
    // a missing one.
    if largest { !ordered } else { ordered }
}

impl Anchoring<'_> {
    /// Which member represents a group, least first: an indexed document (it is kept
    /// already), then the one `--keep` keeps; ties to the smaller document number.
    fn rank(&self, d: u32) -> (bool, u64) {
        let n = self.docs.len() as u32;
        if d >= n {
            return (false, 0);
        }
        if *self.keep == Keep::First {
            // Ties go to the smaller number: the first in input order.
            return (true, 0);
        }
        let (f, i) = self.docs.locate(d as usize);
        let shard = &self.docs.shards[f];
        let rank = match self.keep {
            Keep::First => 0,
            Keep::Longest => u64::from(u32::MAX - shard.bytes[i]),
            Keep::ByField { largest, .. } => {
                let value = shard.keep.as_ref().map_or(f64::NAN, |k| k[i]);
                field_rank(value, *largest)
            }
        };
        (true, rank)
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

#[cfg(test)]
mod tests {
    use super::field_rank;

    /// The oracle: sorting the values themselves (missing last, then by position).
    #[test]
    fn field_ranks_order_as_the_values_do() {
        let values = [
            3.5,
            -2.0,
            0.0,
            -0.0,
            f64::NAN,
            1e300,
            -1e-300,
            f64::MIN_POSITIVE,
            1_709_343_000.0,
            -7.25,
            f64::MAX,
            f64::MIN,
        ];
        for largest in [true, false] {
            let mut by_rank: Vec<usize> = (0..values.len()).collect();
            by_rank.sort_by_key(|&i| (field_rank(values[i], largest), i));
            let mut by_value: Vec<usize> = (0..values.len()).collect();
            by_value.sort_by(|&a, &b| {
                let (x, y) = (values[a], values[b]);
                let order = match (x.is_nan(), y.is_nan()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => std::cmp::Ordering::Greater,
                    (false, true) => std::cmp::Ordering::Less,
                    _ if largest => y.partial_cmp(&x).unwrap(),
                    _ => x.partial_cmp(&y).unwrap(),
                };
                order.then(a.cmp(&b))
            });
            assert_eq!(by_rank, by_value, "largest = {largest}");
        }
    }
}
