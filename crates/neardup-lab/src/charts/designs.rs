//! Permuted-table designs (Manku et al., WWW 2007, §3.1.1): for f = 64 and each Hamming
//! distance k the experiment's `simhash` grid uses (3 if none), every candidate design's
//! number of tables against the fingerprints a probe returns and the memory the tables take,
//! for 2^34 fingerprints (the paper's 8 billion pages). Computed from the design calculator,
//! not from runs: it is the same table `neardup hamming tune` prints.

use std::path::Path;

use neardup::hamming::design::candidates;
use plotters::prelude::*;

use super::chart::{Chart, ChartFile, ChartInput, label_font};
use super::style::{self, Look};

/// Tables vs candidates per probe vs memory.
#[derive(Debug)]
pub struct Designs;

/// Fingerprints assumed: 2^34.
const LOG2_N: i32 = 34;

impl Chart for Designs {
    fn name(&self) -> &'static str {
        "designs"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let (ks, pts) = design_points(input)?;
        let (tmax, (ymin, ymax), mmax) = extents(&pts);
        let entries: Vec<(String, Look)> = ks
            .iter()
            .enumerate()
            .map(|(i, k)| (format!("k = {k}"), Look::nth(i)))
            .collect();
        let size = (1100u32 + style::LEGEND_WIDTH, 560u32);
        let (svg, png) = crate::draw_both!(
            dir,
            "designs",
            size,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let body = style::titled(
                    root,
                    "Permuted-table designs for f = 64 bits, 2^34 fingerprints",
                )?;
                let plots = style::with_legend(&body, &entries)?;
                let (left, right) = plots.split_horizontally(550);
                let mut a = ChartBuilder::on(&left)
                    .caption("fingerprints returned per probe", label_font())
                    .margin(12)
                    .x_label_area_size(45)
                    .y_label_area_size(60)
                    .build_cartesian_2d(
                        style::log_axis(1.0, tmax * 2.0),
                        (ymin - 1.0)..(ymax + 1.0),
                    )?;
                a.configure_mesh()
                    .x_desc("tables (log scale)")
                    .x_label_formatter(&style::compact)
                    .y_desc("log2 expected matches per probe, 2^(34 − p)")
                    .axis_desc_style(("sans-serif", 14))
                    .draw()?;
                let mut b = ChartBuilder::on(&right)
                    .caption("memory of the tables", label_font())
                    .margin(12)
                    .x_label_area_size(45)
                    .y_label_area_size(60)
                    .build_cartesian_2d(style::log_axis(1.0, tmax * 2.0), 0.0..mmax * 1.1)?;
                b.configure_mesh()
                    .x_desc("tables (log scale)")
                    .x_label_formatter(&style::compact)
                    .y_desc("terabytes (f/8 + 4 bytes per entry)")
                    .axis_desc_style(("sans-serif", 14))
                    .draw()?;
                for (i, &k) in ks.iter().enumerate() {
                    let look = Look::nth(i);
                    let mine: Vec<&(u32, f64, f64, f64, String)> =
                        pts.iter().filter(|p| p.0 == k).collect();
                    let at: Vec<(f64, f64)> = mine.iter().map(|p| (p.1, p.2)).collect();
                    style::draw_markers(&mut a, &at, look, 5)?;
                    a.draw_series(
                        mine.iter()
                            .map(|p| Text::new(p.4.clone(), (p.1, p.2 + 0.4), ("sans-serif", 12))),
                    )?;
                    // The legend lives in the memory panel, whose upper left is empty.
                    let at: Vec<(f64, f64)> = mine.iter().map(|p| (p.1, p.3)).collect();
                    style::draw_markers(&mut b, &at, look, 5)?;
                }
                Ok(())
            }
        );
        Ok(vec![ChartFile {
            title: "Permuted-table designs".into(),
            svg,
            png,
            caption: format!(
                "Each point is a design (label: blocks per level; \"6\" = 6 blocks choose 6 − k, \"4+4\" = two levels). More \
                 tables buy longer prefixes p, so a probe returns 2^(34 − p) fingerprints, at the cost of one copy of the \
                 fingerprints per table. k = {}. Same numbers as `neardup hamming tune --bits 64 --distance k --fingerprints 2^34`.",
                ks.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            ),
            timing: false,
            family: None,
        }])
    }
}

/// (k, tables, log2 matches, memory TB, blocks) of one design.
type DesignPoint = (u32, f64, f64, f64, String);

/// The distances k the experiment's simhash grids query (3 when none), and every candidate
/// design's costs for 2^LOG2_N 64-bit fingerprints at each.
fn design_points(input: &ChartInput) -> anyhow::Result<(Vec<u32>, Vec<DesignPoint>)> {
    let mut ks: Vec<u32> = input
        .experiment
        .algorithms
        .iter()
        .filter(|a| a.name == "simhash")
        .flat_map(|a| {
            a.queries.iter().filter_map(|q| {
                q.get("max_distance")
                    .and_then(|v| v.as_u64())
                    .map(|k| k as u32)
            })
        })
        .filter(|&k| (1..=8).contains(&k))
        .collect();
    ks.sort_unstable();
    ks.dedup();
    if ks.is_empty() {
        ks.push(3);
    }
    let n = 2f64.powi(LOG2_N);
    let mut pts: Vec<DesignPoint> = Vec::new();
    for &k in &ks {
        for d in candidates(64, k)? {
            pts.push((
                k,
                d.tables.len() as f64,
                d.expected_matches(n).log2(),
                d.memory_bytes(n) / 1e12,
                d.blocks(),
            ));
        }
    }
    Ok((ks, pts))
}

/// The axes' extents: most tables, the range of log2 matches per probe, most terabytes.
fn extents(pts: &[DesignPoint]) -> (f64, (f64, f64), f64) {
    let tmax = pts.iter().map(|p| p.1).fold(1.0, f64::max);
    let matches = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.2), b.max(p.2))
        });
    let mmax = pts.iter().map(|p| p.3).fold(0.0, f64::max);
    (tmax, matches, mmax)
}
