//! `bible-en.jsonl.gz` and `bible-zh.jsonl.gz` from GitHub's `scrollmapper/bible_databases`,
//! as `../shared/datasets/README.md` describes them: one record per translation, book and
//! chapter, the versions of a chapter forming a cluster `<book, 2 digits>/<chapter>`.
//!
//! - bible-en: `txt/{KJV,ASV,WEB,BBE,YLT}/<n> <Book> - <Version>.txt` of the `2024` branch
//!   commit, verses joined by single spaces. WEB's translator notes in `{braces}` are removed,
//!   as is the stray `>` that begins 117 of its psalms.
//! - bible-zh: `formats/txt/{ChiUn,ChiSB,ChiUnL}.txt` of the `master` commit, verses joined
//!   with no separator and no spaces; ChiUn also keeps its upstream chunk spaces in
//!   `text_segmented`. Only the chapters all three translations have are kept.
//!
//! Rebuilt from the commits the manifests name, both give the published records byte for byte
//! (checked on 2026-11-29: bible-en 5,945 records, content sha256 `460e4ac0…`; bible-zh 3,564,
//! `d0ddd902…`). Every rule below is one the README states; the Python that wrote the
//! published files decides the details (its `\s` is [`is_space`], its `isalnum` ASCII here).

use std::collections::BTreeMap;

use serde::Serialize;

use super::archive::{ArchiveFile, Converted};
use super::twenty_news::is_space;

/// The 66 books in canonical Protestant order, under bible-en's names: book `n` is
/// `BOOKS[n - 1]` in both corpora.
const BOOKS: [&str; 66] = [
    "Genesis",
    "Exodus",
    "Leviticus",
    "Numbers",
    "Deuteronomy",
    "Joshua",
    "Judges",
    "Ruth",
    "1 Samuel",
    "2 Samuel",
    "1 Kings",
    "2 Kings",
    "1 Chronicles",
    "2 Chronicles",
    "Ezra",
    "Nehemiah",
    "Esther",
    "Job",
    "Psalms",
    "Proverbs",
    "Ecclesiastes",
    "Song of Solomon",
    "Isaiah",
    "Jeremiah",
    "Lamentations",
    "Ezekiel",
    "Daniel",
    "Hosea",
    "Joel",
    "Amos",
    "Obadiah",
    "Jonah",
    "Micah",
    "Nahum",
    "Habakkuk",
    "Zephaniah",
    "Haggai",
    "Zechariah",
    "Malachi",
    "Matthew",
    "Mark",
    "Luke",
    "John",
    "Acts",
    "Romans",
    "1 Corinthians",
    "2 Corinthians",
    "Galatians",
    "Ephesians",
    "Philippians",
    "Colossians",
    "1 Thessalonians",
    "2 Thessalonians",
    "1 Timothy",
    "2 Timothy",
    "Titus",
    "Philemon",
    "Hebrews",
    "James",
    "1 Peter",
    "2 Peter",
    "1 John",
    "2 John",
    "3 John",
    "Jude",
    "Revelation",
];

const ENGLISH: [&str; 5] = ["KJV", "ASV", "WEB", "BBE", "YLT"];
const CHINESE: [&str; 3] = ["ChiUn", "ChiSB", "ChiUnL"];

/// The record written for a chapter; field order as published.
#[derive(Serialize)]
struct Record<'a> {
    id: String,
    text: String,
    cluster: String,
    translation: &'a str,
    book: &'a str,
    chapter: u32,
    #[serde(skip_serializing_if = "Segmented::is_absent")]
    text_segmented: Segmented,
}

/// bible-zh's `text_segmented`: a string for ChiUn, null for the others; bible-en has no such
/// field.
#[derive(Serialize)]
#[serde(untagged)]
enum Segmented {
    /// No such field (bible-en).
    Absent,
    /// The field, as a string or null (bible-zh).
    Field(Option<String>),
}

impl Segmented {
    fn is_absent(&self) -> bool {
        matches!(self, Segmented::Absent)
    }
}

/// A verse line `[chapter:verse] text`, the space after `]` optional.
fn verse_line(line: &str) -> Option<(u32, u32, &str)> {
    let rest = line.strip_prefix('[')?;
    let (reference, text) = rest.split_once(']')?;
    let (chapter, verse) = reference.split_once(':')?;
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    Some((
        number(chapter)?,
        number(verse)?,
        text.strip_prefix(' ').unwrap_or(text),
    ))
}

/// The HTML entities upstream writes (`&lt;`, `&gt;`), and the other named and numeric ones
/// Python's `html.unescape` would decode alike; anything else stays as it is.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let decoded = rest.find(';').and_then(|end| {
            let c = match &rest[1..end] {
                "lt" => '<',
                "gt" => '>',
                "amp" => '&',
                "quot" => '"',
                "apos" => '\'',
                n => {
                    let n = n.strip_prefix('#')?;
                    let code = match n.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => n.parse().ok()?,
                    };
                    char::from_u32(code)?
                }
            };
            Some((c, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whitespace runs as one space, none at the ends (Python's `re.sub(r"\s+", " ", t).strip()`).
fn collapse(text: &str) -> String {
    text.split(is_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text with `{…}` notes removed; where a note sat between two letters or digits (of the
/// text as upstream wrote it) a space takes its place, so the words around it stay apart.
fn without_notes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    while let Some(open) = text[copied..].find('{').map(|i| copied + i) {
        let Some(close) = text[open..].find('}').map(|i| open + i) else {
            break;
        };
        out.push_str(&text[copied..open]);
        let before = text[..open].chars().next_back();
        let after = text[close + 1..].chars().next();
        if before.is_some_and(char::is_alphanumeric) && after.is_some_and(char::is_alphanumeric) {
            out.push(' ');
        }
        copied = close + 1;
    }
    out.push_str(&text[copied..]);
    out
}

/// One English verse as published.
fn english_verse(translation: &str, book: &str, verse: u32, raw: &str) -> String {
    let mut text = unescape(raw);
    if translation == "WEB" {
        text = without_notes(&text);
    }
    let text = collapse(&text);
    match text.strip_prefix('>') {
        Some(rest) if translation == "WEB" && book == "Psalms" && verse == 1 => {
            rest.trim_start_matches(is_space).to_string()
        }
        _ => text,
    }
}

/// Whether bible-en reads a file: a book of one of the five translations.
pub fn reads_english(path: &str) -> bool {
    let mut parts = path.rsplit('/');
    let (Some(file), Some(folder), Some("txt")) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    ENGLISH.contains(&folder) && file.ends_with(".txt")
}

/// The book number and name of `<n> <Book> - <Version>.txt`.
fn english_book(file: &str) -> Option<(usize, &str)> {
    let (number, rest) = file.split_once(' ')?;
    let (name, _) = rest.split_once(" - ")?;
    let number: usize = number.parse().ok()?;
    (1..=66).contains(&number).then_some((number, name))
}

/// One file's chapters: chapter number to verses, in file order.
type Chapters<'a> = BTreeMap<u32, Vec<(u32, &'a str)>>;

/// The verses of `text` (a book's file, or a whole translation's) by `### Book` heading
/// (`None` before any) and chapter. The title line an English book file begins with is
/// skipped; any other line that is not a verse is an error naming the file and the line.
fn verses<'a>(
    path: &str,
    text: &'a str,
) -> Result<BTreeMap<Option<&'a str>, Chapters<'a>>, String> {
    let mut out: BTreeMap<Option<&str>, Chapters<'a>> = BTreeMap::new();
    let mut book = None;
    for (n, line) in text.split('\n').enumerate() {
        if let Some(heading) = line.strip_prefix("### ") {
            book = Some(heading.trim());
        } else if let Some((chapter, verse, text)) = verse_line(line) {
            let chapters = out.entry(book).or_default();
            chapters.entry(chapter).or_default().push((verse, text));
        } else if n > 0 && !line.trim().is_empty() {
            return Err(format!("{path}:{}: not a verse line: {line:?}", n + 1));
        }
    }
    Ok(out)
}

/// The JSONL of bible-en from the five translations' book files among `files`.
pub fn convert_english(files: Vec<ArchiveFile>) -> Result<Converted, String> {
    let mut books: BTreeMap<(usize, usize), (String, String)> = BTreeMap::new();
    for file in files {
        let name = file.path.rsplit('/').next().unwrap_or_default();
        let translation = file.path.rsplit('/').nth(1).unwrap_or_default();
        let order = ENGLISH.iter().position(|t| *t == translation);
        let (Some(order), Some((number, book))) = (order, english_book(name)) else {
            continue;
        };
        let text =
            String::from_utf8(file.bytes).map_err(|e| format!("{}: not UTF-8 ({e})", file.path))?;
        books.insert((order, number), (book.to_string(), text));
    }
    if books.len() != ENGLISH.len() * BOOKS.len() {
        return Err(format!(
            "{} book files of the five translations found, {} expected",
            books.len(),
            ENGLISH.len() * BOOKS.len()
        ));
    }
    let mut built = Converted::default();
    for ((order, number), (book, text)) in &books {
        let translation = ENGLISH[*order];
        let chapters = verses(&format!("{translation}/{number} {book}"), text)?;
        for (chapter, verses) in chapters.into_values().flatten() {
            let kept: Vec<String> = verses
                .iter()
                .map(|(verse, raw)| english_verse(translation, book, *verse, raw))
                .filter(|v| !v.is_empty())
                .collect();
            let record = Record {
                id: format!("{translation}/{number:02}/{chapter}"),
                text: kept.join(" "),
                cluster: format!("{number:02}/{chapter}"),
                translation,
                book,
                chapter,
                text_segmented: Segmented::Absent,
            };
            built.push(&record);
        }
    }
    Ok(built)
}

/// Whether bible-zh reads a file: one of the three translations' text files.
pub fn reads_chinese(path: &str) -> bool {
    CHINESE
        .iter()
        .any(|t| path.ends_with(&format!("formats/txt/{t}.txt")))
}

/// bible-en's name of a `### Book` heading of the Chinese files (`I Samuel` is `1 Samuel`,
/// `Revelation of John` is `Revelation`); `None` for the books bible-en has not (ChiSB's
/// deuterocanonical ones).
fn book_number(heading: &str) -> Option<usize> {
    let name = match heading.split_once(' ') {
        Some(("I", rest)) => format!("1 {rest}"),
        Some(("II", rest)) => format!("2 {rest}"),
        Some(("III", rest)) => format!("3 {rest}"),
        _ if heading == "Revelation of John" => "Revelation".to_string(),
        _ => heading.to_string(),
    };
    BOOKS.iter().position(|b| *b == name).map(|i| i + 1)
}

/// One Chinese verse with upstream's markup and debris removed, spaces still in: entities
/// decoded, `<WAHb>` and `<title …>` tags dropped, ChiUn's placeholder `a` (a verse printed
/// with the previous one) emptied, and in ChiSB the literal `\t` escapes, the C1 control
/// U+0080 and a verse's own number followed by `.` left inside its text.
fn chinese_verse(translation: &str, verse: u32, raw: &str) -> String {
    let mut text = unescape(raw).replace("<WAHb>", "");
    while let Some(open) = text.find("<title").or_else(|| text.find("</title")) {
        let Some(close) = text[open..].find('>') else {
            break;
        };
        text.replace_range(open..open + close + 1, "");
    }
    match translation {
        "ChiUn" if text.trim_matches(is_space) == "a" => String::new(),
        "ChiSB" => {
            let text = text.replace("\\t", "").replace('\u{80}', "");
            without_own_number(&text, verse)
        }
        _ => text,
    }
}

/// `text` without the first `<verse>.` not preceded by a digit.
fn without_own_number(text: &str, verse: u32) -> String {
    let number = format!("{verse}.");
    let mut from = 0;
    while let Some(at) = text[from..].find(&number).map(|i| from + i) {
        if !text[..at].ends_with(|c: char| c.is_ascii_digit()) {
            return format!("{}{}", &text[..at], &text[at + number.len()..]);
        }
        from = at + 1;
    }
    text.to_string()
}

/// The verse without spaces, but for one between two ASCII letters or digits.
fn unspaced(text: &str) -> String {
    let words: Vec<&str> = text.split(is_space).filter(|w| !w.is_empty()).collect();
    let mut out = String::with_capacity(text.len());
    for (i, word) in words.iter().enumerate() {
        let joins_two_ascii = i > 0
            && out.ends_with(|c: char| c.is_ascii_alphanumeric())
            && word.starts_with(|c: char| c.is_ascii_alphanumeric());
        if joins_two_ascii {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A Chinese translation's chapters: (book number, chapter) to raw verses.
type ChineseChapters<'a> = BTreeMap<(usize, u32), Vec<(u32, &'a str)>>;

fn chinese_chapters<'a>(path: &str, text: &'a str) -> Result<ChineseChapters<'a>, String> {
    let mut out = ChineseChapters::new();
    for (heading, chapters) in verses(path, text)? {
        let heading = heading.ok_or_else(|| format!("{path}: a verse before any ### heading"))?;
        if let Some(number) = book_number(heading) {
            for (chapter, verses) in chapters {
                out.insert((number, chapter), verses);
            }
        }
    }
    Ok(out)
}

/// The JSONL of bible-zh from the three translations' files among `files`.
pub fn convert_chinese(files: Vec<ArchiveFile>) -> Result<Converted, String> {
    let mut texts: Vec<Option<(String, String)>> = vec![None; CHINESE.len()];
    for file in files {
        if let Some(i) = CHINESE
            .iter()
            .position(|t| file.path.ends_with(&format!("formats/txt/{t}.txt")))
        {
            let text = String::from_utf8(file.bytes)
                .map_err(|e| format!("{}: not UTF-8 ({e})", file.path))?;
            texts[i] = Some((file.path, text));
        }
    }
    let mut translations = Vec::new();
    for (t, text) in CHINESE.iter().zip(&texts) {
        let (path, text) = text
            .as_ref()
            .ok_or_else(|| format!("formats/txt/{t}.txt is missing"))?;
        translations.push(chinese_chapters(path, text)?);
    }
    let mut built = Converted::default();
    for (translation, chapters) in CHINESE.iter().zip(&translations) {
        let in_all = |key| translations.iter().all(|t| t.contains_key(key));
        for (&(number, chapter), verses) in chapters.iter().filter(|(key, _)| in_all(key)) {
            let cleaned: Vec<String> = verses
                .iter()
                .map(|(verse, raw)| chinese_verse(translation, *verse, raw))
                .collect();
            let segmented = (*translation == "ChiUn").then(|| {
                let kept: Vec<String> = cleaned.iter().map(|v| collapse(v)).collect();
                kept.into_iter()
                    .filter(|v| !v.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            });
            let record = Record {
                id: format!("{translation}/{number:02}/{chapter}"),
                text: cleaned.iter().map(|v| unspaced(v)).collect(),
                cluster: format!("{number:02}/{chapter}"),
                translation,
                book: BOOKS[number - 1],
                chapter,
                text_segmented: Segmented::Field(segmented),
            };
            built.push(&record);
        }
    }
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every book file of the five translations, each one short chapter, but those given.
    fn english_snapshot(given: &[(&str, usize, &str)]) -> Vec<ArchiveFile> {
        let mut files = vec![ArchiveFile::of(
            "bible_databases-19e9663/README.md",
            "other files",
        )];
        for translation in ENGLISH {
            for (i, book) in BOOKS.iter().enumerate() {
                let text = given
                    .iter()
                    .find(|(t, n, _)| *t == translation && *n == i + 1)
                    .map_or("[1:1] In the beginning.\n", |(_, _, text)| text);
                let path = format!(
                    "bible_databases-19e9663/txt/{translation}/{} {book} - Version ({translation}).txt",
                    i + 1
                );
                files.push(ArchiveFile::of(
                    &path,
                    &format!("{book} - Version ({translation})\n{text}"),
                ));
            }
        }
        files
    }

    fn records(jsonl: &[u8]) -> Vec<serde_json::Value> {
        jsonl
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }

    fn text_of<'r>(records: &'r [serde_json::Value], id: &str) -> &'r str {
        let record = records.iter().find(|r| r["id"] == id);
        record.unwrap_or_else(|| panic!("no {id}"))["text"]
            .as_str()
            .unwrap()
    }

    /// The README's rules for bible-en: WEB's notes removed (a space only where one sat
    /// between two words, judged on the text as upstream wrote it), entities decoded,
    /// whitespace collapsed, an empty verse adds nothing, WEB's stray `>` removed from verse 1
    /// of a psalm only; records ordered by translation, book, chapter, with the published
    /// fields and nothing else.
    #[test]
    fn english_records_follow_the_published_rules() {
        let web_genesis = "[1:1] In the beginning God{After \"God,\" a marker.} created the heavens.\n\
            [1:2] to your seed{or, offspring}.  Two  spaces\n\
            [1:3] a{x}{y}b and word{n}word\n\
            [2:1] {only a note}\n\
            [2:2] &lt;A Psalm&gt; text\n";
        let web_psalms = "[1:1] >Blessed is the man\n[1:2] >kept\n[2:1] >Why do\n";
        let kjv_psalms = "[1:1] >x\n";
        let files = english_snapshot(&[
            ("WEB", 1, web_genesis),
            ("WEB", 19, web_psalms),
            ("KJV", 19, kjv_psalms),
        ]);
        let built = convert_english(files).unwrap();
        let records = records(&built.jsonl);
        assert_eq!(built.documents, records.len());
        assert_eq!(
            records.len(),
            5 * 66 + 2,
            "two chapters in WEB Genesis and Psalms"
        );
        assert_eq!(
            text_of(&records, "WEB/01/1"),
            "In the beginning God created the heavens. to your seed. Two spaces ab and word word"
        );
        assert_eq!(text_of(&records, "WEB/01/2"), "<A Psalm> text");
        assert_eq!(text_of(&records, "WEB/19/1"), "Blessed is the man >kept");
        assert_eq!(text_of(&records, "WEB/19/2"), "Why do");
        assert_eq!(text_of(&records, "KJV/19/1"), ">x");
        let first = serde_json::to_string(&records[0]).unwrap();
        assert_eq!(
            std::str::from_utf8(
                &built.jsonl[..built.jsonl.iter().position(|b| *b == b'\n').unwrap()]
            )
            .unwrap(),
            r#"{"id":"KJV/01/1","text":"In the beginning.","cluster":"01/1","translation":"KJV","book":"Genesis","chapter":1}"#,
            "{first}"
        );
        let order: Vec<&str> = records.iter().map(|r| r["id"].as_str().unwrap()).collect();
        let at = |id| order.iter().position(|o| *o == id).unwrap();
        assert!(at("KJV/66/1") < at("ASV/01/1") && at("ASV/66/1") < at("WEB/01/1"));
        assert!(at("WEB/01/1") < at("WEB/01/2") && at("WEB/01/2") < at("WEB/02/1"));
        assert!(at("BBE/66/1") < at("YLT/01/1"));
        let samuel = records.iter().find(|r| r["id"] == "YLT/09/1").unwrap();
        assert_eq!(samuel["book"], "1 Samuel");
        assert_eq!(samuel["cluster"], "09/1");
    }

    /// A missing book file and a line that is no verse are errors naming what is wrong.
    #[test]
    fn english_needs_every_book_and_names_a_stray_line() {
        let mut files = english_snapshot(&[]);
        files.retain(|f| !f.path.contains("/ASV/43 "));
        let e = convert_english(files).unwrap_err();
        assert!(e.contains("329 book files"), "{e}");
        let files = english_snapshot(&[("BBE", 2, "[1:1] Now.\nstray words\n")]);
        let e = convert_english(files).unwrap_err();
        assert!(e.contains("BBE/2 Exodus:3: not a verse line"), "{e}");
    }

    /// The README's rules for bible-zh: no spaces in `text` but one between two ASCII letters
    /// or digits; ChiUn's chunk spaces (U+3000 included) as single spaces in
    /// `text_segmented`, null for the others; the `a` placeholder, `<WAHb>` and `<title>`
    /// tags, ChiSB's `\t` escapes, U+0080 and own verse numbers removed; only chapters all
    /// three have, of the 66 books, under bible-en's names.
    #[test]
    fn chinese_records_follow_the_published_rules() {
        let chiun = "### Genesis\n\n[1:1] 起初，　神 創造 天 地。 \n[1:2] a\n\
            [1:3] &lt;WAHb&gt;你們 要 敬畏 耶和華\n[2:1] 只在和合本\n\
            ### I Samuel\n[1:1] 以法蓮\n### Revelation of John\n[22:21] 阿們\n";
        let chisb = "### Genesis\n[1:1] 起初 天主 創造了 天地。\n\
            [1:2] <title canonical=\"true\" type=\"psalm\">詩。 我 呼求</title> \n\
            [1:3] 奉獻13.上主\\t說\u{80}：3.好 1.不\n[1:4] 雅各　伯 GPS 2 號\n\
            ### Tobit\n[1:1] 多俾亞\n### I Samuel\n[1:1] 厄弗辣因\n### Revelation of John\n[22:21] 亞孟\n";
        let chiunl = "### Genesis\n[1:1] 元始、上帝創造天地、\n[2:1] 天地萬物\n\
            ### I Samuel\n[1:1] 以法蓮\n### Revelation of John\n[22:21] 阿們\n";
        let files = vec![
            ArchiveFile::of("o/r/c/formats/txt/ChiUnL.txt", chiunl),
            ArchiveFile::of("o/r/c/formats/txt/ChiUn.txt", chiun),
            ArchiveFile::of("o/r/c/formats/txt/ChiSB.txt", chisb),
        ];
        let built = convert_chinese(files).unwrap();
        let records = records(&built.jsonl);
        let ids: Vec<&str> = records.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "ChiUn/01/1",
                "ChiUn/09/1",
                "ChiUn/66/22",
                "ChiSB/01/1",
                "ChiSB/09/1",
                "ChiSB/66/22",
                "ChiUnL/01/1",
                "ChiUnL/09/1",
                "ChiUnL/66/22"
            ]
        );
        assert_eq!(
            text_of(&records, "ChiUn/01/1"),
            "起初，神創造天地。你們要敬畏耶和華"
        );
        assert_eq!(
            records[0]["text_segmented"],
            "起初， 神 創造 天 地。 你們 要 敬畏 耶和華"
        );
        assert_eq!(
            text_of(&records, "ChiSB/01/1"),
            "起初天主創造了天地。詩。我呼求奉獻13.上主說：好1.不雅各伯GPS 2號"
        );
        assert!(records[3]["text_segmented"].is_null());
        assert_eq!(records[1]["book"], "1 Samuel");
        assert_eq!(records[2]["book"], "Revelation");
        assert_eq!(records[2]["cluster"], "66/22");
        let line = std::str::from_utf8(&built.jsonl)
            .unwrap()
            .lines()
            .nth(6)
            .unwrap();
        assert_eq!(
            line,
            r#"{"id":"ChiUnL/01/1","text":"元始、上帝創造天地、","cluster":"01/1","translation":"ChiUnL","book":"Genesis","chapter":1,"text_segmented":null}"#
        );
        let e = convert_chinese(vec![ArchiveFile::of("formats/txt/ChiUn.txt", chiun)]).unwrap_err();
        assert!(e.contains("ChiSB.txt is missing"), "{e}");
    }

    #[test]
    fn readers_pick_the_converters_files() {
        assert!(reads_english(
            "b-19e9663/txt/WEB/1 Genesis - World English Bible (WEB).txt"
        ));
        assert!(!reads_english(
            "b-19e9663/md/WEB/1 Genesis - World English Bible (WEB).md"
        ));
        assert!(!reads_english("b-19e9663/txt/AKJV/1 Genesis - x.txt"));
        assert!(reads_chinese("o/r/c/formats/txt/ChiUnL.txt"));
        assert!(!reads_chinese("o/r/c/formats/json/ChiUnL.json"));
    }
}
