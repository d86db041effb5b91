//! How series look, the same in every chart: one colour per algorithm (its place in the
//! registry, so minhash-lsh is the same blue in every report), and for the configurations of
//! one algorithm (labels, build points) one marker and dash pattern each. Legends sit in a
//! column beside the plot, never over the data; titles shrink to fit; log axes are labelled
//! with whole numbers.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::experiment::config::Experiment;

/// Ten colours that stay apart (Tableau 10), one per registered algorithm.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Point markers, in the order the configurations of one algorithm take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// ●
    Circle,
    /// ▲
    Triangle,
    /// ■
    Square,
    /// ◆
    Diamond,
    /// ✕
    Cross,
}

const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Diamond,
    Marker::Cross,
];

/// How one series looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    /// Line and marker colour.
    pub colour: RGBColor,
    /// Point marker.
    pub marker: Marker,
    /// Dashed line (every configuration of an algorithm after its first).
    pub dashed: bool,
}

impl Look {
    /// The `i`-th look of a fixed set of series that are not algorithms (precision, recall
    /// and F1; bandings of an S-curve): distinct colours, then markers and dashes.
    pub fn nth(i: usize) -> Look {
        Look {
            colour: PALETTE[i % PALETTE.len()],
            marker: MARKERS[(i / PALETTE.len()) % MARKERS.len()],
            dashed: i >= PALETTE.len(),
        }
    }

    /// The line style.
    pub fn stroke(&self) -> ShapeStyle {
        self.colour.stroke_width(2)
    }
}

/// The series of an experiment's charts, each with its look: one per algorithm label, or
/// per build point when a label's grid has several (what `ChartInput::series_name` gives).
#[derive(Debug, Clone, Default)]
pub struct Looks {
    series: Vec<(String, Look)>,
}

impl Looks {
    /// The looks of every series `exp` can chart.
    pub fn of(exp: &Experiment) -> Looks {
        let registry: Vec<&str> = neardup::registry::algorithms()
            .iter()
            .map(|a| a.name)
            .collect();
        let mut series = Vec::new();
        let mut variants: Vec<(String, usize)> = Vec::new();
        for grid in &exp.algorithms {
            let names: Vec<String> = if grid.builds.len() > 1 {
                grid.builds
                    .iter()
                    .map(|b| {
                        let p = crate::params::render_params(b);
                        if p.is_empty() {
                            grid.label.clone()
                        } else {
                            format!("{} ({p})", grid.label)
                        }
                    })
                    .collect()
            } else {
                vec![grid.label.clone()]
            };
            let colour = registry
                .iter()
                .position(|n| *n == grid.name)
                .map_or(PALETTE[0], |i| PALETTE[i % PALETTE.len()]);
            for name in names {
                let v = match variants.iter_mut().find(|(n, _)| *n == grid.name) {
                    Some((_, v)) => {
                        *v += 1;
                        *v
                    }
                    None => {
                        variants.push((grid.name.clone(), 0));
                        0
                    }
                };
                series.push((
                    name,
                    Look {
                        colour,
                        marker: MARKERS[v % MARKERS.len()],
                        dashed: v > 0,
                    },
                ));
            }
        }
        Looks { series }
    }

    /// The look of series `name` (a fallback for series the experiment does not list).
    pub fn get(&self, name: &str) -> Look {
        self.series
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| Look::nth(self.series.len()), |(_, l)| *l)
    }

    /// Series names in experiment order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.series.iter().map(|(n, _)| n.as_str())
    }
}

/// Draws `points` as markers of `look`, `size` pixels across. (One `draw_series` per marker
/// kind: plotters needs each series' element type to be fixed.)
pub fn draw_markers<'a, DB, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    points: &[(X::ValueType, Y::ValueType)],
    look: Look,
    size: i32,
) -> anyhow::Result<()>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
    X::ValueType: Copy + 'static,
    Y::ValueType: Copy + 'static,
{
    let style = look.colour.filled();
    let pts = points.iter().copied();
    match look.marker {
        Marker::Circle => {
            chart.draw_series(pts.map(|p| Circle::new(p, size, style)))?;
        }
        Marker::Triangle => {
            chart.draw_series(pts.map(|p| TriangleMarker::new(p, size + 1, style)))?;
        }
        Marker::Square => {
            chart.draw_series(pts.map(|p| {
                EmptyElement::at(p)
                    + Rectangle::new([(1 - size, 1 - size), (size - 1, size - 1)], style)
            }))?;
        }
        Marker::Diamond => {
            chart.draw_series(pts.map(|p| {
                EmptyElement::at(p)
                    + Polygon::new(
                        vec![(0, -size - 1), (size + 1, 0), (0, size + 1), (-size - 1, 0)],
                        style,
                    )
            }))?;
        }
        Marker::Cross => {
            chart.draw_series(pts.map(|p| Cross::new(p, size, look.colour.stroke_width(2))))?;
        }
    }
    Ok(())
}

/// Draws `points` as a line in `look` (dashed for its variants) with a marker at each point.
pub fn draw_series<'a, DB, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    points: &[(X::ValueType, Y::ValueType)],
    look: Look,
) -> anyhow::Result<()>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
    X::ValueType: Copy + 'static,
    Y::ValueType: Copy + 'static,
{
    if look.dashed {
        chart.draw_series(std::iter::once(DashedPathElement::new(
            points.iter().copied(),
            8,
            5,
            look.stroke(),
        )))?;
    } else {
        chart.draw_series(LineSeries::new(points.iter().copied(), look.stroke()))?;
    }
    draw_markers(chart, points, look, 4)
}

/// Draws one legend marker of `look` at pixel `(x, y)` of `area`.
fn legend_marker<DB>(
    area: &DrawingArea<DB, Shift>,
    look: Look,
    (x, y): (i32, i32),
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (size, style) = (4, look.colour.filled());
    match look.marker {
        Marker::Circle => area.draw(&Circle::new((x, y), size, style))?,
        Marker::Triangle => area.draw(&TriangleMarker::new((x, y), size + 1, style))?,
        Marker::Square => area.draw(&Rectangle::new([(x - 3, y - 3), (x + 3, y + 3)], style))?,
        Marker::Diamond => area.draw(&Polygon::new(
            vec![(x, y - 5), (x + 5, y), (x, y + 5), (x - 5, y)],
            style,
        ))?,
        Marker::Cross => area.draw(&Cross::new((x, y), size, look.colour.stroke_width(2)))?,
    }
    Ok(())
}

/// Width of the legend column beside a plot.
pub const LEGEND_WIDTH: u32 = 290;

/// Splits `area` into the plot (left) and a legend column (right) and draws the legend:
/// one line sample, marker and name per entry, from the top.
pub fn with_legend<DB>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, Look)],
) -> anyhow::Result<DrawingArea<DB, Shift>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (w, _) = area.dim_in_pixel();
    let (plot, legend) = area.split_horizontally(w.saturating_sub(LEGEND_WIDTH));
    let font = ("sans-serif", 13).into_font();
    for (i, (name, look)) in entries.iter().enumerate() {
        let y = 24 + 20 * i as i32;
        if look.dashed {
            legend.draw(&DashedPathElement::new(
                vec![(8, y), (36, y)],
                6,
                4,
                look.stroke(),
            ))?;
        } else {
            legend.draw(&PathElement::new(vec![(8, y), (36, y)], look.stroke()))?;
        }
        legend_marker(&legend, *look, (22, y))?;
        legend.draw(&Text::new(
            fit(name, LEGEND_WIDTH as usize - 50, 13),
            (44, y - 7),
            font.clone(),
        ))?;
    }
    Ok(plot)
}

/// `text` cut with an ellipsis to about `width` pixels at `size` points (DejaVu Sans averages
/// 0.55 em per character).
pub fn fit(text: &str, width: usize, size: u32) -> String {
    let max = (width as f64 / (0.55 * size as f64)) as usize;
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// Draws `title` across the top of `area`, at 24 points or smaller so that it fits the width,
/// and returns the area below it.
pub fn titled<DB>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
) -> anyhow::Result<DrawingArea<DB, Shift>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (w, _) = area.dim_in_pixel();
    let mut size = 24;
    while size > 12 {
        let font: TextStyle = ("sans-serif", size).into_font().into();
        let (tw, _) = area.estimate_text_size(title, &font)?;
        if tw + 24 <= w {
            break;
        }
        size -= 1;
    }
    let (top, body) = area.split_vertically(16 + size * 2);
    top.titled(
        &fit(title, w as usize - 24, size),
        ("sans-serif", size).into_font(),
    )?;
    Ok(body)
}

/// A log-axis tick as a whole number with thousands separators (1,000,000, not 1e6).
pub fn whole(v: &f64) -> String {
    let n = v.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_and_fitting() {
        assert_eq!(whole(&1_000_000.0), "1,000,000");
        assert_eq!(whole(&999.6), "1,000");
        assert_eq!(whole(&12.0), "12");
        assert_eq!(fit("short", 200, 13), "short");
        assert!(fit(&"x".repeat(200), 100, 13).ends_with('…'));
    }

    #[test]
    fn configurations_of_one_algorithm_share_its_colour_and_differ_otherwise() {
        let text = r#"
name = "t"
title = "T"
question = "Q?"
[[datasets]]
name = "default"
[[algorithms]]
name = "minhash-lsh"
[[algorithms]]
name = "minhash-lsh"
label = "minhash-lsh (t=0.5)"
build = { threshold = 0.5 }
[[algorithms]]
name = "simhash"
build = { bits = [64, 128] }
"#;
        let exp = crate::experiment::config::parse(std::path::Path::new("t.toml"), text).unwrap();
        let looks = Looks::of(&exp);
        let names: Vec<&str> = looks.names().collect();
        assert_eq!(
            names,
            [
                "minhash-lsh",
                "minhash-lsh (t=0.5)",
                "simhash (bits=64)",
                "simhash (bits=128)"
            ]
        );
        let (a, b, c, d) = (
            looks.get("minhash-lsh"),
            looks.get("minhash-lsh (t=0.5)"),
            looks.get("simhash (bits=64)"),
            looks.get("simhash (bits=128)"),
        );
        assert_eq!(a.colour, b.colour);
        assert_ne!((a.marker, a.dashed), (b.marker, b.dashed));
        assert_ne!(a.colour, c.colour);
        assert_eq!(c.colour, d.colour);
        // Every series has its own look.
        let all = [a, b, c, d];
        for i in 0..4 {
            for j in i + 1..4 {
                assert_ne!(all[i], all[j]);
            }
        }
    }
}
