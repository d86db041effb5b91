//! Robustness: recall against edit rate, one panel per edit kind, one line per algorithm
//! configuration (at its best grid point by mean F1, mean over seeds).

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
            caption: "Each panel is one edit kind; each line one algorithm at its best grid point (highest mean F1 over the \
                      experiment), mean over seeds. Recall counts the source–copy pairs (and sibling copies) reported."
                .into(),
            timing: false,
        }])
    }
}

/// edit kind → series → rate → recalls
type Recalls = BTreeMap<String, BTreeMap<String, BTreeMap<u64, Vec<f64>>>>;

/// Recall of each series at its label's best grid point, per single edit kind and rate.
fn recalls(input: &ChartInput) -> Recalls {
    let mut data = Recalls::new();
    let best = crate::experiment::results::best_points(&input.results.rows);
    for r in &input.results.rows {
        if !best.includes(r)
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
