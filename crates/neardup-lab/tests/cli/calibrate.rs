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

/// `label --sample-only` on the dedup tests' corpus (sources with exact and near copies),
/// labelled by what a careful person would answer (two documents of one source are
/// duplicates; the empty ones are no one's), with `flip` labelled "duplicate" although it is
/// not. Returns (corpus, labels file).
fn labelled_sample(name: &str, flip: Option<&str>) -> (PathBuf, PathBuf) {
    let corpus = tmp(&format!("{name}.jsonl"));
    common::dedup_corpus::write_jsonl(&corpus, &common::dedup_corpus::corpus(300));
    let sample = tmp(&format!("{name}-sample.csv"));
    let _ = std::fs::remove_file(&sample);
    ok(&[
        "label",
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        sample.to_str().unwrap(),
        "--per-stratum",
        "40",
        "--sample-only",
    ]);
    let source = |id: &str| id.split('-').next().unwrap().to_string();
    let mut flipped = false;
    let mut filled = String::new();
    for (i, line) in std::fs::read_to_string(&sample)
        .unwrap()
        .lines()
        .enumerate()
    {
        if i == 0 {
            filled.push_str(line);
        } else {
            let cells: Vec<&str> = line.split(',').collect();
            let duplicate = source(cells[0]) == source(cells[1])
                && !cells[0].ends_with("-empty")
                && !cells[1].ends_with("-empty");
            let wrong = !flipped && Some(cells[3]) == flip;
            flipped |= wrong;
            let label = u8::from(duplicate || wrong);
            filled.push_str(&format!(
                "{},{},{label},{}",
                cells[0],
                cells[1],
                cells[3..].join(",")
            ));
        }
        filled.push('\n');
    }
    assert_eq!(
        flipped,
        flip.is_some(),
        "no pair of stratum {flip:?} to flip"
    );
    let labels = tmp(&format!("{name}-labels.csv"));
    std::fs::write(&labels, filled).unwrap();
    (corpus, labels)
}

/// Few labels, none of them wrong: every predicted pair a duplicate still bounds precision
/// below 1 (a percentile bootstrap said "1.000 [1.000, 1.000]"), and the text says what the
/// intervals are.
#[test]
fn a_precision_seen_without_a_failure_is_bounded_below_one() {
    let (corpus, labels) = labelled_sample("few-labels", None);
    let args = [
        "calibrate",
        "--corpus",
        corpus.to_str().unwrap(),
        "--pairs",
        labels.to_str().unwrap(),
        "--algorithm",
        "minhash-lsh",
        "--param",
        "shingle=word",
        "--param",
        "num_perm=128",
        "--param",
        "k=3",
        "--bootstrap",
        "200",
    ];
    let rows: serde_json::Value =
        serde_json::from_str(&ok(&[&args[..], &["--format", "json"]].concat())).unwrap();
    let row = &rows[0];
    println!("{row:#}");
    assert_eq!(row["precision"].as_f64(), Some(1.0), "{row}");
    let low = row["precision_low"].as_f64().unwrap();
    assert!(low < 0.99, "precision 1 from a few labels bounded at {low}");
    let text = ok(&args);
    assert!(text.contains("Wilson score intervals"), "{text}");
}

/// One wrong key on a `random`-stratum pair (a weight near the number of corpus pairs) is
/// named loudly before the ranking, and so is a recommendation that would remove most of the
/// corpus.
#[test]
fn a_label_outweighing_the_rest_is_named_before_the_ranking() {
    let (corpus, labels) = labelled_sample("heavy-label", Some("random"));
    let text = ok(&[
        "calibrate",
        "--corpus",
        corpus.to_str().unwrap(),
        "--pairs",
        labels.to_str().unwrap(),
        "--algorithm",
        "minhash-lsh",
        "--param",
        "num_perm=128",
        "--bootstrap",
        "200",
    ]);
    println!("{text}");
    let warning = text
        .find("WARNING: one labelled pair")
        .expect("the heavy label named");
    let table = text.find("algorithm  ").expect("the ranking");
    assert!(
        warning < table,
        "the warning comes after the ranking:\n{text}"
    );
    assert!(
        text[warning..table].contains("labelled duplicate"),
        "{text}"
    );
    assert!(
        text[warning..table].contains("WARNING: the recommended setting would remove"),
        "{text}"
    );
    // The row itself carries the flag, where a reader of the table sees it.
    let first_row = text[table..].lines().nth(1).expect("a first row");
    assert!(
        first_row.trim_end().ends_with('!') || first_row.contains(" ! "),
        "{first_row}"
    );
}
