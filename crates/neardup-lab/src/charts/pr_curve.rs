//! Precision–recall curves: for each algorithm configuration, its reported pairs (at the
//! loosest query point of each cell) are ranked by the algorithm's score; every score cutoff
//! gives one (recall, precision) point. Pooled over the experiment's corpora.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::chart::{Chart, ChartFile, ChartInput, label_font};
use super::style::{self, Looks};

/// Precision–recall curves.
#[derive(Debug)]
pub struct PrCurve;

/// (recall, precision) points of scored observations with `positives` true pairs in all.
pub fn curve(mut obs: Vec<(f64, bool)>, positives: usize) -> Vec<(f64, f64)> {
    obs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out = Vec::new();
    let (mut tp, mut seen) = (0usize, 0usize);
    let mut i = 0;
    while i < obs.len() {
        let s = obs[i].0;
        while i < obs.len() && obs[i].0 == s {
            tp += obs[i].1 as usize;
            seen += 1;
            i += 1;
        }
        out.push((tp as f64 / positives.max(1) as f64, tp as f64 / seen as f64));
    }
    out
}

impl Chart for PrCurve {
    fn name(&self) -> &'static str {
        "pr-curve"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let panels = scored_pairs(input);
        if panels.is_empty() {
            return Ok(Vec::new());
        }
        let looks = Looks::of(input.experiment);
        let series: Vec<&str> = looks
            .names()
            .filter(|n| panels.values().any(|m| m.contains_key(*n)))
            .collect();
        let entries: Vec<(String, style::Look)> = series
            .iter()
            .map(|s| (s.to_string(), looks.get(s)))
            .collect();
        let n = panels.len();
        let cols = n.min(2);
        let rows = n.div_ceil(cols);
        let plot_h = (480 * rows as u32).max(24 + 20 * entries.len() as u32);
        let size = (560 * cols as u32 + style::LEGEND_WIDTH, plot_h + 60);
        let title = "Precision–recall over score cutoffs";
        let (svg, png) = crate::draw_both!(
            dir,
            "pr-curve",
            size,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let body = style::titled(root, title)?;
                let plots = style::with_legend(&body, &entries)?;
                for (panel, (dataset, data)) in plots.split_evenly((rows, cols)).iter().zip(&panels)
                {
                    let mut chart = ChartBuilder::on(panel)
                        .caption(dataset.as_str(), label_font())
                        .margin(12)
                        .x_label_area_size(50)
                        .y_label_area_size(60)
                        .build_cartesian_2d(0.0..1.0, 0.0..1.02)?;
                    chart
                        .configure_mesh()
                        .x_desc("recall (share of true pairs reported above the cutoff)")
                        .y_desc("precision")
                        .axis_desc_style(("sans-serif", 14))
                        .draw()?;
                    for name in &series {
                        let Some((obs, positives)) = data.get(*name) else {
                            continue;
                        };
                        let look = looks.get(name);
                        let pts = curve(obs.clone(), *positives);
                        style::draw_line(&mut chart, &pts, look)?;
                    }
                }
                Ok(())
            }
        );
        Ok(vec![ChartFile {
            title: "Precision–recall curves".into(),
            svg,
            png,
            caption: "One panel per dataset. Reported pairs ranked by each algorithm's own score; each cutoff gives one \
                      point. A curve ends at the recall of its loosest query setting: pairs never reported cannot be recovered \
                      by a cutoff."
                .into(),
            timing: false,
            family: None,
        }])
    }
}

/// series → (observations, positives)
type Series = BTreeMap<String, (Vec<(f64, bool)>, usize)>;

/// Per dataset and series: the scored pairs of the loosest query point, each with whether it
/// is a true pair, and the true pairs to find.
fn scored_pairs(input: &ChartInput) -> BTreeMap<String, Series> {
    let mut panels: BTreeMap<String, Series> = BTreeMap::new();
    for planned in input
        .results
        .rows
        .iter()
        .filter(|r| r.query_index == 0 && r.error.is_none())
    {
        let cell = &input.results.cells[&planned.cell.key];
        // The loosest query point reports the most pairs: the curve's full extent.
        let Some(q) = cell.queries.iter().max_by_key(|q| q.pairs.len()) else {
            continue;
        };
        let labels = &input.truths[&planned.cell.corpus_sha256].labels;
        let positives = planned.metric("true_pairs").unwrap_or(0.0) as usize;
        if positives == 0 {
            continue;
        }
        let e = panels
            .entry(planned.cell.dataset.clone())
            .or_default()
            .entry(input.series_name(planned))
            .or_default();
        e.1 += positives;
        for i in 0..q.pairs.len() {
            let (a, b) = (q.pairs.a[i] as usize, q.pairs.b[i] as usize);
            e.0.push((
                q.pairs.score[i],
                labels[a].is_some() && labels[a] == labels[b],
            ));
        }
    }
    panels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_points() {
        let pts = curve(
            vec![(0.9, true), (0.8, false), (0.8, true), (0.1, false)],
            4,
        );
        assert_eq!(pts, [(0.25, 1.0), (0.5, 2.0 / 3.0), (0.5, 0.5)]);
    }
}
