//! Recall against throughput across all algorithm configurations, with the Pareto front (no
//! other configuration is both faster and better). Drawn from timings, so it differs between
//! runs and machines.

use std::path::Path;

use plotters::prelude::*;

use super::{Chart, ChartFile, ChartInput, colour, title_font};

/// Recall vs throughput.
#[derive(Debug)]
pub struct Pareto;

/// Indices of the points on the upper-right Pareto front of (x, y), sorted by x.
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
        let labels: Vec<&str> = input
            .experiment
            .algorithms
            .iter()
            .map(|a| a.label.as_str())
            .collect();
        let mut pts: Vec<(f64, f64, usize)> = Vec::new();
        for r in input.results.rows.iter().filter(|r| r.error.is_none()) {
            if let (Some(x), Some(y)) = (r.metric("docs_per_s"), r.metric("recall")) {
                let li = labels.iter().position(|l| *l == r.cell.label).unwrap_or(0);
                pts.push((x.max(1.0), y, li));
            }
        }
        if pts.is_empty() {
            return Ok(Vec::new());
        }
        let xy: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1)).collect();
        let f = front(&xy);
        let (xmin, xmax) = xy.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
        let (svg, png) = crate::draw_both!(
            dir,
            "pareto",
            super::SIZE,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let mut chart = ChartBuilder::on(root)
                    .caption("Recall against throughput", title_font())
                    .margin(16)
                    .x_label_area_size(50)
                    .y_label_area_size(60)
                    .build_cartesian_2d(((xmin / 2.0)..(xmax * 2.0)).log_scale(), 0.0..1.02)?;
                chart
                    .configure_mesh()
                    .x_desc("throughput (documents per second, build + query, log scale)")
                    .y_desc("recall")
                    .axis_desc_style(("sans-serif", 16))
                    .draw()?;
                for (li, label) in labels.iter().enumerate() {
                    let c = colour(li);
                    let mine: Vec<(f64, f64)> = pts
                        .iter()
                        .filter(|p| p.2 == li)
                        .map(|p| (p.0, p.1))
                        .collect();
                    if mine.is_empty() {
                        continue;
                    }
                    chart
                        .draw_series(mine.iter().map(|&p| Circle::new(p, 4, c.filled())))?
                        .label(*label)
                        .legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
                }
                let line: Vec<(f64, f64)> = f.iter().map(|&i| xy[i]).collect();
                chart
                    .draw_series(LineSeries::new(line, BLACK.stroke_width(1)))?
                    .label("Pareto front")
                    .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
                super::legend(&mut chart, SeriesLabelPosition::LowerLeft, 14)?;
                Ok(())
            }
        );
        Ok(vec![ChartFile {
            title: "Recall against throughput".into(),
            svg,
            png,
            caption: "Each point is one configuration on one corpus; the line joins the configurations no other beats on both \
                      axes. Throughput is wall-clock on the machine named below (all cores)."
                .into(),
            timing: true,
        }])
    }
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
