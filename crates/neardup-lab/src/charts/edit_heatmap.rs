//! Edit heat map: recall of every algorithm configuration (rows) under every single edit kind
//! (columns) at the experiment's middle edit rate, each configuration at its best grid point.
//! It answers "which edit kinds hurt which algorithm most" in one picture, where the
//! recall-against-rate panels draw one line per configuration and, with a dozen
//! configurations, lines that hide each other (#53).

use std::collections::BTreeMap;
use std::path::Path;

use super::chart::{Chart, ChartFile, ChartInput};
use super::heatmap::{draw_grid, mean};

/// The edit heat map chart kind.
#[derive(Debug)]
pub struct EditHeatmap;

/// Pixels of one cell: narrower than the F1 heat map's, for a dozen edit kinds.
const CELL: (i32, i32) = (92, 28);

/// The recalls the chart shows: its edit kinds (columns, in the order the results list
/// them), the middle rate, and label → kind → recalls (over seeds and datasets).
#[derive(Debug, Default, PartialEq)]
struct Grid {
    kinds: Vec<String>,
    rate: f64,
    recalls: BTreeMap<String, BTreeMap<String, Vec<f64>>>,
}

impl Chart for EditHeatmap {
    fn name(&self) -> &'static str {
        "edit-heatmap"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let grid = recalls_at_middle_rate(&input.results.rows);
        let mut labels: Vec<&str> = Vec::new();
        for a in &input.experiment.algorithms {
            if grid.recalls.contains_key(&a.label) && !labels.contains(&a.label.as_str()) {
                labels.push(&a.label);
            }
        }
        if labels.is_empty() || grid.kinds.len() < 2 {
            return Ok(Vec::new());
        }
        let title = format!("Recall at edit rate {}, per edit kind", grid.rate);
        let (svg, png) = draw_grid(
            dir,
            "edit-heatmap",
            &title,
            CELL,
            &labels,
            &grid.kinds,
            &|label, c| {
                grid.recalls[label]
                    .get(&grid.kinds[c])
                    .and_then(|v| mean(v))
            },
        )?;
        Ok(vec![ChartFile {
            title,
            svg,
            png,
            caption: format!(
                "Each row is one algorithm configuration at its best grid point (highest mean F1 \
                 over the experiment); each cell the share of source–copy pairs it reports when \
                 that one kind of edit changes {:.0} % of a copy's units (the middle of the \
                 experiment's rates), mean over seeds. Darker is better; a dash: no recall. \
                 Every rate is in the recall-against-rate chart.",
                grid.rate * 100.0
            ),
            timing: false,
            family: None,
        }])
    }
}

/// Recall of each label at its best grid point under each single edit kind, at the middle of
/// the edit rates the results hold (the lower middle of an even count).
fn recalls_at_middle_rate(rows: &[crate::experiment::results::ResultRow]) -> Grid {
    let single = |r: &&crate::experiment::results::ResultRow| {
        r.error.is_none() && r.cell.edit != "none" && r.cell.edit != "composite"
    };
    let mut rates: Vec<f64> = rows.iter().filter(single).map(|r| r.cell.rate).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let Some(&rate) = rates.get(rates.len().saturating_sub(1) / 2) else {
        return Grid::default();
    };
    let best = crate::experiment::results::best_points(rows);
    let mut grid = Grid {
        rate,
        ..Grid::default()
    };
    for r in rows.iter().filter(single).filter(|r| r.cell.rate == rate) {
        if !grid.kinds.contains(&r.cell.edit) {
            grid.kinds.push(r.cell.edit.clone());
        }
        let Some(recall) = r.metric("recall").filter(|_| best.includes(r)) else {
            continue;
        };
        grid.recalls
            .entry(r.cell.label.clone())
            .or_default()
            .entry(r.cell.edit.clone())
            .or_default()
            .push(recall);
    }
    grid
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::results::ResultRow;
    use crate::experiment::runner::PlannedCell;

    fn row(edit: &str, rate: f64, build: &str, f1: f64, recall: f64) -> ResultRow {
        ResultRow::of_cell(
            PlannedCell {
                dataset: "default".into(),
                edit: edit.into(),
                rate,
                edit_spec: format!("{edit}={rate}"),
                seed: 1,
                corpus_sha256: String::new(),
                algorithm: "simhash".into(),
                label: "simhash".into(),
                build_index: usize::from(build == "k=3"),
                key: String::new(),
            },
            build,
            vec![("f1", Some(f1)), ("recall", Some(recall))],
        )
    }

    /// Three rates: the cells are the middle one's recall, at the best grid point (k=3 has
    /// the higher mean F1), per kind in the results' order; `none` is not a column.
    #[test]
    fn cells_are_the_best_points_recall_at_the_middle_rate() {
        let mut rows = Vec::new();
        for (build, f1) in [("k=5", 0.2), ("k=3", 0.9)] {
            for (kind, base) in [("typo", 0.5), ("delete", 0.7)] {
                for (i, rate) in [0.02, 0.1, 0.4].into_iter().enumerate() {
                    let recall = base - 0.1 * i as f64 - if build == "k=5" { 0.3 } else { 0.0 };
                    rows.push(row(kind, rate, build, f1, recall));
                }
            }
            rows.push(row("none", 0.0, build, f1, 1.0));
        }
        let grid = recalls_at_middle_rate(&rows);
        assert_eq!(grid.kinds, ["typo", "delete"]);
        assert_eq!(grid.rate, 0.1);
        let cell = |kind: &str| grid.recalls["simhash"][kind].clone();
        assert_eq!(cell("typo").len(), 1);
        assert!((cell("typo")[0] - 0.4).abs() < 1e-12, "{:?}", cell("typo"));
        assert!(
            (cell("delete")[0] - 0.6).abs() < 1e-12,
            "{:?}",
            cell("delete")
        );
    }
}
