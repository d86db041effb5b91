//! A page's bytes decoded to text the way a browser decides the charset (WHATWG Encoding
//! Standard and HTML §13.2.3.2 "Determining the character encoding"):
//!
//! 1. a byte order mark;
//! 2. the charset of the HTTP `Content-Type` header;
//! 3. a `<meta charset>` or `<meta http-equiv="Content-Type" content="…; charset=…">` in the
//!    page's first bytes (the prescan);
//! 4. the bytes are valid UTF-8;
//! 5. detection (`chardetng`, Firefox's detector), with the host's top-level domain as a hint.
//!
//! Detection runs only when 1–4 say nothing usable: it costs ~6 ms on a 170 KB page
//! (WEB-NOTES.md §3.2), UTF-8 validation costs microseconds. Two departures from a browser,
//! both for pages that declare a charset they are not in: a declared UTF-8 page whose bytes
//! are not UTF-8 is detected instead (a browser shows replacement characters), and a page
//! declared in a single-byte legacy charset (servers' `ISO-8859-1` default) whose bytes are
//! valid UTF-8 with non-ASCII characters is read as UTF-8 — text in windows-1252 or
//! ISO-8859-x is valid UTF-8 only by accident. Decoding is `encoding_rs`'s.

pub use encoding_rs::Encoding;
use encoding_rs::{UTF_8, UTF_16BE, UTF_16LE};

/// How far into a page the `<meta>` prescan looks. The standard says 1,024 bytes; pages put
/// scripts and styles first, and browsers re-parse when they meet a later declaration.
const PRESCAN_BYTES: usize = 8 << 10;

/// Which rule decided a page's charset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetSource {
    /// A byte order mark.
    Bom,
    /// The HTTP `Content-Type` header.
    Http,
    /// A `<meta>` declaration.
    Meta,
    /// No usable declaration, and the bytes are valid UTF-8.
    Utf8,
    /// Detected from the bytes.
    Detected,
}

impl CharsetSource {
    /// Its name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            CharsetSource::Bom => "bom",
            CharsetSource::Http => "http",
            CharsetSource::Meta => "meta",
            CharsetSource::Utf8 => "utf-8",
            CharsetSource::Detected => "detected",
        }
    }
}

/// A page's text and how it was decoded.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The text (malformed sequences replaced by U+FFFD).
    pub text: String,
    /// The encoding used.
    pub encoding: &'static Encoding,
    /// Which rule chose it.
    pub source: CharsetSource,
}

/// Decodes a page's bytes: `http_charset` is the HTTP header's `charset` label if any, `host`
/// the page's host (its top-level domain helps detection: `.cn` pages lean GBK, `.tw` Big5).
pub fn decode_page(bytes: &[u8], http_charset: Option<&str>, host: Option<&str>) -> Decoded {
    let (encoding, source) = choose(bytes, http_charset, host);
    // `decode` removes a BOM of the chosen encoding and replaces malformed sequences.
    let (text, _, _) = encoding.decode(bytes);
    Decoded {
        text: text.into_owned(),
        encoding,
        source,
    }
}

/// The encoding a page's bytes are read in, and why.
pub fn choose(
    bytes: &[u8],
    http_charset: Option<&str>,
    host: Option<&str>,
) -> (&'static Encoding, CharsetSource) {
    if let Some((bom, _)) = Encoding::for_bom(bytes) {
        return (bom, CharsetSource::Bom);
    }
    let declared = http_charset
        .and_then(|label| Encoding::for_label(label.trim().as_bytes()))
        .map(|e| (e, CharsetSource::Http))
        .or_else(|| meta_charset(bytes).map(|e| (e, CharsetSource::Meta)));
    let utf8 = std::str::from_utf8(bytes).is_ok();
    if let Some((declared, source)) = declared {
        // A page cannot be in UTF-16 without a BOM (the standard maps a `<meta>` UTF-16 to
        // UTF-8; an HTTP UTF-16 label on BOM-less bytes is as likely wrong).
        let declared = if declared == UTF_16LE || declared == UTF_16BE {
            UTF_8
        } else {
            declared
        };
        let consistent = if declared == UTF_8 {
            utf8
        } else if declared.is_single_byte() {
            !utf8 || bytes.is_ascii()
        } else {
            declared
                .decode_without_bom_handling_and_without_replacement(bytes)
                .is_some()
        };
        if consistent {
            return (declared.output_encoding(), source);
        }
    }
    if utf8 {
        return (UTF_8, CharsetSource::Utf8);
    }
    (detect(bytes, host), CharsetSource::Detected)
}

/// Firefox's guess, UTF-8 excluded (the bytes were not valid UTF-8).
fn detect(bytes: &[u8], host: Option<&str>) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    let tld = host.and_then(|h| h.rsplit('.').next()).map(str::as_bytes);
    detector.guess(tld, chardetng::Utf8Detection::Deny)
}

/// The charset a `<meta>` tag in the page's first bytes declares: `<meta charset="X">` or
/// `<meta http-equiv="Content-Type" content="text/html; charset=X">`.
pub fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(PRESCAN_BYTES)];
    let mut from = 0;
    while let Some(at) = find_ascii_ci(&head[from..], b"<meta") {
        let start = from + at + 5;
        let end = head[start..]
            .iter()
            .position(|&b| b == b'>')
            .map_or(head.len(), |e| start + e);
        if let Some(encoding) = charset_in(&head[start..end]).and_then(Encoding::for_label) {
            return Some(encoding);
        }
        from = end;
    }
    None
}

/// The value after `charset=` in a tag's attributes (quoted or not).
fn charset_in(tag: &[u8]) -> Option<&[u8]> {
    let at = find_ascii_ci(tag, b"charset")? + 7;
    let rest = &tag[at..];
    let rest = &rest[rest.iter().position(|&b| !b.is_ascii_whitespace())?..];
    let rest = rest.strip_prefix(b"=")?;
    let rest = &rest[rest.iter().position(|&b| !b.is_ascii_whitespace())?..];
    let rest = rest
        .strip_prefix(b"\"")
        .or_else(|| rest.strip_prefix(b"'"))
        .unwrap_or(rest);
    let len = rest
        .iter()
        .position(|&b| matches!(b, b'"' | b'\'' | b';' | b'/' | b'>') || b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    (len > 0).then(|| &rest[..len])
}

/// Where `needle` (lowercase ASCII) first occurs in `hay`, ASCII case-insensitively.
fn find_ascii_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = needle[0];
    let mut from = 0;
    while let Some(i) = memchr::memchr2(first, first.to_ascii_uppercase(), &hay[from..]) {
        let at = from + i;
        if hay.len() - at >= needle.len() && hay[at..at + needle.len()].eq_ignore_ascii_case(needle)
        {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page in `encoding` with `text` as its article, declared (or not) in a `<meta>`.
    fn page(text: &str, encoding: &'static Encoding, meta: bool) -> Vec<u8> {
        let declaration = if meta {
            format!("<meta charset=\"{}\">", encoding.name())
        } else {
            String::new()
        };
        let html = format!(
            "<html><head>{declaration}<title>t</title></head><body><p>{text}</p></body></html>"
        );
        let (bytes, _, unmappable) = encoding.encode(&html);
        assert!(!unmappable, "{} cannot encode the sample", encoding.name());
        bytes.into_owned()
    }

    /// Sample articles of the scripts each legacy encoding serves.
    const SAMPLES: &[(&str, &str)] = &[
        (
            "GBK",
            "中华人民共和国成立于一九四九年，首都北京。今天天气很好，我们去公园散步吧。",
        ),
        (
            "gb18030",
            "中华人民共和国成立于一九四九年，首都北京。今天天气很好，我们去公园散步吧。",
        ),
        (
            "Big5",
            "中華民國的首都是臺北市。今天天氣很好，我們去公園散步吧，順便買些東西。",
        ),
        (
            "Shift_JIS",
            "日本語のテキストです。今日はとても良い天気なので、公園を散歩しましょう。",
        ),
        (
            "EUC-KR",
            "한국어 텍스트입니다. 오늘은 날씨가 아주 좋아서 공원에 산책하러 갑시다.",
        ),
        (
            "windows-1251",
            "Съешь же ещё этих мягких французских булок да выпей чаю, пожалуйста.",
        ),
        (
            "windows-1252",
            "Déjà vu: l'été à Zürich, où le garçon mangea une crème brûlée.",
        ),
    ];

    #[test]
    fn each_legacy_charset_decodes_declared_and_detected() {
        for &(label, text) in SAMPLES {
            let encoding = Encoding::for_label(label.as_bytes()).unwrap();
            // Declared in a <meta>: decoded as declared.
            let declared = decode_page(&page(text, encoding, true), None, None);
            assert!(
                declared.text.contains(text),
                "{label} declared: {}",
                declared.text
            );
            assert_eq!(declared.source, CharsetSource::Meta, "{label}");
            // Declared by HTTP only.
            let http = decode_page(&page(text, encoding, false), Some(label), None);
            assert!(http.text.contains(text), "{label} http: {}", http.text);
            assert_eq!(http.source, CharsetSource::Http, "{label}");
            // Undeclared: detected.
            let detected = decode_page(&page(text, encoding, false), None, None);
            assert!(
                detected.text.contains(text),
                "{label} detected as {}: {}",
                detected.encoding.name(),
                detected.text
            );
            assert_eq!(detected.source, CharsetSource::Detected, "{label}");
        }
    }

    #[test]
    fn utf16_pages_with_a_bom_decode() {
        let text = "中文和English混合的页面";
        for (encoding, bom) in [(UTF_16LE, [0xFF, 0xFE]), (UTF_16BE, [0xFE, 0xFF])] {
            let html = format!("<html><body><p>{text}</p></body></html>");
            let mut bytes = bom.to_vec();
            for unit in html.encode_utf16() {
                let pair = if encoding == UTF_16LE {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                };
                bytes.extend_from_slice(&pair);
            }
            let decoded = decode_page(&bytes, Some("iso-8859-1"), None);
            assert_eq!(decoded.source, CharsetSource::Bom);
            assert!(
                decoded.text.contains(text),
                "{}: {}",
                encoding.name(),
                decoded.text
            );
        }
    }

    #[test]
    fn a_page_declaring_a_charset_it_is_not_in() {
        let text = "中华人民共和国成立于一九四九年，首都北京。今天天气很好。";
        // GBK bytes declared UTF-8: not UTF-8, so detected.
        let gbk = page(text, encoding_rs::GBK, false);
        let wrong = decode_page(&gbk, Some("utf-8"), Some("example.cn"));
        assert!(wrong.text.contains(text), "{}", wrong.text);
        assert_eq!(wrong.source, CharsetSource::Detected);
        // UTF-8 bytes under a server's ISO-8859-1 default: UTF-8.
        let utf8 = page(text, UTF_8, false);
        let latin = decode_page(&utf8, Some("ISO-8859-1"), None);
        assert!(latin.text.contains(text));
        assert_eq!(latin.source, CharsetSource::Utf8);
        // An ASCII page keeps its declaration.
        let ascii = decode_page(b"<p>plain</p>", Some("windows-1252"), None);
        assert_eq!(ascii.source, CharsetSource::Http);
    }

    #[test]
    fn the_meta_prescan_reads_both_forms() {
        let http_equiv = br#"<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=gb2312">"#;
        assert_eq!(meta_charset(http_equiv), Some(encoding_rs::GBK));
        assert_eq!(
            meta_charset(b"<meta charset=big5>"),
            Some(encoding_rs::BIG5)
        );
        assert_eq!(
            meta_charset(b"<meta name=x content=y><meta charset='koi8-r'>"),
            Some(encoding_rs::KOI8_R)
        );
        assert_eq!(meta_charset(b"<meta charset=nonsense>"), None);
        assert_eq!(meta_charset(b"<p>charset=utf-8</p>"), None);
    }
}
