//! Robustness: recall against edit rate, one panel per edit kind, a line per algorithm
//! configuration (mean over seeds; first query point of each grid).

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::{Chart, ChartFile, ChartInput, colour, label_font, title_font};

/// Recall vs edit rate per edit kind.
#[derive(Debug)]
pub struct Robustness;

impl Chart for Robustness {
    fn name(&self) -> &'static str {
        "robustness"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        // kind → series → rate → recalls
        let mut data: BTreeMap<String, BTreeMap<String, BTreeMap<u64, Vec<f64>>>> = BTreeMap::new();
        for r in &input.results.rows {
            if r.query_index != 0
                || r.error.is_some()
                || r.cell.edit == "none"
                || r.cell.edit == "composite"
            {
                continue;
            }
            let Some(recall) = r.metric("recall") else {
                continue;
            };
            let series = input.series_name(r);
            data.entry(r.cell.edit.clone())
                .or_default()
                .entry(series)
                .or_default()
                .entry(r.cell.rate.to_bits())
                .or_default()
                .push(recall);
        }
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let kinds: Vec<&String> = data.keys().collect();
        let cols = kinds.len().min(3);
        let rows = kinds.len().div_ceil(cols);
        let all_series: Vec<String> = {
            let mut s: Vec<String> = data.values().flat_map(|m| m.keys().cloned()).collect();
            s.sort();
            s.dedup();
            s
        };
        let max_rate = data
            .values()
            .flat_map(|m| m.values())
            .flat_map(|r| r.keys())
            .map(|&b| f64::from_bits(b))
            .fold(0.0, f64::max);
        let legend_h = 20 + 22 * all_series.len().div_ceil(4) as u32;
        let size = (400 * cols as u32 + 40, 330 * rows as u32 + 60 + legend_h);
        let (svg, png) = crate::draw_both!(
            dir,
            "robustness",
            size,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let (top, body) = root.split_vertically(60);
                top.titled("Recall against edit rate, per edit kind", title_font())?;
                let (panels_area, legend_area) = body.split_vertically(size.1 - 60 - legend_h);
                let panels = panels_area.split_evenly((rows, cols));
                for (panel, kind) in panels.iter().zip(&kinds) {
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
                    for (si, name) in all_series.iter().enumerate() {
                        let Some(points) = data[*kind].get(name) else {
                            continue;
                        };
                        let pts: Vec<(f64, f64)> = points
                            .iter()
                            .map(|(&r, v)| {
                                (f64::from_bits(r), v.iter().sum::<f64>() / v.len() as f64)
                            })
                            .collect();
                        let c = colour(si);
                        chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?;
                        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
                    }
                }
                // One shared legend under the panels.
                let n = all_series.len().max(1);
                let per_row = n.min(4);
                for (si, name) in all_series.iter().enumerate() {
                    let x = 20 + (si % per_row) as i32 * (size.0 as i32 - 40) / per_row as i32;
                    let y = 10 + (si / per_row) as i32 * 22;
                    legend_area.draw(&Rectangle::new(
                        [(x, y + 4), (x + 24, y + 8)],
                        colour(si).filled(),
                    ))?;
                    legend_area.draw(&Text::new(name.clone(), (x + 30, y), ("sans-serif", 14)))?;
                }
                Ok(())
            }
        );
        Ok(vec![ChartFile {
            title: "Recall against edit rate".into(),
            svg,
            png,
            caption: "Each panel is one edit kind; each line one algorithm configuration (first query point of its grid), \
                      mean over seeds. Recall counts the source–copy pairs (and sibling copies) reported."
                .into(),
            timing: false,
        }])
    }
}
