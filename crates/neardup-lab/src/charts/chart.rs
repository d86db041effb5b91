//! What every chart is and draws with: the [`Chart`] trait and its input, the drawn file, the
//! embedded font, one picture drawn as SVG and PNG, and small helpers.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use serde::Serialize;

use crate::experiment::config::Experiment;
use crate::experiment::corpora::CorpusTruth;
use crate::experiment::results::Results;

/// What a chart may draw on.
#[derive(Debug, Clone, Copy)]
pub struct ChartInput<'a> {
    /// The experiment.
    pub experiment: &'a Experiment,
    /// Rows and raw cells.
    pub results: &'a Results,
    /// Ground truth by corpus checksum.
    pub truths: &'a HashMap<String, CorpusTruth>,
}

impl ChartInput<'_> {
    /// The series name of a row: its label, plus build parameters when that algorithm's grid
    /// has several build points (otherwise they would collapse into one line).
    pub fn series_name(&self, row: &crate::experiment::results::ResultRow) -> String {
        let several_builds = self
            .experiment
            .algorithms
            .iter()
            .any(|a| a.label == row.cell.label && a.builds.len() > 1);
        if several_builds && !row.build_params.is_empty() {
            format!("{} ({})", row.cell.label, row.build_params)
        } else {
            row.cell.label.clone()
        }
    }
}

/// A drawn chart.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ChartFile {
    /// Title.
    pub title: String,
    /// SVG path relative to the report directory.
    pub svg: String,
    /// PNG path relative to the report directory.
    pub png: String,
    /// One or two sentences on how to read it.
    pub caption: String,
    /// Whether it is drawn from timings (and so differs between runs).
    pub timing: bool,
    /// The chart kind, when the kind drew one chart per algorithm (trade-off curves): such a
    /// family is one section of the charts page, its charts folded but the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
}

impl ChartFile {
    /// The chart in a report: the PNG, its caption and a link to the SVG (ends with a newline).
    pub fn markdown(&self) -> String {
        format!(
            "![{}]({})\n\n{} ([SVG]({}))\n",
            self.title, self.png, self.caption, self.svg
        )
    }
}

/// A chart kind.
pub trait Chart: Sync {
    /// Name used in experiment files.
    fn name(&self) -> &'static str;
    /// Draws into `dir/charts/`; returns nothing when the results hold no data for it.
    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>>;
}

/// Chart size in pixels.
pub const SIZE: (u32, u32) = (960, 600);

/// Registers the embedded font once.
pub fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for (style, bytes) in [
            (FontStyle::Normal, dejavu::sans::regular()),
            (FontStyle::Bold, dejavu::sans::bold()),
        ] {
            // The embedded font is valid; failure would be a build problem.
            plotters::style::register_font("sans-serif", style, bytes)
                .ok()
                .expect("DejaVu Sans is a valid font");
        }
    });
}

/// Draws the same picture into `<dir>/charts/<stem>.svg` and `.png`. `$draw` is a closure
/// literal taking the drawing area; it is expanded once per backend so it can be generic.
#[macro_export]
macro_rules! draw_both {
    ($dir:expr, $stem:expr, $size:expr, $draw:expr) => {{
        $crate::charts::chart::fonts();
        let dir: &std::path::Path = $dir;
        let charts_dir = dir.join("charts");
        std::fs::create_dir_all(&charts_dir)?;
        let mut svg = String::new();
        {
            let root =
                plotters::prelude::SVGBackend::with_string(&mut svg, $size).into_drawing_area();
            root.fill(&plotters::prelude::WHITE)?;
            ($draw)(&root)?;
            root.present()?;
        }
        ::neardup_dedup::fsutil::write_bytes(
            &charts_dir.join(format!("{}.svg", $stem)),
            svg.as_bytes(),
        )?;
        let tmp = charts_dir.join(format!(".{}.{}.png", $stem, std::process::id()));
        {
            let root = plotters::prelude::BitMapBackend::new(&tmp, $size).into_drawing_area();
            root.fill(&plotters::prelude::WHITE)?;
            ($draw)(&root)?;
            root.present()?;
        }
        std::fs::rename(&tmp, charts_dir.join(format!("{}.png", $stem)))?;
        (
            format!("charts/{}.svg", $stem),
            format!("charts/{}.png", $stem),
        )
    }};
}

/// Axis label font.
pub fn label_font() -> TextStyle<'static> {
    ("sans-serif", 16).into_font().into()
}

/// A file-name-safe form of a label.
pub fn slug(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    out.trim_matches('-').to_string()
}

/// 95 % Wilson score interval for k successes in n trials.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let den = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / den;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / den;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_contains_the_estimate() {
        let (lo, hi) = wilson(30, 100);
        assert!(lo < 0.3 && 0.3 < hi);
        assert!(
            (lo - 0.219).abs() < 0.002 && (hi - 0.396).abs() < 0.002,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("MinHash LSH (b=9, r=13)"), "minhash-lsh-b-9-r-13");
    }
}
