//! Web pages in: WARC/WET and HTML files read, each page's bytes decoded as a browser would
//! and its text extracted, so that the shingler sees what a reader reads, not the markup.
//!
//! Why: every algorithm neardup implements was designed for crawled pages, and each assumes
//! this step — I-Match takes "the main content, markup dropped" (Chowdhury et al. 2002 §3),
//! Tianwang keeps the visible text, SpotSigs exists because pages carry navigation and ads.
//! Raw HTML given as text makes two articles of one site near-duplicates (their template
//! dominates) and the same article on two sites distinct.
//!
//! Pipeline per page: record ([`warc`], or an HTML file, or a record's HTML field) → charset
//! ([`charset`]) → text ([`extract`]: main content, visible text, or as it is) → the input
//! layer's [`Record`], with its URL, host, date, charset and title ([`PageInfo`]). Decoding and
//! extraction run in parallel over a block of pages; what happened to each page is counted in
//! the [`tally::PageTally`] of the [`Fields`].
//!
//! The HTML crates live here, in the product crate: the algorithm crate never sees markup.

pub mod boilerplate;
pub mod charset;
pub mod export;
pub mod extract;
pub mod host_templates;
mod scan;
pub mod tally;
mod visible;
pub mod warc;

use std::borrow::Cow;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::input::fields::Fields;
use crate::input::files::InputFile;
use crate::input::keep_value;
use crate::input::position::{ReadFrom, ReadPosition};
use crate::input::record::{PageInfo, Record, host_of};
use extract::{Extract, Outcome, page_text};
use warc::{Body, RawPage};

pub use scan::visible_text_by_scan;
pub use visible::visible_text;

/// The records of a WARC or WET file: its pages, decoded and extracted, in blocks.
pub fn read_warc(
    file: &InputFile,
    from: &ReadFrom,
    fields: &Fields,
    mut each: impl FnMut(Vec<Record<'_>>, ReadPosition) -> Result<()>,
) -> Result<()> {
    let mut any = false;
    warc::for_each_page_block(
        file,
        from.position,
        from.block,
        &fields.tally,
        |pages, at| {
            any |= !pages.is_empty();
            each(pages_to_records(pages, fields), at)
        },
    )?;
    if !any && from.position.records == 0 {
        fields.tally.add("WARC files with no HTML page");
        crate::progress::say(format_args!(
            "{}: no HTML page in it (no response or resource record with an HTML payload, no \
             WET conversion record); nothing read",
            file.path.display()
        ));
    }
    Ok(())
}

/// Pages decoded and extracted in parallel, in order.
fn pages_to_records(pages: Vec<RawPage>, fields: &Fields) -> Vec<Record<'static>> {
    pages
        .into_par_iter()
        .map(|page| {
            let host = page.url.as_deref().and_then(host_of);
            let info = PageInfo {
                url: page.url,
                host,
                date: page.date,
                ..PageInfo::default()
            };
            let id = Some(page.id);
            match page.body {
                // A WET record is text already, UTF-8 by Common Crawl's convention.
                Body::Text => {
                    let text = String::from_utf8_lossy(&page.bytes);
                    Record {
                        line: page.record,
                        id,
                        text: Cow::Owned(without_template(text.into_owned(), &info, fields)),
                        keep: keep_value_of(&info, fields),
                        page: Some(Box::new(info)),
                    }
                }
                Body::Html => {
                    let decoded = charset::decode_page(
                        &page.bytes,
                        page.http_charset.as_deref(),
                        info.host.as_deref(),
                    );
                    page_record(
                        page.record,
                        id,
                        &decoded.text,
                        Some(decoded.encoding.name()),
                        info,
                        fields,
                    )
                }
            }
        })
        .collect()
}

/// A page's record: its text as `fields.extract` takes it, the outcome counted.
fn page_record(
    line: u64,
    id: Option<String>,
    html: &str,
    charset: Option<&'static str>,
    info: PageInfo,
    fields: &Fields,
) -> Record<'static> {
    let taken = page_text(html, fields.extract);
    if fields.extract != Extract::None {
        fields
            .tally
            .add(&format!("pages: {}", taken.outcome.name()));
    }
    Record {
        line,
        id,
        text: Cow::Owned(without_template(taken.text, &info, fields)),
        keep: keep_value_of(&info, fields),
        page: Some(Box::new(PageInfo {
            charset,
            title: taken.title,
            ..info
        })),
    }
}

/// A page's text without its host's template lines, when they were counted.
fn without_template(text: String, info: &PageInfo, fields: &Fields) -> String {
    match &fields.boilerplate {
        Some(template) => template.strip(info.host.as_deref(), &text),
        None => text,
    }
}

/// A page's value for `--keep max:date` / `min:date`: when it was fetched (`WARC-Date`, or
/// the record's `date` field); a date that does not parse counts as none (crawls are messy;
/// `pipeline::state` refuses other keep fields for WARC and HTML files, which have no fields).
fn keep_value_of(info: &PageInfo, fields: &Fields) -> f64 {
    match (fields.keep.as_deref(), &info.date) {
        (Some("date"), Some(date)) => {
            keep_value::seconds_of_date(date.trim()).unwrap_or(keep_value::MISSING)
        }
        _ => keep_value::MISSING,
    }
}

/// Records whose text is a page's HTML (a `--html-field`), extracted in parallel.
pub fn extract_records<'a>(records: Vec<Record<'a>>, fields: &Fields) -> Vec<Record<'a>> {
    if fields.extract == Extract::None {
        return records;
    }
    records
        .into_par_iter()
        .map(|r| {
            let info = r.page.map(|p| *p).unwrap_or_default();
            // The keep value as the record's own field gave it (a page's `date` among them).
            let keep = r.keep;
            Record {
                keep,
                ..page_record(r.line, r.id, &r.text, None, info, fields)
            }
        })
        .collect()
}

/// The record of an HTML file (plain, gzip or zstd): one page, its path as its id.
pub fn read_html_file(
    file: &InputFile,
    from: &ReadFrom,
    fields: &Fields,
    mut each: impl FnMut(Vec<Record<'_>>, ReadPosition) -> Result<()>,
) -> Result<()> {
    use std::io::Read;
    if from.position.records > 0 {
        return Ok(());
    }
    let reader = crate::input::open::open(file)?;
    let mut bytes = Vec::new();
    reader
        .take(extract::MAX_PAGE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            Error::file(
                &file.path,
                format!("cannot read (damaged or truncated file?): {e}"),
            )
        })?;
    let id = Some(file.path.display().to_string());
    let record = if bytes.len() > extract::MAX_PAGE_BYTES {
        fields
            .tally
            .add(&format!("pages: {}", Outcome::TooLarge.name()));
        Record::new(1, id, Cow::Owned(String::new()))
    } else {
        let decoded = charset::decode_page(&bytes, None, None);
        page_record(
            1,
            id,
            &decoded.text,
            Some(decoded.encoding.name()),
            PageInfo::default(),
            fields,
        )
    };
    let after = ReadPosition {
        records: 1,
        line: 2,
        byte: u64::MAX,
    };
    each(vec![record], after)
}
