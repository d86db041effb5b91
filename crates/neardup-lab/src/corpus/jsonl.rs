//! JSON Lines loader (`.jsonl`, `.jsonl.gz`): one object per line, streamed.

use std::io::BufRead;
use std::path::Path;

use serde_json::Value;

use super::model::{Corpus, CorpusBuilder, LoadOptions, id_string, label_string, stem};
use crate::error::{LabError, Result};
use neardup_dedup::input::checksummed::Input;

use neardup_dedup::input::BOM;

/// Loads a JSONL corpus.
pub fn load(path: &Path, options: &LoadOptions) -> Result<Corpus> {
    let mut input = Input::open(path)?;
    let mut builder = CorpusBuilder::new(path);
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let n = match input.reader.read_until(b'\n', &mut line) {
            Ok(n) => n,
            Err(e) => return Err(input.read_error(path, e)),
        };
        if n == 0 {
            break;
        }
        number += 1;
        if number == 1 && line.starts_with(BOM) {
            // A UTF-8 byte-order mark (Windows editors write one) is not content.
            line.drain(..BOM.len());
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if options.limit.is_some_and(|l| builder.len() >= l) {
            break;
        }
        let outcome = match parse_record(&line, options) {
            Ok(None) => Ok(()),
            Ok(Some((id, text, label))) => builder.push(number, id, &text, label.as_deref()),
            Err(reason) => {
                builder.invalid(options.skip_invalid, LabError::line(path, number, reason))
            }
        };
        if let Err(e) = outcome {
            // Garbage from a damaged gzip stream looks like bad records: blame the stream.
            return Err(neardup_dedup::input::checksummed::damaged_or(
                &mut input, path, e,
            ));
        }
    }
    let sha = if options.limit.is_some() {
        neardup_dedup::input::checksummed::sha256_file(path)?
    } else {
        input.finish().map_err(|e| LabError::io(path, e))?
    };
    builder.finish(stem(path), path.display().to_string(), sha)
}

/// Every record's fields other than its id, text and label, by id (`neardup edit` writes them
/// back beside each source and its copies: a corpus's `url`, `date` or `meta` are not its to
/// drop). Malformed lines are left out, as the loader left them.
pub fn extra_fields(
    path: &Path,
    options: &LoadOptions,
) -> Result<std::collections::HashMap<String, serde_json::Map<String, Value>>> {
    let mut input = Input::open(path)?;
    let f = &options.fields;
    let mut extras = std::collections::HashMap::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if input
            .reader
            .read_until(b'\n', &mut line)
            .map_err(|e| input.read_error(path, e))?
            == 0
        {
            break;
        }
        let body = line.strip_prefix(BOM).unwrap_or(&line);
        let Ok(Value::Object(mut obj)) = serde_json::from_slice::<Value>(body) else {
            continue;
        };
        let Some(id) = obj.remove(&f.id).as_ref().and_then(id_string) else {
            continue;
        };
        if take_path(&mut obj, &f.text).is_none() {
            continue;
        }
        if let Some(label) = &f.label {
            obj.remove(label);
        }
        if !obj.is_empty() {
            extras.insert(id, obj);
        }
    }
    Ok(extras)
}

/// A parsed record: (id, text, label).
type Record = (String, String, Option<String>);

/// Parses one line into (id, text, label); `None` for a record the filter leaves out.
/// The value at `name`: a key of that name, else a dot-separated path into nested objects
/// (`meta.body`), as `neardup dedup` reads it.
fn take_path(obj: &mut serde_json::Map<String, Value>, name: &str) -> Option<Value> {
    if let Some(v) = obj.remove(name) {
        return Some(v);
    }
    let (head, rest) = name.split_once('.')?;
    match obj.get_mut(head)? {
        Value::Object(inner) => take_path(inner, rest),
        _ => None,
    }
}

fn parse_record(line: &[u8], options: &LoadOptions) -> std::result::Result<Option<Record>, String> {
    let text = std::str::from_utf8(line)
        .map_err(|e| format!("not valid UTF-8 (byte {} of the line)", e.valid_up_to() + 1))?;
    let value: Value = serde_json::from_str(text).map_err(|e| format!("malformed JSON: {e}"))?;
    let Value::Object(mut obj) = value else {
        return Err("expected a JSON object".into());
    };
    if options
        .keep
        .iter()
        .any(|(field, want)| obj.get(field).and_then(Value::as_str) != Some(want.as_str()))
    {
        return Ok(None);
    }
    let f = &options.fields;
    let id = match obj.get(&f.id) {
        None => return Err(format!("missing id field `{}`", f.id)),
        Some(v) => id_string(v)
            .ok_or_else(|| format!("id field `{}` must be a string or integer, not {v}", f.id))?,
    };
    let text = match take_path(&mut obj, &f.text) {
        None => return Err(format!("missing text field `{}`", f.text)),
        Some(Value::String(s)) => s,
        Some(Value::Null) => String::new(),
        Some(other) => {
            return Err(format!(
                "text field `{}` must be a string, not {other}",
                f.text
            ));
        }
    };
    let label = match &f.label {
        None => None,
        Some(name) => match obj.get(name) {
            None if options.label_required => return Err(format!("missing label field `{name}`")),
            None => None,
            Some(v) => label_string(v)?,
        },
    };
    Ok(Some((id, text, label)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(dir: &Path, name: &str, content: &[u8]) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::File::create(&p)
            .unwrap()
            .write_all(content)
            .unwrap();
        p
    }

    fn tmp() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "neardup-jsonl-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn loads_labels_and_numeric_ids() {
        let d = tmp();
        let p = write(&d, "a.jsonl", b"{\"id\": 1, \"text\": \"x y\", \"cluster\": \"c\"}\n\n{\"id\": \"b\", \"text\": \"z\", \"cluster\": null}\n{\"id\": \"c\", \"text\": \"w\"}\n");
        let c = load(&p, &LoadOptions::default()).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c.id(0), "1");
        assert_eq!(c.text(1), "z");
        assert_eq!(c.label(0), Some(0));
        assert_eq!(c.label(1), None);
        assert_eq!(c.label(2), None);
        assert_eq!(
            c.sha256,
            neardup_dedup::input::checksummed::sha256_file(&p).unwrap()
        );
    }

    #[test]
    fn errors_name_file_and_line() {
        let d = tmp();
        let cases: [(&str, &[u8], &str); 6] = [
            (
                "bad.jsonl",
                b"{\"id\": 1, \"text\": \"a\"}\n{oops\n",
                ":2: malformed JSON",
            ),
            (
                "notext.jsonl",
                b"{\"id\": 1}\n",
                ":1: missing text field `text`",
            ),
            (
                "dup.jsonl",
                b"{\"id\": 1, \"text\": \"a\"}\n{\"id\": 1, \"text\": \"b\"}\n",
                ":2: duplicate id `1` (first seen at line 1)",
            ),
            (
                "utf8.jsonl",
                b"{\"id\": 1, \"text\": \"\xff\"}\n",
                ":1: not valid UTF-8",
            ),
            ("empty.jsonl", b"\n\n", "the corpus has no documents"),
            ("array.jsonl", b"[1, 2]\n", ":1: expected a JSON object"),
        ];
        for (name, content, expected) in cases {
            let p = write(&d, name, content);
            let e = load(&p, &LoadOptions::default()).unwrap_err().to_string();
            assert!(e.contains(name) && e.contains(expected), "{name}: {e}");
        }
        let p = write(&d, "lab.jsonl", b"{\"id\": 1, \"text\": \"a\"}\n");
        let opts = LoadOptions {
            label_required: true,
            ..LoadOptions::default()
        };
        assert!(
            load(&p, &opts)
                .unwrap_err()
                .to_string()
                .contains(":1: missing label field `cluster`")
        );
    }

    #[test]
    fn skip_invalid_counts() {
        let d = tmp();
        let p = write(
            &d,
            "skip.jsonl",
            b"{\"id\": 1, \"text\": \"a\"}\n{oops\n{\"id\": 2}\n{\"id\": 3, \"text\": \"c\"}\n",
        );
        let opts = LoadOptions {
            skip_invalid: true,
            ..LoadOptions::default()
        };
        let c = load(&p, &opts).unwrap();
        assert_eq!((c.len(), c.skipped), (2, 2));
        assert!(c.first_skip.unwrap().contains(":2:"));
    }

    #[test]
    fn byte_order_mark_is_not_content() {
        let d = tmp();
        let p = write(
            &d,
            "bom.jsonl",
            b"\xEF\xBB\xBF{\"id\": 1, \"text\": \"a\"}\n",
        );
        assert_eq!(load(&p, &LoadOptions::default()).unwrap().text(0), "a");
    }

    /// Regression (issue 15): a damaged gzip body decompresses into garbage before its
    /// checksum fails, and the garbage was reported as malformed JSON.
    #[test]
    fn corrupt_gzip_is_reported_as_such() {
        let d = tmp();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        for i in 0..2000 {
            writeln!(
                gz,
                "{{\"id\": {i}, \"text\": \"document number {i} with some words\"}}"
            )
            .unwrap();
        }
        let mut bytes = gz.finish().unwrap();
        let mid = bytes.len() / 2;
        for b in &mut bytes[mid..mid + 40] {
            *b ^= 0x5a;
        }
        let p = write(&d, "damaged.jsonl.gz", &bytes);
        let e = load(&p, &LoadOptions::default()).unwrap_err().to_string();
        assert!(e.contains("damaged.jsonl.gz") && e.contains("gzip"), "{e}");
    }

    #[test]
    fn limit_counts_documents() {
        let d = tmp();
        let p = write(&d, "three.jsonl", b"{\"id\": 1, \"text\": \"a\"}\n{\"id\": 2, \"text\": \"b\"}\n{\"id\": 3, \"text\": \"c\"}\n");
        let opts = |l| LoadOptions {
            limit: Some(l),
            ..LoadOptions::default()
        };
        assert_eq!(load(&p, &opts(2)).unwrap().len(), 2);
        assert!(
            load(&p, &opts(0)).is_err(),
            "no document is an empty corpus, not one"
        );
    }

    #[test]
    fn gzip_is_transparent() {
        let d = tmp();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"{\"id\": \"a\", \"text\": \"hello\"}\n")
            .unwrap();
        let p = write(&d, "z.jsonl.gz", &gz.finish().unwrap());
        let c = load(&p, &LoadOptions::default()).unwrap();
        assert_eq!(c.text(0), "hello");
        assert_eq!(c.name, "z");
    }

    #[test]
    fn zstd_is_read_like_gzip() {
        // The input layer's decompressor: before it, `eval` and `calibrate` refused .zst.
        let d = tmp();
        let text = b"{\"id\": \"a\", \"text\": \"hello\"}\n";
        let p = write(&d, "z.jsonl.zst", &zstd::encode_all(&text[..], 3).unwrap());
        let c = crate::corpus::load(&p, &LoadOptions::default()).unwrap();
        assert_eq!((c.text(0), c.name.as_str()), ("hello", "z"));
        let bad = write(&d, "bad.jsonl.zst", b"not a zstd frame at all");
        let e = crate::corpus::load(&bad, &LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("bad.jsonl.zst") && e.contains("corrupt zstd data"),
            "{e}"
        );
    }
}
