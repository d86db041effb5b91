//! The tables of a report, computed from result rows.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::experiment::config::Experiment;
use crate::experiment::results::{ResultRow, SizeCost, costs_by_size};
use crate::metrics::Kind;

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
}

/// A metric to three decimals, a dash when undefined.
pub(crate) fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.3}"))
}

pub(crate) fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn or_defaults(s: &str) -> String {
    if s.is_empty() {
        "defaults".into()
    } else {
        s.to_string()
    }
}

/// The headline columns of a kind, from the metric registry.
pub(super) fn headline(kind: Kind) -> Vec<&'static crate::metrics::Column> {
    crate::metrics::columns_of(kind)
        .filter(|c| c.headline)
        .collect()
}

/// The numeric parameters a grid sweeps over at least three values, with their extremes.
fn swept_extremes(points: &[neardup::detector::ParamMap]) -> Vec<(String, f64, f64)> {
    let mut keys: Vec<&String> = points.iter().flat_map(|p| p.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let mut v: Vec<f64> = points
                .iter()
                .filter_map(|p| p.get(k).and_then(|x| x.as_f64()))
                .collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            (v.len() >= 3).then(|| (k.clone(), v[0], v[v.len() - 1]))
        })
        .collect()
}

/// `params` with every swept value that is an extreme of its grid marked "(edge)".
fn mark_edges(
    params: &str,
    full: &neardup::detector::ParamMap,
    swept: &[(String, f64, f64)],
) -> (String, bool) {
    let mut edge = false;
    let marked = params
        .split(' ')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let key = kv.split('=').next().unwrap_or("");
            let at_edge = swept.iter().any(|(k, lo, hi)| {
                k == key
                    && full
                        .get(k)
                        .and_then(|v| v.as_f64())
                        .is_some_and(|v| v == *lo || v == *hi)
            });
            edge |= at_edge;
            if at_edge {
                format!("{kv} (edge)")
            } else {
                kv.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    (or_defaults(&marked), edge)
}

/// Quality tables: the best configuration per (dataset, algorithm) by mean F1 (means over
/// seeds and edit models), with best points on the edge of their grid flagged; for corpora
/// without ground truth, what each configuration reports in counts; and, with several edit
/// kinds, mean recall per edit kind. Columns come from the metric registry's headlines.
pub fn quality_tables(exp: &Experiment, rows: &[ResultRow]) -> Vec<Table> {
    let grouping = Grouping::new(exp, rows);
    let (best, unlabelled, any_edge) = best_configurations(exp, rows, &grouping);
    let mut tables = Vec::new();
    if !best.is_empty() {
        tables.push(best_table(exp, &grouping, best, any_edge));
    }
    if !unlabelled.is_empty() {
        tables.push(unlabelled_table(&grouping, unlabelled));
    }
    tables.extend(recall_by_edit_kind(exp, rows));
    tables
}

/// How result rows are grouped into table rows: per dataset · edit model with a few edit
/// models, pooled per dataset with a grid of them; and which groups have ground truth.
pub(super) struct Grouping {
    per_edit: bool,
    /// A group has ground truth when any of its corpora has a true pair.
    labelled: BTreeMap<String, bool>,
    /// The algorithms' labels in the experiment's order.
    order: Vec<String>,
}

impl Grouping {
    pub(super) fn new(exp: &Experiment, rows: &[ResultRow]) -> Grouping {
        let mut g = Grouping {
            per_edit: exp.edits.len() <= 4,
            labelled: BTreeMap::new(),
            order: exp.algorithms.iter().map(|a| a.label.clone()).collect(),
        };
        for r in rows.iter().filter(|r| r.error.is_none()) {
            let has_truth = r.metric("true_pairs").unwrap_or(0.0) > 0.0;
            *g.labelled.entry(g.group(r)).or_default() |= has_truth;
        }
        g
    }

    fn group(&self, r: &ResultRow) -> String {
        if self.per_edit {
            format!("{} · {}", r.cell.dataset, r.cell.edit_spec)
        } else {
            r.cell.dataset.clone()
        }
    }

    /// The position of an algorithm's label in the experiment (rows sort by it).
    fn position(&self, label: &str) -> usize {
        self.order
            .iter()
            .position(|l| l == label)
            .unwrap_or(usize::MAX)
    }

    /// The first columns of a table of configurations.
    fn columns(&self) -> Vec<String> {
        [
            if self.per_edit { "corpus" } else { "dataset" },
            "algorithm",
            "build",
            "query",
        ]
        .map(String::from)
        .to_vec()
    }
}

/// (group, algorithm position, label) → (build, query, column means) of its best grid point.
pub(super) type BestRows = BTreeMap<(String, usize, String), (String, String, Vec<Option<f64>>)>;

/// The best grid point (highest mean F1) of each group and algorithm with ground truth, the
/// count rows of every configuration of the groups without, and whether a best value lies at
/// the edge of its grid.
pub(super) fn best_configurations(
    exp: &Experiment,
    rows: &[ResultRow],
    grouping: &Grouping,
) -> (BestRows, Vec<(usize, Vec<String>)>, bool) {
    let quality = headline(Kind::Quality);
    let counts = headline(Kind::Count);
    let configs = configurations(rows, grouping, &quality, &counts);
    let f1 = quality.iter().position(|c| c.name == "f1");
    let mut best = BestRows::new();
    let mut any_edge = false;
    let mut unlabelled_rows = Vec::new();
    for ((g, label, build, query), (values, rep)) in &configs {
        let means: Vec<Option<f64>> = values.iter().map(|v| mean(v)).collect();
        let li = grouping.position(label);
        if !grouping.labelled[g] {
            let mut row = vec![
                g.clone(),
                label.clone(),
                or_defaults(build),
                or_defaults(query),
            ];
            row.extend(
                means
                    .iter()
                    .map(|v| v.map_or("–".into(), |x| format!("{x:.0}"))),
            );
            unlabelled_rows.push((li, row));
            continue;
        }
        let key = (g.clone(), li, label.clone());
        let score = |m: &[Option<f64>]| f1.and_then(|i| m[i]).unwrap_or(-1.0);
        if best
            .get(&key)
            .is_none_or(|(_, _, old)| score(&means) > score(old))
        {
            let grid = exp.algorithms.get(li);
            let (b, eb) = mark_edges(
                build,
                &rep.build_full,
                &grid.map_or_else(Vec::new, |a| swept_extremes(&a.builds)),
            );
            let (q, eq) = mark_edges(
                query,
                &rep.query_full,
                &grid.map_or_else(Vec::new, |a| swept_extremes(&a.queries)),
            );
            any_edge |= eb || eq;
            best.insert(key, (b, q, means));
        }
    }
    // A configuration whose every cell failed keeps its row, marked, instead of vanishing.
    for r in rows.iter().filter(|r| r.error.is_some()) {
        let li = grouping.position(&r.cell.label);
        best.entry((grouping.group(r), li, r.cell.label.clone()))
            .or_insert_with(|| {
                (
                    r.build_params.clone(),
                    "failed (see Failed cells)".into(),
                    vec![None; quality.len()],
                )
            });
    }
    (best, unlabelled_rows, any_edge)
}

/// (group, label, build, query) → column → values, and a representative row.
type Configurations<'r> =
    BTreeMap<(String, String, String, String), (Vec<Vec<f64>>, &'r ResultRow)>;

/// Every configuration's values per column (quality columns where its group has ground truth,
/// counts where not), over the seeds and pooled edit models.
fn configurations<'r>(
    rows: &'r [ResultRow],
    grouping: &Grouping,
    quality: &[&'static crate::metrics::Column],
    counts: &[&'static crate::metrics::Column],
) -> Configurations<'r> {
    // (group, label, build, query) → column → values, and a representative row
    let mut configs = Configurations::new();
    for r in rows.iter().filter(|r| r.error.is_none()) {
        let g = grouping.group(r);
        let cols = if grouping.labelled[&g] {
            quality
        } else {
            counts
        };
        let e = configs
            .entry((
                g,
                r.cell.label.clone(),
                r.build_params.clone(),
                r.query_params.clone(),
            ))
            .or_insert_with(|| (vec![Vec::new(); cols.len()], r));
        for (i, c) in cols.iter().enumerate() {
            if let Some(v) = r.metric(c.name) {
                e.0[i].push(v);
            }
        }
    }
    configs
}

/// "Best configuration per dataset and algorithm".
fn best_table(exp: &Experiment, grouping: &Grouping, best: BestRows, any_edge: bool) -> Table {
    let mut columns = grouping.columns();
    columns.extend(headline(Kind::Quality).iter().map(|c| c.title.to_string()));
    let several_edits = exp.edits.len() > 1;
    Table {
        title: "Best configuration per dataset and algorithm".into(),
        note: format!(
            "For each {} and algorithm, the grid point with the highest mean F1{}. Pair-level precision, recall and \
             F1; ARI and B-cubed precision of the clusters (connected components of reported pairs); ROC-AUC of the \
             algorithm's scores. A dash: undefined (no pair reported, or no true pair to find).{}",
            if grouping.per_edit {
                "dataset · edit model"
            } else {
                "dataset"
            },
            match (several_edits && !grouping.per_edit, exp.seeds.len() > 1) {
                (true, true) => " (means over edit models and seeds)",
                (true, false) => " (means over edit models)",
                (false, true) => " (means over seeds)",
                (false, false) => "",
            },
            if any_edge {
                " \"(edge)\": the best value is the smallest or largest its grid tried, so a better one may lie beyond \
                 the grid."
            } else {
                ""
            }
        ),
        columns,
        rows: best
            .into_iter()
            .map(|((dataset, _, label), (build, query, m))| {
                let mut row = vec![dataset, label, or_defaults(&build), or_defaults(&query)];
                row.extend(m.iter().map(|v| fmt(*v)));
                row
            })
            .collect(),
    }
}

/// "Corpora without ground truth: what each configuration reports".
fn unlabelled_table(grouping: &Grouping, mut rows: Vec<(usize, Vec<String>)>) -> Table {
    rows.sort_by(|a, b| (&a.1[0], a.0).cmp(&(&b.1[0], b.0)));
    let mut columns = grouping.columns();
    columns.extend(headline(Kind::Count).iter().map(|c| c.title.to_string()));
    Table {
        title: "Corpora without ground truth: what each configuration reports".into(),
        note: "No pair of these corpora is known to be a near-duplicate, so precision and recall are undefined; \
               the counts say how much each configuration would remove: reported pairs, clusters (connected \
               components of two or more documents) and documents removed when one per cluster is kept."
            .into(),
        columns,
        rows: rows.into_iter().map(|(_, r)| r).collect(),
    }
}

/// "Mean recall by edit kind", when the experiment has more than one kind.
fn recall_by_edit_kind(exp: &Experiment, rows: &[ResultRow]) -> Option<Table> {
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
    if kinds.len() <= 1 {
        return None;
    }
    let order: Vec<&str> = exp.algorithms.iter().map(|a| a.label.as_str()).collect();
    let best = crate::experiment::results::best_points(rows);
    // label → kind → recalls (at the label's best grid point)
    let mut pivot: BTreeMap<(usize, String), BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r.error.is_none() && best.includes(r))
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
    Some(Table {
        title: "Mean recall by edit kind".into(),
        note: format!(
            "Recall of each algorithm at its best grid point (highest mean F1 over the whole experiment; the best \
             configuration table gives its parameters) averaged over the rates {} and the seeds. Lower means the \
             edit kind hides more near-duplicates from it.",
            rates.join(", ")
        ),
        columns,
        rows: pivot
            .iter()
            .map(|((_, label), by_kind)| {
                let mut row = vec![label.clone()];
                row.extend(
                    kinds
                        .iter()
                        .map(|k| fmt(by_kind.get(k).and_then(|v| mean(v)))),
                );
                row
            })
            .collect(),
    })
}

/// Timing table: mean build seconds, the headline cost columns and the index's memory per
/// (dataset, algorithm, build point).
pub fn timing_tables(rows: &[ResultRow]) -> Vec<Table> {
    let cost = headline(Kind::Cost);
    let mut agg: BTreeMap<(String, String, String), Vec<Vec<f64>>> = BTreeMap::new();
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
            .or_insert_with(|| vec![Vec::new(); cost.len() + 2]);
        e[0].push(r.build_seconds);
        for (i, c) in cost.iter().enumerate() {
            if let Some(v) = r.metric(c.name) {
                e[i + 1].push(v);
            }
        }
        e[cost.len() + 1].push(r.index_mb);
    }
    let mut columns: Vec<String> = ["dataset", "algorithm", "build", "build s"]
        .map(String::from)
        .to_vec();
    columns.extend(cost.iter().map(|c| c.title.to_string()));
    columns.push("index MB".into());
    let mut tables = vec![Table {
        title: "Throughput and memory".into(),
        note: "Means over the cells of each configuration (first query point): build seconds, documents and MB of text per \
               second for build + query, peak heap above the baseline during the cell, and heap held by the index."
            .into(),
        columns,
        rows: agg
            .into_iter()
            .map(|((d, l, b), v)| {
                let mut row = vec![d, l, or_defaults(&b)];
                row.extend(v.iter().enumerate().map(|(i, x)| {
                    let decimals = if i == 0 { 3 } else if i == 1 { 0 } else { 1 };
                    mean(x).map_or("–".into(), |m| format!("{m:.decimals$}"))
                }));
                row
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
