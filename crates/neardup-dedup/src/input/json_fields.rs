//! The JSON Lines record decoder of `neardup dedup`'s inputs: only the text and id fields of
//! a line are decoded (every other value is skipped unparsed), and the text is borrowed from
//! the line when it holds no escape, so a block of lines is parsed without a copy of its texts.
//! A record holding a page's HTML (`--html-field`) also gives its `url`, `host` and `date`
//! fields, which travel with the page (its host groups its template lines).
//!
//! A text field named with dots (`meta.body`) is a path into nested objects, as datatrove's
//! and text-dedup's users keep their text; a key holding the dots itself is read first.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::record::{PageInfo, host_of};

/// The id and text of a JSONL record.
#[derive(Debug)]
pub struct JsonFields<'a> {
    /// The id as text (`None`: the record has no id field).
    pub id: Option<String>,
    /// The text (`null` is the empty text).
    pub text: Cow<'a, str>,
    /// A page's `url`, `host` and `date` fields (read by [`parse_json_page_line`] only).
    pub page: Option<PageInfo>,
    /// The value `--keep max:FIELD` chooses by ([`super::keep_value`]; missing: NaN).
    pub keep: f64,
}

/// Which fields of a JSONL record are read.
#[derive(Debug, Clone, Copy)]
pub struct FieldNames<'f> {
    /// The text field, or the field holding a page's HTML when `page`.
    pub text: &'f str,
    pub id: &'f str,
    /// The field `--keep max:FIELD` / `min:FIELD` names (dots: a path, as for the text).
    pub keep: Option<&'f str>,
    /// Whether the record holds a page's HTML (its `url`, `host`, `date` are read too).
    pub page: bool,
}

/// Decodes the id and text fields of one JSONL line; every other field is skipped unparsed
/// into values. Errors are the reason only (the caller adds file and line).
pub fn parse_json_line<'a>(
    line: &'a [u8],
    text_field: &str,
    id_field: &str,
) -> std::result::Result<JsonFields<'a>, String> {
    parse_json_record(
        line,
        FieldNames {
            text: text_field,
            id: id_field,
            keep: None,
            page: false,
        },
    )
}

/// Decodes a record holding a page's HTML in `html_field`: its id, the HTML, and its `url`,
/// `host` (else the URL's) and `date` fields where present (strings; other types ignored).
pub fn parse_json_page_line<'a>(
    line: &'a [u8],
    html_field: &str,
    id_field: &str,
) -> std::result::Result<JsonFields<'a>, String> {
    parse_json_record(
        line,
        FieldNames {
            text: html_field,
            id: id_field,
            keep: None,
            page: true,
        },
    )
}

/// Decodes the fields `names` says of one JSONL line; every other field is skipped unparsed.
/// Errors are the reason only (the caller adds file and line).
pub fn parse_json_record<'a>(
    line: &'a [u8],
    names: FieldNames<'_>,
) -> std::result::Result<JsonFields<'a>, String> {
    let (text_field, page) = (names.text, names.page);
    let mut de = serde_json::Deserializer::from_slice(line);
    let parsed = RecordSeed { names }.deserialize(&mut de).map_err(|e| {
        use serde_json::error::Category;
        let s = e.to_string();
        let s = s.split(" at line ").next().unwrap_or(&s).to_string();
        match e.classify() {
            Category::Data if s.contains("a string or null") => {
                format!("text field `{text_field}` must be a string or null ({s})")
            }
            Category::Data if s.contains("a JSON object") => "expected a JSON object".into(),
            Category::Data => s,
            _ if s.contains("UTF-8") || s.contains("unicode") => format!("not valid UTF-8 ({s})"),
            _ => format!("malformed JSON: {s}"),
        }
    })?;
    de.end().map_err(|e| format!("malformed JSON: {e}"))?;
    let text = parsed
        .text
        .ok_or_else(|| format!("missing text field `{text_field}`"))?;
    let page = page.then(|| {
        let mut info = parsed.page;
        if info.host.is_none() {
            info.host = info.url.as_deref().and_then(host_of);
        }
        info
    });
    let keep = match names.keep {
        Some(field) => super::keep_value::of_json(field, parsed.keep.as_ref())?,
        None => super::keep_value::MISSING,
    };
    Ok(JsonFields {
        id: parsed.id,
        text,
        page,
        keep,
    })
}

struct RecordSeed<'f> {
    names: FieldNames<'f>,
}

#[derive(Default)]
struct Parsed<'de> {
    id: Option<String>,
    text: Option<Cow<'de, str>>,
    page: PageInfo,
    /// The keep field's value as written (`None`: absent).
    keep: Option<serde_json::Value>,
}

impl<'de> DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = Parsed<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RecordSeed<'_> {
    type Value = Parsed<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        use serde::de::Error as _;
        let names = self.names;
        let mut parsed = Parsed::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let keep = names.keep.and_then(|k| keep_path(k, &key.0));
            if key.0 == names.text {
                parsed.text = Some(map.next_value::<TextValue<'de>>()?.0);
            } else if let Some((head, rest)) = names.text.split_once('.')
                && key.0 == head
                && parsed.text.is_none()
            {
                match keep {
                    None => parsed.text = map.next_value_seed(PathSeed { path: rest })?,
                    // The text and the keep field inside one object (`meta.body`,
                    // `meta.date`): the object is read once, as a value.
                    Some(path) => {
                        let v: serde_json::Value = map.next_value()?;
                        parsed.keep = walk(&v, path).cloned();
                        parsed.text = text_at(&v, rest, names.text).map_err(A::Error::custom)?;
                    }
                }
            } else if key.0 == names.id
                || keep.is_some()
                || (names.page && page_slot(&mut parsed.page, &key.0).is_some())
            {
                // One value may serve several fields (`--keep max:date` of a page reads its
                // date as both): it is read once and given to each.
                let v: serde_json::Value = map.next_value()?;
                if let Some(path) = keep
                    && (path.is_empty() || parsed.keep.is_none())
                {
                    parsed.keep = walk(&v, path).cloned();
                }
                if key.0 == names.id {
                    parsed.id = Some(id_string(&v).ok_or_else(|| {
                        A::Error::custom(format!(
                            "id field `{}` must be a string or integer, not {v}",
                            names.id
                        ))
                    })?);
                }
                if let (true, Some(slot)) = (names.page, page_slot(&mut parsed.page, &key.0)) {
                    *slot = v.as_str().map(str::to_string).filter(|s| !s.is_empty());
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(parsed)
    }
}

/// Where the keep field `field` is inside the value of `key`: `Some("")` when `key` is the
/// field, the rest of the path when `field` is a dotted path starting at `key`.
fn keep_path<'f>(field: &'f str, key: &str) -> Option<&'f str> {
    if field == key {
        return Some("");
    }
    field
        .split_once('.')
        .and_then(|(head, rest)| (head == key).then_some(rest))
}

/// The text at the dotted `path` inside `v`, as [`PathSeed`] reads it.
fn text_at(
    v: &serde_json::Value,
    path: &str,
    field: &str,
) -> std::result::Result<Option<Cow<'static, str>>, String> {
    match walk(v, path) {
        // Absent is missing (an error later); null is the empty text.
        None => Ok(None),
        Some(serde_json::Value::Null) => Ok(Some(Cow::Borrowed(""))),
        Some(serde_json::Value::String(s)) => Ok(Some(Cow::Owned(s.clone()))),
        Some(other) => Err(format!(
            "text field `{field}` must be a string or null (invalid type: {other})"
        )),
    }
}

/// The value at the dotted `path` inside `v` (`""`: `v`).
fn walk<'v>(v: &'v serde_json::Value, path: &str) -> Option<&'v serde_json::Value> {
    if path.is_empty() {
        return Some(v);
    }
    if let Some(inner) = v.get(path) {
        return Some(inner);
    }
    let (head, rest) = path.split_once('.')?;
    walk(v.get(head)?, rest)
}

/// The string at `path` (dot-separated keys) inside a JSON value: `None` when the value is
/// not an object or the path is not there; an error when the text there is not a string or
/// null.
struct PathSeed<'f> {
    path: &'f str,
}

impl<'de> DeserializeSeed<'de> for PathSeed<'_> {
    type Value = Option<Cow<'de, str>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PathSeed<'_> {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if key.0 == self.path {
                found = Some(map.next_value::<TextValue<'de>>()?.0);
            } else if let Some((head, rest)) = self.path.split_once('.')
                && key.0 == head
                && found.is_none()
            {
                found = map.next_value_seed(PathSeed { path: rest })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
}

/// Where a page field of that name goes (`host` lowercased later by its reader).
fn page_slot<'p>(page: &'p mut PageInfo, key: &str) -> Option<&'p mut Option<String>> {
    match key {
        "url" => Some(&mut page.url),
        "host" => Some(&mut page.host),
        "date" => Some(&mut page.date),
        _ => None,
    }
}

/// A string, borrowed from the input when it has no escape; with `NULLABLE`, `null` too (as
/// the empty string: the text field).
struct Str<'de, const NULLABLE: bool>(Cow<'de, str>);

/// A key (never null).
type Key<'de> = Str<'de, false>;
/// The text field: a string or `null` (empty).
type TextValue<'de> = Str<'de, true>;

impl<'de, const NULLABLE: bool> serde::Deserialize<'de> for Str<'de, NULLABLE> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        if NULLABLE {
            d.deserialize_any(StrVisitor::<NULLABLE>)
        } else {
            d.deserialize_str(StrVisitor::<NULLABLE>)
        }
    }
}

struct StrVisitor<const NULLABLE: bool>;

impl<'de, const NULLABLE: bool> Visitor<'de> for StrVisitor<NULLABLE> {
    type Value = Str<'de, NULLABLE>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(if NULLABLE {
            "a string or null"
        } else {
            "a string"
        })
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
        Ok(Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<Self::Value, E> {
        Ok(Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> std::result::Result<Self::Value, E> {
        Ok(Str(Cow::Owned(v)))
    }
    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
        if NULLABLE {
            Ok(Str(Cow::Borrowed("")))
        } else {
            Err(E::invalid_type(serde::de::Unexpected::Unit, &self))
        }
    }
    fn visit_none<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
        self.visit_unit()
    }
}

/// Converts a JSON id (string or integer) into a string.
pub fn id_string(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) if n.is_u64() || n.is_i64() => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_fields_borrow_and_report_errors() {
        let f = parse_json_line(
            br#"{"a": [1, {"x": 2}], "id": 7, "text": "hi there"}"#,
            "text",
            "id",
        )
        .unwrap();
        assert_eq!(f.id.as_deref(), Some("7"));
        assert!(matches!(f.text, Cow::Borrowed("hi there")));
        let f = parse_json_line(br#"{"text": "a\nb"}"#, "text", "id").unwrap();
        assert_eq!((f.id, f.text.as_ref()), (None, "a\nb"));
        let f = parse_json_line(br#"{"body": null}"#, "body", "id").unwrap();
        assert_eq!(f.text, "");
        for (line, want) in [
            (&br#"{"text": "a""#[..], "malformed JSON"),
            (br#"[1]"#, "expected a JSON object"),
            (br#"{"id": 1}"#, "missing text field `text`"),
            (
                br#"{"text": 5}"#,
                "text field `text` must be a string or null",
            ),
            (br#"{"id": "a", "text": "#, "malformed JSON"),
            (
                br#"{"text": "a", "id": [1]}"#,
                "id field `id` must be a string or integer",
            ),
            (b"{\"text\": \"\xff\"}", "UTF-8"),
            (br#"{"text": "a"} x"#, "malformed JSON"),
        ] {
            let e = parse_json_line(line, "text", "id").unwrap_err();
            assert!(e.contains(want), "{}: {e}", String::from_utf8_lossy(line));
        }
    }

    /// `meta.body` reaches into nested objects (borrowed, like a top-level text); a literal
    /// `meta.body` key wins; a path that is not there is a missing text field.
    #[test]
    fn a_dotted_text_field_is_a_path() {
        let line =
            br#"{"id": 1, "meta": {"lang": "en", "body": "deep text", "n": [1, {"body": 2}]}}"#;
        let f = parse_json_line(line, "meta.body", "id").unwrap();
        assert!(matches!(f.text, Cow::Borrowed("deep text")));
        let f = parse_json_line(br#"{"a": {"b": {"c": null}}}"#, "a.b.c", "id").unwrap();
        assert_eq!(f.text, "");
        let f = parse_json_line(
            br#"{"meta": {"body": "x"}, "meta.body": "y"}"#,
            "meta.body",
            "id",
        )
        .unwrap();
        assert_eq!(f.text, "y");
        for line in [
            &br#"{"meta": 3}"#[..],
            br#"{"meta": {"lang": "en"}}"#,
            br#"{"meta": [1]}"#,
        ] {
            let e = parse_json_line(line, "meta.body", "id").unwrap_err();
            assert!(e.contains("missing text field `meta.body`"), "{e}");
        }
        let e = parse_json_line(br#"{"meta": {"body": 5}}"#, "meta.body", "id").unwrap_err();
        assert!(e.contains("must be a string or null"), "{e}");
    }

    #[test]
    fn page_records_carry_their_url_host_and_date() {
        let line =
            br#"{"id": 3, "url": "https://www.Example.com/a", "date": "2026", "html": "<p>x</p>"}"#;
        let f = parse_json_page_line(line, "html", "id").unwrap();
        let page = f.page.unwrap();
        assert_eq!((f.id.as_deref(), f.text.as_ref()), (Some("3"), "<p>x</p>"));
        assert_eq!(page.url.as_deref(), Some("https://www.Example.com/a"));
        assert_eq!(
            page.host.as_deref(),
            Some("example.com"),
            "the URL's host when none is given"
        );
        assert_eq!(page.date.as_deref(), Some("2026"));
        let given = br#"{"html": "", "host": "site name", "url": null}"#;
        let page = parse_json_page_line(given, "html", "id")
            .unwrap()
            .page
            .unwrap();
        assert_eq!((page.host.as_deref(), page.url), (Some("site name"), None));
        // A text record reads no page fields.
        assert!(parse_json_line(line, "html", "id").unwrap().page.is_none());
        // Kept by its date (`--keep max:date`): the date is the keep value and stays the
        // page's date.
        let dated = br#"{"id": 4, "date": "1970-01-02", "html": "<p>y</p>"}"#;
        let names = FieldNames {
            text: "html",
            id: "id",
            keep: Some("date"),
            page: true,
        };
        let f = parse_json_record(dated, names).unwrap();
        assert_eq!(f.keep, 86_400.0);
        assert_eq!(f.page.unwrap().date.as_deref(), Some("1970-01-02"));
        // Kept by its id: the id is read too.
        let by_id = FieldNames {
            keep: Some("id"),
            ..names
        };
        let f = parse_json_record(dated, by_id).unwrap();
        assert_eq!((f.keep, f.id.as_deref()), (4.0, Some("4")));
    }
}
