//! `neardup dedup --clusters verified|connected` on corpora whose near duplicates chain, with
//! the audit tables (`clusters.*`, `pairs.*`). The oracle is independent of the pipeline: the
//! batch detector's verified pairs and its `compare` of any two documents, and the anchoring
//! rule written out plainly here (flood fills over sets).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::dedup_corpus::{chain_corpus, fresh_dir, write_jsonl};
use common::tables::{frame, strings};
use common::{err, ok};
use neardup::detector::ParamMap;
use polars::prelude::*;

const THRESHOLD: f64 = 0.5;

fn dir(name: &str) -> PathBuf {
    fresh_dir("verified-clusters", name)
}

fn params() -> ParamMap {
    let mut p = ParamMap::new();
    p.insert("threshold".into(), THRESHOLD.into());
    p
}

/// The rule as it reads: per connected component, the first document represents it; members
/// within the threshold of it are its cluster; the rest, split into the components of the
/// pairs among them, go again. Returns each document's representative.
fn oracle(
    n: usize,
    pairs: &[(u32, u32)],
    within: &dyn Fn(u32, u32) -> bool,
    cut: bool,
) -> Vec<u32> {
    fn components(group: &BTreeSet<u32>, pairs: &[(u32, u32)]) -> Vec<BTreeSet<u32>> {
        let mut left = group.clone();
        let mut out = Vec::new();
        while let Some(&start) = left.iter().next() {
            let mut comp = BTreeSet::from([start]);
            let mut grew = true;
            while grew {
                grew = false;
                for &(a, b) in pairs {
                    if left.contains(&a)
                        && left.contains(&b)
                        && comp.contains(&a) != comp.contains(&b)
                    {
                        comp.insert(a);
                        comp.insert(b);
                        grew = true;
                    }
                }
            }
            left.retain(|d| !comp.contains(d));
            out.push(comp);
        }
        out
    }
    let mut rep = vec![u32::MAX; n];
    let mut work = components(&(0..n as u32).collect(), pairs);
    while let Some(group) = work.pop() {
        let first = *group.iter().next().unwrap();
        let mut left = BTreeSet::new();
        for &d in &group {
            if d == first || !cut || within(first, d) {
                rep[d as usize] = first;
            } else {
                left.insert(d);
            }
        }
        work.extend(components(&left, pairs));
    }
    rep
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

fn dedup(inputs: &[&Path], out: &Path, extra: &[&str]) {
    let mut args = vec!["dedup"];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    args.extend(["-o", out.to_str().unwrap(), "--param", "threshold=0.5"]);
    args.extend_from_slice(extra);
    ok(&args);
}

/// Verified clusters equal the rule applied to the batch detector's pairs and comparisons;
/// connected clusters are the components and count their wrongful removals; every removed
/// document has a row with its representative in `pairs.parquet`.
#[test]
fn verified_clusters_follow_the_rule_and_connected_ones_chain() {
    let d = dir("rule");
    let docs = chain_corpus(11, 12, 10);
    let input = d.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
    let index = neardup::registry::detector("minhash-lsh", &params())
        .unwrap()
        .build(&texts)
        .unwrap();
    let pairs: Vec<(u32, u32)> = index
        .query(&ParamMap::new())
        .unwrap()
        .iter()
        .map(|p| (p.a, p.b))
        .collect();
    let within = |a: u32, b: u32| index.compare(a as usize, b as usize).unwrap().1;
    let id_of = |d: u32| docs[d as usize].0.clone();

    for (mode, cut) in [("verified", true), ("connected", false)] {
        let out = d.join(mode);
        dedup(&[&input], &out, &["--clusters", mode]);
        let want: Vec<String> = oracle(docs.len(), &pairs, &within, cut)
            .into_iter()
            .map(id_of)
            .collect();
        let clusters = frame(&out.join("clusters.parquet"));
        assert_eq!(
            strings(&clusters, "id"),
            docs.iter().map(|d| d.0.clone()).collect::<Vec<_>>()
        );
        let reps = strings(&clusters, "representative");
        assert_eq!(reps, want, "{mode}: representatives");
        let sims = clusters
            .column("similarity_to_representative")
            .unwrap()
            .f64()
            .unwrap()
            .clone();
        let kept = clusters.column("kept").unwrap().bool().unwrap().clone();
        let mut below = 0;
        for (i, rep) in reps.iter().enumerate() {
            let r = docs.iter().position(|(id, _)| id == rep).unwrap();
            let (s, ok) = index.compare(r, i).unwrap();
            assert_eq!(
                sims.get(i).unwrap(),
                if r == i { 1.0 } else { s },
                "{mode}: similarity of {}",
                docs[i].0
            );
            assert_eq!(kept.get(i).unwrap(), r == i);
            below += usize::from(r != i && !ok);
        }
        let s = summary(&out);
        assert_eq!(s["cluster_mode"], mode);
        assert_eq!(s["removed_below_threshold"], below as u64);
        if cut {
            assert_eq!(below, 0, "verified: a document removed below the threshold");
        } else {
            assert!(
                below > 20,
                "connected: the chains should cost wrongful removals ({below})"
            );
        }
        // Every removed document is in a pair with its representative.
        let table = frame(&out.join("pairs.parquet"));
        let listed: BTreeSet<(String, String)> = strings(&table, "id_a")
            .into_iter()
            .zip(strings(&table, "id_b"))
            .collect();
        for (i, rep) in reps.iter().enumerate() {
            let id = &docs[i].0;
            if rep != id {
                let r = docs.iter().position(|(x, _)| x == rep).unwrap();
                let pair = if r < i {
                    (rep.clone(), id.clone())
                } else {
                    (id.clone(), rep.clone())
                };
                assert!(
                    listed.contains(&pair),
                    "{mode}: no pair for {id} removed for {rep}"
                );
            }
        }
        let stages: BTreeSet<String> = strings(&table, "stage").into_iter().collect();
        assert!(stages.is_subset(&BTreeSet::from(["verify".into(), "clusters".into()])));
        assert_eq!(
            strings(&table, "stage")
                .iter()
                .filter(|s| *s == "verify")
                .count(),
            pairs.len()
        );
    }
}

/// The same clusters (byte for byte) in memory, with a spilled join, with two threads, and
/// from a rerun of the components stage alone; CSV and JSONL tables hold the Parquet ones'
/// rows.
#[test]
fn verified_clusters_are_the_same_in_every_mode_and_format() {
    let d = dir("modes");
    let docs = chain_corpus(12, 60, 12);
    let (a, b) = docs.split_at(docs.len() / 2);
    let inputs = [d.join("a.jsonl"), d.join("b.jsonl")];
    write_jsonl(&inputs[0], a);
    write_jsonl(&inputs[1], b);
    let paths: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let tables = |out: &Path| -> Vec<Vec<u8>> {
        ["clusters.parquet", "pairs.parquet", "removed.txt"]
            .iter()
            .map(|f| std::fs::read(out.join(f)).unwrap())
            .collect()
    };
    let memory = d.join("memory");
    dedup(&paths, &memory, &[]);
    assert!(summary(&memory)["removed"].as_u64().unwrap() > 100);
    let spilled = d.join("spilled");
    // 900 documents: 94 kB of places, ids and cluster entries and two 64 kB pieces spilled,
    // where the in-memory join would need 576 kB.
    dedup(&paths, &spilled, &["--memory", "400KiB", "--threads", "2"]);
    assert!(
        summary(&spilled)["spilled"].as_bool().unwrap(),
        "the join should spill"
    );
    assert_eq!(tables(&spilled), tables(&memory), "spilled");
    std::fs::remove_dir_all(spilled.join("stages/components")).unwrap();
    dedup(&paths, &spilled, &["--memory", "400KiB"]);
    assert_eq!(tables(&spilled), tables(&memory), "components rerun");

    // CSV and JSONL: the Parquet tables' rows.
    let clusters = frame(&memory.join("clusters.parquet"));
    let rows: Vec<(String, String, String)> = strings(&clusters, "id")
        .into_iter()
        .zip(strings(&clusters, "representative"))
        .zip(clusters.column("kept").unwrap().bool().unwrap().iter())
        .map(|((id, rep), k)| (id, rep, k.unwrap().to_string()))
        .collect();
    let csv_out = d.join("csv");
    dedup(&paths, &csv_out, &["--clusters-format", "csv"]);
    let mut reader = csv::Reader::from_path(csv_out.join("clusters.csv")).unwrap();
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        headers,
        [
            "id",
            "cluster",
            "cluster_size",
            "kept",
            "representative",
            "similarity_to_representative"
        ]
    );
    let from_csv: Vec<(String, String, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_string(), r[4].to_string(), r[3].to_string())
        })
        .collect();
    assert_eq!(from_csv, rows);
    let jsonl_out = d.join("jsonl");
    dedup(&paths, &jsonl_out, &["--clusters-format", "jsonl"]);
    let text = std::fs::read_to_string(jsonl_out.join("clusters.jsonl")).unwrap();
    let from_jsonl: Vec<(String, String, String)> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                v["representative"].as_str().unwrap().to_string(),
                v["kept"].as_bool().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(from_jsonl, rows);
    let pairs_lines = std::fs::read_to_string(jsonl_out.join("pairs.jsonl")).unwrap();
    assert_eq!(
        pairs_lines.lines().count(),
        frame(&memory.join("pairs.parquet")).height()
    );
}

/// With `--index`: documents of a later batch are removed only in the name of a document
/// (indexed or new) within the threshold, and the representative's id is the indexed one's.
#[test]
fn verified_clusters_against_an_index() {
    let d = dir("index");
    let docs = chain_corpus(13, 20, 10);
    let (a, b) = docs.split_at(docs.len() / 2);
    let inputs = [d.join("a.jsonl"), d.join("b.jsonl")];
    write_jsonl(&inputs[0], a);
    // The second batch: its own documents and copies of the first batch's chain ends.
    let mut second: Vec<(String, String)> = b.to_vec();
    second.extend(
        a.iter()
            .step_by(7)
            .map(|(id, t)| (format!("{id}-again"), t.clone())),
    );
    write_jsonl(&inputs[1], &second);
    let index_dir = d.join("index");
    let idx = index_dir.to_str().unwrap();
    dedup(&[&inputs[0]], &d.join("first"), &["--index", idx]);
    let out = d.join("second");
    dedup(&[&inputs[1]], &out, &["--index", idx]);

    let all: Vec<(String, String)> = a.iter().chain(&second).cloned().collect();
    let texts: Vec<&str> = all.iter().map(|(_, t)| t.as_str()).collect();
    let index = neardup::registry::detector("minhash-lsh", &params())
        .unwrap()
        .build(&texts)
        .unwrap();
    let position: BTreeMap<&str, usize> = all
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (id.as_str(), i))
        .collect();
    let clusters = frame(&out.join("clusters.parquet"));
    let (ids, reps) = (
        strings(&clusters, "id"),
        strings(&clusters, "representative"),
    );
    let mut of_index = 0;
    for (id, rep) in ids.iter().zip(&reps) {
        if id != rep {
            let (i, r) = (position[id.as_str()], position[rep.as_str()]);
            assert!(
                index.compare(r, i).unwrap().1,
                "{id} removed for {rep}, below the threshold"
            );
            of_index += usize::from(r < a.len());
        }
    }
    assert!(
        of_index >= a.len() / 7,
        "copies of indexed documents name them ({of_index})"
    );
    let s = summary(&out);
    assert_eq!(s["duplicates_of_index"], of_index as u64);
    assert_eq!(s["removed_below_threshold"], 0);
}

/// An algorithm that cannot score an arbitrary pair runs connected by default, and asking it
/// for verified clusters is refused before any work.
#[test]
fn verified_clusters_need_an_algorithm_that_compares_any_pair() {
    let d = dir("refused");
    let input = d.join("corpus.jsonl");
    write_jsonl(&input, &chain_corpus(14, 3, 5));
    let out = d.join("out");
    let said = err(&[
        "dedup",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--algorithm",
        "spotsigs",
        "--clusters",
        "verified",
    ]);
    assert!(said.contains("cannot score an arbitrary pair"), "{said}");
    assert!(
        !out.join("stages").exists(),
        "work was done before the refusal"
    );
    ok(&[
        "dedup",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--algorithm",
        "spotsigs",
    ]);
    let s = summary(&out);
    assert_eq!(s["cluster_mode"], "connected");
    // It cannot judge how far a removed document is from the kept one: unknown, not zero.
    assert!(s["removed_below_threshold"].is_null(), "{s}");
}

/// The lab's clustering modes (`query = { clusters = [...] }`, what the chaining experiment
/// reports) count what `neardup dedup` does on the same corpus: documents removed, clusters,
/// the largest cluster and the wrongful removals, in both modes — two implementations of the
/// anchoring (the lab's whole-corpus pass, the pipeline's batched stage) checked against each
/// other; both are checked against the rule by the tests above and in the library.
#[test]
fn the_lab_counts_what_dedup_removes() {
    let d = dir("lab");
    let docs = chain_corpus(13, 20, 12);
    let input = d.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let experiment = d.join("chaining.toml");
    std::fs::write(
        &experiment,
        format!(
            r#"name = "chaining-test"
title = "T"
question = "Q?"
charts = ["cluster-modes"]
[[datasets]]
path = "corpus.jsonl"
[[algorithms]]
name = "minhash-lsh"
build = {{ threshold = {THRESHOLD} }}
query = {{ clusters = ["connected", "verified"] }}
"#
        ),
    )
    .unwrap();
    let report = d.join("report");
    ok(&[
        "run",
        experiment.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
        "--cache",
        d.join("cache").to_str().unwrap(),
    ]);
    let results = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(report.join("results.csv")))
        .unwrap()
        .finish()
        .unwrap();
    let modes: Vec<String> = strings(&results, "query_params");
    assert_eq!(modes, ["clusters=connected", "clusters=verified"]);
    let count = |name: &str, row: usize| -> u64 {
        results
            .column(name)
            .unwrap()
            .cast(&DataType::UInt64)
            .unwrap()
            .u64()
            .unwrap()
            .get(row)
            .unwrap()
    };
    for (row, mode) in ["connected", "verified"].into_iter().enumerate() {
        let out = d.join(mode);
        dedup(&[&input], &out, &["--clusters", mode]);
        let s = summary(&out);
        // What ran, not the defaults' placeholders: the threshold and the tuned banding.
        let tuned = neardup::minhash::banding::tune_for_recall(THRESHOLD, 128, 0.95).unwrap();
        assert_eq!(s["params"]["threshold"], THRESHOLD);
        assert_eq!(s["params"]["bands"], tuned.bands);
        assert_eq!(s["params"]["rows"], tuned.rows);
        assert_eq!(s["params"]["tuning"], "recall-at-threshold");
        assert_eq!(count("docs_removed", row), s["removed"], "{mode}: removed");
        assert_eq!(count("clusters", row), s["clusters"], "{mode}: clusters");
        assert_eq!(
            count("removed_below_threshold", row),
            s["removed_below_threshold"],
            "{mode}: removed below the threshold"
        );
        assert_eq!(
            count("largest_cluster", row),
            s["largest_clusters"][0]["size"],
            "{mode}: largest cluster"
        );
    }
    assert!(count("removed_below_threshold", 0) > 0, "the chains chain");
    assert_eq!(count("removed_below_threshold", 1), 0);
    assert!(report.join("charts/cluster-modes.png").is_file());
}
