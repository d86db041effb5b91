//! The requests and answers of the API (`openapi.json` describes them): decoding a request's
//! body into documents, with every refusal naming the field (and, in a batch, the line), and
//! the JSON of each answer.

use base64::Engine;
use neardup_dedup::live::{Match, Outcome};
use neardup_dedup::web::charset::decode_page;
use neardup_dedup::web::extract::{Extract, page_text};
use serde::Serialize;
use serde_json::{Map, Value};

/// The longest id a document may have, in bytes.
pub const MAX_ID_BYTES: usize = 4096;

/// A request refused before any work: the field it is about and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BadRequest {
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The line of a batch (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl BadRequest {
    pub fn new(field: Option<&str>, error: impl Into<String>) -> Self {
        BadRequest {
            error: error.into(),
            field: field.map(str::to_string),
            line: None,
        }
    }

    fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }
}

/// What a document is given as.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Text(String),
    /// A page's HTML, as text already (JSON strings are Unicode).
    Html(String),
    /// A page's bytes and the HTTP `Content-Type` it was served with: decoded by the charset
    /// rules `dedup` applies to a WARC's pages.
    HtmlBytes {
        bytes: Vec<u8>,
        content_type: Option<String>,
    },
    /// A signature computed elsewhere (`width` words).
    Signature(Vec<u32>),
}

/// One document of a request.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub id: Option<String>,
    pub url: Option<String>,
    pub content: Content,
}

const FIELDS: &[&str] = &[
    "id",
    "url",
    "text",
    "html",
    "html_base64",
    "content_type",
    "signature",
];
const CONTENT_FIELDS: &[&str] = &["text", "html", "html_base64", "signature"];

/// Decodes one JSON object into a document; `width` is the index's signature width.
pub fn document(value: Value, width: usize) -> Result<Document, BadRequest> {
    let Value::Object(mut object) = value else {
        return Err(BadRequest::new(None, "the body must be a JSON object"));
    };
    if let Some(unknown) = object.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(BadRequest::new(
            Some(unknown),
            format!("unknown field; expected one of {}", FIELDS.join(", ")),
        ));
    }
    let id = optional_string(&mut object, "id")?;
    if let Some(id) = &id {
        check_id(id)?;
    }
    let url = optional_string(&mut object, "url")?;
    let given: Vec<&str> = CONTENT_FIELDS
        .iter()
        .copied()
        .filter(|f| object.contains_key(*f))
        .collect();
    let field = match given[..] {
        [one] => one,
        [] => {
            return Err(BadRequest::new(
                None,
                "no content: give one of text, html, html_base64 or signature",
            ));
        }
        _ => {
            return Err(BadRequest::new(
                Some(given[1]),
                format!("give one content field, not {}", given.join(" and ")),
            ));
        }
    };
    let content_type = optional_string(&mut object, "content_type")?;
    if content_type.is_some() && field != "html_base64" {
        return Err(BadRequest::new(
            Some("content_type"),
            "only with html_base64 (the charset of text is already known)",
        ));
    }
    let content = match field {
        "text" => Content::Text(required_string(&mut object, "text")?),
        "html" => Content::Html(required_string(&mut object, "html")?),
        "html_base64" => {
            let b64 = required_string(&mut object, "html_base64")?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64.as_bytes())
                .map_err(|e| BadRequest::new(Some("html_base64"), format!("not base64: {e}")))?;
            Content::HtmlBytes {
                bytes,
                content_type,
            }
        }
        _ => Content::Signature(signature(object.remove("signature"), width)?),
    };
    Ok(Document { id, url, content })
}

fn optional_string(
    object: &mut Map<String, Value>,
    field: &str,
) -> Result<Option<String>, BadRequest> {
    match object.remove(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(BadRequest::new(
            Some(field),
            format!("must be a string, not {}", kind(&other)),
        )),
    }
}

fn required_string(object: &mut Map<String, Value>, field: &str) -> Result<String, BadRequest> {
    optional_string(object, field)?.ok_or_else(|| BadRequest::new(Some(field), "must be a string"))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An id is what outputs and logs name a document by: printable, bounded.
fn check_id(id: &str) -> Result<(), BadRequest> {
    if id.is_empty() {
        return Err(BadRequest::new(Some("id"), "must not be empty"));
    }
    if id.len() > MAX_ID_BYTES {
        return Err(BadRequest::new(
            Some("id"),
            format!("{} bytes; at most {MAX_ID_BYTES}", id.len()),
        ));
    }
    if let Some(c) = id.chars().find(|c| c.is_control()) {
        return Err(BadRequest::new(
            Some("id"),
            format!("holds the control character U+{:04X}", c as u32),
        ));
    }
    Ok(())
}

fn signature(value: Option<Value>, width: usize) -> Result<Vec<u32>, BadRequest> {
    let field = Some("signature");
    let Some(Value::Array(words)) = value else {
        return Err(BadRequest::new(
            field,
            "must be an array of 32-bit unsigned integers",
        ));
    };
    if words.len() != width {
        return Err(BadRequest::new(
            field,
            format!(
                "{} words; this index's signatures have {width} (its algorithm and parameters: GET /v1/stats)",
                words.len()
            ),
        ));
    }
    words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            w.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    BadRequest::new(field, format!("word {i} is not a 32-bit unsigned integer"))
                })
        })
        .collect()
}

/// Parses a JSON body (one document).
pub fn parse_one(body: &[u8], width: usize) -> Result<Document, BadRequest> {
    let value: Value = serde_json::from_slice(body).map_err(|e| json_error(&e))?;
    document(value, width)
}

/// Parses an NDJSON body: every line a document (blank lines skipped); the first bad line
/// refuses the whole batch, before any of it is checked or added.
pub fn parse_batch(
    body: &[u8],
    width: usize,
    max_records: usize,
) -> Result<Vec<Document>, BadRequest> {
    let text = std::str::from_utf8(body).map_err(|e| {
        BadRequest::new(
            None,
            format!("the body is not UTF-8 (byte {})", e.valid_up_to()),
        )
    })?;
    let mut docs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if docs.len() == max_records {
            return Err(BadRequest::new(
                None,
                format!("more than {max_records} records; send them in several batches"),
            )
            .at_line(n + 1));
        }
        let value: Value = serde_json::from_str(line).map_err(|e| json_error(&e).at_line(n + 1))?;
        docs.push(document(value, width).map_err(|e| e.at_line(n + 1))?);
    }
    Ok(docs)
}

fn json_error(e: &serde_json::Error) -> BadRequest {
    BadRequest::new(None, format!("not JSON: {e}"))
}

/// The text of a document's content as `dedup` reads it (`--extract` for pages).
pub fn text_of(content: &Content, url: Option<&str>, extract: Extract) -> Option<String> {
    match content {
        Content::Text(t) => Some(t.clone()),
        Content::Html(h) => Some(page_text(h, extract).text),
        Content::HtmlBytes {
            bytes,
            content_type,
        } => {
            let charset = content_type.as_deref().and_then(charset_of);
            let host = url.and_then(neardup_dedup::input::host_of);
            let decoded = decode_page(bytes, charset, host.as_deref());
            Some(page_text(&decoded.text, extract).text)
        }
        Content::Signature(_) => None,
    }
}

/// The `charset` parameter of a `Content-Type` value.
fn charset_of(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"'))
    })
}

/// A check's answer.
#[derive(Debug, Serialize)]
pub struct CheckAnswer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
    pub duplicate: bool,
    pub duplicate_of: Option<&'a str>,
    pub matches: &'a [Match],
}

impl<'a> CheckAnswer<'a> {
    pub fn new(id: Option<&'a str>, matches: &'a [Match]) -> Self {
        CheckAnswer {
            id,
            duplicate: !matches.is_empty(),
            duplicate_of: matches.first().map(|m| m.id.as_str()),
            matches,
        }
    }
}

/// An add's answer: `status` is `added`, `duplicate` or `already_indexed`.
pub fn add_answer(id: &str, outcome: &Outcome) -> Value {
    let (status, matches): (&str, &[Match]) = match outcome {
        Outcome::Added { matches } => ("added", matches),
        Outcome::Duplicate { matches } => ("duplicate", matches),
        Outcome::AlreadyIndexed => ("already_indexed", &[]),
    };
    serde_json::json!({
        "id": id,
        "status": status,
        "duplicate_of": matches.first().map(|m| &m.id),
        "matches": matches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_refusal_names_its_field() {
        let cases = [
            (json!({"id": "a"}), None),
            (json!({"id": 3, "text": "x"}), Some("id")),
            (json!({"id": "a\u{7}b", "text": "x"}), Some("id")),
            (json!({"text": "x", "html": "<p>x"}), Some("html")),
            (json!({"text": "x", "colour": 1}), Some("colour")),
            (json!({"signature": [1, 2]}), Some("signature")),
            (json!({"signature": [1, 2, -3]}), Some("signature")),
            (json!({"html_base64": "%%%"}), Some("html_base64")),
            (
                json!({"text": "x", "content_type": "text/html"}),
                Some("content_type"),
            ),
        ];
        for (body, field) in cases {
            let e = document(body.clone(), 3).unwrap_err();
            assert_eq!(e.field.as_deref(), field, "{body}: {e:?}");
        }
        assert_eq!(
            document(json!({"signature": [1, 2, 3], "id": "s"}), 3)
                .unwrap()
                .content,
            Content::Signature(vec![1, 2, 3])
        );
    }

    #[test]
    fn a_batch_is_refused_whole_at_its_first_bad_line() {
        let body = b"{\"text\": \"a\"}\n\n{\"text\": \"b\"}\n{\"text\": 1}\n{bad\n";
        let e = parse_batch(body, 4, 100).unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(4), Some("text")));
        assert_eq!(
            parse_batch(b"{\"text\": \"a\"}\n{\"text\": \"b\"}", 4, 100)
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            parse_batch(b"{\"text\": \"a\"}\n{\"text\": \"b\"}", 4, 1)
                .unwrap_err()
                .line,
            Some(2)
        );
        assert!(
            parse_batch(&[b'{', 0xff, b'}'], 4, 10)
                .unwrap_err()
                .error
                .contains("UTF-8")
        );
    }

    /// The decoder on bodies a client could send by mistake or malice: valid requests cut at
    /// every byte, with bytes flipped, and random bytes. Each is decoded or refused with a
    /// reason, never a panic (`fuzz/fuzz_targets/serve_request.rs` does the same unbounded).
    #[test]
    fn no_body_makes_the_decoder_panic() {
        let valid = [
            r#"{"id": "a\u00e9", "url": "http://x/", "text": "one two"}"#,
            r#"{"html_base64": "PHA+aGk8L3A+", "content_type": "text/html; charset=gbk"}"#,
            r#"{"signature": [1, 4294967295, 0, 7], "id": "s"}"#,
        ];
        let mut rng = neardup::hash::SplitMix64::new(11);
        let mut bodies: Vec<Vec<u8>> = Vec::new();
        for v in valid {
            let b = v.as_bytes();
            bodies.extend((0..=b.len()).map(|n| b[..n].to_vec()));
            for _ in 0..300 {
                let mut m = b.to_vec();
                let at = rng.below(m.len() as u64) as usize;
                m[at] = rng.below(256) as u8;
                bodies.push(m);
            }
        }
        bodies.extend((0..300).map(|_| (0..rng.below(64)).map(|_| rng.below(256) as u8).collect()));
        for body in &bodies {
            for result in [
                parse_one(body, 4).map(|_| ()),
                parse_batch(body, 4, 3).map(|_| ()),
            ] {
                if let Err(e) = result {
                    assert!(!e.error.is_empty(), "{:?}", String::from_utf8_lossy(body));
                }
            }
        }
    }

    #[test]
    fn page_bytes_are_decoded_by_their_charset() {
        // "新闻" in GBK, declared only by the HTTP header.
        let html = [
            b"<html><body><p>".as_slice(),
            &[0xd0, 0xc2, 0xce, 0xc5],
            b"</p></body></html>",
        ]
        .concat();
        let content = Content::HtmlBytes {
            bytes: html,
            content_type: Some("text/html; charset=\"GBK\"".into()),
        };
        let text = text_of(&content, Some("http://news.example.cn/a"), Extract::Visible).unwrap();
        assert!(text.contains("新闻"), "{text:?}");
    }
}
