//! The charts of `neardup calibrate`: F1 against threshold and precision–recall over score
//! cutoffs, one panel per algorithm, one series per configuration of its grid, the chosen
//! threshold marked. Not an experiment chart (it reads a calibration, not a results table),
//! so it is not in [`super::CHARTS`].

use std::path::Path;

use plotters::prelude::*;

use super::statistics::{AtThreshold, at, sweep};
use crate::charts::chart::{ChartFile, label_font};
use crate::charts::style::{self, Look};

/// One configuration's labelled observations and chosen threshold.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend name (the configuration's parameters).
    pub name: String,
    /// (is duplicate, score) of every labelled pair.
    pub observations: Vec<(bool, f64)>,
    /// The corpus pairs each labelled pair stands for.
    pub weights: Vec<f64>,
    /// The chosen threshold, if the algorithm has one.
    pub chosen: Option<f64>,
    /// An algorithm that decides by something its score does not follow: the counts of its
    /// own decisions (what the ranking shows), drawn instead of a curve over score cutoffs,
    /// which would chart a detector it is not.
    pub decided: Option<AtThreshold>,
}

/// The configurations of one algorithm.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Algorithm name.
    pub algorithm: String,
    /// Its configurations.
    pub series: Vec<Series>,
}

/// Draws `calibration-f1.{svg,png}` and `calibration-pr.{svg,png}` under `dir/charts/`.
pub fn draw(panels: &[Panel], dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
    let panels: Vec<&Panel> = panels
        .iter()
        .filter(|p| {
            p.series
                .iter()
                .any(|s| s.decided.is_some() || !sweep(&s.observations, None).is_empty())
        })
        .collect();
    if panels.is_empty() {
        return Ok(Vec::new());
    }
    let widest = panels.iter().map(|p| p.series.len()).max().unwrap_or(1);
    let cols = panels.len().min(3);
    let rows = panels.len().div_ceil(cols);
    // Each panel: the plot, then one legend line per configuration beneath it.
    let legend_h = 8 + 16 * widest as u32;
    let size = (440 * cols as u32, (340 + legend_h) * rows as u32 + 60);
    let mut out = Vec::new();
    for (stem, title, caption, f1) in [
        (
            "calibration-f1",
            "F1 on the labelled pairs against the threshold",
            "One panel per algorithm, one line per configuration of its grid; a pair is predicted a \
             duplicate when its score is at least the threshold. The filled marker is the chosen \
             threshold. An algorithm that decides by something else (supershingle votes, MD5 \
             equality) is a flat line at the F1 of its own decisions, as ranked, and one point on the \
             precision–recall chart.",
            true,
        ),
        (
            "calibration-pr",
            "Precision–recall on the labelled pairs",
            "Each score cutoff gives one (recall, precision) point; the filled marker is the chosen \
             threshold. Precision is measured on the labelled pairs, whose mix of duplicates and \
             non-duplicates is not the corpus's.",
            false,
        ),
    ] {
        let (svg, png) = crate::draw_both!(
            dir,
            stem,
            size,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let body = style::titled(root, title)?;
                for (cell, panel) in body.split_evenly((rows, cols)).iter().zip(&panels) {
                    draw_panel(cell, panel, legend_h, f1)?;
                }
                Ok(())
            }
        );
        out.push(ChartFile {
            title: title.to_string(),
            svg,
            png,
            caption: caption.to_string(),
            timing: false,
            family: None,
        });
    }
    Ok(out)
}

/// One algorithm's panel: its configurations' curves (F1 against the threshold, or precision
/// against recall) with the chosen thresholds marked, and a legend line per configuration
/// beneath.
fn draw_panel<DB: DrawingBackend>(
    cell: &DrawingArea<DB, plotters::coord::Shift>,
    panel: &Panel,
    legend_h: u32,
    f1: bool,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (_, h) = cell.dim_in_pixel();
    let (area, legend) = cell.split_vertically(h.saturating_sub(legend_h));
    for (i, s) in panel.series.iter().enumerate() {
        let look = Look::nth(i);
        let y = 6 + 16 * i as i32;
        legend.draw(&PathElement::new(
            vec![(14, y + 6), (38, y + 6)],
            look.stroke(),
        ))?;
        let name = match (s.name.is_empty(), s.decided.is_some()) {
            (true, false) => "defaults".to_string(),
            (true, true) => "defaults (its own decision)".to_string(),
            (false, true) => format!("{} (its own decision)", s.name),
            (false, false) => s.name.clone(),
        };
        legend.draw(&Text::new(
            style::fit(&name, 380, 12),
            (44, y),
            ("sans-serif", 12).into_font(),
        ))?;
    }
    let mut chart = ChartBuilder::on(&area)
        .caption(panel.algorithm.as_str(), label_font())
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..1.0, 0.0..1.02)?;
    chart
        .configure_mesh()
        .x_desc(if f1 { "threshold (score)" } else { "recall" })
        .y_desc(if f1 { "F1" } else { "precision" })
        .axis_desc_style(("sans-serif", 13))
        .draw()?;
    for (i, s) in panel.series.iter().enumerate() {
        let look = Look::nth(i);
        if let Some(d) = s.decided {
            if f1 {
                chart.draw_series(LineSeries::new(
                    [(0.0, d.f1()), (1.0, d.f1())],
                    look.stroke().stroke_width(1),
                ))?;
            } else {
                style::draw_markers(&mut chart, &[(d.recall(), d.precision())], look, 6)?;
            }
            continue;
        }
        let sweep = sweep(&s.observations, Some(&s.weights));
        let point = |t: &AtThreshold| {
            if f1 {
                (t.threshold.clamp(0.0, 1.0), t.f1())
            } else {
                (t.recall(), t.precision())
            }
        };
        let pts: Vec<(f64, f64)> = sweep.iter().map(point).collect();
        if pts.is_empty() {
            continue;
        }
        chart.draw_series(LineSeries::new(pts.iter().copied(), look.stroke()))?;
        if let Some(t) = s.chosen {
            let chosen = at(&s.observations, Some(&s.weights), t);
            style::draw_markers(&mut chart, &[point(&chosen)], look, 6)?;
        }
    }
    Ok(())
}
