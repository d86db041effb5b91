//! Pareto: recall against throughput, one point per configuration and corpus, with the front
//! of configurations no other beats on both; one panel per dataset.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::chart::{Chart, ChartFile, ChartInput, label_font};
use super::style::{self, Looks};

/// Recall against throughput.
#[derive(Debug)]
pub struct Pareto;

/// Indices of the Pareto front of (x, y) points, both to maximize, in increasing x.
pub fn front(points: &[(f64, f64)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..points.len()).collect();
    idx.sort_by(|&a, &b| {
        points[b]
            .0
            .total_cmp(&points[a].0)
            .then(points[b].1.total_cmp(&points[a].1))
    });
    let mut best_y = f64::NEG_INFINITY;
    let mut out = Vec::new();
    for i in idx {
        if points[i].1 > best_y {
            best_y = points[i].1;
            out.push(i);
        }
    }
    out.reverse();
    out
}

impl Chart for Pareto {
    fn name(&self) -> &'static str {
        "pareto"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        // dataset → (docs/s, recall, series)
        let mut panels: BTreeMap<String, Vec<(f64, f64, String)>> = BTreeMap::new();
        for r in input.results.rows.iter().filter(|r| r.error.is_none()) {
            if let (Some(x), Some(y)) = (r.metric("docs_per_s"), r.metric("recall")) {
                panels.entry(r.cell.dataset.clone()).or_default().push((
                    x.max(1.0),
                    y,
                    input.series_name(r),
                ));
            }
        }
        if panels.is_empty() {
            return Ok(Vec::new());
        }
        let looks = Looks::of(input.experiment);
        let series: Vec<&str> = looks
            .names()
            .filter(|n| panels.values().flatten().any(|p| p.2 == *n))
            .collect();
        let mut entries: Vec<(String, style::Look)> = series
            .iter()
            .map(|s| (s.to_string(), looks.get(s)))
            .collect();
        entries.push(("Pareto front".into(), style::Look::reference()));
        let (xmin, xmax) = panels
            .values()
            .flatten()
            .fold((f64::INFINITY, 0.0f64), |(a, b), p| {
                (a.min(p.0), b.max(p.0))
            });
        let n = panels.len();
        let cols = n.min(2);
        let rows = n.div_ceil(cols);
        let plot_h = (480 * rows as u32).max(24 + 20 * entries.len() as u32);
        let size = (560 * cols as u32 + style::LEGEND_WIDTH, plot_h + 60);
        let title = "Recall against throughput";
        let (svg, png) = crate::draw_both!(
            dir,
            "pareto",
            size,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let body = style::titled(root, title)?;
                let plots = style::with_legend(&body, &entries)?;
                for (panel, (dataset, pts)) in plots.split_evenly((rows, cols)).iter().zip(&panels)
                {
                    draw_panel(panel, dataset, pts, (xmin, xmax), &series, &looks)?;
                }
                Ok(())
            }
        );
        Ok(vec![ChartFile {
            title: "Recall against throughput".into(),
            svg,
            png,
            caption: "One panel per dataset. Each point is one configuration on one corpus; the grey line joins the \
                      configurations no other beats on both axes. Throughput is wall-clock on the machine named below (all \
                      cores)."
                .into(),
            timing: true,
            family: None,
        }])
    }
}

/// One dataset's panel: each series' points, and the front no configuration beats on both
/// axes.
fn draw_panel<DB: DrawingBackend>(
    panel: &DrawingArea<DB, plotters::coord::Shift>,
    dataset: &str,
    pts: &[(f64, f64, String)],
    (xmin, xmax): (f64, f64),
    series: &[&str],
    looks: &Looks,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(panel)
        .caption(dataset, label_font())
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(style::log_axis(xmin / 2.0, xmax * 2.0), 0.0..1.02)?;
    chart
        .configure_mesh()
        .x_desc("documents per second, build + query (log scale)")
        .y_desc("recall")
        .x_label_formatter(&style::compact)
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    for name in series {
        let mine: Vec<(f64, f64)> = pts
            .iter()
            .filter(|p| p.2 == *name)
            .map(|p| (p.0, p.1))
            .collect();
        style::draw_markers(&mut chart, &mine, looks.get(name), 5)?;
    }
    let xy: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1)).collect();
    let line: Vec<(f64, f64)> = front(&xy).into_iter().map(|i| xy[i]).collect();
    style::draw_line(&mut chart, &line, style::Look::reference())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_front() {
        let p = [
            (1.0, 0.9),
            (10.0, 0.5),
            (5.0, 0.4),
            (100.0, 0.1),
            (10.0, 0.6),
        ];
        assert_eq!(front(&p), [0, 4, 3]);
    }
}
