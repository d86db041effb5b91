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
