//! `neardup algorithms` and `neardup similarity`.

use super::*;

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
    // Every parameter says what it means, under its default line (a new user could not tell
    // what `sketch`, `tuning`, `cjk_unit` or `verify` were, nor that `sketch=oph` exists).
    for (param, says) in [
        ("sketch", "one permutation hashing"),
        ("tuning", "recall at the threshold"),
        ("cjk_unit", "jieba"),
        ("verify", "estimate"),
        ("punctuation", "e mail"),
    ] {
        let at = minhash
            .lines()
            .position(|l| l.trim_start().starts_with(&format!("{param} ")))
            .unwrap_or_else(|| panic!("no {param} in {minhash}"));
        let doc: String = minhash
            .lines()
            .skip(at + 1)
            .take(6)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(doc.contains(says), "{param}: {doc}");
    }
    assert!(one["param_docs"]["min_spots"].as_str().is_some(), "{one}");
    // SimHash's k is its shingle size: said when a user gives k without the distance.
    let corpus = tmp("k-note.jsonl");
    std::fs::write(&corpus, "{\"text\": \"a b c\"}\n{\"text\": \"a b d\"}\n").unwrap();
    let out = neardup(&[
        "dedup",
        corpus.to_str().unwrap(),
        "-o",
        tmp("k-note").to_str().unwrap(),
        "--algorithm",
        "simhash",
        "--param",
        "k=3",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`max_distance`"), "{stderr}");
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
