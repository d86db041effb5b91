//! Horizontal bar charts for speed tables (the benchmark reports): one bar per tool, its
//! value printed at its end, neardup's bars in its colour and the peers' in grey. People
//! compare bars faster than digits. Not an experiment chart kind: the benchmark reports draw
//! them from their own measurements.
//!
//! Bars run on a log axis when the values span more than a factor of 30 (a peer 100× slower
//! would otherwise be a sliver), with every power of ten labelled.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::ChartFile;
use super::style::{self, Look};

/// One bar.
#[derive(Debug, Clone)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    /// neardup's own (drawn in colour).
    pub ours: bool,
}

/// Height of one bar's row, pixels.
const ROW: u32 = 36;
/// Room for the labels left of the bars.
const LABEL_WIDTH: u32 = 330;
/// Chart width (the report column).
const WIDTH: u32 = 960;
/// Values spanning more than this factor get a log axis.
const LOG_SPAN: f64 = 30.0;

/// Draws `bars` (those with a positive value) into `dir/charts/<stem>.svg` and `.png`; none
/// when no bar has a value.
pub fn draw(
    dir: &Path,
    stem: &str,
    title: &str,
    unit: &str,
    caption: &str,
    bars: &[Bar],
) -> anyhow::Result<Option<ChartFile>> {
    let bars: Vec<&Bar> = bars.iter().filter(|b| b.value > 0.0).collect();
    let Some(top) = bars.iter().map(|b| b.value).reduce(f64::max) else {
        return Ok(None);
    };
    let bottom = bars.iter().map(|b| b.value).fold(f64::INFINITY, f64::min);
    let log = top / bottom > LOG_SPAN;
    let size = (WIDTH, 90 + ROW * bars.len() as u32 + 50);
    let (svg, png) = crate::draw_both!(
        dir,
        stem,
        size,
        |root: &DrawingArea<_, _>| -> anyhow::Result<()> {
            let body = style::titled(root, title)?;
            let (labels, plot) = body.split_horizontally(LABEL_WIDTH);
            if log {
                let low = 10f64.powf(bottom.log10().floor());
                let high = 10f64.powf((top * 3.0).log10().ceil());
                draw_bars(&plot, &labels, style::log_axis(low, high), unit, &bars, low)
            } else {
                draw_bars(&plot, &labels, 0.0..top * 1.25, unit, &bars, 0.0)
            }
        }
    );
    Ok(Some(ChartFile {
        title: title.into(),
        svg,
        png,
        caption: format!(
            "{caption}{}",
            if log {
                " The axis is logarithmic: each step right is ten times faster."
            } else {
                ""
            }
        ),
        timing: true,
        family: None,
    }))
}

/// The bars on `plot`, their labels on `labels` (same rows), from `base` to their value.
fn draw_bars<DB, R>(
    plot: &DrawingArea<DB, plotters::coord::Shift>,
    labels: &DrawingArea<DB, plotters::coord::Shift>,
    range: R,
    unit: &str,
    bars: &[&Bar],
    base: f64,
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    R: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    R::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let n = bars.len() as f64;
    let mut chart = ChartBuilder::on(plot)
        .margin_right(72)
        .x_label_area_size(44)
        .build_cartesian_2d(range, 0.0..n)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_y_axis()
        .x_desc(unit)
        .x_label_formatter(&|v| style::tick(*v, *v >= 1.0))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    let (ours, theirs) = (Look::nth(0).colour, RGBColor(158, 158, 158));
    let font = TextStyle::from(("sans-serif", 14).into_font());
    let label_font =
        TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (i, bar) in bars.iter().enumerate() {
        let (y0, y1) = (n - i as f64 - 0.85, n - i as f64 - 0.15);
        let colour = if bar.ours { ours } else { theirs };
        chart.draw_series(std::iter::once(Rectangle::new(
            [(base, y0), (bar.value, y1)],
            colour.filled(),
        )))?;
        let (px, py) = chart.backend_coord(&(bar.value, (y0 + y1) / 2.0));
        plot.draw(&Text::new(
            format_value(bar.value),
            (
                px - plot.get_base_pixel().0 + 6,
                py - plot.get_base_pixel().1,
            ),
            font.clone().pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        // A long label wraps onto a second line rather than being cut.
        let lines = style::wrap(&bar.label, LABEL_WIDTH - 16, 13, 2);
        let y = py - labels.get_base_pixel().1 - 8 * (lines.len() as i32 - 1);
        for (k, line) in lines.into_iter().enumerate() {
            labels.draw(&Text::new(
                line,
                (LABEL_WIDTH as i32 - 8, y + 16 * k as i32),
                label_font.clone(),
            ))?;
        }
    }
    Ok(())
}

/// A bar's value: whole numbers with separators from 100 up, else three significant digits.
fn format_value(v: f64) -> String {
    if v >= 100.0 {
        style::whole(&v)
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_drawn_with_every_label_inside_the_picture() {
        let dir = std::env::temp_dir().join(format!("neardup-bars-{}", std::process::id()));
        let bar = |label: &str, value, ours| Bar {
            label: label.into(),
            value,
            ours,
        };
        let bars = [
            bar(
                "neardup minhash-lsh (text → verified pairs)",
                240_000.0,
                true,
            ),
            bar("gaoya MinHashStringIndex", 15_000.0, false),
            bar(
                "datasketch MinHashLSH, a label too long for one line of the label column",
                2_100.0,
                false,
            ),
            bar("no value", 0.0, false),
        ];
        let file = draw(
            &dir,
            "bars",
            "Text → pairs",
            "documents per second",
            "",
            &bars,
        )
        .unwrap()
        .expect("three bars have values");
        assert!(file.caption.contains("logarithmic"), "{}", file.caption);
        let svg = std::fs::read_to_string(dir.join(&file.svg)).unwrap();
        assert_eq!(crate::charts::lint::problems(&svg), Vec::<String>::new());
        assert!(
            svg.contains("240,000") && svg.contains("2,100"),
            "values printed"
        );
        assert!(
            !svg.contains("no value"),
            "a bar without a value is left out"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
