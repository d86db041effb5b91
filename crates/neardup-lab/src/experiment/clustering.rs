//! How an experiment turns reported pairs into clusters, when its query grid asks
//! (`query = { clusters = ["connected", "verified"] }`).
//!
//! Without the key, clusters are the connected components of the reported pairs, as they
//! always were. With it, each query point anchors every component on its representative,
//! the document of least number (`neardup dedup --keep first`), by the rule of
//! `neardup::cluster::anchored`: `verified` cuts a component until every member is within
//! the threshold of its representative, `connected` keeps the component whole and only
//! records how far each member is from the document it would be removed for. Pairs are
//! compared as `neardup dedup` compares them: on the signatures of a streamed algorithm, or
//! by the built index of one that judges any pair (minhash-lsh with `verify = "exact"`).
//!
//! What the cell stores ([`Anchored`]) is every document's representative and the
//! documents removed below the threshold from theirs: the wrongful removals of transitive
//! closure.

use std::time::Instant;

use neardup::cluster::anchored::anchor_all;
use neardup::detector::{Detector, Index, ParamMap};
use neardup::streaming::SignatureTable;
use serde::{Deserialize, Serialize};

/// The query-grid key that asks for a clustering mode. It belongs to the lab, not to the
/// algorithm: it is taken out before the query reaches the index.
pub const CLUSTERS_KEY: &str = "clusters";

/// How components become clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Connected components of the reported pairs (transitive: chains join).
    Connected,
    /// Components cut until every member is within the threshold of its representative.
    Verified,
}

impl Mode {
    fn parse(value: &serde_json::Value) -> Result<Mode, String> {
        match value.as_str() {
            Some("connected") => Ok(Mode::Connected),
            Some("verified") => Ok(Mode::Verified),
            _ => Err(format!(
                "`{CLUSTERS_KEY}` = {value} is not a clustering mode; use \"connected\" or \"verified\""
            )),
        }
    }
}

/// A query point without the lab's key, and the clustering mode it asked for.
pub fn split(query: &ParamMap) -> Result<(ParamMap, Option<Mode>), String> {
    let mut rest = query.clone();
    let mode = rest
        .remove(CLUSTERS_KEY)
        .map(|v| Mode::parse(&v))
        .transpose()?;
    Ok((rest, mode))
}

/// Checks a query point against the detector it runs on: a clustering mode needs an
/// algorithm that can compare any pair, and it compares at the detector's own query
/// parameters, so it cannot be combined with other query overrides.
pub fn check(detector: &dyn Detector, query: &ParamMap) -> Result<(), String> {
    let (rest, mode) = split(query)?;
    if mode.is_none() {
        return Ok(());
    }
    if !rest.is_empty() {
        return Err(format!(
            "`{CLUSTERS_KEY}` compares members at the algorithm's own threshold, so it cannot be \
             swept together with the query parameters {}; set them as build parameters",
            rest.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    if !compares_any_pair(detector) {
        return Err(format!(
            "`{CLUSTERS_KEY}` needs an algorithm that compares any pair (a streamed one, or \
             minhash-lsh with verify = \"exact\"); {} in this configuration does not",
            detector.name()
        ));
    }
    Ok(())
}

/// Whether `detector` can compare any two documents, as anchoring needs: on the signatures of
/// its streamed split, or by an index that judges any pair.
pub fn compares_any_pair(detector: &dyn Detector) -> bool {
    detector.streaming().is_some() || detector.compares_any_pair()
}

/// The anchored clusters of one query point.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Anchored {
    /// Every document's representative (itself when it is kept).
    pub representative: Vec<u32>,
    /// The documents removed in the name of a representative they are below the threshold
    /// of (always none with `verified`), sorted.
    pub below_threshold: Vec<u32>,
    /// Wall seconds of the comparisons and the cut.
    pub seconds: f64,
}

/// Any two documents' similarity and whether it is within the threshold.
pub type Compare<'a> = Box<dyn Fn(u32, u32) -> (f64, bool) + Sync + 'a>;

/// How two documents compare, as `neardup dedup` compares them: on the signatures of a
/// streamed detector (made once into `table`), or by an index that judges any pair; `None`
/// when the algorithm can do neither.
pub fn comparer<'a>(
    detector: &'a dyn Detector,
    index: &'a dyn Index,
    table: &'a mut Option<SignatureTable>,
    docs: &[&str],
) -> Option<Compare<'a>> {
    match detector.streaming() {
        Some(stream) => {
            let signatures =
                &*table.get_or_insert_with(|| SignatureTable::sketch_all(stream.as_ref(), docs));
            Some(Box::new(move |a, b| stream.compare(signatures, a, b)))
        }
        None if detector.compares_any_pair() => Some(Box::new(move |a, b| {
            index
                .compare(a as usize, b as usize)
                .expect("the index compares any pair")
        })),
        None => None,
    }
}

/// Anchors the clusters of `pairs` over `docs` (see the module documentation). The
/// signatures of a streamed detector are computed once per cell and passed in `table`.
pub fn anchor(
    mode: Mode,
    detector: &dyn Detector,
    index: &dyn Index,
    table: &mut Option<SignatureTable>,
    docs: &[&str],
    pairs: &[(u32, u32)],
) -> Anchored {
    let compare =
        comparer(detector, index, table, docs).expect("checked: the algorithm compares any pair");
    let started = Instant::now();
    let assignments = anchor_all(docs.len(), pairs, |d| d, compare, mode == Mode::Verified);
    Anchored {
        representative: assignments.iter().map(|a| a.representative).collect(),
        below_threshold: assignments
            .iter()
            .filter(|a| !a.within)
            .map(|a| a.document)
            .collect(),
        seconds: started.elapsed().as_secs_f64(),
    }
}
