//! Robustness: recall against edit rate, one panel per edit kind, one line per algorithm (its
//! configuration with the highest mean F1, at its best grid point, mean over seeds). Variants of
//! one algorithm drew near-identical lines over each other (14 lines a panel in
//! edit-robustness, #53); every configuration's recall is in the edit heat map.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::chart::{Chart, ChartFile, ChartInput, label_font};
use super::style::{self, Looks};

/// Recall against edit rate.
#[derive(Debug)]
pub struct Robustness;

impl Chart for Robustness {
    fn name(&self) -> &'static str {
        "robustness"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let data = recalls(input);
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let looks = Looks::of(input.experiment);
        let kinds: Vec<&String> = data.keys().collect();
        let cols = kinds.len().min(3);
        let rows = kinds.len().div_ceil(cols);
        let series: Vec<&str> = looks
            .names()
            .filter(|n| data.values().any(|m| m.contains_key(*n)))
            .collect();
        let max_rate = data
            .values()
            .flat_map(|m| m.values())
            .flat_map(|r| r.keys())
            .map(|&b| f64::from_bits(b))
            .fold(0.0, f64::max);
        let plot_h = (330 * rows as u32).max(24 + 20 * series.len() as u32);
        let size = (400 * cols as u32 + style::LEGEND_WIDTH, plot_h + 60);
        let title = "Recall against edit rate, per edit kind";
        let entries: Vec<(String, style::Look)> = series
            .iter()
            .map(|s| (s.to_string(), looks.get(s)))
            .collect();
        let (svg, png) = crate::draw_both!(
            dir,
            "robustness",
            size,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let body = style::titled(root, title)?;
                let plots = style::with_legend(&body, &entries)?;
                for (panel, kind) in plots.split_evenly((rows, cols)).iter().zip(&kinds) {
                    let mut chart = ChartBuilder::on(panel)
                        .caption(kind.as_str(), label_font())
                        .margin(8)
                        .x_label_area_size(38)
                        .y_label_area_size(48)
                        .build_cartesian_2d(0.0..max_rate * 1.05, 0.0..1.02)?;
                    chart
                        .configure_mesh()
                        .x_desc("edit rate (share of units edited)")
                        .y_desc("recall")
                        .label_style(("sans-serif", 12))
                        .axis_desc_style(("sans-serif", 13))
                        .draw()?;
                    for name in &series {
                        let Some(points) = data[*kind].get(*name) else {
                            continue;
                        };
                        let pts: Vec<(f64, f64)> = points
                            .iter()
                            .map(|(&r, v)| {
                                (f64::from_bits(r), v.iter().sum::<f64>() / v.len() as f64)
                            })
                            .collect();
                        style::draw_series(&mut chart, &pts, looks.get(name))?;
                    }
                }
                Ok(())
            }
        );
        Ok(vec![ChartFile {
            title: "Recall against edit rate".into(),
            svg,
            png,
            caption: "Each panel is one edit kind; each line one algorithm, in its configuration and grid point with the \
                      highest mean F1 over the experiment (its other configurations are rows of the heat map), mean over \
                      seeds. Recall counts the source–copy pairs (and sibling copies) reported."
                .into(),
            timing: false,
            family: None,
        }])
    }
}

/// edit kind → series → rate → recalls
type Recalls = BTreeMap<String, BTreeMap<String, BTreeMap<u64, Vec<f64>>>>;

/// Recall of each algorithm's best configuration at its best grid point, per single edit kind
/// and rate.
fn recalls(input: &ChartInput) -> Recalls {
    let mut data = Recalls::new();
    let best = crate::experiment::results::best_points(&input.results.rows);
    let shown = best_label_per_algorithm(&input.results.rows, &best);
    for r in &input.results.rows {
        if !best.includes(r)
            || !shown.contains(&r.cell.label)
            || r.error.is_some()
            || r.cell.edit == "none"
            || r.cell.edit == "composite"
        {
            continue;
        }
        let Some(recall) = r.metric("recall") else {
            continue;
        };
        data.entry(r.cell.edit.clone())
            .or_default()
            .entry(input.series_name(r))
            .or_default()
            .entry(r.cell.rate.to_bits())
            .or_default()
            .push(recall);
    }
    data
}

/// For each algorithm, the label (configuration) whose best grid point has the highest mean F1
/// over the results; the first such label on a tie.
fn best_label_per_algorithm(
    rows: &[crate::experiment::results::ResultRow],
    best: &crate::experiment::results::BestPoints,
) -> Vec<String> {
    // algorithm → label → F1 values, labels in the order the results list them
    let mut f1s: BTreeMap<&str, Vec<(&str, Vec<f64>)>> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r.error.is_none() && best.includes(r))
    {
        let labels = f1s.entry(&r.cell.algorithm).or_default();
        let at = match labels.iter().position(|(l, _)| *l == r.cell.label) {
            Some(at) => at,
            None => {
                labels.push((&r.cell.label, Vec::new()));
                labels.len() - 1
            }
        };
        labels[at].1.extend(r.metric("f1"));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    f1s.values()
        .filter_map(|labels| {
            labels
                .iter()
                .fold(None, |top: Option<&(&str, Vec<f64>)>, l| match top {
                    Some(t) if mean(&t.1) >= mean(&l.1) => Some(t),
                    _ => Some(l),
                })
                .map(|(l, _)| l.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::results::ResultRow;
    use crate::experiment::runner::PlannedCell;

    fn row(algorithm: &str, label: &str, f1: f64) -> ResultRow {
        ResultRow::of_cell(
            PlannedCell {
                dataset: "default".into(),
                edit: "typo".into(),
                rate: 0.1,
                edit_spec: "typo=0.1".into(),
                seed: 1,
                corpus_sha256: String::new(),
                algorithm: algorithm.into(),
                label: label.into(),
                build_index: 0,
                key: String::new(),
            },
            "",
            vec![("f1", Some(f1)), ("recall", Some(f1))],
        )
    }

    /// One line per algorithm: its variant with the highest F1, whatever the order; an
    /// algorithm with one configuration keeps it; a tie keeps the first.
    #[test]
    fn each_algorithm_draws_its_best_configuration_only() {
        let rows = vec![
            row("minhash-lsh", "minhash-lsh", 0.5),
            row("minhash-lsh", "minhash-lsh (t=0.5)", 0.7),
            row("minhash-lsh", "minhash-lsh (oph)", 0.6),
            row("exact", "exact", 0.1),
            row("imatch", "imatch", 0.4),
            row("imatch", "imatch (10 lexicons)", 0.4),
        ];
        let best = crate::experiment::results::best_points(&rows);
        assert_eq!(
            best_label_per_algorithm(&rows, &best),
            ["exact", "imatch", "minhash-lsh (t=0.5)"]
        );
    }
}
