//! The experiment runner end to end: tables and files, byte-identical reruns, resuming a
//! killed run, and errors in experiment files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TINY: &str = r#"
name = "tiny"
title = "Tiny"
question = "Does the runner work?"
seeds = [1, 2]
charts = ["robustness", "tradeoff", "pr-curve", "scurve", "heatmap"]

[truth]
k = 3
similarity_floor = 0.1

[[datasets]]
name = "default"
docs = 40
fraction = 0.5

[edits]
kinds = ["substitute", "reorder"]
rates = [0.05, 0.2]

[[algorithms]]
name = "minhash-lsh"
build = { k = 3, verify = "none", bands = [16, 32], rows = 2, num_perm = 64 }

[[algorithms]]
name = "supershingles"
query = { min_agreeing = [1, 2] }
"#;

fn neardup(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_neardup"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the binary runs")
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("neardup-runner-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(exp: &Path, out: &Path, cache: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut args = vec![
        "run",
        exp.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    neardup(&args, env)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

const STABLE: &[&str] = &[
    "README.md",
    "results.csv",
    "results.parquet",
    "report.json",
    "charts/robustness.png",
    "charts/robustness.svg",
    "charts/scurve.png",
    "charts/pr-curve.png",
    "charts/tradeoff-supershingles.png",
    "charts/heatmap.svg",
];

#[test]
fn tiny_experiment_tables_files_and_identical_rerun() {
    let d = dir("tiny");
    let exp = d.join("tiny.toml");
    std::fs::write(&exp, TINY).unwrap();
    let (out1, out2) = (d.join("out1"), d.join("out2"));
    let o = run(&exp, &out1, &d.join("cache1"), &[], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    // 1 dataset × 4 edit models × 2 seeds × (2 minhash builds + 1 supershingles build) = 24
    // cells; rows: minhash 16 × 1 query + supershingles 8 × 2 queries = 32.
    assert!(
        stderr(&o).contains("24 cells computed, 0 from cache, 32 result rows, 0 failed"),
        "{}",
        stderr(&o)
    );
    for f in STABLE.iter().chain(&["timing.csv", "TIMING.md"]) {
        assert!(out1.join(f).is_file(), "missing {f}");
    }
    let csv = std::fs::read_to_string(out1.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for col in [
        "dataset",
        "edit",
        "rate",
        "seed",
        "algorithm",
        "build_params",
        "query_params",
        "precision",
        "recall",
        "f1",
        "ari",
        "roc_auc",
        "cell",
    ] {
        assert!(header.contains(&col), "column {col} in {header:?}");
    }
    assert!(
        !header.contains(&"seconds"),
        "timing stays out of results.csv"
    );
    assert_eq!(lines.count(), 32);
    let readme = std::fs::read_to_string(out1.join("README.md")).unwrap();
    assert!(readme.contains("**Question.** Does the runner work?"));
    assert!(readme.contains("## Best configuration per dataset and algorithm"));
    assert!(readme.contains("## Mean recall by edit kind"));
    // The first chart answers on the README; every chart is on CHARTS.md, which the README
    // lists by title, and the corpora and TOML on CONFIGURATION.md.
    let first_chart = readme.find("![").expect("a chart on the README");
    assert_eq!(readme.matches("![").count(), 1, "{readme}");
    assert!(
        readme[first_chart..].starts_with("![Recall against edit rate]"),
        "{readme}"
    );
    assert!(
        readme.contains("[CHARTS.md](CHARTS.md): every chart")
            && readme.contains("Empirical S-curves")
    );
    let charts = std::fs::read_to_string(out1.join("CHARTS.md")).unwrap();
    assert!(
        charts.contains("![Empirical S-curves](charts/scurve.png)"),
        "{charts}"
    );
    let configuration = std::fs::read_to_string(out1.join("CONFIGURATION.md")).unwrap();
    assert!(configuration.contains("## Corpora") && configuration.contains("```toml"));
    // Every chart drawn reads whole: no text clipped at an edge or cut short.
    let (problems, read) = neardup_lab::charts::lint::problems_under(&out1.join("charts"));
    assert!(read >= 5, "{read} charts");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The heatmap has a cell per algorithm and edit model: two rows × four conditions.
    let heatmap = std::fs::read_to_string(out1.join("charts/heatmap.svg")).unwrap();
    for condition in ["substitute=0.05", "reorder=0.2"] {
        assert!(heatmap.contains(condition), "{condition} column");
    }
    // Rerun from scratch with one thread: identical bytes, timing aside.
    let o = run(&exp, &out2, &d.join("cache2"), &["--threads", "1"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in STABLE {
        assert_eq!(
            std::fs::read(out1.join(f)).unwrap(),
            std::fs::read(out2.join(f)).unwrap(),
            "{f} differs on rerun"
        );
    }
    // A rerun over the same cache computes nothing.
    let o = run(&exp, &out2, &d.join("cache2"), &[], &[]);
    assert!(
        stderr(&o).contains("0 cells computed, 24 from cache"),
        "{}",
        stderr(&o)
    );
    // --force recomputes everything.
    let o = run(&exp, &out2, &d.join("cache2"), &["--force"], &[]);
    assert!(
        stderr(&o).contains("24 cells computed, 0 from cache"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn killed_run_resumes_and_skips_finished_cells() {
    let d = dir("kill");
    let exp = d.join("tiny.toml");
    std::fs::write(&exp, TINY).unwrap();
    let cache = d.join("cache");
    let o = run(
        &exp,
        &d.join("out"),
        &cache,
        &[],
        &[("NEARDUP_KILL_AFTER_CELLS", "10")],
    );
    assert!(!o.status.success(), "the simulated kill ends the process");
    assert!(
        !d.join("out/results.csv").exists(),
        "nothing written after the kill point"
    );
    let o = run(&exp, &d.join("out"), &cache, &[], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("14 cells computed, 10 from cache"),
        "{}",
        stderr(&o)
    );
    // The resumed run's results equal an uninterrupted run's.
    let o = run(&exp, &d.join("fresh"), &d.join("cache-fresh"), &[], &[]);
    assert!(o.status.success());
    for f in ["results.csv", "README.md"] {
        assert_eq!(
            std::fs::read(d.join("out").join(f)).unwrap(),
            std::fs::read(d.join("fresh").join(f)).unwrap(),
            "{f}"
        );
    }
    // No temporary files are left in the cache.
    for entry in std::fs::read_dir(cache.join("tiny/cells")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        assert!(name.ends_with(".json") && !name.starts_with('.'), "{name}");
    }
}

#[test]
fn bad_experiment_files_name_key_and_line() {
    let d = dir("bad");
    let cases = [
        (
            TINY.replace("seeds = [1, 2]", "seeds = [1, 2]\nsedes = 3"),
            "bad.toml:6:",
            "unknown field `sedes`",
        ),
        (
            TINY.replace("docs = 40", "docs = \"forty\""),
            "bad.toml:14:",
            "invalid type",
        ),
        (
            TINY.replace("rates = [0.05, 0.2]", "rates = []"),
            "bad.toml:19:",
            "`edits.rates` is an empty list",
        ),
        (
            TINY.replace("min_agreeing = [1, 2]", "min_agreeing = []"),
            "bad.toml:27:",
            "`query.min_agreeing` is an empty grid",
        ),
        (
            TINY.replace("rows = 2,", "rows = 5,"),
            "bad.toml:22:",
            "exceeds num_perm",
        ),
        (
            TINY.replace("\"scurve\"", "\"pie\""),
            "bad.toml:6:",
            "unknown chart `pie`",
        ),
    ];
    for (text, at, what) in cases {
        let exp = d.join("bad.toml");
        std::fs::write(&exp, &text).unwrap();
        let o = run(&exp, &d.join("out"), &d.join("cache"), &[], &[]);
        assert!(!o.status.success());
        let e = stderr(&o);
        assert!(
            e.contains(at) && e.contains(what),
            "expected {at} … {what}, got: {e}"
        );
    }
}

/// Regression (issue 15, item 1): a failed cell was cached as a result: the next run said
/// "0 failed", the failure left the report, and raising the limit did not retry it.
#[test]
fn failed_cells_stay_failures_and_retry_when_limits_change() {
    let d = dir("failed");
    let exp = d.join("fail.toml");
    std::fs::write(
        &exp,
        r#"
name = "fail"
title = "Fail"
question = "Are failures kept?"

[[datasets]]
name = "default"
docs = 60

[[algorithms]]
name = "minhash-lsh"
build = { k = 1, verify = "none", bands = 64, rows = 1, num_perm = 64 }

[[algorithms]]
name = "exact"
"#,
    )
    .unwrap();
    let (out, cache) = (d.join("out"), d.join("cache"));
    let tight = [("NEARDUP_MAX_PAIRS", "50")];
    let first = run(&exp, &out, &cache, &[], &tight);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(stderr(&first).contains("1 failed"), "{}", stderr(&first));
    for _ in 0..2 {
        let again = run(&exp, &out, &cache, &[], &tight);
        let e = stderr(&again);
        assert!(
            e.contains("0 cells computed") && e.contains("1 failed"),
            "{e}"
        );
        let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
        assert!(readme.contains("## Failed cells"), "{readme}");
        assert!(
            readme.contains("| minhash-lsh |") && readme.contains("failed (see Failed cells)"),
            "the failed configuration keeps its row: {readme}"
        );
    }
    let loose = run(&exp, &out, &cache, &[], &[("NEARDUP_MAX_PAIRS", "1000000")]);
    let e = stderr(&loose);
    assert!(
        e.contains("retrying cell") && e.contains("1 cells computed") && e.contains("0 failed"),
        "{e}"
    );
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(!readme.contains("## Failed cells"), "{readme}");
}

/// `[[datasets]] path = …` runs any report on a user's own file with its own field names
/// (relative to the experiment file), and its clusters are the ground truth.
#[test]
fn user_corpus_file_with_its_own_field_names() {
    let d = dir("user-corpus");
    let mut lines = String::new();
    for c in 0..10 {
        let text: Vec<String> = (0..40).map(|w| format!("w{c}x{w}")).collect();
        for v in 0..2 {
            let mut t = text.clone();
            if v == 1 {
                t[7] = "changed".into();
            }
            lines.push_str(&format!(
                "{{\"key\":\"d{c}-{v}\",\"body\":\"{}\",\"group\":\"g{c}\"}}\n",
                t.join(" ")
            ));
        }
    }
    std::fs::write(d.join("mine.jsonl"), lines).unwrap();
    let exp = "name = \"mine\"\ntitle = \"Mine\"\nquestion = \"q\"\n\
               [[datasets]]\npath = \"mine.jsonl\"\ntext_field = \"body\"\nid_field = \"key\"\n\
               cluster_field = \"group\"\n\
               [[algorithms]]\nname = \"exact\"\n\
               [[algorithms]]\nname = \"minhash-lsh\"\nbuild = { threshold = 0.5 }\n";
    std::fs::write(d.join("exp.toml"), exp).unwrap();
    let o = run(
        &d.join("exp.toml"),
        &d.join("out"),
        &d.join("cache"),
        &[],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(d.join("out/results.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |row: &str, name: &str| -> String {
        let i = header.iter().position(|h| *h == name).unwrap();
        row.split(',').nth(i).unwrap().to_string()
    };
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(col(r, "dataset"), "mine");
        assert_eq!(col(r, "true_pairs"), "10", "{r}");
    }
    // Edited copies are not exact duplicates; MinHash at 0.5 finds all ten.
    let exact = rows
        .iter()
        .find(|r| col(r, "algorithm") == "exact")
        .unwrap();
    assert_eq!(col(exact, "tp"), "0");
    let minhash = rows
        .iter()
        .find(|r| col(r, "algorithm") == "minhash-lsh")
        .unwrap();
    assert_eq!(col(minhash, "tp"), "10", "{minhash}");
    // A field the file lacks is one error naming the file and line.
    std::fs::write(d.join("bad.toml"), exp.replace("\"body\"", "\"nope\"")).unwrap();
    let o = run(
        &d.join("bad.toml"),
        &d.join("out2"),
        &d.join("cache"),
        &[],
        &[],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("mine.jsonl:1") && stderr(&o).contains("nope"),
        "{}",
        stderr(&o)
    );
}
