//! How a page corpus is read before any algorithm sees it — the four ways a user can give
//! pages to `neardup dedup`: the HTML as text (`--extract none`), its visible text
//! (`--extract visible`), its main content (`--extract main`, the default), and the main
//! content without the lines a host repeats on several pages (`--boilerplate-lines K`). The
//! functions are the product's own (`neardup_dedup::web`).

use std::time::Instant;

use neardup_dedup::web::boilerplate::LineCounts;
use neardup_dedup::web::extract::{Extract, page_text};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Pages, words};
use crate::corpus::model::Corpus;
use crate::edits::derive::{Record, to_corpus};
use crate::error::Result;

/// One way of reading pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reading {
    /// The HTML as text.
    Html,
    /// Every visible text.
    Visible,
    /// The main content.
    Main,
    /// The main content without template lines: lines on `min_pages` or more pages of a host.
    MainWithoutTemplate {
        /// `--boilerplate-lines`.
        min_pages: u32,
    },
}

impl Reading {
    /// The names `read = [...]` takes.
    pub const NAMES: &[&str] = &["html", "visible", "main", "main+boilerplate"];

    /// The reading called `name` (`boilerplate_lines` is K of `main+boilerplate`).
    pub fn parse(name: &str, boilerplate_lines: u32) -> Option<Reading> {
        match name {
            "html" => Some(Reading::Html),
            "visible" => Some(Reading::Visible),
            "main" => Some(Reading::Main),
            "main+boilerplate" => Some(Reading::MainWithoutTemplate {
                min_pages: boilerplate_lines,
            }),
            _ => None,
        }
    }

    /// Its short name in tables and dataset labels (`main+bp K`: short enough for a chart
    /// panel's title beside the build parameters).
    pub fn name(self) -> String {
        match self {
            Reading::Html => "html".into(),
            Reading::Visible => "visible".into(),
            Reading::Main => "main".into(),
            Reading::MainWithoutTemplate { min_pages } => format!("main+bp {min_pages}"),
        }
    }

    /// The `neardup dedup` flags that read pages this way.
    pub fn flags(self) -> String {
        match self {
            Reading::Html => "--extract none".into(),
            Reading::Visible => "--extract visible".into(),
            Reading::Main => "--extract main".into(),
            Reading::MainWithoutTemplate { min_pages } => {
                format!("--extract main --boilerplate-lines {min_pages}")
            }
        }
    }
}

/// How well and how fast one reading recovered the pages' articles.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ReadingStats {
    /// Pages read.
    pub pages: usize,
    /// Generated pages dropped (their article not recovered by the default extraction).
    pub dropped: usize,
    /// Mean word precision of the text against the page's article.
    pub precision: f64,
    /// Mean word recall.
    pub recall: f64,
    /// Seconds of one thread, summed over pages.
    pub seconds: f64,
}

/// The corpus `reading` makes of `pages` (ids, clusters as generated), and how it did.
pub fn read(pages: &Pages, reading: Reading, name: &str) -> Result<(Corpus, ReadingStats)> {
    let (texts, seconds) = texts(pages, reading);
    let scores: Vec<(f64, f64)> = pages
        .pages
        .par_iter()
        .zip(&texts)
        .map(|(p, t)| words::precision_recall(t, &p.article))
        .collect();
    let n = scores.len().max(1) as f64;
    let stats = ReadingStats {
        pages: pages.pages.len(),
        dropped: pages.dropped,
        precision: scores.iter().map(|s| s.0).sum::<f64>() / n,
        recall: scores.iter().map(|s| s.1).sum::<f64>() / n,
        seconds,
    };
    let records: Vec<Record> = pages
        .pages
        .iter()
        .zip(texts)
        .map(|(p, text)| Record {
            id: p.id.clone(),
            text,
            cluster: p.cluster.clone(),
            source: None,
            edits: Vec::new(),
        })
        .collect();
    let source = format!("{name} read as {}", reading.name());
    Ok((to_corpus(&records, name, &source)?, stats))
}

/// `corpus` whose texts are pages' HTML, each replaced by the text `mode` takes of it (ids and
/// labels kept): what `calibrate`, `label`, `inspect` and `eval` read with `--html-field`.
pub fn extracted(corpus: &Corpus, mode: Extract) -> Result<Corpus> {
    use sha2::Digest;
    let texts: Vec<String> = (0..corpus.len())
        .into_par_iter()
        .map(|i| page_text(corpus.text(i), mode).text)
        .collect();
    let mut b = crate::corpus::model::CorpusBuilder::new(std::path::Path::new(&corpus.source));
    for (i, text) in texts.iter().enumerate() {
        let label = corpus.label(i).map(|l| corpus.label_name(l).to_string());
        b.push(i + 1, corpus.id(i).to_string(), text, label.as_deref())?;
    }
    let mut sha = sha2::Sha256::new();
    sha.update(corpus.sha256.as_bytes());
    sha.update(format!("/extract={}", mode.name()).as_bytes());
    b.finish(
        corpus.name.clone(),
        format!(
            "{} (pages read with --extract {})",
            corpus.source,
            mode.name()
        ),
        neardup_dedup::input::checksummed::hex(&sha.finalize()),
    )
}

/// Each page's text, and the seconds of one thread it took.
fn texts(pages: &Pages, reading: Reading) -> (Vec<String>, f64) {
    let timed = |mode: Extract| -> (Vec<String>, f64) {
        let out: Vec<(String, f64)> = pages
            .pages
            .par_iter()
            .map(|p| {
                let started = Instant::now();
                let text = page_text(&p.html, mode).text;
                (text, started.elapsed().as_secs_f64())
            })
            .collect();
        let seconds = out.iter().map(|o| o.1).sum();
        (out.into_iter().map(|o| o.0).collect(), seconds)
    };
    let main_seconds = || pages.pages.iter().map(|p| p.main_seconds).sum::<f64>();
    match reading {
        Reading::Html => timed(Extract::None),
        Reading::Visible => timed(Extract::Visible),
        Reading::Main => (
            pages.pages.iter().map(|p| p.main.clone()).collect(),
            main_seconds(),
        ),
        Reading::MainWithoutTemplate { min_pages } => {
            let started = Instant::now();
            let mut counts = LineCounts::default();
            for p in &pages.pages {
                counts.add_page(Some(&p.host), &p.main);
            }
            let template = counts.boilerplate(min_pages);
            let texts = pages
                .pages
                .iter()
                .map(|p| template.strip(Some(&p.host), &p.main))
                .collect();
            (texts, main_seconds() + started.elapsed().as_secs_f64())
        }
    }
}
