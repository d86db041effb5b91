//! End-to-end tests of `neardup dedup`: its pairs against the batch detector (the oracle),
//! exact copies, outputs that preserve every field, determinism across threads, shards,
//! stages and kills, and bad input.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use neardup::detector::ParamMap;
use polars::prelude::*;

mod common;
use common::dedup_corpus::{corpus, fresh_dir, write_jsonl};
use common::{err, ok};

fn dir(name: &str) -> PathBuf {
    fresh_dir("dedup", name)
}

fn read_clusters(dir: &Path) -> DataFrame {
    let f = std::fs::File::open(dir.join("clusters.parquet")).unwrap();
    ParquetReader::new(f).finish().unwrap()
}

/// id → cluster.
fn clusters_by_id(dir: &Path) -> BTreeMap<String, u32> {
    let df = read_clusters(dir);
    let ids = df.column("id").unwrap().str().unwrap().clone();
    let cl = df.column("cluster").unwrap().u32().unwrap().clone();
    (0..df.height())
        .map(|i| (ids.get(i).unwrap().to_string(), cl.get(i).unwrap()))
        .collect()
}

/// `neardup dedup INPUT -o OUT EXTRA…`, which must succeed; its stdout.
fn dedup_ok(input: &Path, out: &Path, extra: &[&str]) -> String {
    let args = [input.to_str().unwrap(), "-o", out.to_str().unwrap()];
    ok(&[&["dedup"][..], &args, extra].concat())
}

fn read(path: impl AsRef<Path>) -> Vec<u8> {
    std::fs::read(path.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", path.as_ref().display()))
}

/// Writes `bytes` gzip-compressed to `path`.
fn write_gzip(path: &Path, bytes: &[u8]) {
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::fast(),
    );
    std::io::Write::write_all(&mut enc, bytes).unwrap();
    enc.finish().unwrap();
}

/// Writes `docs` as CSV (id, text, and an `extra` column that needs quoting).
fn write_csv(path: &Path, docs: &[(String, String)]) {
    let mut csv = csv::Writer::from_path(path).unwrap();
    csv.write_record(["id", "text", "extra"]).unwrap();
    for (id, text) in docs {
        csv.write_record([id.as_str(), text.as_str(), "x,y"])
            .unwrap();
    }
    csv.flush().unwrap();
}

/// Writes `docs` as Parquet (id, text, and a row number `n`), in row groups of `group` rows.
fn write_parquet(path: &Path, docs: &[(String, String)], group: Option<usize>) {
    let mut df = DataFrame::new(
        docs.len(),
        vec![
            Column::new(
                "id".into(),
                docs.iter().map(|d| d.0.clone()).collect::<Vec<_>>(),
            ),
            Column::new(
                "text".into(),
                docs.iter().map(|d| d.1.clone()).collect::<Vec<_>>(),
            ),
            Column::new("n".into(), (0..docs.len() as u64).collect::<Vec<_>>()),
        ],
    )
    .unwrap();
    ParquetWriter::new(std::fs::File::create(path).unwrap())
        .with_row_group_size(group)
        .finish(&mut df)
        .unwrap();
}

/// The outputs whose bytes must not depend on threads, shards, stages or kills.
fn output_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = vec![
        "clusters.parquet".to_string(),
        "removed.txt".to_string(),
        "stages/verify/pairs.parquet".to_string(),
        "stages/components/clusters.parquet".to_string(),
    ];
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name.starts_with("deduplicated") {
            if dir.join(&name).is_dir() {
                for e in std::fs::read_dir(dir.join(&name)).unwrap() {
                    files.push(format!(
                        "{name}/{}",
                        e.unwrap().file_name().to_string_lossy()
                    ));
                }
            } else {
                files.push(name);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|f| (f.clone(), read(dir.join(&f))))
        .collect()
}

/// The verified pairs a run stored, in order.
fn verified_pairs(out: &Path) -> Vec<(u32, u32)> {
    let pairs =
        ParquetReader::new(std::fs::File::open(out.join("stages/verify/pairs.parquet")).unwrap())
            .finish()
            .unwrap();
    let a = pairs.column("a").unwrap().u32().unwrap().clone();
    let b = pairs.column("b").unwrap().u32().unwrap().clone();
    (0..pairs.height())
        .map(|i| (a.get(i).unwrap(), b.get(i).unwrap()))
        .collect()
}

/// The oracle: the streamed stages report exactly the batch detector's pairs, the clusters
/// are their connected components, exact copies share a cluster, and the deduplicated file
/// is the input's lines without the removed ids.
#[test]
fn streamed_dedup_equals_batch_detector_and_preserves_records() {
    let d = dir("oracle");
    let docs = corpus(400);
    let input = d.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let out = d.join("out");
    dedup_ok(&input, &out, &["--param", "threshold=0.7"]);

    let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
    let mut params = ParamMap::new();
    params.insert("threshold".into(), 0.7.into());
    let want: Vec<(u32, u32)> = neardup::registry::detector("minhash-lsh", &params)
        .unwrap()
        .build(&texts)
        .unwrap()
        .query(&ParamMap::new())
        .unwrap()
        .iter()
        .map(|p| (p.a, p.b))
        .collect();
    assert_eq!(verified_pairs(&out), want, "streamed pairs = batch pairs");
    assert!(want.len() > 100, "{} pairs", want.len());

    let labels = neardup::cluster::connected_components(docs.len(), want.iter().copied());
    let by_id = clusters_by_id(&out);
    for (i, (id, _)) in docs.iter().enumerate() {
        for (j, (id2, _)) in docs.iter().enumerate().skip(i + 1).take(3) {
            assert_eq!(
                labels[i] == labels[j],
                by_id[id] == by_id[id2],
                "{id} / {id2}"
            );
        }
    }
    for (id, text) in &docs {
        if let Some(src) = id.strip_suffix("-exact") {
            assert_eq!(
                by_id[id], by_id[src],
                "exact copy {id} shares its source's cluster"
            );
        }
        if text.trim().is_empty() || text.trim() == "..." {
            // Documents without a feature are never duplicates of anything.
            let n = by_id.values().filter(|&&c| c == by_id[id]).count();
            assert_eq!(n, 1, "{id} is alone");
        }
    }

    // removed.txt: every cluster keeps its first member.
    let removed: BTreeSet<String> = String::from_utf8(read(out.join("removed.txt")))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let mut seen = BTreeSet::new();
    for (id, _) in &docs {
        assert_eq!(removed.contains(id), !seen.insert(by_id[id]), "{id}");
    }
    // The deduplicated corpus: the input's lines, byte for byte, minus the removed ones.
    let input_text = String::from_utf8(read(&input)).unwrap();
    let want_lines: Vec<&str> = input_text
        .lines()
        .zip(&docs)
        .filter(|(_, (id, _))| !removed.contains(id))
        .map(|(l, _)| l)
        .collect();
    let got_text = String::from_utf8(read(out.join("deduplicated.jsonl"))).unwrap();
    assert_eq!(got_text.lines().collect::<Vec<_>>(), want_lines);

    let summary: serde_json::Value =
        serde_json::from_slice(&read(out.join("summary.json"))).unwrap();
    assert_eq!(summary["documents"], docs.len());
    assert_eq!(summary["removed"], removed.len());
    assert_eq!(summary["streamed"], true);
}

/// Same bytes with 1 and 2 threads, stage by stage, after a rerun and after a kill.
#[test]
fn outputs_are_identical_across_threads_stages_reruns_and_kills() {
    let d = dir("determinism");
    let docs = corpus(20000);
    let input = d.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let i = input.to_str().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let out = d.join(name);
        let mut args = vec!["dedup", i, "-o", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        ok(&args);
        out
    };
    let one = output_bytes(&run("t1", &["--threads", "1"]));
    let two = output_bytes(&run("t2", &["--threads", "2"]));
    assert_eq!(one, two, "1 and 2 threads");

    // Stage by stage into one directory.
    let staged = d.join("staged");
    for stage in ["sketch", "candidates", "verify", "components", "outputs"] {
        ok(&["dedup", i, "-o", staged.to_str().unwrap(), "--stage", stage]);
    }
    ok(&["dedup", i, "-o", staged.to_str().unwrap()]);
    assert_eq!(output_bytes(&staged), one, "stage by stage");
    // A rerun reuses every stage.
    ok(&["dedup", i, "-o", staged.to_str().unwrap()]);
    let summary: serde_json::Value =
        serde_json::from_slice(&read(staged.join("summary.json"))).unwrap();
    assert!(
        summary["stages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["reused"] == true),
        "{summary}"
    );
    // A later stage lost: recomputed identically.
    std::fs::remove_dir_all(staged.join("stages/verify")).unwrap();
    std::fs::remove_file(staged.join("removed.txt")).unwrap();
    ok(&["dedup", i, "-o", staged.to_str().unwrap()]);
    assert_eq!(output_bytes(&staged), one, "after losing a stage");

    // Killed at several moments, then rerun.
    for delay_ms in [20, 80, 200] {
        let out = d.join(format!("killed{delay_ms}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args(["dedup", i, "-o", out.to_str().unwrap()])
            .stderr(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        ok(&["dedup", i, "-o", out.to_str().unwrap()]);
        assert_eq!(output_bytes(&out), one, "killed after {delay_ms} ms");
    }
}

/// A run killed inside an input file resumes at the file's last checkpoint: the pieces of its
/// shard written before the kill are kept (the same files), the rest is sketched, and the
/// outputs are an uninterrupted run's — from plain and gzipped JSONL (sought / inflated up to
/// the checkpoint), CSV and Parquet (records skipped; Parquet read a row group at a time).
#[test]
fn a_sketch_killed_inside_a_file_resumes_at_its_last_checkpoint() {
    use std::os::unix::fs::MetadataExt;
    let d = dir("resume");
    let docs = corpus(1000);
    let jsonl = d.join("c.jsonl");
    write_jsonl(&jsonl, &docs);
    write_gzip(&d.join("c.jsonl.gz"), &read(&jsonl));
    write_csv(&d.join("c.csv"), &docs);
    write_parquet(&d.join("c.parquet"), &docs, Some(150));
    for name in ["c.jsonl", "c.jsonl.gz", "c.csv", "c.parquet"] {
        let input = d.join(name);
        let whole = d.join(format!("whole-{name}"));
        dedup_ok(&input, &whole, &[]);
        let out = d.join(format!("resumed-{name}"));
        let (i, o) = (input.to_str().unwrap(), out.to_str().unwrap());
        let args = ["dedup", i, "-o", o, "--checkpoint-every", "64KiB"];
        let killed = Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args(args)
            .env("NEARDUP_KILL_AFTER_PIECES", "2")
            .output()
            .unwrap();
        assert_eq!(killed.status.code(), Some(137), "{name}: not killed");
        let sketch = out.join("stages/sketch");
        assert!(!sketch.join("00000.json").exists(), "{name}: finished");
        // A piece file's identity: rewritten (renamed over), it is another inode.
        let identity = |p: usize| {
            let m = std::fs::metadata(sketch.join(format!("00000-{p:05}.parquet"))).unwrap();
            (m.ino(), m.mtime_nsec())
        };
        let before = [identity(0), identity(1)];
        let rerun = common::neardup(&args);
        let stderr = String::from_utf8_lossy(&rerun.stderr);
        assert!(rerun.status.success(), "{name}: {stderr}");
        assert!(
            stderr.contains("resuming the sketch of"),
            "{name}: {stderr}"
        );
        assert_eq!(
            [identity(0), identity(1)],
            before,
            "{name}: pieces resketched"
        );
        let marker: serde_json::Value =
            serde_json::from_slice(&read(sketch.join("00000.json"))).unwrap();
        let pieces = marker["pieces"].as_array().unwrap();
        assert!(pieces.len() > 2, "{name}: {marker}");
        assert_eq!(marker["rows"], docs.len(), "{name}");
        assert_eq!(output_bytes(&out), output_bytes(&whole), "{name}");
    }
}

/// SimHash with weights that need no corpus statistics streams: its verified pairs are the
/// batch detector's (Manku's permuted tables over the signature table), and the spilled join,
/// which groups documents by the tables' prefixes as join keys, gives the in-memory bytes.
#[test]
fn streamed_simhash_equals_batch_detector_in_memory_and_spilled() {
    let d = dir("simhash");
    let docs = corpus(10000);
    let input = d.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let params = ["--algorithm", "simhash", "--param", "weighting=tf"];
    let out = d.join("memory");
    dedup_ok(&input, &out, &params);
    let summary: serde_json::Value =
        serde_json::from_slice(&read(out.join("summary.json"))).unwrap();
    assert_eq!(summary["streamed"], true, "{summary}");
    let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
    let mut p = ParamMap::new();
    p.insert("weighting".into(), "tf".into());
    let want: Vec<(u32, u32)> = neardup::registry::detector("simhash", &p)
        .unwrap()
        .build(&texts)
        .unwrap()
        .query(&ParamMap::new())
        .unwrap()
        .iter()
        .map(|p| (p.a, p.b))
        .collect();
    assert_eq!(verified_pairs(&out), want, "streamed pairs = batch pairs");
    assert!(want.len() > 500, "{} pairs", want.len());

    let spilled = d.join("spilled");
    // About 13,600 documents: 1.42 MB of places, ids and cluster entries (104 bytes each), so
    // 1.8 MB leaves a budget of about 190 KB (signatures and keys in memory would need 1.85 MB
    // with two threads).
    let limit = ["--memory", "1800KB", "--threads", "2"];
    dedup_ok(&input, &spilled, &[&params[..], &limit].concat());
    let summary: serde_json::Value =
        serde_json::from_slice(&read(spilled.join("summary.json"))).unwrap();
    assert_eq!(summary["spilled"], true, "{summary}");
    assert_eq!(output_bytes(&spilled), output_bytes(&out), "spilled join");
}

/// A join that does not fit `--memory` spills (several key files per band, verification in
/// many chunks, two shards of two row groups each) and gives the in-memory join's bytes.
#[test]
fn spilled_join_equals_the_in_memory_join() {
    let d = dir("spill");
    let docs = corpus(20000);
    let (first, second) = docs.split_at(docs.len() / 2);
    let inputs = [d.join("a.jsonl"), d.join("b.jsonl")];
    write_jsonl(&inputs[0], first);
    write_jsonl(&inputs[1], second);
    let run = |name: &str, extra: &[&str]| {
        let out = d.join(name);
        let mut args = vec!["dedup"];
        args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
        args.extend(["-o", out.to_str().unwrap()]);
        args.extend_from_slice(extra);
        ok(&args);
        let summary: serde_json::Value =
            serde_json::from_slice(&read(out.join("summary.json"))).unwrap();
        (
            output_bytes(&out),
            summary["spilled"].as_bool().unwrap(),
            out,
        )
    };
    let (in_memory, spilled, _) = run("memory", &[]);
    assert!(!spilled);
    // About 27,000 documents: 2.8 MB of places, ids and cluster entries (104 bytes each), so
    // 3.5 MiB leaves a budget of about 420 KB — two key files per band (436 KB of keys each),
    // verification in chunks of a few hundred pairs.
    let (small, spilled, out) = run("spilled", &["--memory", "3584KiB"]);
    assert!(spilled);
    assert_eq!(small, in_memory, "spilled join");
    assert!(
        !out.join("stages/candidates/spill").exists(),
        "spill files left behind"
    );
    let readme = String::from_utf8(read(out.join("README.md"))).unwrap();
    assert!(readme.contains("spilled its keys to disk"), "{readme}");
    // With two threads and after a rerun of the spilled stages: the same bytes.
    for stage in ["candidates", "verify"] {
        std::fs::remove_dir_all(out.join("stages").join(stage)).unwrap();
    }
    let (rerun, _, _) = run("spilled", &["--memory", "3584KiB", "--threads", "2"]);
    assert_eq!(rerun, in_memory, "spilled join rerun");
}

/// Two input files sketched as two shards by two processes, a cluster spanning the files,
/// the same clusters from CSV, gzip and Parquet copies of the corpus.
#[test]
fn shards_and_formats_give_the_same_clusters() {
    let d = dir("shards");
    let mut docs = corpus(600);
    // An exact copy of the first file's first document at the end of the second file: a
    // cluster spanning both shards.
    docs.push(("cross".into(), docs[0].1.clone()));
    let (first, second) = docs.split_at(docs.len() / 2);
    let (a, b) = (d.join("a.jsonl"), d.join("b.jsonl"));
    write_jsonl(&a, first);
    write_jsonl(&b, second);
    let whole = d.join("whole.jsonl");
    write_jsonl(&whole, &docs);

    let sharded = d.join("sharded");
    let s = sharded.to_str().unwrap();
    let inputs = d.join("?.jsonl");
    let g = inputs.to_str().unwrap();
    let out0 = ok(&["dedup", g, "-o", s, "--shard", "0/2"]);
    assert!(out0.contains("finished sketch shard 0/2"), "{out0}");
    ok(&["dedup", g, "-o", s, "--shard", "1/2"]);
    ok(&["dedup", g, "-o", s]);
    let summary: serde_json::Value =
        serde_json::from_slice(&read(sharded.join("summary.json"))).unwrap();
    assert_eq!(
        summary["stages"][0]["reused"], true,
        "the sketch shards were reused"
    );
    assert!(sharded.join("deduplicated/00000-a.jsonl").is_file());
    assert!(sharded.join("deduplicated/00001-b.jsonl").is_file());

    let single = d.join("single");
    dedup_ok(&whole, &single, &[]);
    let want = clusters_by_id(&single);
    assert_eq!(clusters_by_id(&sharded), want);
    assert_eq!(
        want["cross"], want[&docs[0].0],
        "a cluster spans both files"
    );

    // CSV, gzip and Parquet copies of the whole corpus.
    write_csv(&d.join("whole.csv"), &docs);
    write_gzip(&d.join("whole.jsonl.gz"), &read(&whole));
    write_parquet(&d.join("whole.parquet"), &docs, None);
    for (name, ext) in [
        ("whole.csv", "csv"),
        ("whole.jsonl.gz", "jsonl"),
        ("whole.parquet", "parquet"),
    ] {
        let out = d.join(format!("fmt-{name}"));
        dedup_ok(&d.join(name), &out, &[]);
        assert_eq!(clusters_by_id(&out), want, "{name}");
        assert!(out.join(format!("deduplicated.{ext}")).is_file(), "{name}");
        assert_eq!(
            read(out.join("removed.txt")),
            read(single.join("removed.txt")),
            "{name}"
        );
    }
    // The deduplicated CSV keeps every column.
    let dedup_csv = String::from_utf8(read(d.join("fmt-whole.csv/deduplicated.csv"))).unwrap();
    assert!(dedup_csv.starts_with("id,text,extra\n") && dedup_csv.contains(",\"x,y\"\n"));
    let kept = ParquetReader::new(
        std::fs::File::open(d.join("fmt-whole.parquet/deduplicated.parquet")).unwrap(),
    )
    .finish()
    .unwrap();
    assert_eq!(kept.get_column_names(), ["id", "text", "n"]);
    assert_eq!(
        kept.height(),
        docs.len()
            - read(single.join("removed.txt"))
                .split(|&c| c == b'\n')
                .filter(|l| !l.is_empty())
                .count()
    );
}

/// An uncompressed JSONL file's kept lines are copied as byte ranges, a compressed one's
/// through the block reader: both write the same deduplicated file — without removed
/// records, blank lines and the byte-order mark, every kept line ending in a newline
/// (CRLF lines keep their CR).
#[test]
fn deduplicated_jsonl_is_the_same_from_plain_and_gzip() {
    let d = dir("spans");
    let docs = corpus(300);
    let mut text = Vec::from(&b"\xEF\xBB\xBF"[..]);
    for (i, (id, t)) in docs.iter().enumerate() {
        let line = serde_json::json!({"id": id, "text": t, "i": i}).to_string();
        text.extend_from_slice(line.as_bytes());
        text.extend_from_slice(match i % 7 {
            0 => b"\r\n",
            1 => b"\n\n",
            2 => b"\n \t\n",
            _ => b"\n",
        });
    }
    // The last line without its newline: an exact copy of an earlier record (removed).
    let long = docs.iter().find(|d| d.1.len() > 100).unwrap();
    text.extend_from_slice(
        serde_json::json!({"id": "last", "text": long.1})
            .to_string()
            .as_bytes(),
    );
    let plain = d.join("c.jsonl");
    std::fs::write(&plain, &text).unwrap();
    let gz = d.join("c.jsonl.gz");
    write_gzip(&gz, &text);
    let (from_plain, from_gz) = (d.join("plain"), d.join("gz"));
    for (input, out) in [(&plain, &from_plain), (&gz, &from_gz)] {
        dedup_ok(input, out, &[]);
    }
    let copied = read(from_plain.join("deduplicated.jsonl"));
    // From the sketch stage's inflated copy (the default) and by inflating the input again.
    assert_eq!(copied, read(from_gz.join("deduplicated.jsonl")));
    let sketch_files = |out: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(out.join("stages/sketch"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        sketch_files(&from_gz),
        ["00000-00000.parquet", "00000.json"],
        "the inflated copy is removed once the outputs are written"
    );
    let reinflated = d.join("gz-reinflated");
    dedup_ok(&gz, &reinflated, &["--no-inflated-copy"]);
    assert_eq!(copied, read(reinflated.join("deduplicated.jsonl")));

    // The copy holds the inflated bytes, and the outputs stage reads it: a byte changed in
    // it after the sketch stage shows in the output.
    let staged = d.join("gz-staged");
    dedup_ok(&gz, &staged, &["--stage", "sketch"]);
    let copy = staged.join("stages/sketch/00000.inflated.jsonl");
    let mut inflated = read(&copy);
    assert_eq!(inflated, text);
    let at = inflated.windows(4).position(|w| w == b"\"i\":").unwrap();
    inflated[at + 1] = b'j';
    std::fs::write(&copy, &inflated).unwrap();
    dedup_ok(&gz, &staged, &[]);
    let from_copy = read(staged.join("deduplicated.jsonl"));
    assert_ne!(from_copy, copied);
    assert_eq!(from_copy.len(), copied.len());
    // A copy left over from another sketch of the input is not used: it goes when the input
    // is sketched again, copied or not.
    let stale = d.join("gz-stale");
    std::fs::create_dir_all(stale.join("stages/sketch")).unwrap();
    std::fs::write(stale.join("stages/sketch/00000.inflated.jsonl"), b"{}\n").unwrap();
    dedup_ok(&gz, &stale, &["--no-inflated-copy"]);
    assert_eq!(copied, read(stale.join("deduplicated.jsonl")));
    let removed = read(from_plain.join("removed.txt"));
    let removed: BTreeSet<&[u8]> = removed
        .split(|&c| c == b'\n')
        .filter(|r| !r.is_empty())
        .collect();
    assert!(
        removed.contains(&b"last"[..]),
        "the later exact copy is removed"
    );
    let lines: Vec<&[u8]> = copied.split_inclusive(|&c| c == b'\n').collect();
    assert_eq!(lines.len(), docs.len() + 1 - removed.len());
    assert!(copied.starts_with(b"{") && copied.ends_with(b"\n"));
    assert!(lines.iter().all(|l| l.len() > 2), "no blank line");
    assert!(lines.iter().any(|l| l.ends_with(b"}\r\n")), "CRLF kept");

    // Without removals: the plain file minus blank lines and the mark, plus the newline.
    let unique = d.join("unique.jsonl");
    std::fs::write(
        &unique,
        b"\xEF\xBB\xBF{\"text\": \"a b c\"}\n\n{\"text\": \"d e f\"}",
    )
    .unwrap();
    let out = d.join("unique-out");
    dedup_ok(&unique, &out, &[]);
    assert_eq!(
        read(out.join("deduplicated.jsonl")),
        b"{\"text\": \"a b c\"}\n{\"text\": \"d e f\"}\n"
    );
}

/// Bad input: one error naming the file and line, and no output written; an algorithm
/// without a streamable split runs in memory; a join too big for --memory is refused.
#[test]
fn bad_input_and_in_memory_algorithms() {
    let d = dir("bad");
    let docs = corpus(50);
    let good = d.join("good.jsonl");
    write_jsonl(&good, &docs);
    let mut text = String::from_utf8(read(&good)).unwrap();
    text.insert_str(
        text.find('\n').unwrap() + 1,
        "{\"id\": \"broken\", \"text\": \n",
    );
    let bad = d.join("bad.jsonl");
    std::fs::write(&bad, text).unwrap();
    let out = d.join("out");
    let e = err(&["dedup", bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(e.contains("bad.jsonl:2: malformed JSON"), "{e}");
    for f in [
        "clusters.parquet",
        "removed.txt",
        "deduplicated.jsonl",
        "summary.json",
    ] {
        assert!(!out.join(f).exists(), "{f} written after an error");
    }
    // Files are sketched concurrently: with two bad files the error is still the first one's
    // in input order, and the good file sketched meanwhile keeps its finished shard.
    let bad2 = d.join("bad2.jsonl");
    std::fs::write(&bad2, "{\"text\": \"fine\"}\nnot json\n").unwrap();
    let out2 = d.join("out2");
    for _ in 0..3 {
        let e = err(&[
            "dedup",
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
            bad2.to_str().unwrap(),
            "-o",
            out2.to_str().unwrap(),
        ]);
        assert!(e.contains("bad.jsonl:2: malformed JSON"), "{e}");
        assert!(
            out2.join("stages/sketch/00000-00000.parquet").exists(),
            "the good file's shard was lost"
        );
    }
    let e = err(&[
        "dedup",
        d.join("none.jsonl").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(e.contains("none.jsonl: no such file or directory"), "{e}");
    // `neardup dedup good.jsonl -o out` with `extra`, expected to fail.
    let refused = |extra: &[&str]| {
        let mut args = vec!["dedup", good.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        err(&args)
    };
    let e = refused(&["--param", "threshold=2"]);
    assert!(e.contains("threshold"), "{e}");
    // 1 kB: no document is short enough to sketch (this refusal comes first: a later one
    // finds the sketch done).
    let e = refused(&["--memory", "1KB", "--threads", "2"]);
    assert!(e.contains("good.jsonl:1: a document of"), "{e}");
    // 32 kB: documents short enough to sketch (under 680 bytes each on two threads), too
    // many to join in memory (45 kB) or spilled (a budget below 64 kB).
    let e = refused(&["--memory", "32KB", "--threads", "2"]);
    assert!(e.contains("--memory 32 kB is too small"), "{e}");
    // An algorithm that runs in memory cannot spill: 2,000 documents of two words.
    let short = d.join("short.jsonl");
    let words: Vec<(String, String)> = (0..2000)
        .map(|i| (format!("t{i}"), format!("w{i} w{}", i + 1)))
        .collect();
    write_jsonl(&short, &words);
    let e = err(&[
        "dedup",
        short.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--algorithm",
        "simhash",
        "--memory",
        "1KB",
    ]);
    assert!(
        e.contains("more than --memory") && e.contains("`simhash` runs in memory"),
        "{e}"
    );

    let mem = d.join("simhash");
    dedup_ok(&good, &mem, &["--algorithm", "simhash"]);
    let summary: serde_json::Value =
        serde_json::from_slice(&read(mem.join("summary.json"))).unwrap();
    assert_eq!(summary["streamed"], false);
    let by_id = clusters_by_id(&mem);
    for (id, _) in &docs {
        if let Some(src) = id.strip_suffix("-exact") {
            assert_eq!(by_id[id], by_id[src], "simhash: exact copy {id}");
        }
    }
}

/// `--min-words 5`: short documents take no part in near-duplicate detection — "breaking news
/// today" and "Breaking news today!" (one word-shingle set after normalization, similarity 1
/// without the flag) stay apart — while exact copies of them are still removed ("test" four
/// times, one of them "Test"), long documents are deduplicated as before, the summary counts
/// the short ones, and a resumed or reused run agrees.
#[test]
fn min_words_leaves_short_documents_to_exact_matching() {
    let mut docs = corpus(40);
    for (i, t) in [
        "test",
        "test",
        "Test",
        "test  ",
        "breaking news today",
        "Breaking news today!",
    ]
    .iter()
    .enumerate()
    {
        docs.push((format!("short{i}"), t.to_string()));
    }
    let d = dir("min-words");
    let input = d.join("in.jsonl");
    write_jsonl(&input, &docs);
    let cluster_of = |out: &Path, a: &str, b: &str| {
        let c = clusters_by_id(out);
        c[a] == c[b]
    };
    let plain = d.join("plain");
    dedup_ok(&input, &plain, &[]);
    assert!(
        cluster_of(&plain, "short4", "short5"),
        "without the flag they are near copies"
    );
    let out = d.join("out");
    let printed = dedup_ok(&input, &out, &["--min-words", "5"]);
    assert!(printed.contains("of fewer than 5 words"), "{printed}");
    assert!(!cluster_of(&out, "short4", "short5"));
    for copy in ["short1", "short2", "short3"] {
        assert!(
            cluster_of(&out, "short0", copy),
            "{copy} is an exact copy of short0"
        );
    }
    // The long documents' clusters are those of the run without the flag.
    let long = |dir: &Path| -> BTreeSet<(String, String)> {
        let c = clusters_by_id(dir);
        let ids: Vec<&String> = c.keys().filter(|k| !k.starts_with("short")).collect();
        let mut same = BTreeSet::new();
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                if c[*a] == c[*b] {
                    same.insert(((*a).clone(), (*b).clone()));
                }
            }
        }
        same
    };
    assert!(!long(&plain).is_empty());
    assert_eq!(long(&plain), long(&out));
    let summary: serde_json::Value =
        serde_json::from_slice(&read(out.join("summary.json"))).unwrap();
    // The corpus's own empty documents are empty, not short; its sources are 80 words.
    assert_eq!(summary["short_documents"], 6, "{summary}");
    assert_eq!(summary["min_words"], 5);
    assert!(
        String::from_utf8(read(out.join("README.md")))
            .unwrap()
            .contains("fewer than 5 words")
    );
    // Reused stages count the same; another N sketches again.
    dedup_ok(&input, &out, &["--min-words", "5"]);
    let again: serde_json::Value = serde_json::from_slice(&read(out.join("summary.json"))).unwrap();
    assert_eq!(again["short_documents"], 6);
    dedup_ok(&input, &out, &["--min-words", "3"]);
    let three: serde_json::Value = serde_json::from_slice(&read(out.join("summary.json"))).unwrap();
    assert_eq!(three["short_documents"], 4, "{three}");
    // An algorithm that runs in memory cannot take it, and says so before any work.
    let e = err(&[
        "dedup",
        input.to_str().unwrap(),
        "-o",
        d.join("spot").to_str().unwrap(),
        "--algorithm",
        "spotsigs",
        "--min-words",
        "5",
    ]);
    assert!(
        e.contains("--min-words needs an algorithm that streams"),
        "{e}"
    );
}

/// What users of every peer expect: a text field inside a nested object (`meta.body`), the
/// run's flags in a TOML file (the command line overriding it), and the summary as JSON on
/// stdout — the same clusters as the flat corpus run with flags.
#[test]
fn a_config_file_a_nested_text_field_and_json_on_stdout() {
    let docs = corpus(60);
    let d = dir("config");
    let flat = d.join("flat.jsonl");
    write_jsonl(&flat, &docs);
    let nested = d.join("nested.jsonl");
    let lines: String = docs
        .iter()
        .map(|(id, text)| {
            serde_json::json!({"id": id, "meta": {"lang": "en", "body": text}}).to_string() + "\n"
        })
        .collect();
    std::fs::write(&nested, lines).unwrap();
    let expected = d.join("expected");
    dedup_ok(&flat, &expected, &["--param", "threshold=0.7"]);
    let config = d.join("dedup.toml");
    std::fs::write(
        &config,
        format!(
            "inputs = [{:?}]\noutput = {:?}\ntext_field = \"meta.body\"\nformat = \"json\"\n\
             [param]\nthreshold = 0.9\n",
            nested.to_str().unwrap(),
            d.join("ignored").to_str().unwrap()
        ),
    )
    .unwrap();
    let out = d.join("from-config");
    let printed = ok(&[
        "dedup",
        "--config",
        config.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--param",
        "threshold=0.7",
    ]);
    let summary: serde_json::Value = serde_json::from_str(&printed).expect("JSON on stdout");
    assert_eq!(summary["text_field"], "meta.body");
    assert_eq!(
        summary["params"]["threshold"], 0.7,
        "the command line overrides the file"
    );
    assert!(
        summary["next"][0]
            .as_str()
            .unwrap()
            .starts_with("neardup inspect")
    );
    assert!(!d.join("ignored").exists());
    assert_eq!(clusters_by_id(&out), clusters_by_id(&expected));
    std::fs::write(&config, "txet_field = \"body\"\n").unwrap();
    let e = err(&[
        "dedup",
        "--config",
        config.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        e.contains("dedup.toml") && e.contains("`txet_field`") && e.contains("text-field"),
        "{e}"
    );
}

/// `--skip-invalid`: malformed JSON Lines records (bad JSON, no text field, a number for a
/// text) are counted, not compared, and copied to the deduplicated output as they are; the
/// valid records are deduplicated exactly as without them, and a reused run counts the same.
/// Without the flag the first one stops the run, naming its line.
#[test]
fn skip_invalid_counts_malformed_records_and_loses_none() {
    let docs = corpus(60);
    let d = dir("skip-invalid");
    let clean = d.join("clean.jsonl");
    write_jsonl(&clean, &docs);
    let mut lines: Vec<String> = std::fs::read_to_string(&clean)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let bad = [
        "{\"id\": \"x1\", \"text\": ",
        "{\"id\": \"x2\"}",
        "{\"id\": \"x3\", \"text\": 5}",
    ];
    for (i, b) in bad.iter().enumerate() {
        lines.insert(10 + 7 * i, b.to_string());
    }
    let dirty = d.join("dirty.jsonl");
    std::fs::write(&dirty, lines.join("\n") + "\n").unwrap();
    let e = err(&[
        "dedup",
        dirty.to_str().unwrap(),
        "-o",
        d.join("stop").to_str().unwrap(),
    ]);
    assert!(e.contains("dirty.jsonl:11"), "{e}");
    let expected = d.join("expected");
    dedup_ok(&clean, &expected, &[]);
    let out = d.join("out");
    let printed = dedup_ok(&dirty, &out, &["--skip-invalid"]);
    assert!(printed.contains("3 malformed records skipped"), "{printed}");
    assert_eq!(clusters_by_id(&out), clusters_by_id(&expected));
    let summary: serde_json::Value =
        serde_json::from_slice(&read(out.join("summary.json"))).unwrap();
    assert_eq!(summary["invalid_records"], 3);
    let deduplicated = String::from_utf8(read(out.join("deduplicated.jsonl"))).unwrap();
    for b in bad {
        assert!(deduplicated.lines().any(|l| l == b), "{b} was lost");
    }
    dedup_ok(&dirty, &out, &["--skip-invalid"]);
    let again: serde_json::Value = serde_json::from_slice(&read(out.join("summary.json"))).unwrap();
    assert_eq!(again["invalid_records"], 3);
}
