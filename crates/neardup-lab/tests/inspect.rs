//! `neardup inspect` over `neardup dedup` outputs whose near-duplicates chain. Oracles: the
//! run's own tables and summary (band counts add up to the pairs, the band below the
//! threshold holds exactly the documents connected components removed below it), the corpus
//! (each side of a diff gives back its document's text) and exact Jaccard computed here.

mod common;

use std::collections::{BTreeSet, HashMap};

use common::dedup_corpus::{chain_corpus, fresh_dir, write_jsonl};
use common::{err, ok};

fn words5(t: &str) -> BTreeSet<Vec<String>> {
    let w: Vec<String> = t.split_whitespace().map(|w| w.to_lowercase()).collect();
    w.windows(5).map(|x| x.to_vec()).collect()
}

fn jaccard(a: &str, b: &str) -> f64 {
    let (x, y) = (words5(a), words5(b));
    x.intersection(&y).count() as f64 / x.union(&y).count() as f64
}

/// The inspection (JSON) of a dedup run of `docs` with `extra` arguments.
fn inspect_run(name: &str, docs: &[(String, String)], extra: &[&str]) -> serde_json::Value {
    let d = fresh_dir("inspect", name);
    let input = d.join("corpus.jsonl");
    write_jsonl(&input, docs);
    let out = d.join("out");
    let mut args = vec![
        "dedup",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend(["--param", "threshold=0.5"]);
    args.extend_from_slice(extra);
    ok(&args);
    let json = ok(&[
        "inspect",
        out.to_str().unwrap(),
        "--per-band",
        "1000",
        "--format",
        "json",
    ]);
    let page = std::fs::read_to_string(out.join("inspect.html")).unwrap();
    assert!(
        page.starts_with("<!doctype html>") && page.contains("<del>") && page.contains("<ins>")
    );
    serde_json::from_str(&json).unwrap()
}

#[test]
fn inspect_shows_every_band_with_texts_diffs_and_exact_similarity() {
    let docs = chain_corpus(21, 10, 12);
    let texts: HashMap<&str, &str> = docs.iter().map(|(i, t)| (i.as_str(), t.as_str())).collect();
    let got = inspect_run("connected", &docs, &["--clusters", "connected"]);
    let bands = got["bands"].as_array().unwrap();
    let total: u64 = bands.iter().map(|b| b["count"].as_u64().unwrap()).sum();
    assert_eq!(
        total,
        got["pairs"].as_u64().unwrap(),
        "bands cover every pair once"
    );
    let below = bands
        .iter()
        .find(|b| b["name"] == "below the threshold")
        .expect("connected components removed documents below the threshold");
    assert_eq!(below["count"], got["removed_below_threshold"]);
    assert!(below["count"].as_u64().unwrap() > 0);
    for band in bands {
        for p in band["samples"].as_array().unwrap() {
            let (a, b) = (p["id_a"].as_str().unwrap(), p["id_b"].as_str().unwrap());
            let segments = p["diff"].as_array().unwrap();
            let side = |own: &str| -> String {
                segments
                    .iter()
                    .filter(|s| s["side"] == "both" || s["side"] == own)
                    .map(|s| s["text"].as_str().unwrap())
                    .collect()
            };
            assert_eq!(side("first"), texts[a], "{a}");
            assert_eq!(side("second"), texts[b], "{b}");
            let exact = p["exact"].as_f64().unwrap();
            assert!(
                (exact - jaccard(texts[a], texts[b])).abs() < 1e-9,
                "{a} {b}"
            );
            let s = p["similarity"].as_f64().unwrap();
            let (low, high) = (band["low"].as_f64(), band["high"].as_f64());
            assert!(
                low.is_none_or(|l| s >= l) && high.is_none_or(|h| s < h),
                "{s} in {band}"
            );
        }
    }
    // The largest cluster is the longest chain, least similar member first.
    let largest = &got["largest"][0];
    let sims: Vec<f64> = largest["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["similarity"].as_f64().unwrap())
        .collect();
    assert!(
        sims.windows(2).all(|w| w[0] <= w[1]) && sims[0] < 0.5,
        "{sims:?}"
    );
}

/// The same inspection from CSV and JSONL tables as from Parquet; verified clusters have no
/// band below the threshold.
#[test]
fn inspect_reads_every_table_format() {
    let docs = chain_corpus(22, 6, 10);
    let parquet = inspect_run("parquet", &docs, &[]);
    assert!(
        parquet["bands"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["name"] != "below the threshold")
    );
    for format in ["csv", "jsonl"] {
        let other = inspect_run(format, &docs, &["--clusters-format", format]);
        assert_eq!(other["bands"], parquet["bands"], "{format}");
        assert_eq!(other["largest"], parquet["largest"], "{format}");
    }
}

#[test]
fn inspect_names_what_is_missing() {
    let d = fresh_dir("inspect", "missing");
    let e = err(&["inspect", d.to_str().unwrap()]);
    assert!(
        e.contains("summary.json") && e.contains("not a neardup dedup output"),
        "{e}"
    );
}
