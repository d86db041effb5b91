//! Score histograms: for each algorithm (at its best grid point), where the pairs it reports
//! fall on its own score — true pairs and false ones stacked — with the cut its best
//! configuration uses drawn as a line. What a threshold does is visible at a glance: true
//! pairs left of the line are the misses a lower cut would buy, false ones right of it the
//! price of the cut. Pairs come from each cell's loosest query point (the most it reports);
//! the cut is the lowest score reported at the best query point, so it is exact for every
//! algorithm whose query is a score threshold, and marks where its reports begin otherwise.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::chart::{Chart, ChartFile, ChartInput, label_font};
use super::style::{self, Look};

/// The histogram chart kind.
#[derive(Debug)]
pub struct Histogram;

/// Bins over [0, 1].
const BINS: usize = 20;

/// One label's histogram: (true, false) counts per bin, the cut, and true pairs never
/// reported at the loosest point.
#[derive(Debug, Default)]
struct Panel {
    counts: Vec<(u64, u64)>,
    cut: Option<f64>,
    never: u64,
}

impl Chart for Histogram {
    fn name(&self) -> &'static str {
        "histogram"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let panels = panels(input);
        if panels.is_empty() {
            return Ok(Vec::new());
        }
        let cols = panels.len().min(4);
        let rows = panels.len().div_ceil(cols);
        let size = (
            330 * cols as u32 + style::LEGEND_WIDTH,
            260 * rows as u32 + 70,
        );
        let entries = vec![
            ("true pairs".to_string(), Look::nth(0)),
            ("false pairs".to_string(), Look::nth(3)),
            (
                "cut of the best configuration".to_string(),
                Look::reference(),
            ),
        ];
        let title = "Where reported pairs fall on each algorithm's score";
        let (svg, png) = crate::draw_both!(
            dir,
            "histogram",
            size,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let body = style::titled(root, title)?;
                let plots = style::with_legend(&body, &entries)?;
                for (area, (label, panel)) in plots.split_evenly((rows, cols)).iter().zip(&panels) {
                    draw_panel(area, label, panel)?;
                }
                Ok(())
            }
        );
        Ok(vec![ChartFile {
            title: title.into(),
            svg,
            png,
            caption: format!(
                "One panel per algorithm at its best grid point: the pairs reported at its loosest \
                 query setting, by score ({BINS} bins over 0–1), true pairs (blue) under false ones \
                 (orange), pooled over datasets, edit models and seeds; the dashed line is the \
                 lowest score its best configuration reports. Each panel counts the true pairs \
                 never reported even at the loosest setting."
            ),
            timing: false,
            family: None,
        }])
    }
}

/// Each label's panel, in experiment order, for labels with ground truth and scored pairs.
fn panels(input: &ChartInput) -> Vec<(String, Panel)> {
    let best = crate::experiment::results::best_points(&input.results.rows);
    let mut by_label: BTreeMap<String, Panel> = BTreeMap::new();
    for row in input
        .results
        .rows
        .iter()
        .filter(|r| r.error.is_none() && best.includes(r))
    {
        let Some(cell) = input.results.cells.get(&row.cell.key) else {
            continue;
        };
        let labels = &input.truths[&row.cell.corpus_sha256].labels;
        let same = |a: u32, b: u32| {
            labels[a as usize].is_some() && labels[a as usize] == labels[b as usize]
        };
        let panel = by_label
            .entry(row.cell.label.clone())
            .or_insert_with(|| Panel {
                counts: vec![(0, 0); BINS],
                ..Panel::default()
            });
        if let Some(lowest) = cell
            .queries
            .get(row.query_index)
            .and_then(|q| q.lowest_score())
        {
            panel.cut = Some(panel.cut.map_or(lowest, |c: f64| c.min(lowest)));
        }
        let Some(loosest) = cell.loosest() else {
            continue;
        };
        let mut found = 0u64;
        for i in 0..loosest.pairs.len() {
            let bin =
                ((loosest.pairs.score[i].clamp(0.0, 1.0) * BINS as f64) as usize).min(BINS - 1);
            if same(loosest.pairs.a[i], loosest.pairs.b[i]) {
                panel.counts[bin].0 += 1;
                found += 1;
            } else {
                panel.counts[bin].1 += 1;
            }
        }
        let positives = row.metric("true_pairs").unwrap_or(0.0) as u64;
        panel.never += positives.saturating_sub(found);
    }
    let order = input.experiment.algorithms.iter().map(|a| a.label.clone());
    let mut out = Vec::new();
    for label in order {
        if let Some(p) = by_label.remove(&label)
            && p.counts.iter().any(|c| c.0 > 0)
        {
            out.push((label, p));
        }
    }
    out
}

/// One panel: stacked bars of true and false pairs per bin, and the cut.
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    label: &str,
    panel: &Panel,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let top = panel
        .counts
        .iter()
        .map(|(t, f)| t + f)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let (w, _) = area.dim_in_pixel();
    let mut chart = ChartBuilder::on(area)
        .caption(style::fit(label, w as usize - 20, 16), label_font())
        .margin(8)
        .x_label_area_size(34)
        .y_label_area_size(66)
        .build_cartesian_2d(0.0..1.0, 0.0..top * 1.18)?;
    chart
        .configure_mesh()
        .x_desc("score")
        .y_desc("pairs")
        .y_label_formatter(&|v| style::tick(*v, true))
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 13))
        .draw()?;
    let width = 1.0 / BINS as f64;
    let (true_look, false_look) = (Look::nth(0), Look::nth(3));
    for (i, &(t, f)) in panel.counts.iter().enumerate() {
        let x0 = i as f64 * width;
        let (x1, t, f) = (x0 + width * 0.9, t as f64, f as f64);
        chart.draw_series([
            Rectangle::new([(x0, 0.0), (x1, t)], true_look.colour.filled()),
            Rectangle::new([(x0, t), (x1, t + f)], false_look.colour.filled()),
        ])?;
    }
    chart.draw_series(std::iter::once(Text::new(
        format!(
            "{} true pairs never reported",
            style::whole(&(panel.never as f64))
        ),
        (0.03, top * 1.16),
        ("sans-serif", 12).into_font(),
    )))?;
    if let Some(cut) = panel.cut {
        style::draw_line(
            &mut chart,
            &[(cut, 0.0), (cut, top * 1.05)],
            Look::reference(),
        )?;
    }
    Ok(())
}
