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

#[cfg(test)]
mod tests {
    use super::*;

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
