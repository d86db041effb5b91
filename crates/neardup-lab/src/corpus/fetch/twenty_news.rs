//! `20news.jsonl.gz` from the "bydate" 20 Newsgroups tree (`20news-bydate-{train,test}/
//! <group>/<message number>`), as `../shared/datasets/README.md` describes it: one record per
//! message, `{"id", "text", "group", "subject"}`, ordered by split (train, test), group name,
//! numeric message number. Rebuilding from the upstream commit the manifest names gives the
//! published records byte for byte (checked on 2026-11-28 with an archive of that commit:
//! 18,846 records, content sha256 `b6976a0f…`, the manifest's).

use std::collections::BTreeMap;

use serde::Serialize;

use super::archive::{ArchiveFile, Converted};

/// One message of the tree: its split, group and number.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Message {
    /// 0 for train, 1 for test (the published order).
    split: u8,
    group: String,
    number: u64,
}

/// The record written for a message; field order as published.
#[derive(Serialize)]
struct Record<'a> {
    id: String,
    text: &'a str,
    group: &'a str,
    subject: String,
}

/// Where a file of the archive sits in the tree, if it is a message (`.DS_Store` and the
/// rest of the repository are not).
fn message_at(path: &str) -> Option<Message> {
    let parts: Vec<&str> = path.split('/').collect();
    let at = parts.iter().position(|p| p.starts_with("20news-bydate-"))?;
    let [split, group, number] = parts.get(at..)? else {
        return None;
    };
    let split = match *split {
        "20news-bydate-train" => 0,
        "20news-bydate-test" => 1,
        _ => return None,
    };
    let number = (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        .then(|| number.parse().ok())??;
    Some(Message {
        split,
        group: group.to_string(),
        number,
    })
}

/// Python's `str.isspace`, which the published files were cut with (it counts the ASCII
/// separators U+001C–U+001F, which Rust's `is_whitespace` does not).
pub(super) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The body: everything after the first empty line, leading blank lines and trailing
/// whitespace removed.
fn body(message: &str) -> &str {
    let Some((_, body)) = message.split_once("\n\n") else {
        return "";
    };
    let mut rest = body;
    while let Some((line, after)) = rest.split_once('\n') {
        if !line.chars().all(is_space) {
            break;
        }
        rest = after;
    }
    if rest.chars().all(is_space) {
        return "";
    }
    rest.trim_end_matches(is_space)
}

/// The Subject header, unfolded and whitespace collapsed; continuation lines left by a
/// References header the bydate preprocessing removed (every word a message-id fragment,
/// holding `<`, `>` or `@`) are not part of it.
fn subject(message: &str) -> String {
    let head = message.split_once("\n\n").map_or(message, |(h, _)| h);
    let lines: Vec<&str> = head.split('\n').collect();
    let Some(at) = lines.iter().position(|l| {
        l.get(..8)
            .is_some_and(|p| p.eq_ignore_ascii_case("subject:"))
    }) else {
        return String::new();
    };
    let mut parts = vec![&lines[at][8..]];
    for line in lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with([' ', '\t']))
    {
        let words: Vec<&str> = line.split(is_space).filter(|w| !w.is_empty()).collect();
        let references = !words.is_empty() && words.iter().all(|w| w.contains(['<', '>', '@']));
        if !references {
            parts.push(line);
        }
    }
    let joined = parts.join(" ");
    let words: Vec<&str> = joined.split(is_space).filter(|w| !w.is_empty()).collect();
    words.join(" ")
}

/// The JSONL of the messages among `files` (other files ignored).
pub fn convert(files: Vec<ArchiveFile>) -> Result<Converted, String> {
    let mut messages = BTreeMap::new();
    for file in files {
        if let Some(m) = message_at(&file.path) {
            let text = String::from_utf8(file.bytes)
                .map_err(|e| format!("{}: not UTF-8 ({e})", file.path))?;
            messages.insert(m, text.replace("\r\n", "\n").replace('\r', "\n"));
        }
    }
    let mut built = Converted::default();
    for (m, text) in &messages {
        let split = ["train", "test"][m.split as usize];
        let record = Record {
            id: format!("{split}/{}/{}", m.group, m.number),
            text: body(text),
            group: &m.group,
            subject: subject(text),
        };
        built.push(&record);
    }
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rule of the published README, on messages written to show it; the oracle is the
    /// record written out by hand.
    #[test]
    fn messages_become_the_published_records() {
        let root = "mlnn_P65-7393be6/data";
        let files = vec![
            ArchiveFile::of(
                &format!("{root}/20news-bydate-test/sci.space/7"),
                "Subject: Late\n\nbody\n",
            ),
            // Numeric order: 10 after 9; train before test; groups by name.
            ArchiveFile::of(
                &format!("{root}/20news-bydate-train/sci.space/10"),
                "From: a@b\r\nSubject: Re: Orbits\r\n\r\n\r\n \t\n\x0c\n  indented first\nline two  \n\n",
            ),
            ArchiveFile::of(
                &format!("{root}/20news-bydate-train/sci.space/9"),
                "Subject: Re: Israeli\n <AMOSS.93@huji.ac.il><2BD@uci.ed\n u><1993@harvard.edu>\n folded on\nLines: 3\n\nText",
            ),
            ArchiveFile::of(
                &format!("{root}/20news-bydate-train/alt.atheism/3"),
                "From: x\nOrganization: y",
            ),
            ArchiveFile::of(
                &format!("{root}/20news-bydate-train/alt.atheism/.DS_Store"),
                "\0\0",
            ),
            ArchiveFile::of("mlnn_P65-7393be6/README.md", "not a message"),
        ];
        let out = convert(files).unwrap();
        let want = concat!(
            r#"{"id":"train/alt.atheism/3","text":"","group":"alt.atheism","subject":""}"#,
            "\n",
            r#"{"id":"train/sci.space/9","text":"Text","group":"sci.space","subject":"Re: Israeli folded on"}"#,
            "\n",
            r#"{"id":"train/sci.space/10","text":"  indented first\nline two","group":"sci.space","subject":"Re: Orbits"}"#,
            "\n",
            r#"{"id":"test/sci.space/7","text":"body","group":"sci.space","subject":"Late"}"#,
            "\n",
        );
        assert_eq!(String::from_utf8(out.jsonl).unwrap(), want);
        assert_eq!(out.documents, 4);
    }

    #[test]
    fn a_message_that_is_not_utf8_is_named() {
        let bad = ArchiveFile {
            path: "x/20news-bydate-train/g/1".into(),
            bytes: vec![b'S', 0xff],
        };
        let e = convert(vec![bad]).unwrap_err();
        assert!(
            e.contains("x/20news-bydate-train/g/1") && e.contains("UTF-8"),
            "{e}"
        );
    }
}
