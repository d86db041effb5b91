//! The table of an experiment that sweeps clustering modes (`query = { clusters = [...] }`):
//! per corpus and algorithm configuration, connected components beside clusters anchored
//! on their representative — how large the clusters grow, how many documents go, how many
//! of those are below the threshold from the document kept for them, and how the clusters
//! agree with the labels.

use std::collections::BTreeMap;

use super::tables::{Table, fmt, mean};
use crate::experiment::config::Experiment;
use crate::experiment::results::ResultRow;

/// The metric columns of the table, in order.
const COLUMNS: [&str; 7] = [
    "clusters",
    "largest_cluster",
    "docs_removed",
    "removed_below_threshold",
    "ari",
    "bcubed_precision",
    "bcubed_recall",
];

/// (dataset position, dataset, edits, algorithm position, label, build, mode): one table
/// row, in the experiment's order of datasets and algorithms.
type Key = (usize, String, String, usize, String, String, String);

/// Counts and cluster quality per corpus, configuration and clustering mode (means over
/// seeds); `None` when no row names a mode.
pub fn cluster_modes_table(exp: &Experiment, rows: &[ResultRow]) -> Option<Table> {
    let groups = group(exp, rows);
    if groups.is_empty() {
        return None;
    }
    let mut columns: Vec<String> = ["corpus", "algorithm", "build", "clusters by"]
        .map(String::from)
        .to_vec();
    columns.extend(COLUMNS.iter().map(|c| {
        crate::metrics::column(c).map_or_else(|| c.to_string(), |col| col.title.to_string())
    }));
    Some(Table {
        title: "Connected components against verified clusters".into(),
        note: "Per corpus and configuration, the same verified pairs clustered two ways: `connected` takes \
               their connected components, `verified` cuts each component until every member is within the \
               threshold of its representative (the document kept, here the first). Documents removed: all \
               but one per cluster. Removed below threshold: those removed for a representative they are not \
               within the threshold of, by the algorithm's own similarity (the wrongful removals). ARI and \
               B-cubed against the corpus's labels (means over seeds)."
            .into(),
        columns,
        rows: groups.into_iter().map(|(k, v)| table_row(k, &v)).collect(),
    })
}

/// Each table row's metric values over seeds, column by column.
fn group(exp: &Experiment, rows: &[ResultRow]) -> BTreeMap<Key, Vec<Vec<f64>>> {
    let mut groups: BTreeMap<Key, Vec<Vec<f64>>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.error.is_none()) {
        let Some(mode) = r.cluster_mode() else {
            continue;
        };
        let key = key(exp, r, mode);
        let values = groups
            .entry(key)
            .or_insert_with(|| vec![Vec::new(); COLUMNS.len()]);
        for (v, c) in values.iter_mut().zip(COLUMNS) {
            v.extend(r.metric(c));
        }
    }
    groups
}

/// One row: where, what, how clustered, then the means (counts as whole numbers).
fn table_row(key: Key, values: &[Vec<f64>]) -> Vec<String> {
    let (_, dataset, edits, _, label, build, mode) = key;
    let build = if build.is_empty() {
        "defaults".into()
    } else {
        build
    };
    let mut row = vec![format!("{dataset} · {edits}"), label, build, mode];
    for (c, v) in COLUMNS.iter().zip(values) {
        let counted =
            crate::metrics::column(c).is_some_and(|col| col.kind == crate::metrics::Kind::Count);
        row.push(match mean(v) {
            Some(m) if counted => format!("{m:.0}"),
            m => fmt(m),
        });
    }
    row
}

/// Seconds per corpus, configuration and clustering mode (means over seeds): finding the
/// pairs (build + query) and clustering them. For TIMING.md.
pub fn cluster_modes_timing(exp: &Experiment, rows: &[ResultRow]) -> Option<Table> {
    let mut groups: BTreeMap<Key, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.error.is_none()) {
        let Some(mode) = r.cluster_mode() else {
            continue;
        };
        let e = groups.entry(key(exp, r, mode)).or_default();
        e.0.push(r.build_seconds + r.query_seconds);
        e.1.push(r.cluster_seconds);
    }
    if groups.is_empty() {
        return None;
    }
    let columns = [
        "corpus",
        "algorithm",
        "build",
        "clusters by",
        "pairs s (build + query)",
        "clustering s",
    ];
    Some(Table {
        title: "Time by clustering mode".into(),
        note: "Wall seconds to find the verified pairs, then to cluster them: connected components with \
               every member compared with its representative (to count the wrongful removals), or the \
               verified cut, which compares again in each round."
            .into(),
        columns: columns.map(String::from).to_vec(),
        rows: groups
            .into_iter()
            .map(|((_, dataset, edits, _, label, build, mode), (pairs, clustering))| {
                let build = if build.is_empty() { "defaults".into() } else { build };
                let secs = |v: &[f64]| mean(v).map_or_else(|| "–".into(), |m| format!("{m:.3}"));
                vec![
                    format!("{dataset} · {edits}"),
                    label,
                    build,
                    mode,
                    secs(&pairs),
                    secs(&clustering),
                ]
            })
            .collect(),
    })
}

/// The table row a result row belongs to.
fn key(exp: &Experiment, r: &ResultRow, mode: &str) -> Key {
    (
        exp.dataset_position(&r.cell.dataset),
        r.cell.dataset.clone(),
        r.cell.edit_spec.clone(),
        exp.algorithms
            .iter()
            .position(|a| a.label == r.cell.label)
            .unwrap_or(usize::MAX),
        r.cell.label.clone(),
        r.build_params.clone(),
        mode.to_string(),
    )
}
