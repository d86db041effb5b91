//! The charts of the parameter guide (`reports/choosing-parameters/`): the S-curves of the
//! tuned (b, r) for each threshold, and the cost of the best permuted-table design against the
//! number of fingerprints for each Hamming distance k. Computed from the library's formulas,
//! not from results, so they are not in [`super::CHARTS`].

use std::path::Path;

use neardup::minhash::banding::{Tuned, candidate_probability};
use plotters::prelude::*;

use crate::charts::chart::{ChartFile, SIZE};
use crate::charts::style::{self, Look};

/// S-curves P(candidate | s) = 1 − (1 − s^r)^b of `tuned` (target threshold, banding), with
/// each target marked by a vertical tick on its curve.
pub fn tuned_scurves(
    dir: &Path,
    num_perm: usize,
    tuned: &[(f64, Tuned)],
) -> anyhow::Result<ChartFile> {
    let entries: Vec<(String, Look)> = tuned
        .iter()
        .enumerate()
        .map(|(i, (t, b))| {
            (
                format!("t = {t}: b = {}, r = {}", b.bands, b.rows),
                Look::nth(i),
            )
        })
        .collect();
    let size = (SIZE.0 + style::LEGEND_WIDTH, SIZE.1);
    let (svg, png) = crate::draw_both!(
        dir,
        "tuned-scurves",
        size,
        |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
            let body = style::titled(
                root,
                &format!("Tuned LSH bandings for {num_perm} permutations: candidate probability"),
            )?;
            let plot = style::with_legend(&body, &entries)?;
            let mut chart = ChartBuilder::on(&plot)
                .margin(16)
                .x_label_area_size(50)
                .y_label_area_size(60)
                .build_cartesian_2d(0.0..1.0, 0.0..1.02)?;
            chart
                .configure_mesh()
                .x_desc("Jaccard similarity s of a pair")
                .y_desc("P(the pair becomes a candidate)")
                .axis_desc_style(("sans-serif", 16))
                .draw()?;
            for (i, (t, b)) in tuned.iter().enumerate() {
                let look = Look::nth(i);
                let curve = crate::charts::scurve::banding_curve(0.0, b.bands, b.rows);
                // Eight thresholds: within the ten solid looks, so no dashes are needed.
                chart.draw_series(LineSeries::new(curve, look.stroke()))?;
                let at = candidate_probability(*t, b.bands, b.rows);
                style::draw_markers(&mut chart, &[(*t, at)], look, 5)?;
            }
            Ok(())
        }
    );
    Ok(ChartFile {
        title: format!("Tuned bandings, {num_perm} permutations"),
        svg,
        png,
        caption: "One curve per target threshold t, with the (b, r) the tuner picks (equal \
                  weight on the false-positive and false-negative areas); the marker sits at \
                  s = t. Pairs left of the marker that still become candidates cost \
                  verification time; pairs right of it that do not are lost."
            .into(),
        timing: false,
        family: None,
    })
}

/// One design choice: Hamming distance k, fingerprints n, fingerprints a query examines.
pub type DesignPoint = (u32, f64, f64);

/// Fingerprints examined per query by the best design against the number of fingerprints,
/// one line per k (log–log).
pub fn design_costs(dir: &Path, points: &[DesignPoint]) -> anyhow::Result<ChartFile> {
    let mut ks: Vec<u32> = points.iter().map(|p| p.0).collect();
    ks.dedup();
    let entries: Vec<(String, Look)> = ks
        .iter()
        .enumerate()
        .map(|(i, k)| (format!("k = {k}"), Look::nth(i)))
        .collect();
    let (nmin, nmax) = points.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| {
        (a.min(p.1), b.max(p.1))
    });
    let (ymin, ymax) = points.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| {
        (a.min(p.2.max(1e-5)), b.max(p.2))
    });
    let size = (SIZE.0 + style::LEGEND_WIDTH, SIZE.1);
    let (svg, png) = crate::draw_both!(
        dir,
        "design-costs",
        size,
        |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
            let body = style::titled(
                root,
                "Best permuted-table design (f = 64): fingerprints examined per query",
            )?;
            let plot = style::with_legend(&body, &entries)?;
            let mut chart = ChartBuilder::on(&plot)
                .margin(16)
                .x_label_area_size(50)
                .y_label_area_size(90)
                .build_cartesian_2d(
                    (nmin / 1.5..nmax * 1.5).log_scale(),
                    (ymin / 2.0..ymax * 2.0).log_scale(),
                )?;
            chart
                .configure_mesh()
                .x_desc("fingerprints in the index (log scale)")
                .y_desc("examined per query (log scale)")
                .x_label_formatter(&style::compact)
                .y_label_formatter(&|v| {
                    if *v >= 1.0 {
                        style::compact(v)
                    } else {
                        // 0.001, not 0.0010 or 1e-3.
                        let s = format!("{v:.6}");
                        s.trim_end_matches('0').to_string()
                    }
                })
                .axis_desc_style(("sans-serif", 16))
                .draw()?;
            for (i, &k) in ks.iter().enumerate() {
                let line: Vec<(f64, f64)> = points
                    .iter()
                    .filter(|p| p.0 == k)
                    .map(|p| (p.1, p.2.max(1e-5)))
                    .collect();
                style::draw_series(&mut chart, &line, Look::nth(i))?;
            }
            Ok(())
        }
    );
    Ok(ChartFile {
        title: "Permuted-table designs against corpus size".into(),
        svg,
        png,
        caption: "For each k and number of fingerprints, the design neardup's join picks \
                  (lowest modelled cost: one sort per table plus the candidates checked); \
                  the y value is tables × 2^(log2 n − p), what one query examines. Steps are \
                  where a design with more tables becomes cheaper."
            .into(),
        timing: false,
        family: None,
    })
}

/// One measured line: its name and (documents, precision, recall) points.
pub type MeasuredLine = (String, Vec<(f64, Option<f64>, Option<f64>)>);

/// Precision (left panel) and recall (right panel) against corpus size, one line per setting
/// (a threshold t or a distance k), from the guide's measurements.
pub fn measured(
    dir: &Path,
    name: &str,
    title: &str,
    lines: &[MeasuredLine],
    caption: String,
) -> anyhow::Result<ChartFile> {
    let entries: Vec<(String, Look)> = lines
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.clone(), Look::nth(i)))
        .collect();
    let (nmin, nmax) = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.0))
        .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
    let size = (SIZE.0 + style::LEGEND_WIDTH, SIZE.1);
    let (svg, png) = crate::draw_both!(
        dir,
        name,
        size,
        |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
            let body = style::titled(root, title)?;
            let plots = style::with_legend(&body, &entries)?;
            let (w, _) = plots.dim_in_pixel();
            let (left, right) = plots.split_horizontally(w / 2);
            for (panel, (axis, pick)) in [left, right]
                .iter()
                .zip([("precision", 0usize), ("recall", 1usize)])
            {
                let mut chart = ChartBuilder::on(panel)
                    .margin(16)
                    .caption(axis, ("sans-serif", 16))
                    .x_label_area_size(50)
                    .y_label_area_size(50)
                    .build_cartesian_2d((nmin / 1.5..nmax * 1.5).log_scale(), 0.0..1.02)?;
                chart
                    .configure_mesh()
                    .x_desc("documents (log scale)")
                    .y_desc(axis)
                    .x_label_formatter(&style::compact)
                    .axis_desc_style(("sans-serif", 16))
                    .draw()?;
                for (i, (_, points)) in lines.iter().enumerate() {
                    let line: Vec<(f64, f64)> = points
                        .iter()
                        .filter_map(|&(n, p, r)| [p, r][pick].map(|v| (n, v)))
                        .collect();
                    style::draw_series(&mut chart, &line, Look::nth(i))?;
                }
            }
            Ok(())
        }
    );
    Ok(ChartFile {
        title: title.into(),
        svg,
        png,
        caption,
        timing: false,
        family: None,
    })
}
