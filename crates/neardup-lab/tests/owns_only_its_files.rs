//! Regressions of issue 56: `dedup` never deletes or writes what it does not own, reads a
//! crawl's many files, refuses malformed input it would otherwise misread, and bounds what a
//! parameter may ask for. Each test is named after what it guards; each failed on a86df3a
//! (run with `NEARDUP_TEST_BIN` set to that build's binary).

use std::path::{Path, PathBuf};

mod common;
use common::dedup_corpus::{corpus, fresh_dir, write_jsonl};
use common::{err, ok};

fn dir(name: &str) -> PathBuf {
    fresh_dir("owns-only", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A corpus of 300 documents with duplicates, in `d/in.jsonl`.
fn input(d: &Path) -> PathBuf {
    let path = d.join("in.jsonl");
    write_jsonl(&path, &corpus(250));
    path
}

/// Item 1: an index that lost its manifest is refused, its segments kept (the next run
/// treated the folder as new and deleted every segment, rc 0).
#[test]
fn an_index_that_lost_its_manifest_keeps_its_segments() {
    let d = dir("lost-manifest");
    let corpus = input(&d);
    let index = d.join("idx");
    let out = d.join("out");
    ok(&["dedup", s(&corpus), "-o", s(&out), "--index", s(&index)]);
    let segments: Vec<_> = std::fs::read_dir(index.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!segments.is_empty());
    std::fs::remove_file(index.join("index.json")).unwrap();
    let e = err(&["dedup", s(&corpus), "-o", s(&out), "--index", s(&index)]);
    assert!(e.contains("lost its manifest"), "{e}");
    for segment in &segments {
        assert!(segment.is_file(), "{} was deleted", segment.display());
    }
}

/// Item 1: `index show` on an index whose `segments` is a link deletes nothing in the link's
/// target (the unreferenced-file sweep ran on every open and followed the link).
#[cfg(unix)]
#[test]
fn index_show_never_deletes_through_a_segments_link() {
    let d = dir("segments-link");
    let corpus = input(&d);
    let index = d.join("idx");
    ok(&[
        "dedup",
        s(&corpus),
        "-o",
        s(&d.join("out")),
        "--index",
        s(&index),
    ]);
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("thesis.pdf"), b"years of work").unwrap();
    std::fs::rename(index.join("segments"), d.join("moved")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, index.join("segments")).unwrap();
    let e = err(&["index", "show", "--index", s(&index)]);
    assert!(e.contains("symbolic link"), "{e}");
    assert!(elsewhere.join("thesis.pdf").is_file());
}

/// Item 2: `OUT/stages` linked to a folder of the user's is refused and left whole (every
/// stage file went into it, and its `outputs/` was deleted recursively).
#[cfg(unix)]
#[test]
fn a_stages_link_to_a_users_folder_is_refused_and_left_whole() {
    let d = dir("stages-link");
    let corpus = input(&d);
    let theirs = d.join("theirs");
    std::fs::create_dir_all(theirs.join("outputs")).unwrap();
    std::fs::write(theirs.join("outputs/report.txt"), b"mine").unwrap();
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink(&theirs, out.join("stages")).unwrap();
    let e = err(&["dedup", s(&corpus), "-o", s(&out)]);
    assert!(e.contains("did not write"), "{e}");
    assert_eq!(
        std::fs::read(theirs.join("outputs/report.txt")).unwrap(),
        b"mine"
    );
    let names: Vec<_> = std::fs::read_dir(&theirs).unwrap().collect();
    assert_eq!(names.len(), 1, "nothing was written into the user's folder");
}

/// A run killed while it marked `OUT/stages` as its own left the mark's temporary file and no
/// mark: the next run takes the folder (the refusal named that file as "not written by
/// neardup", for ever) and sweeps the file.
#[test]
fn a_stages_folder_a_killed_claim_left_is_taken() {
    let d = dir("killed-claim");
    let corpus = input(&d);
    let out = d.join("out");
    let stages = out.join("stages");
    std::fs::create_dir_all(&stages).unwrap();
    // This machine's temporary name of the mark, under a pid above the kernel's limit (2^22):
    // a process that is gone.
    let mine = neardup_dedup::temp_files::temporary_path(&stages.join(".neardup-stages"));
    let name = mine.file_name().unwrap().to_string_lossy().into_owned();
    let gone = name.replace(&format!(".{}-", std::process::id()), ".99999999-");
    assert_ne!(gone, name);
    std::fs::write(stages.join(&gone), b"This folder holds").unwrap();
    ok(&["dedup", s(&corpus), "-o", s(&out)]);
    assert!(out.join("summary.json").is_file());
    assert!(
        !stages.join(&gone).exists(),
        "the sweep removed the killed run's file"
    );
}

/// Item 2, what the refusal above must not break: a link to an empty folder (stages on a
/// bigger disk) is used, and a rerun reuses what it holds.
#[cfg(unix)]
#[test]
fn a_stages_link_to_an_empty_folder_holds_the_stages() {
    let d = dir("stages-elsewhere");
    let corpus = input(&d);
    let disk = d.join("big-disk");
    std::fs::create_dir_all(&disk).unwrap();
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink(&disk, out.join("stages")).unwrap();
    ok(&["dedup", s(&corpus), "-o", s(&out)]);
    assert!(out.join("summary.json").is_file());
    let marker = disk.join("sketch/00000.json");
    let written = std::fs::metadata(&marker).unwrap().modified().unwrap();
    ok(&["dedup", s(&corpus), "-o", s(&out)]);
    let after = std::fs::metadata(&marker).unwrap().modified().unwrap();
    assert_eq!(
        written, after,
        "the rerun reused the sketch in the linked folder"
    );
}

/// Item 3: a run into an output folder another run is using is refused (both ran, and the
/// folder held one run's outputs under the other's summary).
#[test]
fn a_second_run_into_a_busy_output_folder_is_refused() {
    let d = dir("busy");
    let corpus = input(&d);
    let out = d.join("out");
    ok(&["dedup", s(&corpus), "-o", s(&out)]);
    let lock = std::fs::File::options()
        .write(true)
        .open(out.join("stages/lock"))
        .expect("a run locks OUT/stages/lock");
    lock.try_lock().unwrap();
    let e = err(&["dedup", s(&corpus), "-o", s(&out), "--keep", "longest"]);
    assert!(e.contains("another neardup run"), "{e}");
    drop(lock);
    ok(&["dedup", s(&corpus), "-o", s(&out), "--keep", "longest"]);
}

/// Item 4: a temporary file of a run in another container or machine (its PID means nothing
/// here) is left alone (each shard's start-up sweep deleted the other's live file).
#[test]
fn another_places_temporary_file_is_left_alone() {
    let d = dir("other-place");
    let corpus = input(&d);
    let out = d.join("out");
    ok(&["dedup", s(&corpus), "-o", s(&out)]);
    // A PID above the kernel's limit is not running here, and 0badf00d is not this place;
    // a name without a place (as neardup wrote them before) may be anyone's too.
    for name in [
        ".00000-00000.parquet.99999999-0badf00d.tmp",
        ".00001-00000.parquet.99999999.tmp",
    ] {
        let live = out.join("stages/sketch").join(name);
        std::fs::write(&live, b"a shard elsewhere is writing this").unwrap();
        ok(&["dedup", s(&corpus), "-o", s(&out), "--keep", "longest"]);
        assert!(
            live.is_file(),
            "another machine's live file {name} was deleted"
        );
    }
}

/// Items 6 and 7: 1,000 input files are deduplicated (from about 600, the run overflowed its
/// stack nesting one file's task inside another's, after 2.5 GB).
#[test]
fn a_thousand_input_files_are_read() {
    let d = dir("many-files");
    let folder = d.join("in");
    std::fs::create_dir_all(&folder).unwrap();
    for i in 0..1000 {
        // Every tenth file repeats the one before it.
        let n = if i % 10 == 9 { i - 1 } else { i };
        let text = format!("document {n} {}", "with words enough to shingle ".repeat(3));
        let line = serde_json::json!({"id": format!("d{i}"), "text": text});
        std::fs::write(folder.join(format!("f{i:04}.jsonl")), format!("{line}\n")).unwrap();
    }
    let out = d.join("out");
    ok(&["dedup", s(&folder), "-o", s(&out)]);
    let removed = std::fs::read_to_string(out.join("removed.txt")).unwrap();
    assert_eq!(removed.lines().count(), 100, "{removed}");
}

/// Item 8: a CSV record with a quote that is never closed is an error naming its line (500
/// records were read as 300 documents, the rest swallowed into one text).
#[test]
fn a_csv_quote_never_closed_is_an_error_naming_its_line() {
    let d = dir("csv-quote");
    let mut csv = String::from("id,text\n");
    for i in 0..500 {
        let text = match i {
            300 => "\"a stray quote opens here".to_string(),
            _ => format!("record {i} of the file"),
        };
        csv.push_str(&format!("r{i},{text}\n"));
    }
    let path = d.join("in.csv");
    std::fs::write(&path, csv).unwrap();
    let e = err(&["dedup", s(&path), "-o", s(&d.join("out"))]);
    assert!(
        e.contains("in.csv:302") && e.contains("never closed"),
        "{e}"
    );
    // Closed by a later quote with text after it: the error names where it closed.
    let later = "id,text\na,one\nb,\"stray\nc,he said \"hi\" there\nd,four\n";
    std::fs::write(&path, later).unwrap();
    let e = err(&["dedup", s(&path), "-o", s(&d.join("out"))]);
    assert!(
        e.contains("in.csv:4") && e.contains("opened on line 3"),
        "{e}"
    );
}

/// Item 9: `calibrate --bootstrap` beyond what can be held is refused before any work (10^9
/// aborted allocating 48 GB).
#[test]
fn calibrate_refuses_more_resamples_than_it_can_hold() {
    let d = dir("bootstrap");
    let corpus = input(&d);
    let e = err(&[
        "calibrate",
        "--corpus",
        s(&corpus),
        "--bootstrap",
        "1000000000",
    ]);
    assert!(e.contains("--bootstrap must be from 1 to 100000"), "{e}");
}

/// Item 9: a damaged stage file is found by its checksum and the stage computed again, with
/// the outputs of an undamaged run (a damaged `pairs.parquet` was read as document numbers
/// past the corpus, and the run panicked).
#[test]
fn a_damaged_stage_file_is_computed_again() {
    let d = dir("damaged-stage");
    let corpus = input(&d);
    let (clean, out) = (d.join("clean"), d.join("out"));
    ok(&["dedup", s(&corpus), "-o", s(&clean), "--keep", "longest"]);
    ok(&["dedup", s(&corpus), "-o", s(&out)]);
    let pairs = out.join("stages/verify/pairs.parquet");
    let mut bytes = std::fs::read(&pairs).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle..middle + 4].copy_from_slice(&[0xff; 4]);
    std::fs::write(&pairs, bytes).unwrap();
    let run = common::neardup(&["dedup", s(&corpus), "-o", s(&out), "--keep", "longest"]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(
        said.contains("pairs.parquet") && said.contains("damaged"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(out.join("removed.txt")).unwrap(),
        std::fs::read(clean.join("removed.txt")).unwrap()
    );
    // A sketch shard: one byte of an id flipped was read as another id.
    let shard = out.join("stages/sketch/00000-00000.parquet");
    let mut bytes = std::fs::read(&shard).unwrap();
    let at = bytes
        .windows(4)
        .position(|w| w == b"s100")
        .expect("an id in the shard");
    bytes[at + 3] = b'2';
    std::fs::write(&shard, bytes).unwrap();
    let run = common::neardup(&["dedup", s(&corpus), "-o", s(&out)]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(
        said.contains("00000-00000.parquet") && said.contains("damaged"),
        "{said}"
    );
}
