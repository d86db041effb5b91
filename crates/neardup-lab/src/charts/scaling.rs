//! Cost against corpus size: wall seconds and peak heap per algorithm configuration as the
//! number of documents grows (log–log; a straight line of slope 1 is linear growth). Drawn from
//! timings, so it differs between runs and machines.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::chart::{Chart, ChartFile, ChartInput, label_font};
use super::style::{self, Looks};
use crate::experiment::results::{SizeCost, costs_by_size};

/// Seconds and memory against documents.
#[derive(Debug)]
pub struct Scaling;

impl Chart for Scaling {
    fn name(&self) -> &'static str {
        "scaling"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let data = costs_per_label(input);
        if data.values().all(|m| m.len() < 2) {
            return Ok(Vec::new());
        }
        // Peak heap on a log axis: a floor for cells that allocated (almost) nothing.
        let peak = |c: &SizeCost| c.peak_mb.max(0.01);
        let Ranges {
            docs: (dmin, dmax),
            seconds: (smin, smax),
            peak_mb: (mmin, mmax),
        } = ranges(&data, peak);
        let looks = Looks::of(input.experiment);
        let labels: Vec<&str> = looks.names().filter(|n| data.contains_key(*n)).collect();
        let entries: Vec<(String, style::Look)> = labels
            .iter()
            .map(|l| (l.to_string(), looks.get(l)))
            .collect();
        let size = (1200u32 + style::LEGEND_WIDTH, 600u32);
        let (svg, png) = crate::draw_both!(
            dir,
            "scaling",
            size,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let body = style::titled(root, "Cost against corpus size")?;
                let plots = style::with_legend(&body, &entries)?;
                let (left, right) = plots.split_horizontally(600);
                let x = || style::log_axis(dmin as f64 / 1.5, dmax as f64 * 1.5);
                let mut a = ChartBuilder::on(&left)
                    .caption("wall seconds (build + query)", label_font())
                    .margin(12)
                    .x_label_area_size(45)
                    .y_label_area_size(65)
                    .build_cartesian_2d(x(), style::log_axis((smin / 2.0).max(1e-4), smax * 2.0))?;
                a.configure_mesh()
                    .x_desc("documents (log scale)")
                    .y_desc("seconds (log scale)")
                    .x_label_formatter(&style::compact)
                    .axis_desc_style(("sans-serif", 14))
                    .draw()?;
                let mut b = ChartBuilder::on(&right)
                    .caption("peak heap above the loaded corpus", label_font())
                    .margin(12)
                    .x_label_area_size(45)
                    .y_label_area_size(65)
                    .build_cartesian_2d(x(), style::log_axis((mmin / 2.0).max(0.01), mmax * 2.0))?;
                b.configure_mesh()
                    .x_desc("documents (log scale)")
                    .y_desc("MB (10^6 bytes, log scale)")
                    .x_label_formatter(&style::compact)
                    .axis_desc_style(("sans-serif", 14))
                    .draw()?;
                for label in &labels {
                    let secs: Vec<(f64, f64)> = data[*label]
                        .iter()
                        .map(|(&d, c)| (d as f64, c.seconds))
                        .collect();
                    let mem: Vec<(f64, f64)> = data[*label]
                        .iter()
                        .map(|(&d, c)| (d as f64, peak(c)))
                        .collect();
                    style::draw_series(&mut a, &secs, looks.get(label))?;
                    style::draw_series(&mut b, &mem, looks.get(label))?;
                }
                Ok(())
            }
        );
        Ok(vec![ChartFile {
            title: "Cost against corpus size".into(),
            svg,
            png,
            caption: "Mean over the cells of each size. Parallel lines of slope 1 mean linear growth; a steeper line means \
                      superlinear work (usually candidate pairs growing with the square of the corpus)."
                .into(),
            timing: true,
            family: None,
        }])
    }
}

/// The ranges of the axes: documents, seconds and peak heap (as `peak` floors it).
struct Ranges {
    docs: (usize, usize),
    seconds: (f64, f64),
    peak_mb: (f64, f64),
}

fn ranges(
    data: &BTreeMap<String, BTreeMap<usize, SizeCost>>,
    peak: impl Fn(&SizeCost) -> f64,
) -> Ranges {
    let (dmin, dmax) = data
        .values()
        .flat_map(|m| m.keys())
        .fold((usize::MAX, 0), |(a, b), &d| (a.min(d), b.max(d)));
    let (smin, smax) = data
        .values()
        .flat_map(|m| m.values())
        .fold((f64::INFINITY, 0.0f64), |(a, b), c| {
            (a.min(c.seconds), b.max(c.seconds))
        });
    let (mmin, mmax) = data
        .values()
        .flat_map(|m| m.values())
        .fold((f64::INFINITY, 0.0f64), |(a, b), c| {
            (a.min(peak(c)), b.max(peak(c)))
        });
    Ranges {
        docs: (dmin, dmax),
        seconds: (smin, smax),
        peak_mb: (mmin, mmax),
    }
}

/// label → docs → cost, one configuration (the first build point) per label.
fn costs_per_label(input: &ChartInput) -> BTreeMap<String, BTreeMap<usize, SizeCost>> {
    costs_by_size(
        input
            .results
            .rows
            .iter()
            .filter(|r| r.cell.build_index == 0),
    )
    .into_iter()
    .map(|((label, _), sizes)| (label, sizes))
    .collect()
}
