//! `neardup algorithms [NAME]`: the registered algorithms — one short line each (name, what it
//! is, how `neardup dedup` runs it) — or one algorithm's default parameters, build and query
//! apart, one per line; `--format json` gives the same as JSON.

use std::io::Write;

use anyhow::Result;
use neardup::detector::ParamMap;
use neardup::registry::AlgorithmInfo;

use super::invocation::{Invocation, Run};

/// How `neardup dedup` runs `a` with its defaults.
fn dedup_mode(a: &AlgorithmInfo) -> String {
    match (a.streams_by_default(), a.streams_when) {
        (true, _) => "streamed".to_string(),
        (false, Some(when)) => format!("in memory; streamed with {when}"),
        (false, None) => "in memory".to_string(),
    }
}

/// One algorithm as JSON: the registry's description (Python's `neardup.algorithms()`) and
/// how `neardup dedup` runs it.
fn to_json(a: &AlgorithmInfo) -> serde_json::Value {
    let mut v = a.to_json();
    v["dedup"] = dedup_mode(a).into();
    let docs: serde_json::Map<String, serde_json::Value> = a
        .build_defaults
        .keys()
        .chain(a.query_defaults.keys())
        .filter_map(|k| Some((k.clone(), crate::params::param_doc(a.name, k)?.into())))
        .collect();
    v["param_docs"] = docs.into();
    v
}

/// `NAME  summary  [dedup: …]` for every algorithm.
pub fn list(out: &mut impl Write) -> Result<()> {
    let all = neardup::registry::algorithms();
    let width = all.iter().map(|a| a.name.len()).max().unwrap_or(0);
    for a in &all {
        writeln!(
            out,
            "{:width$}  {}  [dedup: {}]",
            a.name,
            a.summary,
            dedup_mode(a)
        )?;
    }
    writeln!(
        out,
        "\n`neardup algorithms NAME` lists an algorithm's parameters and their defaults."
    )?;
    Ok(())
}

/// One algorithm: its summary, then its build and its query parameters, one per line.
pub fn show(a: &AlgorithmInfo, out: &mut impl Write) -> Result<()> {
    writeln!(out, "{}: {}", a.name, a.summary)?;
    writeln!(out, "neardup dedup: {}", dedup_mode(a))?;
    // What the defaults become when the algorithm runs (a tuned banding, a threshold).
    let resolved = a.detector(&ParamMap::new())?.resolved_params();
    let sections = [
        (
            "Build parameters (set when the index is built)",
            &a.build_defaults,
        ),
        (
            "Query parameters (change what is reported from one index)",
            &a.query_defaults,
        ),
    ];
    for (title, params) in sections {
        writeln!(out, "\n{title}:")?;
        write_params(a.name, params, &resolved, out)?;
    }
    writeln!(
        out,
        "\n`→`: the value a default resolves to when the algorithm runs with every other \
         parameter at its default; `--param key=value` sets one."
    )?;
    Ok(())
}

/// Each parameter: its default (and what it resolves to), then what it means, from the doc
/// comment of the field that reads it.
fn write_params(
    algorithm: &str,
    params: &ParamMap,
    resolved: &ParamMap,
    out: &mut impl Write,
) -> Result<()> {
    if params.is_empty() {
        writeln!(out, "  (none)")?;
    }
    let width = params.keys().map(String::len).max().unwrap_or(0);
    for (k, v) in params {
        match resolved.get(k).filter(|r| *r != v) {
            Some(r) => writeln!(out, "  {k:width$} = {v}  → {r}")?,
            None => writeln!(out, "  {k:width$} = {v}")?,
        }
        if let Some(doc) = crate::params::param_doc(algorithm, k) {
            for line in wrap(doc, 88) {
                writeln!(out, "      {line}")?;
            }
        }
    }
    Ok(())
}

/// `text` in lines of at most `width` characters (a longer word on a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// List the registered algorithms, or one algorithm's parameters and defaults.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// An algorithm: list its build and query parameters with their defaults.
    pub name: Option<String>,
    /// Output: text, or JSON (an array of every algorithm, or one algorithm's object: name,
    /// summary, build_defaults, query_defaults, streamed, dedup).
    #[arg(long, value_enum, default_value_t = crate::output_format::ListFormat::Text)]
    pub format: crate::output_format::ListFormat,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let out = &mut invocation.out;
        let json = self.format == crate::output_format::ListFormat::Json;
        match self.name {
            None if json => {
                let all: Vec<_> = neardup::registry::algorithms()
                    .iter()
                    .map(to_json)
                    .collect();
                writeln!(out, "{}", serde_json::to_string_pretty(&all)?)?;
            }
            None => list(out)?,
            Some(name) => {
                let a = neardup::registry::find(&name)?;
                if json {
                    writeln!(out, "{}", serde_json::to_string_pretty(&to_json(&a))?)?;
                } else {
                    show(&a, out)?;
                }
            }
        }
        Ok(())
    }
}
