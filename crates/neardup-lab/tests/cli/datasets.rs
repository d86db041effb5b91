//! The real corpora of ../shared/datasets (skipped when it is absent).

use super::*;

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
