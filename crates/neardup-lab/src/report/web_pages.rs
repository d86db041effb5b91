//! The page benchmark's part of a report (an experiment with page datasets,
//! `experiments/web-pages.toml`): the papers' claims about pages answered with this run's
//! figures, first; how each reading recovered the articles (word precision and recall against
//! the article each page carries, the ScrapingHub benchmark's measure); its speed apart, in
//! TIMING.md.
//!
//! Every figure is the F1 of an algorithm's best query point on a corpus (as the heatmap
//! shows it), averaged over the page set's edit models and seeds.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::tables::Table;
use crate::corpus::pages::reading::Reading;
use crate::corpus::pages::words::f1;
use crate::experiment::config::Experiment;
use crate::experiment::results::ResultRow;
use crate::experiment::runner::ReadingRow;

/// What the report shows of the page benchmark.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PagesSection {
    /// The claims, answered (Markdown list items).
    pub findings: Vec<String>,
    /// How each reading recovered the articles.
    pub extraction: Table,
    /// How fast (TIMING.md only).
    #[serde(skip)]
    pub speed: Option<Table>,
}

impl PagesSection {
    /// The README's part.
    pub fn markdown(&self) -> String {
        let mut s = String::from(
            "## The papers' claims on real pages\n\nF1 at each algorithm's best setting, the mean over \
             the page set's edit models (figures below and in the heatmap):\n\n",
        );
        for f in &self.findings {
            let _ = writeln!(s, "- {f}");
        }
        s.push('\n');
        s.push_str(&self.extraction.markdown());
        s
    }
}

/// The section of an experiment with page datasets (`None` without).
pub fn section(
    exp: &Experiment,
    readings: &[ReadingRow],
    rows: &[ResultRow],
) -> Option<PagesSection> {
    if !exp.datasets.iter().any(|d| d.pages.is_some()) || readings.is_empty() {
        return None;
    }
    let english = exp
        .datasets
        .iter()
        .filter(|d| d.name == "web-pages")
        .filter_map(|d| d.pages.map(|p| (p.reading, d.label.as_str())))
        .collect::<Vec<_>>();
    let at = |reading: fn(&Reading) -> bool| {
        english
            .iter()
            .find(|(r, _)| reading(r))
            .map(|(_, label)| *label)
    };
    let html = at(|r| *r == Reading::Html);
    let visible = at(|r| *r == Reading::Visible);
    let main = at(|r| *r == Reading::Main);
    let templated = at(|r| matches!(r, Reading::MainWithoutTemplate { .. }));
    let f = |dataset: Option<&str>, label: &str, build: Option<&str>| {
        dataset.and_then(|d| mean_best_f1(rows, d, label, build))
    };
    let fmt = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:.2}"));
    let mut findings = Vec::new();
    let shingling = |d| {
        ["minhash-lsh", "supershingles", "simhash"]
            .iter()
            .filter_map(|l| f(d, l, None).map(|x| (*l, x)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    };
    if let (Some(sp_raw), Some((sh_l, sh_raw))) = (f(html, "spotsigs", None), shingling(html)) {
        let (sp_main, best_main) = (f(main, "spotsigs", None), shingling(main));
        findings.push(format!(
            "**SpotSigs beats shingling on raw pages: {}** (HTML as text: SpotSigs {sp_raw:.2}, the best shingling \
             algorithm, {sh_l}, {sh_raw:.2}). **Once the main content is extracted: {}** (SpotSigs {}, {} {}).",
            yes_no(sp_raw > sh_raw),
            yes_no(sp_main.zip(best_main).is_some_and(|(s, (_, b))| s > b)),
            fmt(sp_main),
            best_main.map_or("shingling", |b| b.0),
            fmt(best_main.map(|b| b.1)),
        ));
    }
    let im = [html, visible, main, templated].map(|d| f(d, "imatch", None));
    if im.iter().any(Option::is_some) {
        findings.push(format!(
            "**I-Match needs extraction: {}** (HTML {}, visible text {}, main content {}, main content without \
             template lines {}): one template word in its lexicon changes the page's signature.",
            yes_no(im[2].unwrap_or(0.0) > im[0].unwrap_or(0.0) + 0.1),
            fmt(im[0]),
            fmt(im[1]),
            fmt(im[2]),
            fmt(im[3])
        ));
    }
    let tw = |d| f(d, "tianwang", Some("variant=1"));
    if let Some(tw_visible) = tw(visible) {
        findings.push(format!(
            "**Tianwang's 512-byte visible-text digest (variant 1) is enough: {}** (visible text {tw_visible:.2}, \
             main content {}): the first 512 bytes a reader sees are the site's menu, not the article.",
            yes_no(tw_visible >= 0.8),
            fmt(tw(main)),
        ));
    }
    Some(PagesSection {
        findings,
        extraction: extraction_table(readings),
        speed: Some(speed_table(readings)),
    })
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The mean over edit models and seeds of the best F1 of `label` on `dataset` (only build
/// points whose parameters contain `build` when given).
pub fn mean_best_f1(
    rows: &[ResultRow],
    dataset: &str,
    label: &str,
    build: Option<&str>,
) -> Option<f64> {
    let mut best: BTreeMap<(&str, u64), f64> = BTreeMap::new();
    for r in rows.iter().filter(|r| {
        r.cell.dataset == dataset
            && r.cell.label == label
            && r.error.is_none()
            && build.is_none_or(|b| r.build_params.contains(b))
    }) {
        if let Some(x) = r.metric("f1") {
            let e = best.entry((&r.cell.edit_spec, r.cell.seed)).or_insert(x);
            *e = e.max(x);
        }
    }
    (!best.is_empty()).then(|| best.values().sum::<f64>() / best.len() as f64)
}

/// Pages, dropped pages and word scores per reading, summed over the page corpora.
fn per_dataset(readings: &[ReadingRow]) -> Vec<(&ReadingRow, usize, usize, f64, f64, f64)> {
    let mut out: Vec<(&ReadingRow, usize, usize, f64, f64, f64)> = Vec::new();
    for r in readings {
        let s = &r.stats;
        let n = s.pages as f64;
        match out.iter_mut().find(|o| o.0.dataset == r.dataset) {
            Some(o) => {
                o.1 += s.pages;
                o.2 += s.dropped;
                o.3 += s.precision * n;
                o.4 += s.recall * n;
                o.5 += s.seconds;
            }
            None => out.push((
                r,
                s.pages,
                s.dropped,
                s.precision * n,
                s.recall * n,
                s.seconds,
            )),
        }
    }
    out
}

/// How each reading recovered the articles.
fn extraction_table(readings: &[ReadingRow]) -> Table {
    let rows = per_dataset(readings)
        .into_iter()
        .map(|(r, pages, dropped, p, rc, _)| {
            let (p, rc) = (p / pages.max(1) as f64, rc / pages.max(1) as f64);
            vec![
                r.dataset.clone(),
                format!("`{}`", r.flags),
                pages.to_string(),
                dropped.to_string(),
                format!("{p:.3}"),
                format!("{rc:.3}"),
                format!("{:.3}", f1(p, rc)),
            ]
        })
        .collect();
    Table {
        title: "How each reading recovered the articles".into(),
        note: "Word precision and recall of the text each algorithm read against the article the page \
               carries (the gold text; for a copy, as edited), mean per page over every page corpus of the \
               run, F1 of the means (the ScrapingHub article-extraction benchmark's measure; Han characters \
               count one each). Dropped: generated pages whose article the default extraction did not \
               recover (word F1 < 0.9), left out of every corpus. Speed in TIMING.md."
            .into(),
        columns: ["dataset", "neardup dedup", "pages", "dropped", "word P", "word R", "word F1"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}

/// Pages per second of one thread, per reading.
fn speed_table(readings: &[ReadingRow]) -> Table {
    let rows = per_dataset(readings)
        .into_iter()
        .map(|(r, pages, _, _, _, seconds)| {
            vec![
                r.dataset.clone(),
                format!("`{}`", r.flags),
                pages.to_string(),
                format!("{seconds:.2}"),
                format!("{:.0}", pages as f64 / seconds.max(1e-9)),
            ]
        })
        .collect();
    Table {
        title: "Reading pages: speed".into(),
        note: "Seconds of one thread summed over pages (decoding is done once, before), and pages per \
               second of one thread. `main+boilerplate` reuses the main text and adds the count of template \
               lines; `neardup dedup` extracts each page twice for it."
            .into(),
        columns: ["dataset", "neardup dedup", "pages", "seconds", "pages/s"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}
