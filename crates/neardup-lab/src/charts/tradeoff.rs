//! Trade-off: precision, recall and F1 against the swept parameter of each algorithm (the
//! first numeric query axis of its grid, else the first numeric build axis) — SimHash's
//! Hamming distance k, random projection's agreement threshold, MinHash's cutoff. Means over
//! datasets, edits and seeds; one panel per algorithm configuration.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::chart::{Chart, ChartFile, ChartInput, label_font};
use super::style::{self, Look};
use crate::experiment::config::AlgorithmGrid;

/// Precision / recall / F1 against a swept parameter.
#[derive(Debug)]
pub struct Tradeoff;

/// The swept numeric parameter of a grid: (name, is a query parameter).
pub fn swept_axis(grid: &AlgorithmGrid) -> Option<(String, bool)> {
    let axis = |points: &[neardup::detector::ParamMap]| -> Option<String> {
        let first = points.first()?;
        first
            .keys()
            .find(|k| {
                let mut vals: Vec<f64> = points
                    .iter()
                    .filter_map(|p| p.get(*k).and_then(|v| v.as_f64()))
                    .collect();
                vals.sort_by(f64::total_cmp);
                vals.dedup();
                vals.len() > 1
            })
            .cloned()
    };
    axis(&grid.queries)
        .map(|k| (k, true))
        .or_else(|| axis(&grid.builds).map(|k| (k, false)))
}

impl Chart for Tradeoff {
    fn name(&self) -> &'static str {
        "tradeoff"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let mut files = Vec::new();
        for grid in &input.experiment.algorithms {
            let Some((param, is_query)) = swept_axis(grid) else {
                continue;
            };
            let panels = panels(input, grid, &param, is_query);
            if panels.is_empty() {
                continue;
            }
            files.push(draw_grid(dir, grid, &param, &panels)?);
        }
        Ok(files)
    }
}

/// panel (the other parameters) → x → [precision, recall, f1] lists
type Panels = BTreeMap<String, BTreeMap<u64, [Vec<f64>; 3]>>;

/// One grid's metrics by panel (dataset and the other parameters) and swept value.
fn panels(input: &ChartInput, grid: &AlgorithmGrid, param: &str, is_query: bool) -> Panels {
    let datasets = input.experiment.datasets.len();
    let mut panels = Panels::new();
    for r in input
        .results
        .rows
        .iter()
        .filter(|r| r.cell.label == grid.label && r.error.is_none())
    {
        let (source, other) = if is_query {
            (&r.query_full, &r.build_params)
        } else {
            (&r.build_full, &r.query_params)
        };
        let Some(x) = source.get(param).and_then(|v| v.as_f64()) else {
            continue;
        };
        let others = if is_query {
            other.clone()
        } else {
            // drop the swept key from the build description
            r.build_params
                .split(' ')
                .filter(|kv| !kv.starts_with(&format!("{param}=")))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let panel_name = match (datasets > 1, others.is_empty()) {
            (true, true) => r.cell.dataset.clone(),
            (true, false) => format!("{} · {others}", r.cell.dataset),
            (false, _) => others,
        };
        let e = panels
            .entry(panel_name)
            .or_default()
            .entry(x.to_bits())
            .or_default();
        for (i, m) in ["precision", "recall", "f1"].iter().enumerate() {
            if let Some(v) = r.metric(m) {
                e[i].push(v);
            }
        }
    }
    panels
}

/// Precision, recall and F1 against the swept parameter, a panel per other setting.
fn draw_grid(
    dir: &Path,
    grid: &AlgorithmGrid,
    param: &str,
    panels: &Panels,
) -> anyhow::Result<ChartFile> {
    let n = panels.len().min(6);
    let cols = n.min(3);
    let rows = n.div_ceil(cols);
    let size = (
        420 * cols as u32 + style::LEGEND_WIDTH,
        360 * rows as u32 + 60,
    );
    let entries: Vec<(String, Look)> = ["precision", "recall", "F1"]
        .iter()
        .enumerate()
        .map(|(i, m)| (m.to_string(), Look::nth(i)))
        .collect();
    let xs: Vec<f64> = panels
        .values()
        .flat_map(|m| m.keys().map(|&b| f64::from_bits(b)))
        .collect();
    let (xmin, xmax) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let pad = ((xmax - xmin) * 0.05).max(1e-9);
    let stem = format!("tradeoff-{}", super::chart::slug(&grid.label));
    let title = format!("{}: precision, recall and F1 against {param}", grid.label);
    let (svg, png) = crate::draw_both!(
        dir,
        &stem,
        size,
        |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
            let body = style::titled(root, &title)?;
            let plots = style::with_legend(&body, &entries)?;
            for (area, (name, data)) in plots
                .split_evenly((rows, cols))
                .iter()
                .zip(panels.iter().take(n))
            {
                draw_panel(area, name, data, param, (xmin - pad, xmax + pad))?;
            }
            Ok(())
        }
    );
    Ok(ChartFile {
        title,
        svg,
        png,
        caption: format!(
            "Pair-level precision, recall and F1 of {} as {param} varies (mean over edit models and seeds); \
             one panel per dataset and setting of its other grid parameters.",
            grid.label
        ),
        timing: false,
        family: None,
    })
}

/// One panel: precision, recall and F1 (means over seeds and edit models) against the swept
/// parameter.
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    name: &str,
    data: &BTreeMap<u64, [Vec<f64>; 3]>,
    param: &str,
    (x0, x1): (f64, f64),
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let caption = if name.is_empty() {
        "defaults".to_string()
    } else {
        name.to_string()
    };
    let (w, _) = area.dim_in_pixel();
    let mut chart = ChartBuilder::on(area)
        .caption(style::fit(&caption, w as usize - 20, 16), label_font())
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(48)
        .build_cartesian_2d(x0..x1, 0.0..1.02)?;
    let whole = data.keys().all(|&x| f64::from_bits(x).fract() == 0.0);
    chart
        .configure_mesh()
        .x_desc(param)
        .y_desc("metric value")
        .x_label_formatter(&|v| style::tick(*v, whole))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    let categorical = CATEGORICAL.contains(&param);
    for mi in 0..3 {
        let pts: Vec<(f64, f64)> = data
            .iter()
            .filter(|(_, v)| !v[mi].is_empty())
            .map(|(&x, v)| {
                (
                    f64::from_bits(x),
                    v[mi].iter().sum::<f64>() / v[mi].len() as f64,
                )
            })
            .collect();
        if categorical {
            style::draw_markers(&mut chart, &pts, Look::nth(mi), 5)?;
        } else {
            style::draw_series(&mut chart, &pts, Look::nth(mi))?;
        }
    }
    Ok(())
}

/// Parameters whose numbers name variants rather than measure anything (Tianwang's
/// `variant`): drawn as points, no line between them.
const CATEGORICAL: &[&str] = &["variant"];
