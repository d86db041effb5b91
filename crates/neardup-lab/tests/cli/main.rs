//! End-to-end tests of the `neardup` binary's contracts, one file per subcommand or concern;
//! the helpers they share are here.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../common/mod.rs"]
mod common;
use common::{err, neardup, ok, shared_data};

mod algorithms;
mod calibrate;
mod completions;
mod datasets;
mod edit;
mod eval;
mod limits;
mod lsh_hamming;
mod reports;
mod site;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(name: &str) -> String {
    repo()
        .join("datasets/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// The named fields of the first data row of `neardup eval`'s CSV.
fn eval_fields<'a>(out: &'a str, names: &[&str]) -> Vec<&'a str> {
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    names
        .iter()
        .map(|n| {
            row[header
                .iter()
                .position(|h| h == n)
                .unwrap_or_else(|| panic!("no column {n}"))]
        })
        .collect()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("neardup-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// A corpus file of `n` short documents with planted duplicates (every document has a copy),
/// for the limit tests.
fn duplicated_corpus(name: &str, n: usize) -> PathBuf {
    let p = tmp(name);
    let mut s = String::new();
    for i in 0..n {
        let text = format!(
            "document {} talks about topic {} and item {} with plenty of filler words here",
            i / 2,
            i % 7,
            i / 2
        );
        s.push_str(&serde_json::json!({"id": i, "text": text}).to_string());
        s.push('\n');
    }
    std::fs::write(&p, s).unwrap();
    p
}
