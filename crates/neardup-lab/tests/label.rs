//! `neardup label` in a terminal, driven by a script: answers written at once, undo, resume
//! without asking a pair twice, and a labels file `calibrate --pairs` reads.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::dedup_corpus::{chain_corpus, fresh_dir, write_jsonl};
use common::{err, ok};

/// Runs `neardup label …` with `keys` on its standard input; its stdout.
fn label(args: &[&str], keys: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_neardup"))
        .arg("label")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(keys.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn rows(path: &std::path::Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

#[test]
fn a_session_writes_every_answer_undoes_and_resumes() {
    let d = fresh_dir("label", "session");
    let corpus = d.join("corpus.jsonl");
    write_jsonl(&corpus, &chain_corpus(31, 6, 10));
    let out = d.join("labels.csv");
    let args = [
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--per-stratum",
        "3",
        "--terminal",
    ];
    let shown = label(&args, "d\nn\nu\nn\nx\ns\nq\n");
    assert!(shown.contains("pair 1 of") && shown.contains("`x`: answer d, n, s, u or q"));
    let first = rows(&out);
    let labels: Vec<&str> = first.iter().map(|r| r[2].as_str()).collect();
    assert_eq!(labels, ["1", "0", "skip"], "undo took the first `n` back");
    // Resume: the next pair is a new one, and end of input keeps what was answered.
    label(&args, "d\n");
    let second = rows(&out);
    assert_eq!(second.len(), 4);
    assert_eq!(second[..3], first[..]);
    let pairs: std::collections::BTreeSet<(String, String)> = second
        .iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert_eq!(pairs.len(), 4, "no pair asked twice");
    for r in &second {
        let weight: f64 = r[4].parse().unwrap();
        assert!(weight >= 1.0, "{r:?}");
    }
    // calibrate reads it (skips left out), and --sample-only keeps an existing file.
    let json = ok(&[
        "calibrate",
        "--corpus",
        corpus.to_str().unwrap(),
        "--pairs",
        out.to_str().unwrap(),
        "--algorithm",
        "exact",
        "--format",
        "json",
        "--bootstrap",
        "50",
    ]);
    assert!(json.contains("\"algorithm\": \"exact\""), "{json}");
    let e = err(&[
        "label",
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--sample-only",
    ]);
    assert!(e.contains("exists"), "{e}");
    std::fs::write(&out, "something else\n").unwrap();
    let mut again = vec!["label"];
    again.extend(args);
    let e = err(&again);
    assert!(e.contains("labels.csv:1: not a labels file"), "{e}");
}

/// `--from OUT_DIR` stratifies by the similarity the dedup run used: the same sample as
/// giving its parameters by hand, another one than the defaults'.
#[test]
fn from_a_dedup_run_uses_its_parameters() {
    let d = fresh_dir("label", "from");
    let corpus = d.join("corpus.jsonl");
    write_jsonl(&corpus, &chain_corpus(32, 6, 10));
    let run = d.join("run");
    let c = corpus.to_str().unwrap();
    ok(&[
        "dedup",
        c,
        "-o",
        run.to_str().unwrap(),
        "--param",
        "k=3",
        "--param",
        "num_perm=64",
    ]);
    let sample = |name: &str, extra: &[&str]| {
        let out = d.join(name);
        let mut args = vec![
            "label",
            "--corpus",
            c,
            "--out",
            out.to_str().unwrap(),
            "--sample-only",
        ];
        args.extend_from_slice(extra);
        ok(&args);
        std::fs::read_to_string(out).unwrap()
    };
    let from = sample("from.csv", &["--from", run.to_str().unwrap()]);
    assert_eq!(
        from,
        sample("by-hand.csv", &["--param", "k=3", "--param", "num_perm=64"])
    );
    assert_ne!(from, sample("defaults.csv", &[]));
}
