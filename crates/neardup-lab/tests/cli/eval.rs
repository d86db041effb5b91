//! `neardup eval`: its table, its CSV and JSON, labelled pairs, bad input, and the rows kept
//! when a configuration fails.

use super::*;

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
