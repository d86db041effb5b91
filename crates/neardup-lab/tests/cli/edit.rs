//! `neardup edit`: deterministic, atomic, and never over something that is not a regular file.

use super::*;

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

/// The fields `edit` does not read travel with each source and its copies (a chain's links
/// too): a corpus's `url`, `date` or nested `meta` were dropped.
#[test]
fn edit_keeps_the_fields_it_does_not_know() {
    let corpus = tmp("with-fields.jsonl");
    let mut s = String::new();
    for i in 0..4 {
        s.push_str(
            &serde_json::json!({
                "id": format!("d{i}"),
                "url": format!("https://example.com/{i}"),
                "meta": {"date": "2026-11-28", "score": i},
                "text": format!("document {i} has some words in it that an edit can change {i}"),
            })
            .to_string(),
        );
        s.push('\n');
    }
    std::fs::write(&corpus, s).unwrap();
    for chain in [false, true] {
        let out = tmp(&format!("with-fields-out-{chain}.jsonl"));
        let mut args = vec![
            "edit",
            corpus.to_str().unwrap(),
            "--edits",
            "substitute=0.2",
            "--copies",
            "2",
            "-o",
            out.to_str().unwrap(),
        ];
        if chain {
            args.push("--chain");
        }
        ok(&args);
        let rows: Vec<serde_json::Value> = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 12);
        for r in &rows {
            let source = r["id"].as_str().unwrap().split('~').next().unwrap();
            let i: u64 = source[1..].parse().unwrap();
            assert_eq!(r["url"], format!("https://example.com/{i}"), "{r}");
            assert_eq!(r["meta"]["score"], i, "{r}");
        }
    }
}
