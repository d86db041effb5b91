//! End-to-end tests of the `neardup` binary's contracts.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{err, neardup, ok, shared_data};

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

#[test]
fn scurve_contract() {
    let out = ok(&["lsh", "scurve", "--bands", "20", "--rows", "5"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 22);
    assert_eq!(lines[0], "similarity,probability");
    assert_eq!(lines[1], "0.00,0.000000");
    assert_eq!(lines[17], "0.80,0.999644");
    assert_eq!(lines[21], "1.00,1.000000");
    assert!(err(&["lsh", "scurve", "--bands", "0", "--rows", "5"]).contains("bands"));
}

#[test]
fn tune_contract() {
    let tune = |format: &str| {
        ok(&[
            "lsh",
            "tune",
            "--threshold",
            "0.8",
            "--num-perm",
            "128",
            "--format",
            format,
        ])
    };
    let out = ok(&["lsh", "tune", "--threshold", "0.8", "--num-perm", "128"]);
    assert!(out.starts_with("bands=9 rows=13 threshold=0.844"), "{out}");
    let first = out.lines().next().unwrap();
    assert!(first.contains(" false_positive_area=") && first.contains(" false_negative_area="));
    // 9 × 13 = 117 of 128 permutations are banded.
    assert!(first.ends_with(" unused_permutations=11"), "{out}");
    // P(candidate) at t − 0.1 … t + 0.1: 1 − (1 − s^13)^9.
    let p = |s: f64| 1.0 - (1.0 - s.powi(13)).powi(9);
    assert!(out.contains(&format!("0.70  {:>12.6}", p(0.7))), "{out}");
    assert!(
        out.contains(&format!("0.80  {:>12.6}  ← target", p(0.8))),
        "{out}"
    );
    assert!(out.contains(&format!("0.90  {:>12.6}", p(0.9))), "{out}");
    let json: serde_json::Value = serde_json::from_str(&tune("json")).unwrap();
    assert_eq!(
        (json["bands"].as_u64(), json["rows"].as_u64()),
        (Some(9), Some(13))
    );
    assert_eq!(json["unused_permutations"], 11);
    let probs = json["candidate_probability"].as_array().unwrap();
    assert_eq!(probs.len(), 5);
    assert!((probs[0]["probability"].as_f64().unwrap() - p(0.7)).abs() < 1e-12);
    // CSV: the columns its --help names, the banding in every row.
    let csv = tune("csv");
    let header = "bands,rows,threshold,objective,unused_permutations,similarity,probability";
    assert_eq!(csv.lines().next(), Some(header));
    let help: String = ok(&["lsh", "tune", "--help"])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(help.contains(&header.replace(',', ", ")), "{help}");
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|r| r[..2] == ["9", "13"] && r[4] == "11"));
    assert_eq!(rows[0][6], format!("{:.6}", p(0.7)));
    assert!(
        err(&["lsh", "tune", "--threshold", "1.5", "--num-perm", "128"]).contains("outside (0, 1]")
    );
    assert!(err(&["lsh", "tune", "--threshold", "0.5", "--num-perm", "0"]).contains("num_perm"));
}

#[test]
fn algorithms_lists_one_line_each() {
    let out = ok(&["algorithms"]);
    let registry = neardup::registry::algorithms();
    let lines: Vec<&str> = out.lines().take(registry.len()).collect();
    for (line, a) in lines.iter().zip(&registry) {
        assert!(
            line.starts_with(a.name) && line.contains("[dedup: "),
            "{line}"
        );
        assert!(
            line.chars().count() <= 200,
            "{} characters: {line}",
            line.len()
        );
    }
    // One algorithm: every default on its own line, and what the unset ones resolve to.
    let minhash = ok(&["algorithms", "minhash-lsh"]);
    assert!(minhash.contains("Build parameters") && minhash.contains("Query parameters"));
    assert!(
        minhash
            .lines()
            .any(|l| l.trim_start().starts_with("num_perm") && l.ends_with("= 128"))
    );
    assert!(
        minhash
            .lines()
            .any(|l| l.trim_start().starts_with("threshold") && l.ends_with("→ 0.8"))
    );
    assert!(
        minhash
            .lines()
            .any(|l| l.trim_start().starts_with("bands") && l.ends_with("= 0  → 13"))
    );
    // JSON: the same objects as Python's neardup.algorithms().
    let all: serde_json::Value =
        serde_json::from_str(&ok(&["algorithms", "--format", "json"])).unwrap();
    assert_eq!(all.as_array().unwrap().len(), registry.len());
    let one: serde_json::Value =
        serde_json::from_str(&ok(&["algorithms", "spotsigs", "--format", "json"])).unwrap();
    assert_eq!(one["build_defaults"]["cjk_unit"], "char");
    assert_eq!(one["query_defaults"]["threshold"], 0.85);
    assert!(err(&["algorithms", "nope"]).contains("unknown algorithm `nope`"));
}

#[test]
fn similarity_prints_exact_and_estimates() {
    let a = tmp("a.txt");
    let b = tmp("b.txt");
    std::fs::write(&a, "a rose is a rose is a rose").unwrap();
    std::fs::write(&b, "a rose is a flower which is a rose").unwrap();
    let out = ok(&[
        "similarity",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--shingle",
        "1",
    ]);
    let line = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} line: {out}"))
            .to_string()
    };
    assert!(line("jaccard").contains(" 0.6000 "), "{out}");
    assert!(line("multiset_resemblance").contains(" 0.7000 "), "{out}");
    // Every algorithm has a score (or n/a), a verdict at its defaults and what it measures.
    for a in neardup::registry::algorithms() {
        let l = line(a.name);
        assert!(l.contains("distinct"), "{l}");
        assert!(l.ends_with(a.score), "{l}");
    }
    assert!(line("minhash-lsh").contains("threshold=0.8"), "{out}");
    // The same text twice, one from a file and one inline: every algorithm that can score
    // two lone texts calls it a duplicate; JSON for programs, one algorithm asked for.
    let json = ok(&[
        "similarity",
        a.to_str().unwrap(),
        "--text",
        "a rose is a rose is a rose",
        "--algorithm",
        "exact",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let algos = doc["algorithms"].as_array().unwrap();
    assert_eq!(algos.len(), 1, "{json}");
    assert_eq!(algos[0]["name"], "exact");
    assert_eq!(algos[0]["score"], 1.0);
    assert_eq!(algos[0]["duplicate_at_defaults"], true);
    assert_eq!(doc["exact"][0]["value"], 1.0);
    let e = err(&["similarity", a.to_str().unwrap()]);
    assert!(e.contains("two texts") && e.contains("got 1"), "{e}");
    let e = err(&[
        "similarity",
        "--text",
        "x",
        "--text",
        "y",
        "--algorithm",
        "nope",
    ]);
    assert!(e.contains("nope"), "{e}");
    let bad = tmp("bad.txt");
    std::fs::write(&bad, b"ok \xff\xfe").unwrap();
    let e = err(&["similarity", a.to_str().unwrap(), bad.to_str().unwrap()]);
    assert!(e.contains("bad.txt") && e.contains("UTF-8"), "{e}");
}

const TINY_ARGS: &[&str] = &[
    "--algorithm",
    "minhash-lsh",
    "--param",
    "k=1",
    "--param",
    "verify=exact",
    "--param",
    "threshold=0.6",
    "--param",
    "bands=64",
    "--param",
    "rows=2",
];

/// `eval --format table` says why a default run misses a copy: one word of twenty changed
/// leaves 11 of the 21 distinct word 5-shingles shared (the 5 windows over the changed word
/// differ on each side), Jaccard 11/21 = 0.52, far below minhash-lsh's default threshold.
#[test]
fn eval_table_explains_what_the_defaults_miss() {
    let words: Vec<String> = (1..=20).map(|i| format!("w{i}")).collect();
    let mut copy = words.clone();
    copy[9] = "changed".into();
    let corpus = tmp("one-copy.jsonl");
    std::fs::write(
        &corpus,
        format!(
            "{{\"id\": \"a\", \"text\": \"{}\", \"cluster\": \"A\"}}\n\
             {{\"id\": \"b\", \"text\": \"{}\", \"cluster\": \"A\"}}\n\
             {{\"id\": \"c\", \"text\": \"other words entirely here\", \"cluster\": null}}\n",
            words.join(" "),
            copy.join(" ")
        ),
    )
    .unwrap();
    let table = |params: &[&str]| {
        let mut args = vec!["eval", "--corpus", corpus.to_str().unwrap()];
        args.extend(["--algorithm", "minhash-lsh", "--format", "table"]);
        args.extend(params);
        ok(&args)
    };
    let out = table(&[]);
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header[..3], ["configuration", "decided", "by"], "{out}");
    let row = lines.next().unwrap();
    assert!(
        row.starts_with("minhash-lsh ") && row.contains("threshold=0.8"),
        "{out}"
    );
    assert!(
        out.contains("minhash-lsh: missed 1 duplicates") && out.contains("median 0.52"),
        "{out}"
    );
    // Found once the cut is where the copy is: no note.
    let out = table(&["--param", "threshold=0.4"]);
    assert!(!out.contains("missed"), "{out}");
}

/// Hand-computed row for datasets/fixtures/tiny-labelled.jsonl (see its README):
/// reported a1–a2, b1–b2, b1–c, b2–c; positives a1–a2, a1–a3, a2–a3, b1–b2 → TP 2, FP 2, FN 2.
/// ARI: predicted {a1,a2},{a3},{b1,b2,c} vs true {a1,a2,a3},{b1,b2},{c}: index 2, row sum 4,
/// column sum 4, expected 16/15 → (2 − 16/15)/(4 − 16/15) = 7/22 = 0.318182.
/// ROC-AUC over all 15 pairs scored by exact Jaccard: positives 1, 0, 0, 2/3; negatives 1, 2/3
/// and nine 0s → (10.5 + 4.5 + 4.5 + 9.5)/44 = 29/44 = 0.659091.
#[test]
fn eval_tiny_fixture_hand_computed_row() {
    let corpus = fixture("tiny-labelled.jsonl");
    let mut args = vec!["eval", "--corpus", corpus.as_str()];
    args.extend_from_slice(TINY_ARGS);
    let out = ok(&args);
    // The columns: the configuration, every metric of the registry in order, the error.
    let mut expected = vec!["algorithm", "params", "resolved_params", "docs"];
    expected.extend(neardup_lab::metrics::columns().map(|c| c.name));
    expected.push("error");
    assert_eq!(out.lines().next().unwrap(), expected.join(","));
    assert_eq!(
        eval_fields(&out, &["algorithm", "params"]),
        [
            "minhash-lsh",
            "bands=64 k=1 rows=2 threshold=0.6 verify=exact"
        ]
    );
    // What ran: every parameter, the explicit banding and threshold among them.
    let resolved = eval_fields(&out, &["resolved_params"]).remove(0);
    for kv in [
        "bands=64",
        "rows=2",
        "threshold=0.6",
        "k=1",
        "num_perm=128",
        "shingle=word",
    ] {
        assert!(resolved.split(' ').any(|p| p == kv), "{kv} in {resolved}");
    }
    assert_eq!(
        eval_fields(
            &out,
            &[
                "docs",
                "true_pairs",
                "tp",
                "fp",
                "fn",
                "precision",
                "recall",
                "f1",
                "ari",
                "roc_auc"
            ]
        ),
        [
            "6", "4", "2", "2", "2", "0.500000", "0.500000", "0.500000", "0.318182", "0.659091"
        ]
    );
    // 4 pairs, clusters {a1,a2} and {b1,b2,c}: 3 documents removed.
    assert_eq!(
        eval_fields(
            &out,
            &["reported_pairs", "clusters", "docs_removed", "error"]
        ),
        ["4", "2", "3", ""]
    );
    assert!(eval_fields(&out, &["seconds"])[0].parse::<f64>().unwrap() >= 0.0);
}

/// With --pairs only listed pairs count: a1–a2 (dup, reported) TP, a1–a3 (dup, missed) FN,
/// b1–c (not dup, reported) FP, b2–a3 (not dup, not reported) TN. ROC-AUC over the four:
/// positives 1, 0 vs negatives 1, 0 → (1.5 + 0.5)/4 = 0.5.
#[test]
fn eval_with_labelled_pairs() {
    let corpus = fixture("tiny-labelled.jsonl");
    let pairs = fixture("tiny-pairs.csv");
    let mut args = vec![
        "eval",
        "--corpus",
        corpus.as_str(),
        "--pairs",
        pairs.as_str(),
    ];
    args.extend_from_slice(TINY_ARGS);
    let out = ok(&args);
    assert_eq!(
        eval_fields(
            &out,
            &[
                "docs",
                "true_pairs",
                "tp",
                "fp",
                "fn",
                "precision",
                "recall",
                "f1",
                "ari",
                "roc_auc"
            ]
        ),
        [
            "6", "2", "1", "1", "1", "0.500000", "0.500000", "0.500000", "", "0.500000"
        ]
    );
}

#[test]
fn eval_json_and_defaults() {
    let corpus = fixture("tiny-labelled.jsonl");
    let out = ok(&["eval", "--corpus", &corpus, "--format", "json"]);
    assert_eq!(out.lines().count(), neardup::registry::algorithms().len());
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["bcubed_precision"].is_number(), "{line}");
        // Counts are integers, as in the CSV.
        for count in ["tp", "fp", "fn", "true_pairs", "reported_pairs", "clusters"] {
            assert!(v[count].is_u64(), "{count} in {line}");
        }
    }
}

/// `eval --help` names every column the CSV has, in order (they drifted apart once: 15 named,
/// 23 written).
#[test]
fn eval_help_lists_the_csv_columns() {
    let help = ok(&["eval", "--help"]);
    let listed: String = help
        .split("Columns: ")
        .nth(1)
        .and_then(|rest| rest.split(" (").next())
        .expect("a Columns: list")
        .split_whitespace()
        .collect();
    let corpus = fixture("tiny-labelled.jsonl");
    let csv = ok(&["eval", "--corpus", &corpus, "--algorithm", "exact"]);
    assert_eq!(listed, csv.lines().next().unwrap());
}

#[test]
fn eval_bad_input_is_named() {
    let corpus = fixture("tiny-labelled.jsonl");
    assert!(
        err(&["eval", "--corpus", &corpus, "--algorithm", "nope"])
            .contains("unknown algorithm `nope`")
    );
    let e = err(&[
        "eval",
        "--corpus",
        &corpus,
        "--algorithm",
        "minhash-lsh",
        "--param",
        "colour=red",
    ]);
    assert!(e.contains("no parameter `colour`"), "{e}");
    let e = err(&[
        "eval",
        "--corpus",
        &corpus,
        "--param",
        "k=3",
        "--algorithm",
        "minhash-lsh",
    ]);
    assert!(e.contains("before any --algorithm"), "{e}");
    let e = err(&[
        "eval",
        "--corpus",
        &corpus,
        "--algorithm",
        "minhash-lsh",
        "--param",
        "num_perm=0",
    ]);
    assert!(e.contains("num_perm"), "{e}");
    let missing = tmp("missing.jsonl");
    assert!(err(&["eval", "--corpus", missing.to_str().unwrap()]).contains("missing.jsonl"));
    let bad = tmp("bad.jsonl");
    std::fs::write(&bad, "{\"id\": \"x\", \"text\": \"a\"}\n{broken\n").unwrap();
    let e = err(&["eval", "--corpus", bad.to_str().unwrap()]);
    assert!(e.contains("bad.jsonl:2: malformed JSON"), "{e}");
    let out = ok(&[
        "eval",
        "--corpus",
        bad.to_str().unwrap(),
        "--skip-invalid",
        "--algorithm",
        "minhash-lsh",
    ]);
    assert!(out.contains("minhash-lsh,,"), "{out}");
    assert_eq!(eval_fields(&out, &["docs"]), ["1"]);
    let unknown_pairs = tmp("unknown-pairs.csv");
    std::fs::write(&unknown_pairs, "id_a,id_b\na1,zz\n").unwrap();
    let e = err(&[
        "eval",
        "--corpus",
        &corpus,
        "--pairs",
        unknown_pairs.to_str().unwrap(),
    ]);
    assert!(e.contains("unknown-pairs.csv:2: id `zz`"), "{e}");
    let dup = tmp("dup.jsonl");
    std::fs::write(
        &dup,
        "{\"id\": \"x\", \"text\": \"a\"}\n{\"id\": \"x\", \"text\": \"b\"}\n",
    )
    .unwrap();
    assert!(
        err(&["eval", "--corpus", dup.to_str().unwrap()]).contains("dup.jsonl:2: duplicate id `x`")
    );
    let labelled = tmp("nolabel.jsonl");
    std::fs::write(&labelled, "{\"id\": \"x\", \"text\": \"a\"}\n").unwrap();
    let e = err(&[
        "eval",
        "--corpus",
        labelled.to_str().unwrap(),
        "--label-field",
        "group",
    ]);
    assert!(
        e.contains("nolabel.jsonl:1: missing label field `group`"),
        "{e}"
    );
}

#[test]
fn edit_is_deterministic_and_atomic() {
    let corpus = fixture("tiny-labelled.jsonl");
    let out1 = tmp("edited1.jsonl");
    let out2 = tmp("edited2.jsonl");
    for out in [&out1, &out2] {
        let o = neardup(&[
            "edit",
            &corpus,
            "--edits",
            "substitute=0.3,swap=0.2",
            "--seed",
            "7",
            "--output",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let a = std::fs::read(&out1).unwrap();
    assert_eq!(a, std::fs::read(&out2).unwrap());
    let text = String::from_utf8(a).unwrap();
    assert_eq!(text.lines().count(), 12);
    let copy: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert_eq!(copy["source"], "a1");
    assert_eq!(copy["cluster"], "A");
    assert_eq!(copy["edits"][0]["kind"], "substitute");
    // A bad spec writes nothing.
    let out3 = tmp("edited3.jsonl");
    let e = err(&[
        "edit",
        &corpus,
        "--edits",
        "smudge=0.1",
        "--output",
        out3.to_str().unwrap(),
    ]);
    assert!(e.contains("unknown edit kind `smudge`"), "{e}");
    assert!(!out3.exists());
    // The edited corpus evaluates directly: copies are labelled by their source's cluster.
    let out = ok(&[
        "eval",
        "--corpus",
        out1.to_str().unwrap(),
        "--algorithm",
        "minhash-lsh",
    ]);
    assert_eq!(
        eval_fields(&out, &["algorithm", "params", "docs"]),
        ["minhash-lsh", "", "12"]
    );
}

#[test]
fn shared_datasets_verify() {
    let Some(dir) = shared_data("bible-en.jsonl.gz") else {
        return;
    };
    let out = ok(&["datasets", "verify", "--data-dir", dir.to_str().unwrap()]);
    for name in ["bible-en", "licenses", "licenses-notices", "20news"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(name) && l.contains(" ok ")),
            "{out}"
        );
    }
    // A wrong checksum is an error naming the file.
    let fake = tmp("fake-data");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join("bible-en.jsonl.gz"), b"not the corpus").unwrap();
    let e = err(&[
        "datasets",
        "verify",
        "--data-dir",
        fake.to_str().unwrap(),
        "bible-en",
    ]);
    assert!(e.contains("bible-en.jsonl.gz: wrong checksum"), "{e}");
}

#[test]
fn shared_bible_loads_with_labels() {
    let Some(dir) = shared_data("bible-en.jsonl.gz") else {
        return;
    };
    let bible = dir.join("bible-en.jsonl.gz");
    let out = ok(&[
        "eval",
        "--corpus",
        bible.to_str().unwrap(),
        "--algorithm",
        "minhash-lsh",
        "--param",
        "threshold=0.3",
    ]);
    // 1,189 clusters of 5 → 10 pairs each
    assert_eq!(
        eval_fields(&out, &["docs", "true_pairs"]),
        ["5945", "11890"]
    );
}

/// Manku et al.'s designs for f = 64, k = 3, 2^34 fingerprints (../shared/PUBLISHED.md).
#[test]
fn hamming_tune_contract() {
    let out = ok(&[
        "hamming",
        "tune",
        "--bits",
        "64",
        "--distance",
        "3",
        "--fingerprints",
        "17179869184",
        "--format",
        "csv",
    ]);
    let mut lines = out.lines();
    assert_eq!(
        lines.next().unwrap(),
        "tables,blocks,prefix_bits,expected_matches_per_probe,memory_bytes,\
         examined_per_query,fits_memory,recommended"
    );
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    assert!(rows.iter().all(|r| r.len() == 8));
    // Without a budget every design fits and exactly one is recommended.
    assert!(rows.iter().all(|r| r[6] == "true"));
    assert_eq!(rows.iter().filter(|r| r[7] == "true").count(), 1);
    let find = |tables: &str| {
        rows.iter()
            .find(|r| r[0] == tables)
            .unwrap_or_else(|| panic!("no {tables}-table design in {out}"))
    };
    let d20 = find("20");
    assert_eq!((d20[1].as_str(), d20[2].as_str()), ("6", "31"));
    assert!(d20[3].parse::<f64>().unwrap() <= 8.0);
    let d4 = find("4");
    assert_eq!(d4[3], (1u64 << 18).to_string());
    assert_eq!(find("16")[1..4], ["4+4", "28", "64"]);
    assert_eq!(find("10")[3], "512");
    // 2^D notation, and impossible inputs.
    assert_eq!(
        ok(&[
            "hamming",
            "tune",
            "--bits",
            "64",
            "--distance",
            "3",
            "--fingerprints",
            "2^34",
            "--format",
            "csv"
        ]),
        out
    );
    // A budget of 800 GiB at 2^34: 4 tables (768 GiB) fit, 10 do not; the text names the
    // recommendation, its examined fingerprints and the chance pairs (C(2^34,2)·43745/2^64).
    let text = ok(&[
        "hamming",
        "tune",
        "--bits",
        "64",
        "--distance",
        "3",
        "--fingerprints",
        "2^34",
        "--memory",
        "800GiB",
    ]);
    let recommended = text.lines().find(|l| l.ends_with("← recommended")).unwrap();
    assert!(recommended.trim_start().starts_with("4 "), "{text}");
    assert!(text.contains("Recommended: 4 tables"), "{text}");
    assert!(text.contains("about 349,960 pairs"), "{text}");
    assert!(text.contains("(over budget)"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&ok(&[
        "hamming",
        "tune",
        "--bits",
        "64",
        "--distance",
        "3",
        "--fingerprints",
        "2^34",
        "--memory",
        "800GiB",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(json["recommended"]["tables"], 4);
    assert_eq!(json["recommended"]["examined_per_query"], 4.0 * 262144.0);
    // Nothing fits: the table is printed and the command fails naming the smallest need.
    let e = err(&[
        "hamming",
        "tune",
        "--bits",
        "64",
        "--distance",
        "3",
        "--fingerprints",
        "2^34",
        "--memory",
        "1GB",
    ]);
    assert!(
        e.contains("fits in --memory 1.0 GB") && e.contains("smallest needs"),
        "{e}"
    );
    assert!(
        err(&[
            "hamming",
            "tune",
            "--bits",
            "64",
            "--distance",
            "64",
            "--fingerprints",
            "100"
        ])
        .contains("smaller than")
    );
    assert!(
        err(&[
            "hamming",
            "tune",
            "--bits",
            "48",
            "--distance",
            "3",
            "--fingerprints",
            "100"
        ])
        .contains("unsupported")
    );
    let e = err(&[
        "hamming",
        "tune",
        "--bits",
        "64",
        "--distance",
        "3",
        "--fingerprints",
        "0",
    ]);
    assert!(e.contains("--fingerprints"), "{e}");
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

/// Regression (issue 15, item 2): `edit --output` replaced whatever was at the path.
#[cfg(unix)]
#[test]
fn edit_refuses_symlinks_fifos_devices_and_its_input() {
    let corpus = fixture("tiny-labelled.jsonl");
    let target = tmp("keep-me.txt");
    std::fs::write(&target, "keep").unwrap();
    let link = tmp("link.jsonl");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = tmp("fifo.jsonl");
    let _ = std::fs::remove_file(&fifo);
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for (output, what) in [
        (link.to_str().unwrap(), "symbolic link"),
        (fifo.to_str().unwrap(), "FIFO"),
        ("/dev/null", "device"),
        (corpus.as_str(), "over the input"),
    ] {
        let e = err(&[
            "edit",
            &corpus,
            "--edits",
            "substitute=0.1",
            "--output",
            output,
        ]);
        assert!(e.contains(what), "{output}: {e}");
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(std::fs::read_to_string(&corpus).unwrap().contains("\"a1\""));
}

/// Regression (issue 15, item 3): the Hamming join built every pair before checking the
/// limit, and a bad NEARDUP_MAX_PAIRS silently meant the default.
#[test]
fn pair_limit_stops_joins_early_and_must_be_a_number() {
    let corpus = duplicated_corpus("limits.jsonl", 2000);
    let c = corpus.to_str().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args([
            "eval",
            "--corpus",
            c,
            "--no-labels",
            "--algorithm",
            "simhash",
            "--param",
            "max_distance=40",
        ])
        .env("NEARDUP_MAX_PAIRS", "1000")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        e.contains("the Hamming join would report at least") && e.contains("limit of 1000"),
        "{e}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(["eval", "--corpus", c, "--no-labels", "--algorithm", "exact"])
        .env("NEARDUP_MAX_PAIRS", "abc")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("'abc'") && e.contains("--max-pairs"), "{e}");
}

/// Regression (issue 15, item 3): num_perm=100000 ran for minutes without a word; now the
/// memory estimate is checked before building and named in the error.
#[test]
fn memory_estimate_refuses_oversized_builds() {
    let corpus = duplicated_corpus("memory.jsonl", 2000);
    let e = err(&[
        "eval",
        "--corpus",
        corpus.to_str().unwrap(),
        "--no-labels",
        "--max-memory",
        "100MB",
        "--algorithm",
        "minhash-lsh",
        "--param",
        "num_perm=16000",
    ]);
    assert!(
        e.contains("minhash-lsh would need about 138 MB")
            && e.contains("signatures 2000 documents × 64000 B")
            && e.contains("band keys 2000 documents × 5064 B")
            && e.contains("memory limit of 100 MB"),
        "{e}"
    );
    assert!(err(&["algorithms", "--max-memory", "4 parsecs"]).contains("unknown unit"));
}

/// Regression (issue 15, item 5): one failing configuration lost every row and stopped the
/// rest; `--limit 0` read one document.
#[test]
fn eval_keeps_finished_rows_when_a_configuration_fails() {
    let corpus = duplicated_corpus("eval-fail.jsonl", 600);
    let out = Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args([
            "eval",
            "--corpus",
            corpus.to_str().unwrap(),
            "--no-labels",
            "--algorithm",
            "exact",
            "--algorithm",
            "simhash",
            "--param",
            "max_distance=40",
            "--algorithm",
            "minhash-lsh",
        ])
        .env("NEARDUP_MAX_PAIRS", "500")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(lines[0].ends_with(",error"));
    assert!(lines[1].starts_with("exact,") && lines[1].ends_with(','));
    assert!(lines[2].starts_with("simhash,") && lines[2].contains("limit of 500"));
    assert!(
        lines[3].starts_with("minhash-lsh,"),
        "later configurations still run"
    );
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("1 of 3 configurations failed"), "{e}");
    let e = err(&["eval", "--corpus", corpus.to_str().unwrap(), "--limit", "0"]);
    assert!(e.contains("--limit"), "{e}");
}

/// Regression (issue 15, item 6): the smaller ones.
#[test]
fn bad_input_smaller_cases() {
    // An OS error is said once.
    let e = err(&["similarity", "/nonexistent/a.txt", "/nonexistent/b.txt"]);
    assert_eq!(e.matches("No such file or directory").count(), 1, "{e}");
    // A wrong parameter type names the parameter.
    let e = err(&[
        "eval",
        "--corpus",
        &fixture("tiny-labelled.jsonl"),
        "--algorithm",
        "minhash-lsh",
        "--param",
        "k=abc",
    ]);
    assert!(e.contains("parameter `k` of `minhash-lsh`"), "{e}");
    // Verifying nothing is not a success.
    let empty = tmp("no-data");
    std::fs::create_dir_all(&empty).unwrap();
    let e = err(&["datasets", "verify", "--data-dir", empty.to_str().unwrap()]);
    assert!(e.contains("no dataset file"), "{e}");
    // A bench of zero runs is refused.
    let e = err(&[
        "bench",
        "--task",
        "hamming_all_pairs",
        "--fingerprints",
        "1000",
        "--repeat",
        "0",
    ]);
    assert!(e.contains("--repeat"), "{e}");
    // An unwritable report directory fails before any cell is computed.
    let file = tmp("a-file");
    std::fs::write(&file, "").unwrap();
    let exp = repo().join("experiments/scurves.toml");
    let out_dir = file.join("reports");
    let e = err(&[
        "run",
        exp.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--cache",
        tmp("cache-unwritable").to_str().unwrap(),
    ]);
    assert!(
        e.contains("a-file") && e.to_lowercase().contains("not a directory"),
        "{e}"
    );
}

#[test]
fn completions_for_every_shell_and_quiet_on_a_closed_pipe() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = ok(&["completions", shell]);
        assert!(script.contains("neardup"), "{shell}: {script}");
        assert!(script.contains("similarity"), "{shell} lists subcommands");
    }
    // `neardup completions bash | head -1`: the reader goes away before the script is written.
    // clap_complete's own writer panicked here (exit 101) and broke CI's install check.
    let mut child = Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(["completions", "bash"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `neardup calibrate`: the JSON contract, holdout columns, a report, and bad input named.
#[test]
fn calibrate_contract() {
    let corpus = fixture("tiny-labelled.jsonl");
    let pairs = fixture("tiny-pairs.csv");
    let out_dir = tmp("calibrate-report");
    let json: serde_json::Value = serde_json::from_str(&ok(&[
        "calibrate",
        "--corpus",
        &corpus,
        "--pairs",
        &pairs,
        "--algorithm",
        "minhash-lsh",
        "--param",
        "k=1",
        "--algorithm",
        "exact",
        "--format",
        "json",
        "--bootstrap",
        "200",
        "--out",
        out_dir.to_str().unwrap(),
    ]))
    .unwrap();
    let rows = json.as_array().unwrap();
    // minhash-lsh's grid with k fixed to 1: word k=1 × 128, char k=1 × 128, word k=1 × 256.
    assert_eq!(rows.len(), 3 + 1, "{json:#}");
    for key in [
        "algorithm",
        "params",
        "threshold",
        "roc_auc",
        "roc_auc_low",
        "roc_auc_high",
        "f1",
        "f1_low",
        "f1_high",
        "precision",
        "precision_low",
        "precision_high",
        "recall",
        "recall_low",
        "recall_high",
        "command",
        "resolved_params",
        "documents_removed",
        "largest_cluster",
        "bcubed_f1",
        "expected_candidates",
    ] {
        assert!(rows[0].get(key).is_some(), "no {key} in {}", rows[0]);
    }
    // Ranked by F1, best first; the best's command line carries the fixed parameter.
    let f1 = |r: &serde_json::Value| r["f1"].as_f64().unwrap_or(-1.0);
    assert!(rows.windows(2).all(|w| f1(&w[0]) >= f1(&w[1])), "{json:#}");
    let best = &rows[0];
    assert_eq!(best["algorithm"], "minhash-lsh");
    assert!(best["command"].as_str().unwrap().contains("--param k=1"));
    assert!(out_dir.join("README.md").exists() && out_dir.join("calibration.json").exists());
    // Two labelled duplicates decide nothing: the report says so.
    let readme = std::fs::read_to_string(out_dir.join("README.md")).unwrap();
    assert!(
        readme.contains("**Warning:** the choice rests on 2 duplicate"),
        "{readme}"
    );
    // What ran, and what deduplicating the corpus with it would do.
    assert!(best["resolved_params"].as_str().unwrap().contains("bands="));
    assert!(best["documents_removed"].as_f64().is_some());
    // a1 = a2 and b1 = c are identical texts; a1 ~ a3 is a labelled duplicate, b1 ≁ c is not.
    // The exact algorithm reports a1 = a2 and b1 = c: F1 = 2·1 / (2 + 1 + 1) = 0.5.
    let exact = rows.iter().find(|r| r["algorithm"] == "exact").unwrap();
    assert_eq!(exact["f1"], 0.5);
    // Bad input: each named.
    let e = err(&[
        "calibrate",
        "--corpus",
        &corpus,
        "--pairs",
        &pairs,
        "--holdout",
        "1.5",
    ]);
    assert!(e.contains("--holdout"), "{e}");
    let e = err(&[
        "calibrate",
        "--corpus",
        &corpus,
        "--pairs",
        &pairs,
        "--target-precision",
        "0",
    ]);
    assert!(e.contains("--target-precision"), "{e}");
    let e = err(&[
        "calibrate",
        "--corpus",
        &corpus,
        "--algorithm",
        "minhash-lsh",
        "--param",
        "colour=red",
    ]);
    assert!(e.contains("colour"), "{e}");
    // Two duplicates cannot be split into a holdout that has both classes.
    let e = err(&[
        "calibrate",
        "--corpus",
        &corpus,
        "--pairs",
        &pairs,
        "--holdout",
        "0.9",
    ]);
    assert!(
        e.contains("choosing set") || e.contains("holdout set"),
        "{e}"
    );
}

/// `neardup site` on the committed reports writes their pages back byte for byte (the pages
/// follow the Markdown), and the index names the regeneration the reports carry, not the
/// revision of the binary that rebuilds the site.
#[test]
fn site_rebuilds_the_committed_pages_byte_for_byte() {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &target);
            } else {
                std::fs::copy(e.path(), target).unwrap();
            }
        }
    }
    let committed = repo().join("reports");
    let copied = tmp("site-reports");
    copy(&committed, &copied);
    ok(&["site", copied.to_str().unwrap()]);
    // The index's "committed on" days come from git history, which the copy has not: the
    // index is checked for the regeneration it names, each report's page byte for byte.
    let index = std::fs::read_to_string(copied.join("README.md")).unwrap();
    let report: serde_json::Value = serde_json::from_slice(
        &std::fs::read(committed.join("edit-robustness/report.json")).unwrap(),
    )
    .unwrap();
    let regeneration = format!(
        "This regeneration: revision `{}`",
        report["run"]["revision"].as_str().unwrap()
    );
    assert!(
        index.contains(&regeneration),
        "{regeneration} not in\n{index}"
    );
    let mut pages = Vec::new();
    for e in std::fs::read_dir(&committed).unwrap() {
        let e = e.unwrap();
        if e.path().join("index.html").is_file() {
            pages.push(Path::new(&e.file_name()).join("index.html"));
        }
    }
    for page in &pages {
        assert!(
            std::fs::read(committed.join(page)).unwrap()
                == std::fs::read(copied.join(page)).unwrap(),
            "{} differs after `neardup site`",
            page.display()
        );
    }
    assert!(pages.len() > 10, "{pages:?}");
    let not_reports = tmp("not-reports");
    std::fs::create_dir_all(&not_reports).unwrap();
    assert!(err(&["site", not_reports.to_str().unwrap()]).contains("not a reports folder"));
}
