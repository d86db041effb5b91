//! Heatmap: F1 of every algorithm (rows) under every condition of the experiment (columns:
//! its edit models, its datasets, or both), each algorithm at its best grid point — the
//! answer to "which algorithm finds which kind of copy" at a glance, where the best-configuration
//! table needs a row per pair.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{Chart, ChartFile, ChartInput};
use super::style;

/// The heatmap chart kind.
#[derive(Debug)]
pub struct Heatmap;

/// Pixels of one cell, and of a line of column header.
const CELL: (i32, i32) = (124, 30);
const HEADER_LINE: i32 = 16;
/// Lines a column header may wrap onto.
const HEADER_LINES: usize = 3;

/// label → column → F1 values (over seeds).
type Cells = BTreeMap<String, BTreeMap<usize, Vec<f64>>>;

impl Chart for Heatmap {
    fn name(&self) -> &'static str {
        "heatmap"
    }

    fn draw(&self, input: &ChartInput, dir: &Path) -> anyhow::Result<Vec<ChartFile>> {
        let (columns, cells) = f1_cells(&input.results.rows);
        let labels: Vec<&str> = input
            .experiment
            .algorithms
            .iter()
            .map(|a| a.label.as_str())
            .filter(|l| cells.contains_key(*l))
            .fold(Vec::new(), |mut v, l| {
                if !v.contains(&l) {
                    v.push(l);
                }
                v
            });
        if labels.is_empty() || columns.len() < 2 {
            return Ok(Vec::new());
        }
        let title = "F1 per algorithm and condition (best grid point)";
        let (svg, png) = draw_grid(
            dir,
            "heatmap",
            title,
            CELL,
            &labels,
            &columns,
            &|label, c| cells[label].get(&c).and_then(|v| mean(v)),
        )?;
        Ok(vec![ChartFile {
            title: title.into(),
            svg,
            png,
            caption: "Each row is one algorithm configuration; each cell its pair-level F1 under one \
                      condition, mean over seeds, at its best grid point on that condition's corpus \
                      (highest F1 averaged over the corpus's edit models and seeds, as in the \
                      best-configuration table). Darker is better; a dash: no F1 (no true pair \
                      to find, or nothing reported)."
                .into(),
            timing: false,
            family: None,
        }])
    }
}

/// A heat map titled `title` written as `charts/<stem>.{svg,png}`: a row per label, a column
/// per header, each cell of `cell` pixels shaded by `value(label, column)` (a dash where
/// none), sized to fit its row labels. The F1 and the edit heat maps both draw one.
pub(super) fn draw_grid(
    dir: &Path,
    stem: &str,
    title: &str,
    cell: (i32, i32),
    labels: &[&str],
    columns: &[String],
    value: &dyn Fn(&str, usize) -> Option<f64>,
) -> anyhow::Result<(String, String)> {
    let label_width = labels
        .iter()
        .map(|l| style::text_width(l, 13) as i32)
        .max()
        .unwrap_or(0)
        + 24;
    let header = HEADER_LINE * HEADER_LINES as i32 + 12;
    let top = 56;
    let size = (
        (label_width + cell.0 * columns.len() as i32 + 16) as u32,
        (top + header + cell.1 * labels.len() as i32 + 16) as u32,
    );
    Ok(crate::draw_both!(dir, stem, size, |root: &DrawingArea<
        _,
        _,
    >|
     -> anyhow::Result<
        (),
    > {
        let body = style::titled(root, title)?;
        draw_headers(&body, columns, label_width, cell.0)?;
        for (r, label) in labels.iter().enumerate() {
            let y = header + cell.1 * r as i32;
            draw_row_label(&body, label, (label_width - 10, y + cell.1 / 2))?;
            for c in 0..columns.len() {
                draw_cell(
                    &body,
                    (label_width + cell.0 * c as i32, y),
                    cell,
                    value(label, c),
                )?;
            }
        }
        Ok(())
    }))
}

/// The mean of values over seeds; none when there are none.
pub(super) fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// The experiment's conditions (dataset and edit model, named by what varies) and each
/// label's F1 per condition at its best grid point on that condition's corpus: one grid
/// point for all corpora showed minhash-lsh at F1 0.00 on bible-en, where the
/// best-configuration table (best per corpus) says 0.168.
fn f1_cells(rows: &[crate::experiment::results::ResultRow]) -> (Vec<String>, Cells) {
    let mut conditions: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        let c = (r.cell.dataset.as_str(), r.cell.edit_spec.as_str());
        if !conditions.contains(&c) {
            conditions.push(c);
        }
    }
    let one_dataset = conditions.iter().all(|c| c.0 == conditions[0].0);
    let one_edit = conditions.iter().all(|c| c.1 == conditions[0].1);
    let names = conditions
        .iter()
        .map(|(d, e)| match (one_dataset, one_edit) {
            (true, _) => e.to_string(),
            (false, true) => d.to_string(),
            (false, false) => format!("{d}: {e}"),
        })
        .collect();
    let mut best = BTreeMap::new();
    for (dataset, _) in &conditions {
        best.entry(*dataset)
            .or_insert_with(|| crate::experiment::results::best_points_on(rows, dataset));
    }
    let mut cells = Cells::new();
    for r in rows
        .iter()
        .filter(|r| r.error.is_none() && best[r.cell.dataset.as_str()].includes(r))
    {
        let column = conditions
            .iter()
            .position(|c| *c == (r.cell.dataset.as_str(), r.cell.edit_spec.as_str()))
            .expect("every row's condition is listed");
        let e = cells
            .entry(r.cell.label.clone())
            .or_default()
            .entry(column)
            .or_default();
        if let Some(f1) = r.metric("f1") {
            e.push(f1);
        }
    }
    (names, cells)
}

/// Column headers, each wrapped onto at most [`HEADER_LINES`] lines of its cell's width
/// (`cell_width` pixels; the first cell starts at `left`).
fn draw_headers<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    columns: &[String],
    left: i32,
    cell_width: i32,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    for (c, name) in columns.iter().enumerate() {
        let x = left + cell_width * c as i32 + cell_width / 2;
        let shown = name.replace(',', ", ");
        for (i, line) in style::wrap(&shown, cell_width as u32 - 8, 12, HEADER_LINES)
            .into_iter()
            .enumerate()
        {
            area.draw(&Text::new(
                line,
                (x, 4 + HEADER_LINE * i as i32),
                ("sans-serif", 12)
                    .into_font()
                    .into_text_style(area)
                    .pos(Pos::new(HPos::Center, VPos::Top)),
            ))?;
        }
    }
    Ok(())
}

/// A row's label, right-aligned at `(right, middle)`.
fn draw_row_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    label: &str,
    (right, middle): (i32, i32),
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    area.draw(&Text::new(
        label.to_string(),
        (right, middle),
        ("sans-serif", 13)
            .into_font()
            .into_text_style(area)
            .pos(Pos::new(HPos::Right, VPos::Center)),
    ))?;
    Ok(())
}

/// One cell of `cell` pixels at pixel `(x, y)`: shaded by `value` (white at 0, dark blue
/// at 1), the value written in it, a dash on grey without one.
fn draw_cell<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    (x, y): (i32, i32),
    cell: (i32, i32),
    value: Option<f64>,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (fill, ink, text) = match value {
        Some(v) => {
            let v = v.clamp(0.0, 1.0);
            let mix = |from: f64, to: f64| (from + (to - from) * v).round() as u8;
            (
                RGBColor(mix(255.0, 8.0), mix(255.0, 48.0), mix(255.0, 107.0)),
                if v > 0.55 { WHITE } else { BLACK },
                format!("{v:.2}"),
            )
        }
        None => (
            RGBColor(235, 235, 235),
            RGBColor(90, 90, 90),
            "–".to_string(),
        ),
    };
    area.draw(&Rectangle::new(
        [(x + 1, y + 1), (x + cell.0 - 1, y + cell.1 - 1)],
        fill.filled(),
    ))?;
    // A light outline: a row of zeros (white) still reads as cells, not as a gap.
    area.draw(&Rectangle::new(
        [(x + 1, y + 1), (x + cell.0 - 1, y + cell.1 - 1)],
        RGBColor(215, 215, 215).stroke_width(1),
    ))?;
    area.draw(&Text::new(
        text,
        (x + cell.0 / 2, y + cell.1 / 2),
        ("sans-serif", 13)
            .into_font()
            .color(&ink)
            .pos(Pos::new(HPos::Center, VPos::Center)),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::results::ResultRow;
    use crate::experiment::runner::PlannedCell;

    fn row(dataset: &str, build_index: usize, build: &str, f1: f64) -> ResultRow {
        ResultRow::of_cell(
            PlannedCell {
                dataset: dataset.into(),
                edit: "none".into(),
                rate: 0.0,
                edit_spec: "none".into(),
                seed: 1,
                corpus_sha256: String::new(),
                algorithm: "minhash-lsh".into(),
                label: "minhash-lsh".into(),
                build_index,
                key: String::new(),
            },
            build,
            vec![("f1", Some(f1))],
        )
    }

    /// Two corpora whose best grid points differ: each cell shows its corpus's best (the
    /// table's figure), not the point best on average (k=5 wins on average with 0.95 and 0.0;
    /// bible-en's best is k=3 at 0.168).
    #[test]
    fn each_corpus_shows_its_own_best_grid_point() {
        let rows = vec![
            row("licenses", 0, "k=5", 0.95),
            row("bible-en", 0, "k=5", 0.0),
            row("licenses", 1, "k=3", 0.5),
            row("bible-en", 1, "k=3", 0.168),
        ];
        let (columns, cells) = f1_cells(&rows);
        assert_eq!(columns, ["licenses", "bible-en"]);
        assert_eq!(cells["minhash-lsh"][&0], [0.95]);
        assert_eq!(cells["minhash-lsh"][&1], [0.168]);
    }
}
