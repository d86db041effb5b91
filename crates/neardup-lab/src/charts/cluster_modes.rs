//! Cluster modes: documents removed under connected components and under verified clusters,
//! one panel per corpus, two bars per configuration; the part of each bar removed below the
//! threshold from the document kept for it (the wrongful removals) in red. Drawn for
//! experiments that sweep `clusters` (see `experiment::clustering`).

use std::collections::BTreeMap;
use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{Chart, ChartFile, ChartInput, label_font};
use super::style;

/// Documents removed, and wrongfully removed, per clustering mode.
#[derive(Debug)]
pub struct ClusterModes;

/// The bar colours: connected, verified, and the wrongful part of a bar.
const CONNECTED: RGBColor = RGBColor(127, 127, 127);
const VERIFIED: RGBColor = RGBColor(31, 119, 180);
const WRONGFUL: RGBColor = RGBColor(214, 39, 40);

/// Removed documents of one configuration under one mode: (all, below the threshold).
type Removed = (f64, f64);

/// (dataset position, corpus) → configurations in experiment order: (label, [connected,
/// verified])
type Panels = BTreeMap<(usize, String), Vec<(String, [Option<Removed>; 2])>>;

impl Chart for ClusterModes {
    fn name(&self) -> &'static str {
        "cluster-modes"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let panels = removals(input);
        if panels.is_empty() {
            return Ok(Vec::new());
        }
        let legend = [
            ("connected components: removed", CONNECTED),
            ("verified clusters: removed", VERIFIED),
            (
                "removed below the threshold from the kept document",
                WRONGFUL,
            ),
        ];
        let size = (1100u32, 70 + 300 * panels.len() as u32);
        let title = "Documents removed, and removed wrongfully, by clustering mode";
        let (svg, png) = crate::draw_both!(
            dir,
            "cluster-modes",
            size,
            |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
                let body = style::titled(root, title)?;
                let (key, plots) = body.split_vertically(28);
                draw_key(&key, &legend)?;
                for (area, ((_, corpus), configs)) in
                    plots.split_evenly((panels.len(), 1)).iter().zip(&panels)
                {
                    draw_panel(area, corpus, configs)?;
                }
                Ok(())
            }
        );
        Ok(vec![ChartFile {
            title: "Documents removed by clustering mode".into(),
            svg,
            png,
            caption: "One panel per corpus, two bars per configuration: grey, what connected components remove; \
                      blue, what verified clusters remove; red, the part removed for a kept document it is below \
                      the threshold of (zero for verified clusters by construction). Numbers: documents removed, \
                      and in red the wrongful ones."
                .into(),
            timing: false,
            family: None,
        }])
    }
}

/// The legend: a coloured box and a name per entry, in a row.
fn draw_key<DB>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(&str, RGBColor)],
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let font: TextStyle = ("sans-serif", 14).into_font().into();
    let mut x = 70;
    for (name, colour) in entries {
        area.draw(&Rectangle::new([(x, 6), (x + 16, 20)], colour.filled()))?;
        area.draw(&Text::new(name.to_string(), (x + 22, 6), font.clone()))?;
        let (w, _) = area.estimate_text_size(name, &font)?;
        x += 22 + w as i32 + 28;
    }
    Ok(())
}

/// One corpus: for each configuration its connected and verified bars, labelled below.
fn draw_panel<DB>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    corpus: &str,
    configs: &[(String, [Option<Removed>; 2])],
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let n = configs.len() as f64;
    let top = configs
        .iter()
        .flat_map(|(_, m)| m.iter().flatten().map(|r| r.0))
        .fold(1.0, f64::max)
        * 1.18;
    // Room below zero for the configuration names, inside the plotting area.
    let floor = -0.16 * top;
    let mut chart = ChartBuilder::on(area)
        .caption(corpus, label_font())
        .margin(8)
        .x_label_area_size(4)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..n, floor..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .disable_x_axis()
        .y_max_light_lines(0)
        .y_desc("documents removed")
        .y_label_formatter(&|v| {
            if *v < 0.0 {
                String::new()
            } else {
                style::compact(v)
            }
        })
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 13))
        .draw()?;
    let name_font =
        TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, (label, modes)) in configs.iter().enumerate() {
        let x = i as f64;
        chart.draw_series(std::iter::once(Text::new(
            style::fit(
                label,
                (area.dim_in_pixel().0 as usize - 80) / configs.len(),
                13,
            ),
            (x + 0.5, -0.03 * top),
            name_font.clone(),
        )))?;
        for (m, (removed, colour)) in modes.iter().zip([CONNECTED, VERIFIED]).enumerate() {
            if let Some(removed) = *removed {
                let left = x + 0.12 + 0.39 * m as f64;
                draw_bar(&mut chart, left..left + 0.35, removed, colour, top)?;
            }
        }
    }
    Ok(())
}

/// One bar spanning `span`: the documents removed within the threshold in `colour`, the
/// wrongful ones stacked on them in red, the counts above (`top` is the axis's height).
fn draw_bar<DB>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    span: std::ops::Range<f64>,
    (all, wrongful): Removed,
    colour: RGBColor,
    top: f64,
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (left, right) = (span.start, span.end);
    chart.draw_series([
        Rectangle::new([(left, 0.0), (right, all - wrongful)], colour.filled()),
        Rectangle::new([(left, all - wrongful), (right, all)], WRONGFUL.filled()),
    ])?;
    let (caption, ink) = if wrongful > 0.0 {
        let both = format!("{} ({})", style::whole(&all), style::whole(&wrongful));
        (both, &WRONGFUL)
    } else {
        (style::whole(&all), &BLACK)
    };
    let font = TextStyle::from(("sans-serif", 12).into_font())
        .color(ink)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    chart.draw_series(std::iter::once(Text::new(
        caption,
        ((left + right) / 2.0, all + 0.01 * top),
        font,
    )))?;
    Ok(())
}

/// Mean documents removed (and removed below the threshold) per corpus, configuration and
/// mode, over seeds.
fn removals(input: &ChartInput) -> Panels {
    // (corpus, configuration) → mode → [(all, wrongful)] over seeds
    type Key = ((usize, String), usize, String);
    let mut sums: BTreeMap<Key, [Vec<Removed>; 2]> = BTreeMap::new();
    for r in input.results.rows.iter().filter(|r| r.error.is_none()) {
        let m = match r.cluster_mode() {
            Some("connected") => 0,
            Some("verified") => 1,
            _ => continue,
        };
        let (Some(all), Some(wrongful)) = (
            r.metric("docs_removed"),
            r.metric("removed_below_threshold"),
        ) else {
            continue;
        };
        let position = input
            .experiment
            .algorithms
            .iter()
            .position(|a| a.label == r.cell.label)
            .unwrap_or(usize::MAX);
        let corpus = (
            input.experiment.dataset_position(&r.cell.dataset),
            format!("{} · {}", r.cell.dataset, r.cell.edit_spec),
        );
        sums.entry((corpus, position, input.series_name(r)))
            .or_default()[m]
            .push((all, wrongful));
    }
    let mut panels = Panels::new();
    for ((corpus, _, name), modes) in sums {
        let mean = |v: &[Removed]| {
            (!v.is_empty()).then(|| {
                let k = v.len() as f64;
                (
                    v.iter().map(|r| r.0).sum::<f64>() / k,
                    v.iter().map(|r| r.1).sum::<f64>() / k,
                )
            })
        };
        panels
            .entry(corpus)
            .or_default()
            .push((name, [mean(&modes[0]), mean(&modes[1])]));
    }
    panels
}
