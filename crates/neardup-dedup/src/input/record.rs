//! One record as the input layer hands it on: where it is, its id, its text, and for a web
//! page where it came from and how it was read.

use std::borrow::Cow;

/// One record: where it is, its id and its text (borrowed from the line when it can be).
#[derive(Debug, Clone)]
pub struct Record<'a> {
    /// Line (JSONL, CSV), row (Parquet) or record (WARC: every record counted) number, 1-based.
    pub line: u64,
    /// The id, if the record has one.
    pub id: Option<String>,
    /// The text (for a web page: the text its extraction took).
    pub text: Cow<'a, str>,
    /// For a web page: its URL, host, date, charset and title.
    pub page: Option<Box<PageInfo>>,
    /// The value of the field `--keep max:FIELD` names ([`super::keep_value`]; NaN: none).
    pub keep: f64,
}

impl<'a> Record<'a> {
    /// A record that is not a web page.
    pub fn new(line: u64, id: Option<String>, text: Cow<'a, str>) -> Record<'a> {
        Record {
            line,
            id,
            text,
            page: None,
            keep: super::keep_value::MISSING,
        }
    }
}

/// Where a web page came from and how it was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageInfo {
    /// Its URL (`WARC-Target-URI`, or the record's `url` field).
    pub url: Option<String>,
    /// Its host, lowercase, without `www.` (from the URL, or the record's `host` field).
    pub host: Option<String>,
    /// When it was fetched (`WARC-Date`).
    pub date: Option<String>,
    /// The charset it was decoded from (`None`: given as text).
    pub charset: Option<&'static str>,
    /// Its title, where the extractor found one.
    pub title: Option<String>,
}

/// The host of a URL: lowercase, without user, port or a leading `www.`.
pub fn host_of(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if authority.starts_with('[') {
        authority.split_inclusive(']').next().unwrap_or(authority)
    } else {
        authority.split(':').next().unwrap_or(authority)
    };
    let host = host.to_ascii_lowercase();
    let host = host
        .strip_prefix("www.")
        .map(str::to_string)
        .unwrap_or(host);
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::host_of;

    #[test]
    fn hosts_of_urls() {
        assert_eq!(
            host_of("https://www.BBC.com/news/x?y").as_deref(),
            Some("bbc.com")
        );
        assert_eq!(
            host_of("http://user@example.org:8080/").as_deref(),
            Some("example.org")
        );
        assert_eq!(host_of("http://[::1]:80/a").as_deref(), Some("[::1]"));
        assert_eq!(host_of("dns:example.com").as_deref(), None);
        assert_eq!(host_of("").as_deref(), None);
    }
}
