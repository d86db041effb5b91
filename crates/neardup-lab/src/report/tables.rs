//! The tables of a report, computed from result rows.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::experiment::config::Experiment;
use crate::experiment::results::{ResultRow, SizeCost, costs_by_size};

/// A titled table of strings.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Table {
    /// Title (a markdown heading).
    pub title: String,
    /// One sentence on how it was made.
    pub note: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Markdown with a level-2 heading.
    pub fn markdown(&self) -> String {
        let mut s = format!("## {}\n\n{}\n\n", self.title, self.note);
        let _ = writeln!(s, "| {} |", self.columns.join(" | "));
        let _ = writeln!(
            s,
            "|{}|",
            self.columns
                .iter()
                .map(|_| "---")
                .collect::<Vec<_>>()
                .join("|")
        );
        for r in &self.rows {
            let _ = writeln!(
                s,
                "| {} |",
                r.iter()
                    .map(|c| c.replace('|', "\\|"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        s.push('\n');
        s
    }

    /// An HTML table with a heading.
    pub fn html(&self) -> String {
        let esc = super::index::escape;
        let mut s = format!(
            "<h3>{}</h3>\n<p>{}</p>\n<table>\n<tr>",
            esc(&self.title),
            esc(&self.note)
        );
        for c in &self.columns {
            let _ = write!(s, "<th>{}</th>", esc(c));
        }
        s.push_str("</tr>\n");
        for r in &self.rows {
            s.push_str("<tr>");
            for c in r {
                let _ = write!(s, "<td>{}</td>", esc(c));
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</table>\n");
        s
    }
}

fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.3}"))
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn or_defaults(s: &str) -> String {
    if s.is_empty() {
        "defaults".into()
    } else {
        s.to_string()
    }
}

/// Quality tables: the best configuration per (dataset, algorithm) by mean F1 (means over
/// seeds and edit models), and, with several edit kinds, mean recall per edit kind.
pub fn quality_tables(exp: &Experiment, rows: &[ResultRow]) -> Vec<Table> {
    const METRICS: [&str; 6] = [
        "precision",
        "recall",
        "f1",
        "ari",
        "bcubed_precision",
        "roc_auc",
    ];
    // With a few edit models each gets its own rows; with a grid of them, they are pooled.
    let per_edit = exp.edits.len() <= 4;
    let group = |r: &ResultRow| {
        if per_edit {
            format!("{} · {}", r.cell.dataset, r.cell.edit_spec)
        } else {
            r.cell.dataset.clone()
        }
    };
    // (group, label, build, query) → metric → values
    let mut configs: BTreeMap<(String, String, String, String), Vec<Vec<f64>>> = BTreeMap::new();
    let order: Vec<&str> = exp.algorithms.iter().map(|a| a.label.as_str()).collect();
    for r in rows.iter().filter(|r| r.error.is_none()) {
        let e = configs
            .entry((
                group(r),
                r.cell.label.clone(),
                r.build_params.clone(),
                r.query_params.clone(),
            ))
            .or_insert_with(|| vec![Vec::new(); METRICS.len()]);
        for (i, m) in METRICS.iter().enumerate() {
            if let Some(v) = r.metric(m) {
                e[i].push(v);
            }
        }
    }
    /// (build, query, metric means) of the best grid point so far.
    type Best = (String, String, Vec<Option<f64>>);
    let mut best: BTreeMap<(String, usize, String), Best> = BTreeMap::new();
    for ((dataset, label, build, query), values) in &configs {
        let means: Vec<Option<f64>> = values.iter().map(|v| mean(v)).collect();
        let li = order.iter().position(|l| l == label).unwrap_or(usize::MAX);
        let key = (dataset.clone(), li, label.clone());
        let better = match best.get(&key) {
            None => true,
            Some((_, _, old)) => means[2].unwrap_or(-1.0) > old[2].unwrap_or(-1.0),
        };
        if better {
            best.insert(key, (build.clone(), query.clone(), means));
        }
    }
    // A configuration whose every cell failed keeps its row, marked, instead of vanishing.
    for r in rows.iter().filter(|r| r.error.is_some()) {
        let li = order
            .iter()
            .position(|l| *l == r.cell.label)
            .unwrap_or(usize::MAX);
        best.entry((group(r), li, r.cell.label.clone()))
            .or_insert_with(|| {
                (
                    r.build_params.clone(),
                    "failed (see Failed cells)".into(),
                    vec![None; METRICS.len()],
                )
            });
    }
    let mut tables = Vec::new();
    let several_edits = exp.edits.len() > 1;
    tables.push(Table {
        title: "Best configuration per dataset and algorithm".into(),
        note: format!(
            "For each {} and algorithm, the grid point with the highest mean F1{}. Pair-level precision, recall and \
             F1; ARI and B-cubed precision of the clusters (connected components of reported pairs); ROC-AUC of the \
             algorithm's scores. A dash: undefined (no pair reported, or no true pair to find).",
            if per_edit { "dataset · edit model" } else { "dataset" },
            match (several_edits && !per_edit, exp.seeds.len() > 1) {
                (true, true) => " (means over edit models and seeds)",
                (true, false) => " (means over edit models)",
                (false, true) => " (means over seeds)",
                (false, false) => "",
            }
        ),
        columns: [if per_edit { "corpus" } else { "dataset" }, "algorithm", "build", "query", "precision", "recall", "F1", "ARI", "B³ precision", "ROC-AUC"]
            .map(String::from)
            .to_vec(),
        rows: best
            .iter()
            .map(|((dataset, _, label), (build, query, m))| {
                let mut row = vec![dataset.clone(), label.clone(), or_defaults(build), or_defaults(query)];
                row.extend(m.iter().map(|v| fmt(*v)));
                row
            })
            .collect(),
    });
    let kinds: Vec<&str> = {
        let mut k: Vec<&str> = exp
            .edits
            .iter()
            .map(|e| e.kind.as_str())
            .filter(|k| *k != "none")
            .collect();
        k.dedup();
        k
    };
    if kinds.len() > 1 {
        // label → kind → recalls (first query point, first build point)
        let mut pivot: BTreeMap<(usize, String), BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
        for r in rows
            .iter()
            .filter(|r| r.error.is_none() && r.query_index == 0 && r.cell.build_index == 0)
        {
            let li = order
                .iter()
                .position(|l| *l == r.cell.label)
                .unwrap_or(usize::MAX);
            if let (Some(v), Some(kind)) = (
                r.metric("recall"),
                kinds.iter().find(|k| **k == r.cell.edit),
            ) {
                pivot
                    .entry((li, r.cell.label.clone()))
                    .or_default()
                    .entry(kind)
                    .or_default()
                    .push(v);
            }
        }
        let rates: Vec<String> = {
            let mut v: Vec<f64> = exp
                .edits
                .iter()
                .filter(|e| e.kind != "none")
                .map(|e| e.rate)
                .collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            v.iter().map(|r| r.to_string()).collect()
        };
        let mut columns = vec!["algorithm".to_string()];
        columns.extend(kinds.iter().map(|k| k.to_string()));
        tables.push(Table {
            title: "Mean recall by edit kind".into(),
            note: format!(
                "Recall of each algorithm (first build and query point of its grid) averaged over the rates {} and the \
                 seeds. Lower means the edit kind hides more near-duplicates from it.",
                rates.join(", ")
            ),
            columns,
            rows: pivot
                .iter()
                .map(|((_, label), by_kind)| {
                    let mut row = vec![label.clone()];
                    row.extend(kinds.iter().map(|k| fmt(by_kind.get(k).and_then(|v| mean(v)))));
                    row
                })
                .collect(),
        });
    }
    tables
}

/// Timing table: mean throughput and memory per (dataset, algorithm, build point).
pub fn timing_tables(rows: &[ResultRow]) -> Vec<Table> {
    let mut agg: BTreeMap<(String, String, String), [Vec<f64>; 5]> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r.error.is_none() && r.query_index == 0)
    {
        let e = agg
            .entry((
                r.cell.dataset.clone(),
                r.cell.label.clone(),
                r.build_params.clone(),
            ))
            .or_default();
        e[0].push(r.build_seconds);
        if let Some(d) = r.docs_per_s {
            e[1].push(d);
        }
        if let Some(m) = r.mb_per_s {
            e[2].push(m);
        }
        e[3].push(r.peak_mb);
        e[4].push(r.index_mb);
    }
    let mut tables = vec![Table {
        title: "Throughput and memory".into(),
        note: "Means over the cells of each configuration (first query point): build seconds, documents and MB of text per \
               second for build + query, peak heap above the baseline during the cell, and heap held by the index."
            .into(),
        columns: ["dataset", "algorithm", "build", "build s", "docs/s", "MB/s", "peak MB", "index MB"].map(String::from).to_vec(),
        rows: agg
            .into_iter()
            .map(|((d, l, b), v)| {
                let f = |i: usize, p: usize| mean(&v[i]).map_or("–".into(), |x| format!("{x:.p$}"));
                vec![d, l, or_defaults(&b), f(0, 3), f(1, 0), f(2, 1), f(3, 1), f(4, 1)]
            })
            .collect(),
    }];
    tables.extend(growth_table(rows));
    tables
}

/// Growth exponents when an algorithm ran at several corpus sizes: the log–log slope of
/// seconds and of peak memory between consecutive sizes (1 = linear, 2 = quadratic).
fn growth_table(rows: &[ResultRow]) -> Option<Table> {
    let exponent = |a: f64, b: f64, da: usize, db: usize| {
        if a > 0.0 && b > 0.0 {
            format!("{:.2}", (b / a).ln() / (db as f64 / da as f64).ln())
        } else {
            "–".into()
        }
    };
    let mut out = Vec::new();
    for ((label, build), sizes) in costs_by_size(rows) {
        let sizes: Vec<(usize, SizeCost)> = sizes.into_iter().collect();
        for w in sizes.windows(2) {
            let ((da, a), (db, b)) = (w[0], w[1]);
            out.push(vec![
                label.clone(),
                or_defaults(&build),
                format!("{da} → {db}"),
                exponent(a.seconds, b.seconds, da, db),
                exponent(a.peak_mb, b.peak_mb, da, db),
            ]);
        }
    }
    (!out.is_empty()).then(|| Table {
        title: "Growth with corpus size".into(),
        note: "Log–log slope between consecutive corpus sizes of wall seconds (build + first query point) and of peak \
               heap: 1 is linear growth, 2 quadratic. Below 1 at small sizes: fixed costs (thread start-up, tables) \
               still dominate."
            .into(),
        columns: ["algorithm", "build", "documents", "seconds exponent", "peak memory exponent"]
            .map(String::from)
            .to_vec(),
        rows: out,
    })
}
