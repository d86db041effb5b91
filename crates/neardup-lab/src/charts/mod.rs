//! Charts, one file per chart kind, drawn with plotters as SVG and PNG from stored results.
//!
//! Every chart implements [`Chart`] and is listed once in [`CHARTS`]; experiments name the
//! kinds they want. Series keep one look (colour, marker, dashes) in every chart, legends sit
//! beside the plots, titles fit ([`style`]). Text uses DejaVu Sans embedded in the binary, so PNGs look the same on
//! every machine and need no system fonts. Files are written atomically.

pub mod bars;
pub mod chart;
pub mod cluster_modes;
pub mod designs;
pub mod edit_heatmap;
pub mod heatmap;
pub mod histogram;
pub mod lint;
pub mod pareto;
pub mod pr_curve;
pub mod robustness;
pub mod scaling;
pub mod scurve;
pub mod style;
pub mod tradeoff;

pub use chart::{Chart, ChartFile, ChartInput, SIZE, label_font, slug, wilson};

/// The registered chart kinds.
pub const CHARTS: &[&dyn Chart] = &[
    &scurve::SCurve,
    &tradeoff::Tradeoff,
    &pr_curve::PrCurve,
    &pareto::Pareto,
    &robustness::Robustness,
    &designs::Designs,
    &scaling::Scaling,
    &cluster_modes::ClusterModes,
    &heatmap::Heatmap,
    &edit_heatmap::EditHeatmap,
    &histogram::Histogram,
];

/// Names of the chart kinds.
pub fn names() -> Vec<&'static str> {
    CHARTS.iter().map(|c| c.name()).collect()
}
