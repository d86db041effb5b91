//! S-curves: the empirical probability that a pair becomes a candidate, against its true
//! Jaccard similarity (binned, 95 % Wilson intervals), over the theoretical
//! P(s) = 1 − (1 − s^r)^b, for every banding in the experiment (MMDS §3.4.2, Fig. 3.8).
//!
//! Data: cells of `minhash-lsh` with `verify = "none"` (so reported pairs are exactly the
//! candidates), and every pair of their corpora with exact Jaccard at or above the truth floor.
//! The truth features should equal the algorithm's for the two curves to be comparable.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use neardup::minhash::banding::candidate_probability;
use neardup::pairs::pack;
use plotters::prelude::*;

use super::chart::{Chart, ChartFile, ChartInput, wilson};
use super::style::{self, Look};

/// Empirical vs theoretical S-curves.
#[derive(Debug)]
pub struct SCurve;

const BIN: f64 = 0.05;

impl Chart for SCurve {
    fn name(&self) -> &'static str {
        "scurve"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let (bins, floor) = measured_bins(input)?;
        if bins.is_empty() {
            return Ok(Vec::new());
        }
        let lo = (floor / BIN).floor() * BIN;
        let entries: Vec<(String, Look)> = bins
            .keys()
            .enumerate()
            .map(|(i, &(b, r))| {
                (
                    format!(
                        "b={b}, r={r} (threshold {:.2})",
                        neardup::minhash::banding::threshold(b as usize, r as usize)
                    ),
                    Look::nth(i),
                )
            })
            .collect();
        let size = (
            super::chart::SIZE.0 + style::LEGEND_WIDTH,
            super::chart::SIZE.1,
        );
        let (svg, png) =
            crate::draw_both!(
                dir,
                "scurve",
                size,
                |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                    let body = style::titled(
                        root,
                        "Candidate probability against true Jaccard similarity",
                    )?;
                    let plot = style::with_legend(&body, &entries)?;
                    let mut chart = ChartBuilder::on(&plot)
                        .margin(16)
                        .x_label_area_size(50)
                        .y_label_area_size(60)
                        .build_cartesian_2d(lo..1.0, 0.0..1.02)?;
                    chart
                .configure_mesh()
                .x_desc("true Jaccard similarity of the pair (word shingles of the truth features)")
                .y_desc("share of pairs that became candidates")
                .axis_desc_style(("sans-serif", 16))
                .draw()?;
                    draw_bandings(&mut chart, &bins, lo)?;
                    Ok(())
                }
            );
        Ok(vec![ChartFile {
            title: "Empirical S-curves".into(),
            svg,
            png,
            caption: format!(
                "Markers: share of pairs in each {BIN:.2}-wide similarity bin that shared at least one band, with 95 % Wilson \
                 intervals; lines: the theoretical S-curve 1 − (1 − s^r)^b. Pairs counted: {}.",
                pairs_counted(&bins)
            ),
            timing: false,
            family: None,
        }])
    }
}

/// 201 points of P(candidate | s) = 1 − (1 − s^r)^b for s from `lo` to 1.
pub fn banding_curve(lo: f64, bands: usize, rows: usize) -> Vec<(f64, f64)> {
    (0..=200)
        .map(|k| lo + (1.0 - lo) * k as f64 / 200.0)
        .map(|s| (s, candidate_probability(s, bands, rows)))
        .collect()
}

/// (bands, rows) → bin → (candidates, pairs)
type Bins = BTreeMap<(u64, u64), BTreeMap<usize, (usize, usize)>>;

/// Per banding of the unverified minhash-lsh cells: per similarity bin, the true pairs that
/// became candidates and all true pairs; and the lowest similarity floor of the truths.
fn measured_bins(input: &ChartInput) -> anyhow::Result<(Bins, f64)> {
    let mut bins = Bins::new();
    let mut floor: f64 = 1.0;
    for row in &input.results.rows {
        let p = &row.build_full;
        if row.cell.algorithm != "minhash-lsh"
            || p.get("verify").and_then(|v| v.as_str()) != Some("none")
            || row.error.is_some()
        {
            continue;
        }
        let cell = &input.results.cells[&row.cell.key];
        let truth = &input.truths[&row.cell.corpus_sha256];
        floor = floor.min(truth.truth.similarity_floor);
        let (Some(b), Some(r)) = (
            p.get("bands").and_then(|v| v.as_u64()),
            p.get("rows").and_then(|v| v.as_u64()),
        ) else {
            continue;
        };
        let (b, r) = if b == 0 || r == 0 {
            let t = neardup::minhash::banding::tune(
                p.get("threshold").and_then(|v| v.as_f64()).unwrap_or(0.8),
                p.get("num_perm").and_then(|v| v.as_u64()).unwrap_or(128) as usize,
                0.5,
            )?;
            (t.bands as u64, t.rows as u64)
        } else {
            (b, r)
        };
        let q = &cell.queries[row.query_index].pairs;
        let candidates: HashSet<u64> = q.a.iter().zip(&q.b).map(|(&a, &b)| pack(a, b)).collect();
        let entry = bins.entry((b, r)).or_default();
        for &(pair, j) in &truth.similar {
            let bin = ((j / BIN).floor() as usize).min((1.0 / BIN) as usize - 1);
            let e = entry.entry(bin).or_default();
            e.0 += candidates.contains(&pair) as usize;
            e.1 += 1;
        }
    }
    Ok((bins, floor))
}

/// "b=… r=…: N pairs" per banding, for the caption.
fn pairs_counted(bins: &Bins) -> String {
    let summary: Vec<String> = bins
        .iter()
        .map(|(&(b, r), d)| {
            format!(
                "b={b} r={r}: {} pairs",
                d.values().map(|x| x.1).sum::<usize>()
            )
        })
        .collect();
    summary.join("; ")
}

/// Each banding's theoretical S-curve, and its measured share per bin with a Wilson interval.
fn draw_bandings<'a, DB>(
    chart: &mut ChartContext<
        'a,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    bins: &Bins,
    lo: f64,
) -> anyhow::Result<()>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
{
    let series = bins.len() as f64;
    for (i, (&(b, r), data)) in bins.iter().enumerate() {
        // Offset each series' markers a little so overlapping intervals stay visible.
        let shift = (i as f64 - (series - 1.0) / 2.0) * BIN * 0.12;
        let look = Look::nth(i);
        let c = look.colour;
        let curve = banding_curve(lo, b as usize, r as usize);
        chart.draw_series(LineSeries::new(curve, look.stroke()))?;
        for (&bin, &(k, n)) in data {
            if n == 0 {
                continue;
            }
            let x = (bin as f64 + 0.5) * BIN + shift;
            let (l, h) = wilson(k, n);
            chart.draw_series(std::iter::once(ErrorBar::new_vertical(
                x,
                l,
                k as f64 / n as f64,
                h,
                c.filled(),
                8,
            )))?;
            style::draw_markers(chart, &[(x, k as f64 / n as f64)], look, 4)?;
        }
    }
    Ok(())
}
