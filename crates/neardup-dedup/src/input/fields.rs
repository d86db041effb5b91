//! Which parts of a record are read and how: the text and id fields, or the field holding a
//! page's HTML and the text its extraction takes.

use std::sync::Arc;

use crate::input::files::{FileFormat, InputFile};
use crate::web::boilerplate::Boilerplate;
use crate::web::extract::Extract;
use crate::web::tally::PageTally;

/// What is read of each record.
#[derive(Debug, Clone)]
pub struct Fields {
    /// The text field (JSONL, CSV, Parquet).
    pub text: String,
    /// The id field.
    pub id: String,
    /// A field holding a page's HTML (`--html-field`): read instead of `text`, and extracted.
    pub html: Option<String>,
    /// Which text of a web page is compared (WARC, HTML files, `html`).
    pub extract: Extract,
    /// What happened to web pages (skipped records, extraction outcomes).
    pub tally: PageTally,
    /// Template lines dropped from pages' text (`--boilerplate-lines`), once counted.
    pub boilerplate: Option<Arc<Boilerplate>>,
    /// Documents with fewer words are matched by their exact text only (`--min-words`; 0:
    /// every document takes part; `pipeline::short_texts`).
    pub min_words: usize,
    /// Malformed JSON Lines records are skipped and counted per file instead of stopping the
    /// run (`--skip-invalid`).
    pub skip_invalid: bool,
    /// The records skipped so far, by file.
    pub skipped: SkippedRecords,
    /// The field whose value `--keep max:FIELD` / `min:FIELD` chooses by (a web page's
    /// `date` is when it was fetched).
    pub keep: Option<String>,
}

/// Malformed records skipped, per input file (files are read concurrently, so one counter
/// each).
#[derive(Debug, Clone, Default)]
pub struct SkippedRecords(
    Arc<std::sync::Mutex<std::collections::BTreeMap<std::path::PathBuf, u64>>>,
);

impl SkippedRecords {
    /// Counts `n` more skipped in `file`.
    pub fn add(&self, file: &std::path::Path, n: u64) {
        if n > 0 {
            let mut m = self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *m.entry(file.to_path_buf()).or_default() += n;
        }
    }

    /// Skipped in `file` so far.
    pub fn of(&self, file: &std::path::Path) -> u64 {
        let m = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        m.get(file).copied().unwrap_or(0)
    }
}

impl Fields {
    /// Text and id fields, no HTML field, pages' main content.
    pub fn new(text: &str, id: &str) -> Fields {
        Fields {
            text: text.to_string(),
            id: id.to_string(),
            html: None,
            extract: Extract::Main,
            tally: PageTally::default(),
            boilerplate: None,
            min_words: 0,
            skip_invalid: false,
            skipped: SkippedRecords::default(),
            keep: None,
        }
    }

    /// Whether `file`'s records are web pages: their text is what extraction takes (WARC and
    /// HTML files, or any file read through an HTML field).
    pub fn reads_pages(&self, file: &InputFile) -> bool {
        matches!(file.format, FileFormat::Warc | FileFormat::Html) || self.html.is_some()
    }

    /// The field the record's text (or HTML) is read from.
    pub fn text_source(&self) -> &str {
        self.html.as_deref().unwrap_or(&self.text)
    }
}
