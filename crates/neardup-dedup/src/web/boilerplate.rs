//! Site templates that make no duplicates (`--boilerplate-lines K`): a line (digits
//! normalised) that occurs on K or more pages of the same host is the host's template —
//! navigation, cookie notices, "related stories", a sidebar the extractor kept — and is
//! dropped before shingling. CCNet does this across a whole crawl shard by paragraph hashes
//! (Wenzek et al., LREC 2020, §3.1); grouping by host keeps a line common to one site out and
//! leaves a sentence quoted by many sites in. Language-independent: lines are compared by
//! hash, not by words.
//!
//! What it costs: one more pass over the pages before the sketch (each page extracted twice),
//! and a table of one 12-byte entry per distinct (host, line) in memory.

use std::collections::{HashMap, HashSet};

use xxhash_rust::xxh3::xxh3_64;

/// Lines found on at least `min_pages` pages of their host.
#[derive(Debug, Clone, Default)]
pub struct Boilerplate {
    lines: HashSet<u64>,
}

/// Counts of pages per (host, line), built page by page.
#[derive(Debug, Default)]
pub struct LineCounts {
    pages: HashMap<u64, u32>,
    scratch: HashSet<u64>,
    line: String,
}

impl LineCounts {
    /// Counts the distinct lines of one page of `host`.
    pub fn add_page(&mut self, host: Option<&str>, text: &str) {
        self.scratch.clear();
        let host = host_hash(host);
        for line in text.lines() {
            if let Some(key) = line_key(host, line, &mut self.line) {
                self.scratch.insert(key);
            }
        }
        for &key in &self.scratch {
            *self.pages.entry(key).or_default() += 1;
        }
    }

    /// The lines on at least `min_pages` pages of their host.
    pub fn boilerplate(self, min_pages: u32) -> Boilerplate {
        Boilerplate {
            lines: self
                .pages
                .into_iter()
                .filter(|&(_, n)| n >= min_pages)
                .map(|(key, _)| key)
                .collect(),
        }
    }
}

impl Boilerplate {
    /// How many (host, line) pairs are template lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether no line is a template line.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// `text` without its host's template lines.
    pub fn strip(&self, host: Option<&str>, text: &str) -> String {
        let host = host_hash(host);
        let mut scratch = String::new();
        let mut out = String::with_capacity(text.len());
        for line in text.lines() {
            let template =
                line_key(host, line, &mut scratch).is_some_and(|k| self.lines.contains(&k));
            if !template {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(line);
            }
        }
        out
    }
}

fn host_hash(host: Option<&str>) -> u64 {
    xxh3_64(host.unwrap_or("").as_bytes())
}

/// The key of a line of a host: the hash of the host and of the line with each run of digits
/// as one `0`,
/// whitespace collapsed and case folded (a date or a counter does not make a template line
/// unique); `None` for a blank line.
fn line_key(host: u64, line: &str, scratch: &mut String) -> Option<u64> {
    scratch.clear();
    for word in line.split_whitespace() {
        if !scratch.is_empty() {
            scratch.push(' ');
        }
        let mut in_number = false;
        for c in word.chars() {
            if c.is_numeric() {
                // A run of digits is one `0`: "9 June" and "30 June" are one template line.
                if !in_number {
                    scratch.push('0');
                }
                in_number = true;
            } else {
                in_number = false;
                scratch.extend(c.to_lowercase());
            }
        }
    }
    if scratch.is_empty() {
        return None;
    }
    Some(xxh3_64(scratch.as_bytes()) ^ host.rotate_left(29))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_on_k_pages_of_one_host_are_dropped_and_only_there() {
        let mut counts = LineCounts::default();
        for story in ["apples", "pears", "plums"] {
            let day = story.len();
            let page = format!("Home | News | Sport\nA story of {story}\nUpdated {day} May 2026");
            counts.add_page(Some("a.com"), &page);
        }
        counts.add_page(Some("b.com"), "Home | News | Sport\nB's story");
        let template = counts.boilerplate(3);
        assert_eq!(
            template.len(),
            2,
            "the menu and the dated line, on a.com only"
        );
        assert_eq!(
            template.strip(
                Some("a.com"),
                "Home | News | Sport\nNew story\nUpdated 9 June 2027"
            ),
            "New story\nUpdated 9 June 2027"
        );
        assert_eq!(template.strip(Some("a.com"), "Updated 30 May 2026\nx"), "x");
        assert_eq!(
            template.strip(Some("b.com"), "Home | News | Sport\nB"),
            "Home | News | Sport\nB"
        );
    }

    #[test]
    fn a_line_counts_once_per_page() {
        let mut counts = LineCounts::default();
        counts.add_page(None, "share\nshare\nshare");
        assert!(counts.boilerplate(2).is_empty());
    }
}
