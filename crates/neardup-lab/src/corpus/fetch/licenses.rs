//! `licenses.jsonl.gz` from ScanCode's `licensedcode-data` wheel (PyPI), as
//! `../shared/datasets/README.md` describes it: every canonical text
//! (`licensedcode/data/licenses/*.LICENSE`, kind `license`) and every rule marked
//! `is_license_text: yes` (`licensedcode/data/rules/*.RULE`, kind `rule`, id under
//! `rules_text/`), with at least 30 words; the text after the YAML front matter, line endings
//! `\n`, stripped; clustered by license expression, null for category expressions and for
//! keys ScanCode flags `is_generic` or `is_unknown`; ordered by id. And
//! `licenses-notices.jsonl.gz` from the same wheel: the rules marked `is_license_notice: yes`,
//! under `rules_notice/`. Rebuilding from version 32.1.0's wheel gives both published files'
//! records byte for byte (checked on 2026-11-29: 5,767 records, 902 unlabelled, content
//! sha256 `4ecc927d…`; 6,798 records, 1,007 unlabelled, `63a28eeb…`: the manifests').

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::archive::{ArchiveFile, Converted};

const LICENSES: &str = "licensedcode/data/licenses/";
const RULES: &str = "licensedcode/data/rules/";

/// Texts with fewer whitespace-separated words are skipped (84 canonical texts).
const MIN_WORDS: usize = 30;

/// Expressions naming a category rather than one text: their documents are negatives.
const CATEGORIES: [&str; 9] = [
    "proprietary-license",
    "other-permissive",
    "other-copyleft",
    "unknown",
    "public-domain",
    "free-unknown",
    "commercial-license",
    "warranty-disclaimer",
    "generic-cla",
];

/// The record written for a file; field order as published.
#[derive(Serialize)]
struct Record<'a> {
    id: String,
    text: &'a str,
    cluster: Option<String>,
    kind: &'static str,
}

/// Whether the converter reads a file of the wheel.
pub fn reads(path: &str) -> bool {
    (path.starts_with(LICENSES) && path.ends_with(".LICENSE"))
        || (path.starts_with(RULES) && path.ends_with(".RULE"))
}

/// A file's front matter (its top-level `key: value` lines, a value folded on over the
/// indented lines after it, as YAML folds a plain scalar: long license expressions are
/// written so) and its text, line endings normalized and stripped.
fn front_matter(text: &str) -> Result<(BTreeMap<&str, String>, &str), String> {
    let Some(rest) = text.strip_prefix("---\n") else {
        return Ok((BTreeMap::new(), text.trim()));
    };
    let (head, body) = match rest.find("\n---\n") {
        Some(end) => (&rest[..end], &rest[end + 5..]),
        // A file of front matter only ends with its closing line.
        None => match rest.trim_end().strip_suffix("\n---") {
            Some(head) => (head, ""),
            None => return Err("front matter without its closing ---".into()),
        },
    };
    let mut keys: BTreeMap<&str, String> = BTreeMap::new();
    let mut last: Option<&str> = None;
    for line in head.lines() {
        let key = line.split_once(':').filter(|(k, _)| {
            !k.is_empty() && k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        });
        match (key, last) {
            (Some((key, value)), _) => {
                keys.insert(key, value.trim().to_string());
                last = Some(key);
            }
            (None, Some(key)) if line.starts_with([' ', '\t']) && !line.trim().is_empty() => {
                let value = keys.get_mut(key).expect("the last key was inserted");
                *value = format!("{value} {}", line.trim()).trim().to_string();
            }
            _ => {}
        }
    }
    Ok((keys, body.trim()))
}

/// The cluster of an expression: itself, or none for a category or a flagged key.
fn cluster<'e>(expression: &'e str, flagged: &BTreeSet<String>) -> Option<&'e str> {
    let keys = expression
        .split(|c: char| !(c.is_ascii_alphanumeric() || "._+-".contains(c)))
        .filter(|k| {
            !k.is_empty() && !matches!(k.to_ascii_uppercase().as_str(), "AND" | "OR" | "WITH")
        });
    let category = CATEGORIES.iter().any(|c| expression.contains(c));
    (!category && !keys.into_iter().any(|k| flagged.contains(k))).then_some(expression)
}

/// A rule's license expression.
fn expression_of<'m>(meta: &'m BTreeMap<&str, String>, e: &Entry) -> Result<&'m str, String> {
    meta.get("license_expression")
        .map(String::as_str)
        .ok_or_else(|| format!("{}: no license_expression", e.name))
}

/// One file read: its name (without folder), kind, front matter and text.
struct Entry {
    name: String,
    license: bool,
    text: String,
}

/// Which of the two published files is built.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// `licenses.jsonl.gz`: canonical texts and the rules that are full license texts.
    Texts,
    /// `licenses-notices.jsonl.gz`: the rules that are license notices.
    Notices,
}

/// `licenses.jsonl.gz` from the wheel's files.
pub fn convert_texts(files: Vec<ArchiveFile>) -> Result<Converted, String> {
    convert(files, Kind::Texts)
}

/// `licenses-notices.jsonl.gz` from the wheel's files.
pub fn convert_notices(files: Vec<ArchiveFile>) -> Result<Converted, String> {
    convert(files, Kind::Notices)
}

/// Builds the published JSON Lines of `kind` from the wheel's files.
fn convert(files: Vec<ArchiveFile>, kind: Kind) -> Result<Converted, String> {
    let mut entries = Vec::with_capacity(files.len());
    for file in files {
        let text = String::from_utf8(file.bytes)
            .map_err(|_| format!("{}: not UTF-8", file.path))?
            .replace("\r\n", "\n")
            .replace('\r', "\n");
        let (folder, name) = file.path.rsplit_once('/').unwrap_or(("", &file.path));
        entries.push(Entry {
            name: name.to_string(),
            license: folder.ends_with("/licenses"),
            text,
        });
    }
    // The keys ScanCode itself flags generic or unknown.
    let mut flagged = BTreeSet::new();
    for e in entries.iter().filter(|e| e.license) {
        let (meta, _) = front_matter(&e.text).map_err(|m| format!("{}: {m}", e.name))?;
        let yes = |key| meta.get(key).is_some_and(|v| v == "yes");
        if yes("is_generic") || yes("is_unknown") {
            flagged.insert(e.name.trim_end_matches(".LICENSE").to_string());
        }
    }
    let mut records: Vec<Record<'_>> = Vec::new();
    for e in &entries {
        let (meta, body) = front_matter(&e.text).map_err(|m| format!("{}: {m}", e.name))?;
        if body.split_whitespace().count() < MIN_WORDS {
            continue;
        }
        let yes = |key| meta.get(key).is_some_and(|v| v == "yes");
        let (id, expression, record_kind) = match (kind, e.license) {
            (Kind::Texts, true) => {
                let key = meta
                    .get("key")
                    .map_or(e.name.trim_end_matches(".LICENSE"), String::as_str);
                (format!("licenses/{}", e.name), key, "license")
            }
            (Kind::Texts, false) if yes("is_license_text") => (
                format!("rules_text/{}", e.name),
                expression_of(&meta, e)?,
                "rule",
            ),
            (Kind::Notices, false) if yes("is_license_notice") => (
                format!("rules_notice/{}", e.name),
                expression_of(&meta, e)?,
                "rule",
            ),
            _ => continue,
        };
        records.push(Record {
            id,
            text: body,
            cluster: cluster(expression, &flagged).map(str::to_string),
            kind: record_kind,
        });
    }
    records.sort_by(|a, b| a.id.cmp(&b.id));
    let mut built = Converted::default();
    for record in &records {
        built.push(record);
    }
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize) -> String {
        (0..n).map(|i| format!("w{i} ")).collect()
    }

    /// The README's rules on a small wheel: short texts skipped, rules only when license
    /// text, clusters null for categories and flagged keys, CRLF normalized, sorted by id,
    /// a file of front matter only read.
    #[test]
    fn records_follow_the_published_rules() {
        let long = words(30);
        let files = vec![
            ArchiveFile::of(
                "licensedcode/data/rules/mit_2.RULE",
                &format!(
                    "---\r\nlicense_expression: mit\r\nis_license_text: yes\r\n---\r\n{long}\r\n"
                ),
            ),
            ArchiveFile::of(
                "licensedcode/data/rules/mit_1.RULE",
                &format!("---\nlicense_expression: mit\nis_license_notice: yes\n---\n{long}"),
            ),
            ArchiveFile::of(
                "licensedcode/data/rules/x_1.RULE",
                &format!(
                    "---\nlicense_expression: gpl-2.0 OR generic-exception\nis_license_text: yes\n---\n{long}"
                ),
            ),
            ArchiveFile::of(
                "licensedcode/data/rules/p_1.RULE",
                &format!(
                    "---\nlicense_expression: proprietary-license\nis_license_text: yes\n---\n{long}"
                ),
            ),
            ArchiveFile::of(
                "licensedcode/data/licenses/mit.LICENSE",
                &format!("---\nkey: mit\nnotes: a note\n    key: not a key\n---\n\n{long}\n\n"),
            ),
            ArchiveFile::of(
                "licensedcode/data/licenses/short.LICENSE",
                &format!("---\nkey: short\n---\n{}", words(29)),
            ),
            ArchiveFile::of(
                "licensedcode/data/licenses/generic-exception.LICENSE",
                "---\nkey: generic-exception\nis_generic: yes\n---",
            ),
        ];
        let built = convert_texts(files).unwrap();
        let text = String::from_utf8(built.jsonl).unwrap();
        let ids: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let fields = |i: usize| {
            (
                ids[i]["id"].as_str().unwrap().to_string(),
                ids[i]["cluster"].as_str().map(str::to_string),
                ids[i]["kind"].as_str().unwrap().to_string(),
            )
        };
        assert_eq!(built.documents, 4, "{text}");
        assert_eq!(
            fields(0),
            (
                "licenses/mit.LICENSE".into(),
                Some("mit".into()),
                "license".into()
            )
        );
        assert_eq!(
            fields(1),
            (
                "rules_text/mit_2.RULE".into(),
                Some("mit".into()),
                "rule".into()
            )
        );
        assert_eq!(
            fields(2),
            ("rules_text/p_1.RULE".into(), None, "rule".into())
        );
        assert_eq!(
            fields(3),
            ("rules_text/x_1.RULE".into(), None, "rule".into())
        );
        assert_eq!(ids[0]["text"], long.trim());
        assert!(
            text.starts_with("{\"id\":\"licenses/mit.LICENSE\",\"text\":\"w0 w1"),
            "{text}"
        );
    }

    /// Notices are the rules marked `is_license_notice`, under `rules_notice/`; an expression
    /// folded over indented lines is read whole (read line by line, 34 notices got a cut expression).
    #[test]
    fn notices_read_folded_expressions_whole() {
        let long = words(30);
        let files = vec![
            ArchiveFile::of(
                "licensedcode/data/rules/a_1.RULE",
                &format!(
                    "---\nlicense_expression: epl-2.0 OR apache-2.0\n    OR gpl-2.0 WITH x\n\
                     is_license_notice: yes\nnotes: n\n---\n{long}"
                ),
            ),
            ArchiveFile::of(
                "licensedcode/data/rules/b_1.RULE",
                &format!("---\nlicense_expression: mit\nis_license_text: yes\n---\n{long}"),
            ),
        ];
        let text = String::from_utf8(convert_notices(files).unwrap().jsonl).unwrap();
        let record: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert_eq!(record["id"], "rules_notice/a_1.RULE");
        assert_eq!(record["cluster"], "epl-2.0 OR apache-2.0 OR gpl-2.0 WITH x");
    }
}
