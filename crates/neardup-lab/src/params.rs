//! `key=value` parameters from the command line into a [`ParamMap`].
//!
//! A value is read as JSON when it parses as JSON (`3`, `0.8`, `true`, `null`, `"x"`), and as
//! a plain string otherwise (`shingle=word`), so users never need shell-quoted quotes.

use anyhow::{Result, bail};
use neardup::detector::ParamMap;
use serde_json::Value;

/// Parses one `key=value`.
pub fn parse_param(s: &str) -> Result<(String, Value)> {
    let Some((key, value)) = s.split_once('=') else {
        bail!("parameter `{s}` is not of the form key=value");
    };
    let key = key.trim();
    if key.is_empty() {
        bail!("parameter `{s}` has an empty name");
    }
    let value = value.trim();
    let parsed = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()));
    Ok((key.to_string(), parsed))
}

/// Parses a list of `key=value`; a repeated key is an error.
pub fn parse_params(items: &[String]) -> Result<ParamMap> {
    let mut map = ParamMap::new();
    for item in items {
        let (k, v) = parse_param(item)?;
        if map.insert(k.clone(), v).is_some() {
            bail!("parameter `{k}` given twice");
        }
    }
    Ok(map)
}

/// Renders a parameter map as `key=value key=value` (strings unquoted), sorted by key.
pub fn render_params(map: &ParamMap) -> String {
    map.iter()
        .map(|(k, v)| format!("{k}={}", render_value(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A JSON value as a user would type it.
pub fn render_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The parameters that set a detector's cut, as they run: those `calibrate` moves
/// (`threshold_params`) and a `threshold`, or all of its query parameters when it has no such
/// cut; unset ones left out. What `similarity` and `eval --format table` print beside a
/// verdict.
pub fn deciding_params(detector: &dyn neardup::detector::Detector) -> String {
    let resolved = detector.resolved_params();
    let query = detector.query_params();
    let deciding = detector.threshold_params(0.5).unwrap_or_default();
    resolved
        .iter()
        .filter(|(k, v)| {
            !v.is_null()
                && (deciding.contains_key(*k)
                    || *k == "threshold"
                    || (deciding.is_empty() && query.contains_key(*k)))
        })
        .map(|(k, v)| format!("{k}={}", render_value(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

include!(concat!(env!("OUT_DIR"), "/param_docs.rs"));

/// Algorithms whose `k` (shingle size) users take for the Hamming distance the SimHash
/// papers and reports call k: `--param k=3` silently ran word 3-shingles.
const HAMMING_ALGORITHMS: [&str; 2] = ["simhash", "random-projection"];

/// A note for parameters that say something other than what a user likely meant: `k` given
/// to a Hamming-distance algorithm without its distance.
pub fn ambiguity(algorithm: &str, params: &ParamMap) -> Option<String> {
    (HAMMING_ALGORITHMS.contains(&algorithm)
        && params.contains_key("k")
        && !params.contains_key("max_distance")
        && !params.contains_key("min_agreement"))
    .then(|| {
        format!(
            "{algorithm}'s `k` is its shingle size (k={} runs {}-shingles); the Hamming \
             distance the papers call k is `max_distance` for simhash (`neardup algorithms \
             {algorithm}` lists what each parameter means)",
            params["k"], params["k"]
        )
    })
}

/// What parameter `field` of `algorithm` means: the doc comment of the field in the
/// algorithm's own parameter struct, else in a shared one (features, normalization).
pub fn param_doc(algorithm: &str, field: &str) -> Option<&'static str> {
    let own: String = algorithm
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_lowercase();
    let of = |own_struct: bool| {
        PARAM_DOCS
            .iter()
            .find(|(s, f, _)| *f == field && s.to_lowercase().starts_with(&own) == own_struct)
            .map(|d| d.2)
    };
    of(true).or_else(|| of(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every parameter of every algorithm says what it is (`neardup algorithms NAME`): a
    /// field added without a doc comment fails here.
    #[test]
    fn every_parameter_is_documented() {
        let mut missing = Vec::new();
        for a in neardup::registry::algorithms() {
            for k in a.build_defaults.keys().chain(a.query_defaults.keys()) {
                if param_doc(a.name, k).is_none_or(|d| d.len() < 10) {
                    missing.push(format!("{}.{k}", a.name));
                }
            }
        }
        assert!(missing.is_empty(), "undocumented: {missing:?}");
        assert!(param_doc("minhash-lsh", "sketch").unwrap().contains("oph"));
    }

    #[test]
    fn values_are_typed_when_json() {
        assert_eq!(parse_param("k=3").unwrap().1, Value::from(3));
        assert_eq!(parse_param("t=0.5").unwrap().1, Value::from(0.5));
        assert_eq!(parse_param("shingle=word").unwrap().1, Value::from("word"));
        assert_eq!(parse_param("x=true").unwrap().1, Value::from(true));
        assert!(parse_param("novalue").is_err());
        assert!(parse_param("=3").is_err());
        assert!(parse_params(&["k=1".into(), "k=2".into()]).is_err());
    }
}
