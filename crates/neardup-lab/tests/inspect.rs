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

/// A corpus under a configuration, without a dedup run: the pairs at or above the threshold
/// and the clusters are dedup's (same verified pairs, removals and largest clusters), and the
/// near misses below it are shown too, each within `--below` of the threshold.
#[test]
fn inspect_a_corpus_shows_the_near_misses_dedup_drops() {
    let docs = chain_corpus(23, 8, 10);
    let from_dedup = inspect_run("dedup-side", &docs, &[]);
    let d = fresh_dir("inspect", "corpus");
    let input = d.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let html = d.join("page.html");
    let got: serde_json::Value = serde_json::from_str(&ok(&[
        "inspect",
        "--corpus",
        input.to_str().unwrap(),
        "--param",
        "threshold=0.5",
        "--below",
        "0.2",
        "--per-band",
        "1000",
        "--format",
        "json",
        "--html",
        html.to_str().unwrap(),
    ]))
    .unwrap();
    assert!(html.is_file());
    assert_eq!(got["removed"], from_dedup["removed"]);
    assert_eq!(got["largest"], from_dedup["largest"]);
    let bands = got["bands"].as_array().unwrap();
    let below = bands
        .iter()
        .find(|b| b["name"] == "below the threshold")
        .expect("near misses");
    let rejected = below["count"].as_u64().unwrap();
    assert!(rejected > 0);
    // Every pair is sampled (--per-band 1000): the verified ones are dedup's verified ones.
    let verified = |v: &serde_json::Value| -> BTreeSet<(String, String)> {
        v["bands"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|b| b["samples"].as_array().unwrap())
            .filter(|p| p["stage"] == "verify")
            .map(|p| (p["id_a"].to_string(), p["id_b"].to_string()))
            .collect()
    };
    assert_eq!(verified(&got), verified(&from_dedup));
    assert_eq!(
        got["pairs"].as_u64().unwrap() - rejected,
        verified(&got).len() as u64
    );
    for p in below["samples"].as_array().unwrap() {
        let s = p["similarity"].as_f64().unwrap();
        assert!((0.3..0.5).contains(&s), "{s}");
        assert_eq!(p["stage"], "rejected");
    }
    let e = err(&[
        "inspect",
        "--corpus",
        input.to_str().unwrap(),
        "--below",
        "1.5",
    ]);
    assert!(e.contains("--below"), "{e}");
}

/// An eval run's pairs (`eval --dump-pairs`), grouped by outcome: the counts are eval's own
/// (true positives + false positives = reported pairs, true positives + missed = true pairs).
#[test]
fn inspect_an_eval_run_shows_missed_and_false_pairs() {
    let d = fresh_dir("inspect", "eval");
    let corpus = d.join("labelled.jsonl");
    let docs = chain_corpus(24, 6, 10);
    let lines: Vec<String> = docs
        .iter()
        .map(|(id, text)| {
            // A chain and its copy are one cluster; the unrelated documents are alone.
            let cluster = id
                .starts_with('c')
                .then(|| id.split('-').next().unwrap().to_string());
            serde_json::json!({"id": id, "text": text, "cluster": cluster}).to_string()
        })
        .collect();
    std::fs::write(&corpus, lines.join("\n") + "\n").unwrap();
    let dump = d.join("dump.csv");
    let csv = ok(&[
        "eval",
        "--corpus",
        corpus.to_str().unwrap(),
        "--algorithm",
        "minhash-lsh",
        "--param",
        "threshold=0.5",
        "--dump-pairs",
        dump.to_str().unwrap(),
    ]);
    let field = |name: &str| -> u64 {
        let mut l = csv.lines();
        let header: Vec<&str> = l.next().unwrap().split(',').collect();
        let row: Vec<&str> = l.next().unwrap().split(',').collect();
        row[header.iter().position(|h| *h == name).unwrap()]
            .parse::<f64>()
            .unwrap() as u64
    };
    let got: serde_json::Value = serde_json::from_str(&ok(&[
        "inspect",
        "--eval",
        dump.to_str().unwrap(),
        "--corpus",
        corpus.to_str().unwrap(),
        "--format",
        "json",
        "--html",
        d.join("eval.html").to_str().unwrap(),
    ]))
    .unwrap();
    let count = |name: &str| -> u64 {
        got["bands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .map_or(0, |b| b["count"].as_u64().unwrap())
    };
    assert_eq!(count("true positive"), field("tp"));
    assert_eq!(count("false positive"), field("fp"));
    assert_eq!(count("missed"), field("fn"));
    assert!(field("fn") > 0, "the chains' far ends are missed at 0.5");
    let e = err(&[
        "inspect",
        "--eval",
        corpus.to_str().unwrap(),
        "--corpus",
        corpus.to_str().unwrap(),
    ]);
    assert!(e.contains("not a pairs dump"), "{e}");
}
