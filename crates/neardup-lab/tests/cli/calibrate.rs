//! `neardup calibrate` end to end.

use super::*;

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
