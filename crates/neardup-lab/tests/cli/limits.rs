//! The pair and memory limits, and the smaller cases of bad input.

use super::*;

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
    // 138 MB for the index, and what the process holds already (the corpus: some MB).
    assert!(
        e.contains("minhash-lsh would need about 1")
            && e.contains("MB this process holds already")
            && e.contains("signatures 2000 documents × 64000 B")
            && e.contains("band keys 2000 documents × 5064 B")
            && e.contains("memory limit of 100 MB"),
        "{e}"
    );
    assert!(err(&["algorithms", "--max-memory", "4 parsecs"]).contains("unknown unit"));
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
