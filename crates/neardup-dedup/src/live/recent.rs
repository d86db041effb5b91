//! The documents added since the log was last folded: their ids, signatures and join keys in
//! hash tables, so a check finds them as it finds a segment's by binary search.

use std::collections::HashMap;

use neardup::streaming::{SignatureTable, StreamingDetector};

use super::doc::DocMeta;

/// The documents of one key run: most keys are held by one document, so a run is inline
/// until it has two (16 bytes instead of a vector's 24 and an allocation).
#[derive(Debug, Clone)]
pub(super) enum Run {
    One(u32),
    Many(Vec<u32>),
}

impl Run {
    pub(super) fn as_slice(&self) -> &[u32] {
        match self {
            Run::One(d) => std::slice::from_ref(d),
            Run::Many(v) => v,
        }
    }

    fn push(&mut self, d: u32) {
        match self {
            Run::One(first) => *self = Run::Many(vec![*first, d]),
            Run::Many(v) => v.push(d),
        }
    }
}

/// Recent additions, numbered from 0 in the order they were added.
#[derive(Debug)]
pub(super) struct Recent {
    pub ids: Vec<String>,
    pub meta: Vec<DocMeta>,
    pub table: SignatureTable,
    /// (key position, key) → the documents holding that key, ascending.
    keys: HashMap<(u32, u64), Run>,
    scratch: Vec<u64>,
}

impl Recent {
    pub(super) fn new(stream: &dyn StreamingDetector) -> Self {
        Recent {
            ids: Vec::new(),
            meta: Vec::new(),
            table: SignatureTable::new(stream.width()),
            keys: HashMap::new(),
            scratch: vec![0; stream.keys_per_doc()],
        }
    }

    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Adds a document; returns its number among the recent ones.
    pub(super) fn push(
        &mut self,
        stream: &dyn StreamingDetector,
        id: String,
        meta: DocMeta,
        row: &[u32],
        empty: bool,
    ) -> u32 {
        let d = self.ids.len() as u32;
        self.ids.push(id);
        self.meta.push(meta);
        self.table.push(row, empty);
        if !empty {
            stream.keys(row, &mut self.scratch);
            for (position, &key) in self.scratch.iter().enumerate() {
                self.keys
                    .entry((position as u32, key))
                    .and_modify(|run| run.push(d))
                    .or_insert(Run::One(d));
            }
        }
        d
    }

    /// The recent documents whose key at `position` is `key`, ascending.
    pub(super) fn lookup(&self, position: usize, key: u64) -> &[u32] {
        self.keys
            .get(&(position as u32, key))
            .map_or(&[], |run| run.as_slice())
    }

    /// Forgets the documents from `len` on (the newest: their keys are the last of each run).
    pub(super) fn truncate(&mut self, stream: &dyn StreamingDetector, len: usize) {
        for d in (len..self.ids.len()).rev() {
            if self.table.is_empty_doc(d) {
                continue;
            }
            stream.keys(self.table.row(d), &mut self.scratch);
            for (position, &key) in self.scratch.iter().enumerate() {
                let k = (position as u32, key);
                match self.keys.get_mut(&k) {
                    Some(Run::Many(v)) => {
                        v.retain(|&x| x != d as u32);
                        if let [only] = v[..] {
                            self.keys.insert(k, Run::One(only));
                        }
                    }
                    Some(Run::One(_)) => {
                        self.keys.remove(&k);
                    }
                    None => {}
                }
            }
        }
        self.ids.truncate(len);
        self.meta.truncate(len);
        let (width, mut words, mut empty) = std::mem::take(&mut self.table).into_parts();
        words.truncate(len * width);
        empty.truncate(len);
        self.table = SignatureTable::from_parts(width, words, empty);
    }

    /// Bytes held, roughly: what `stats` reports.
    pub(super) fn heap_bytes(&self) -> usize {
        let ids: usize = self.ids.iter().map(|s| s.capacity() + 24).sum();
        let meta: usize = self
            .meta
            .iter()
            .map(|m| m.url.as_ref().map_or(0, |u| u.capacity()) + 40)
            .sum();
        ids + meta + self.table.heap_bytes() + self.keys.capacity() * 34
    }
}
