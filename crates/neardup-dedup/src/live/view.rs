//! What checks read: the frozen segments, the recent additions, ids, pending removals and
//! the folded documents' facts — and the changes a writer applies to it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use neardup::streaming::{SignatureTable, StreamingDetector};

use super::doc::{DocMeta, Match, Probe};
use super::frozen::Frozen;
use super::log::LogRecord;
use super::recent::Recent;
use crate::index::segment::{Segment, key_tables};

/// What checks read.
#[derive(Debug)]
pub(super) struct View {
    pub frozen: Arc<Frozen>,
    pub recent: Recent,
    pub by_id: HashMap<String, u32>,
    /// Removed documents still in a segment or the recent part (until the next fold).
    pub removed: HashSet<u32>,
    pub folded_meta: HashMap<String, DocMeta>,
}

impl View {
    /// Copies document `number`'s row into `out`; returns whether it has no feature.
    pub(super) fn row_of(&self, number: u32, out: &mut [u32]) -> bool {
        let frozen = &self.frozen;
        if number >= frozen.documents {
            let d = (number - frozen.documents) as usize;
            out.copy_from_slice(self.recent.table.row(d));
            self.recent.table.is_empty_doc(d)
        } else {
            let (segment, d) = frozen.locate(number);
            segment.row(d, out);
            segment.empty[d]
        }
    }

    pub(super) fn of(
        frozen: Frozen,
        stream: &dyn StreamingDetector,
        folded_meta: HashMap<String, DocMeta>,
    ) -> View {
        let mut by_id = HashMap::with_capacity(frozen.documents as usize);
        for (segment, &offset) in frozen.segments.iter().zip(&frozen.offsets) {
            for (d, id) in segment.ids.iter().enumerate() {
                by_id.entry(id.clone()).or_insert(offset + d as u32);
            }
        }
        View {
            frozen: Arc::new(frozen),
            recent: Recent::new(stream),
            by_id,
            removed: HashSet::new(),
            folded_meta,
        }
    }

    pub(super) fn id(&self, number: u32) -> &str {
        if number >= self.frozen.documents {
            &self.recent.ids[(number - self.frozen.documents) as usize]
        } else {
            let (segment, d) = self.frozen.locate(number);
            &segment.ids[d]
        }
    }

    pub(super) fn named(&self, found: &[(u32, f64)]) -> Vec<Match> {
        found
            .iter()
            .map(|&(number, similarity)| Match {
                id: self.id(number).to_string(),
                similarity,
            })
            .collect()
    }

    /// Whether document `number` has `probe`'s signature and emptiness.
    pub(super) fn row_equals(&self, number: u32, probe: &Probe) -> bool {
        let mut row = vec![0u32; probe.row.len()];
        let empty = self.row_of(number, &mut row);
        empty == probe.empty && row == probe.row
    }

    pub(super) fn push(
        &mut self,
        stream: &dyn StreamingDetector,
        id: String,
        meta: DocMeta,
        probe: &Probe,
    ) {
        let number = self.frozen.documents
            + self
                .recent
                .push(stream, id.clone(), meta, &probe.row, probe.empty);
        self.by_id.insert(id, number);
    }

    pub(super) fn remove(&mut self, id: &str) {
        if let Some(number) = self.by_id.remove(id) {
            self.removed.insert(number);
        }
    }

    pub(super) fn apply(&mut self, stream: &dyn StreamingDetector, record: LogRecord) {
        match record {
            LogRecord::Add {
                id,
                url,
                added_ms,
                empty,
                signature,
            } => {
                if self.by_id.contains_key(&id) {
                    return;
                }
                let probe = Probe {
                    row: signature,
                    empty,
                };
                self.push(stream, id, DocMeta { url, added_ms }, &probe);
            }
            LogRecord::Remove { id } => self.remove(&id),
        }
    }

    /// Undoes the recent additions from `len` on (their log write failed).
    pub(super) fn truncate_recent(&mut self, stream: &dyn StreamingDetector, len: usize) {
        let base = self.frozen.documents;
        for d in len..self.recent.len() {
            let id = &self.recent.ids[d];
            if self.by_id.get(id) == Some(&(base + d as u32)) {
                self.by_id.remove(id);
            }
            self.removed.remove(&(base + d as u32));
        }
        self.recent.truncate(stream, len);
    }

    /// What a fold commits: the segment of the recent documents still indexed, their URLs and
    /// times, and the ids of removed documents that a segment holds.
    pub(super) fn fold_contents(
        &self,
        stream: &dyn StreamingDetector,
        tables_key: &str,
    ) -> (Segment, Vec<(String, DocMeta)>, HashSet<String>) {
        let base = self.frozen.documents;
        let mut table = SignatureTable::new(stream.width());
        let mut ids = Vec::new();
        let mut meta = Vec::new();
        for d in 0..self.recent.len() {
            if self.removed.contains(&(base + d as u32)) {
                continue;
            }
            ids.push(self.recent.ids[d].clone());
            meta.push((self.recent.ids[d].clone(), self.recent.meta[d].clone()));
            table.push(self.recent.table.row(d), self.recent.table.is_empty_doc(d));
        }
        let removed_ids = self
            .removed
            .iter()
            .filter(|&&n| n < base)
            .map(|&n| self.id(n).to_string())
            .collect();
        let segment = Segment {
            ids,
            tables: key_tables(stream, &table),
            table,
            tables_key: tables_key.to_string(),
            stored_rows: None,
        };
        (segment, meta, removed_ids)
    }
}
