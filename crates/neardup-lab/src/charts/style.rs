//! How series look, the same in every chart: one colour per algorithm (its place in the
//! registry, so minhash-lsh is the same blue in every report), and for the configurations of
//! one algorithm (labels, build points) one marker and dash pattern each. Legends sit in a
//! column beside the plot, never over the data; titles shrink to fit; log axes are labelled
//! with whole numbers.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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

/// Line patterns, in the order the configurations of one algorithm take them after its
/// markers run out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    /// ───
    Solid,
    /// ─ ─ ─
    Dashed,
    /// ·····
    Dotted,
    /// ── · ──
    Long,
}

const DASHES: [Dash; 4] = [Dash::Solid, Dash::Dashed, Dash::Dotted, Dash::Long];

impl Dash {
    /// (dash length, gap) in pixels; `None` for a solid line.
    fn pattern(self) -> Option<(u32, u32)> {
        match self {
            Dash::Solid => None,
            Dash::Dashed => Some((8, 5)),
            Dash::Dotted => Some((2, 4)),
            Dash::Long => Some((16, 4)),
        }
    }
}

/// How one series looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    /// Line and marker colour.
    pub colour: RGBColor,
    /// Point marker.
    pub marker: Marker,
    /// Line pattern (solid for an algorithm's first configuration).
    pub dash: Dash,
}

/// The `v`-th (marker, dash) of one colour: every marker solid, then every marker dashed, …,
/// so 20 series share a colour before a look repeats.
fn variant(v: usize) -> (Marker, Dash) {
    (
        MARKERS[v % MARKERS.len()],
        DASHES[(v / MARKERS.len()) % DASHES.len()],
    )
}

impl Look {
    /// The `i`-th look of a fixed set of series that are not algorithms (precision, recall
    /// and F1; bandings of an S-curve): distinct colours, then markers and dashes.
    pub fn nth(i: usize) -> Look {
        let (marker, dash) = variant(i / PALETTE.len());
        Look {
            colour: PALETTE[i % PALETTE.len()],
            marker,
            dash,
        }
    }

    /// A reference drawn over the series (a Pareto front, a threshold): black, which no
    /// series has.
    pub fn reference() -> Look {
        Look {
            colour: RGBColor(0, 0, 0),
            marker: Marker::Cross,
            dash: Dash::Dashed,
        }
    }

    /// The line style.
    pub fn stroke(&self) -> ShapeStyle {
        self.colour.stroke_width(2)
    }
}

/// The series of an experiment's charts, each with its look: one per algorithm label, or
/// per build point when a label's grid has several (what `ChartInput::series_name` gives).
#[derive(Debug, Default)]
pub struct Looks {
    series: Vec<(String, Look)>,
    /// Looks handed to series the experiment does not list, in the order asked.
    extra: std::sync::Mutex<Vec<(String, Look)>>,
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
                // The first configuration solid with circles; the next ones change marker
                // and dash together, so each differs from the first in two ways.
                let (marker, dash) = if v == 0 {
                    (Marker::Circle, Dash::Solid)
                } else {
                    let patterned = &DASHES[1..];
                    (
                        MARKERS[v % MARKERS.len()],
                        patterned[((v - 1) / MARKERS.len()) % patterned.len()],
                    )
                };
                series.push((
                    name,
                    Look {
                        colour,
                        marker,
                        dash,
                    },
                ));
            }
        }
        Looks {
            series,
            extra: Default::default(),
        }
    }

    /// The look of series `name`. A series the experiment does not list gets a look of its
    /// own, kept for later calls, so two unlisted series never share one.
    pub fn get(&self, name: &str) -> Look {
        if let Some((_, l)) = self.series.iter().find(|(n, _)| n == name) {
            return *l;
        }
        let mut extra = self.extra.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, l)) = extra.iter().find(|(n, _)| n == name) {
            return *l;
        }
        let used: Vec<Look> = self
            .series
            .iter()
            .chain(extra.iter())
            .map(|(_, l)| *l)
            .collect();
        let look = (0..)
            .map(Look::nth)
            .find(|l| !used.contains(l))
            .expect("looks are endless");
        extra.push((name.to_string(), look));
        look
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

/// Draws `points` as a line in `look`'s pattern, without markers.
pub fn draw_line<'a, DB, X, Y>(
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
    let pts = points.iter().copied();
    match look.dash.pattern() {
        None => {
            chart.draw_series(LineSeries::new(pts, look.stroke()))?;
        }
        Some((size, gap)) => {
            chart.draw_series(std::iter::once(DashedPathElement::new(
                pts,
                size,
                gap,
                look.stroke(),
            )))?;
        }
    }
    Ok(())
}

/// Draws `points` as a line in `look` (patterned for its variants) with a marker at each
/// point.
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
    draw_line(chart, points, look)?;
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

/// Legend text size (points) and line height (pixels).
const LEGEND_FONT: u32 = 13;
const LEGEND_LINE: i32 = 17;

/// Splits `area` into the plot (left) and a legend column (right) and draws the legend:
/// one line sample, marker and name per entry, from the top; a name too long for the column
/// wraps onto a second line. Refuses two entries of one look: a reader could not tell them
/// apart.
pub fn with_legend<DB>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, Look)],
) -> anyhow::Result<DrawingArea<DB, Shift>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    distinct_looks(entries)?;
    let (w, _) = area.dim_in_pixel();
    let (plot, legend) = area.split_horizontally(w.saturating_sub(LEGEND_WIDTH));
    let font = ("sans-serif", LEGEND_FONT).into_font();
    let mut y = 24;
    for (name, look) in entries {
        match look.dash.pattern() {
            None => legend.draw(&PathElement::new(vec![(8, y), (36, y)], look.stroke()))?,
            Some((size, gap)) => legend.draw(&DashedPathElement::new(
                vec![(8, y), (36, y)],
                size.min(6),
                gap,
                look.stroke(),
            ))?,
        }
        legend_marker(&legend, *look, (22, y))?;
        for line in wrap(name, LEGEND_WIDTH - 52, LEGEND_FONT, 2) {
            legend.draw(&Text::new(line, (44, y - 7), font.clone()))?;
            y += LEGEND_LINE;
        }
        y += 4;
    }
    Ok(plot)
}

/// Fails when two legend entries look the same (colour, marker and line pattern).
pub fn distinct_looks(entries: &[(String, Look)]) -> anyhow::Result<()> {
    for (i, (a, la)) in entries.iter().enumerate() {
        if let Some((b, _)) = entries[i + 1..].iter().find(|(_, lb)| lb == la) {
            anyhow::bail!("legend entries `{a}` and `{b}` share colour, marker and line pattern");
        }
    }
    Ok(())
}

/// Width of `text` in pixels at `size` points of the embedded DejaVu Sans (what plotters
/// lays it out with).
pub fn text_width(text: &str, size: u32) -> u32 {
    text_width_at(text, size as f64)
}

/// [`text_width`] at a fractional size (as an SVG file states it).
pub fn text_width_at(text: &str, size: f64) -> u32 {
    super::chart::fonts();
    let font = FontDesc::new(FontFamily::SansSerif, size, FontStyle::Normal);
    font.box_size(text).map_or_else(
        // No font: DejaVu Sans averages 0.55 em a character, 0.62 to be safe.
        |_| (text.chars().count() as f64 * 0.62 * size) as u32,
        |(w, _)| w,
    )
}

/// `text` in at most `lines` lines of at most `width` pixels at `size` points: broken at
/// spaces (or anywhere in a word longer than a line), the last line cut with an ellipsis
/// when the text does not fit in `lines`.
pub fn wrap(text: &str, width: u32, size: u32, lines: usize) -> Vec<String> {
    let fits = |s: &str| text_width(s, size) <= width;
    let mut out: Vec<String> = Vec::new();
    let mut rest = text.trim().to_string();
    while !rest.is_empty() && out.len() < lines {
        if fits(&rest) {
            out.push(std::mem::take(&mut rest));
            break;
        }
        if out.len() + 1 == lines {
            out.push(fit(&rest, width as usize, size));
            rest.clear();
            break;
        }
        // The longest prefix that fits, preferably ending at a space.
        let chars: Vec<(usize, char)> = rest.char_indices().collect();
        let mut end = chars.len();
        while end > 1 && !fits(&rest[..chars.get(end).map_or(rest.len(), |c| c.0)]) {
            end -= 1;
        }
        let at = chars.get(end).map_or(rest.len(), |c| c.0);
        let at = rest[..at].rfind(' ').filter(|&i| i > 0).unwrap_or(at);
        out.push(rest[..at].trim_end().to_string());
        rest = rest[at..].trim_start().to_string();
    }
    out
}

/// `text` cut with an ellipsis to fit `width` pixels at `size` points.
pub fn fit(text: &str, width: usize, size: u32) -> String {
    let width = width as u32;
    if text_width(text, size) <= width {
        return text.to_string();
    }
    let mut s: String = text.to_string();
    while !s.is_empty() && text_width(&format!("{s}…"), size) > width {
        s.pop();
    }
    format!("{}…", s.trim_end())
}

/// Draws `title` across the top of `area`, at 22 points or smaller (down to 15) so that it
/// fits the width, on two lines when it does not fit on one at 15, and returns the area
/// below it.
pub fn titled<DB>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
) -> anyhow::Result<DrawingArea<DB, Shift>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (w, _) = area.dim_in_pixel();
    let room = w.saturating_sub(24);
    let size = (15..=22)
        .rev()
        .find(|&s| text_width(title, s) <= room)
        .unwrap_or(15);
    let lines = wrap(title, room, size, 2);
    let line_height = size as i32 + size as i32 / 3;
    let (top, body) =
        area.split_vertically(16 + line_height * lines.len() as i32 + size as i32 / 2);
    let font = ("sans-serif", size)
        .into_font()
        .into_text_style(&top)
        .pos(Pos::new(HPos::Center, VPos::Top));
    for (i, line) in lines.iter().enumerate() {
        top.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, 10 + line_height * i as i32),
            font.clone(),
        ))?;
    }
    Ok(body)
}

/// A linear-axis tick: on an axis of whole numbers only the whole ticks are labelled, without
/// decimals (k = 3, not 3.0); otherwise the value with as few decimals as it needs.
pub fn tick(v: f64, whole: bool) -> String {
    if whole {
        if (v - v.round()).abs() < 1e-9 {
            compact(&v)
        } else {
            String::new()
        }
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// An axis tick as people say it: 950, 1k, 2.5k, 100k, 1M (not 1e6). Thousands separators
/// at axis size rasterize in the PNGs so that "1,000" reads "1.000".
pub fn compact(v: &f64) -> String {
    let (scaled, suffix) = match v.abs() {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e3 => (v / 1e3, "k"),
        _ => (*v, ""),
    };
    let s = format!("{scaled:.2}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        &s
    };
    format!("{s}{suffix}")
}

/// A whole number with thousands separators (1,000,000, not 1e6), for text and labels large
/// enough to read them.
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
    fn a_legend_refuses_two_entries_of_one_look() {
        let mut svg = String::new();
        let root = SVGBackend::with_string(&mut svg, (600, 300)).into_drawing_area();
        let a = Look::nth(0);
        let ok = vec![("a".to_string(), a), ("b".to_string(), Look::nth(1))];
        assert!(with_legend(&root, &ok).is_ok());
        let same = vec![("a".to_string(), a), ("b".to_string(), a)];
        let Err(err) = with_legend(&root, &same) else {
            panic!("two entries of one look were drawn");
        };
        let err = err.to_string();
        assert!(err.contains("`a` and `b`"), "{err}");
    }

    /// Twelve configurations of one algorithm (more than there are markers), the reference
    /// look and every `nth` look of a 40-series chart: no two alike.
    #[test]
    fn looks_stay_distinct_past_the_markers() {
        let mut text = String::from(
            "name = \"t\"\ntitle = \"T\"\nquestion = \"Q?\"\n[[datasets]]\nname = \"default\"\n",
        );
        for i in 0..12 {
            text.push_str(&format!(
                "[[algorithms]]\nname = \"minhash-lsh\"\nlabel = \"m{i}\"\nbuild = {{ threshold = 0.{} }}\n", i + 10
            ));
        }
        let exp = crate::experiment::config::parse(std::path::Path::new("t.toml"), &text).unwrap();
        let looks = Looks::of(&exp);
        let mut all: Vec<Look> = looks.names().map(|n| looks.get(n)).collect();
        assert_eq!(all.len(), 12);
        // Series the experiment does not list get looks of their own too.
        all.push(looks.get("unlisted one"));
        all.push(looks.get("unlisted two"));
        assert_eq!(looks.get("unlisted one"), all[12]);
        all.push(Look::reference());
        all.extend((0..40).map(Look::nth));
        let entries: Vec<(String, Look)> =
            all[..15].iter().map(|l| (format!("{l:?}"), *l)).collect();
        distinct_looks(&entries).unwrap();
        let nth: Vec<(String, Look)> = all[15..]
            .iter()
            .enumerate()
            .map(|(i, l)| (i.to_string(), *l))
            .collect();
        distinct_looks(&nth).unwrap();
    }

    #[test]
    fn long_names_wrap_within_the_width() {
        let name = "spotsigs (released idf band 0.2-0.9, antecedents per script)";
        let lines = wrap(name, 238, 13, 2);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines.iter().all(|l| text_width(l, 13) <= 238), "{lines:?}");
        assert_eq!(lines.join(" "), name);
        let cut = wrap(&"word ".repeat(40), 100, 13, 2);
        assert!(
            cut[1].ends_with('…') && text_width(&cut[1], 13) <= 100,
            "{cut:?}"
        );
        assert_eq!(wrap("short", 238, 13, 2), ["short"]);
    }

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
        assert_ne!((a.marker, a.dash), (b.marker, b.dash));
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

/// A log axis from `low` to `high` labelled at 1, 2 and 5 times each power of ten in it (only
/// at the powers of ten when that is more than nine labels): plotters alone labels only the
/// powers of ten, which leaves an axis spanning less than two decades with one label.
pub fn log_axis(
    low: f64,
    high: f64,
) -> plotters::coord::combinators::WithKeyPoints<plotters::coord::combinators::LogCoord<f64>> {
    use plotters::coord::combinators::{BindKeyPoints, LogCoord};
    let coord: LogCoord<f64> = (low..high).log_scale().into();
    coord.with_key_points(log_ticks(low, high))
}

/// The labelled values of [`log_axis`].
pub fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    let (first, last) = (low.log10().floor() as i32, high.log10().ceil() as i32);
    let within = |steps: &[f64]| -> Vec<f64> {
        (first..=last)
            .flat_map(|e| steps.iter().map(move |s| s * 10f64.powi(e)))
            .filter(|v| *v >= low * (1.0 - 1e-9) && *v <= high * (1.0 + 1e-9))
            .collect()
    };
    let dense = within(&[1.0, 2.0, 5.0]);
    if dense.len() <= 9 {
        dense
    } else {
        within(&[1.0])
    }
}

#[cfg(test)]
mod log_axis_tests {
    use super::*;

    #[test]
    fn axis_ticks_are_compact() {
        let got: Vec<String> = [0.0, 950.0, 1_000.0, 2_500.0, 20_000.0, 1_000_000.0, 1.5e9]
            .iter()
            .map(compact)
            .collect();
        assert_eq!(got, ["0", "950", "1k", "2.5k", "20k", "1M", "1.5G"]);
        assert_eq!(tick(3.0, true), "3");
        assert_eq!(tick(1000.0, true), "1k");
    }

    #[test]
    fn a_narrow_log_axis_gets_more_than_one_label_and_a_wide_one_only_decades() {
        assert_eq!(
            log_ticks(10_000.0, 600_000.0),
            [
                10_000.0, 20_000.0, 50_000.0, 100_000.0, 200_000.0, 500_000.0
            ]
        );
        assert_eq!(log_ticks(1.0, 1e6), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
    }
}
