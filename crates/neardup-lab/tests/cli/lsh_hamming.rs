//! `neardup lsh` and `neardup hamming`: the banding and table-design math.

use super::*;

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
    // The default is the banding `neardup dedup` runs (recall at the threshold): copying it
    // must not lose pairs at t (the balanced default found 40 % of them).
    let out = ok(&["lsh", "tune", "--threshold", "0.8", "--num-perm", "128"]);
    assert!(out.starts_with("bands=13 rows=7 threshold=0.693"), "{out}");
    let first = out.lines().next().unwrap();
    assert!(first.contains(" false_positive_area=") && first.contains(" false_negative_area="));
    // 13 × 7 = 91 of 128 permutations are banded.
    assert!(first.ends_with(" unused_permutations=37"), "{out}");
    // P(candidate) at t − 0.1 … t + 0.1: 1 − (1 − s^7)^13.
    let p = |s: f64| 1.0 - (1.0 - s.powi(7)).powi(13);
    assert!(p(0.8) >= 0.95);
    assert!(out.contains(&format!("0.70  {:>12.6}", p(0.7))), "{out}");
    assert!(
        out.contains(&format!("0.80  {:>12.6}  ← target", p(0.8))),
        "{out}"
    );
    assert!(out.contains("What `neardup dedup` runs"), "{out}");
    assert!(out.contains(&format!("0.90  {:>12.6}", p(0.9))), "{out}");
    // The dedup run's own banding is the one printed.
    let dir = tmp("tune-vs-dedup");
    let corpus = duplicated_corpus("tune-vs-dedup.jsonl", 20);
    ok(&[
        "dedup",
        corpus.to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
    ]);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        (
            summary["params"]["bands"].as_u64(),
            summary["params"]["rows"].as_u64()
        ),
        (Some(13), Some(7)),
        "{summary}"
    );
    // Balanced, on request, says what it misses.
    let balanced = ok(&[
        "lsh",
        "tune",
        "--threshold",
        "0.8",
        "--num-perm",
        "128",
        "--objective",
        "balanced",
    ]);
    assert!(balanced.starts_with("bands=9 rows=13"), "{balanced}");
    assert!(
        balanced.contains("it finds only 40 % of the pairs"),
        "{balanced}"
    );
    let p = |s: f64| 1.0 - (1.0 - s.powi(13)).powi(9);
    let json: serde_json::Value = serde_json::from_str(&ok(&[
        "lsh",
        "tune",
        "--threshold",
        "0.8",
        "--num-perm",
        "128",
        "--objective",
        "balanced",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(
        (json["bands"].as_u64(), json["rows"].as_u64()),
        (Some(9), Some(13))
    );
    assert_eq!(json["unused_permutations"], 11);
    let probs = json["candidate_probability"].as_array().unwrap();
    assert_eq!(probs.len(), 5);
    assert!((probs[0]["probability"].as_f64().unwrap() - p(0.7)).abs() < 1e-12);
    let p = |s: f64| 1.0 - (1.0 - s.powi(7)).powi(13);
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
    assert!(rows.iter().all(|r| r[..2] == ["13", "7"] && r[4] == "37"));
    assert_eq!(rows[0][6], format!("{:.6}", p(0.7)));
    assert!(
        err(&["lsh", "tune", "--threshold", "1.5", "--num-perm", "128"]).contains("outside (0, 1]")
    );
    assert!(err(&["lsh", "tune", "--threshold", "0.5", "--num-perm", "0"]).contains("num_perm"));
}

/// Manku et al.'s designs for f = 64, k = 3, 2^34 fingerprints (reports/published/SOURCES.md).
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
