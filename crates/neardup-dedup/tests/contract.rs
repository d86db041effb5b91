//! The product's contract, through its library API (`neardup_dedup::run`), as Python and any
//! other embedder call it — without the lab's binary, whose own tests cover the command line:
//!
//! * what is removed is what an exact oracle says is a near copy of something kept (exact
//!   word 5-shingle Jaccard over every pair, brute force), and nothing else;
//! * the same inputs give the same bytes whatever the thread count;
//! * a malformed record is refused naming the file and line, before any output exists;
//! * files in the output folder that the run did not create are left as they were, and the
//!   input is never written.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use neardup::hash::SplitMix64;
use neardup_dedup::pipeline::options::TableFormat;
use neardup_dedup::{DedupOptions, Keep, run};

/// A folder of its own per test, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("neardup-contract-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A word of the corpus's 5,000 (the library's SplitMix64: the same corpus on every machine).
fn word(rng: &mut SplitMix64) -> String {
    format!("w{}", rng.below(5_000))
}

/// 300 documents of 80 random words; 60 exact copies and 60 copies with their first or last
/// word changed, in shuffled order.
fn corpus(seed: u64) -> Vec<(String, String)> {
    println!("corpus seed {seed}");
    let mut rng = SplitMix64::new(seed);
    let mut texts: Vec<Vec<String>> = (0..300)
        .map(|_| (0..80).map(|_| word(&mut rng)).collect())
        .collect();
    for i in 0..120 {
        let mut copy = texts[rng.below(300) as usize].clone();
        if i % 2 == 1 {
            // An end word: one shingle of 76 differs (Jaccard 75/77).
            let at = if i % 4 == 1 { 0 } else { 79 };
            copy[at] = word(&mut rng);
        }
        texts.push(copy);
    }
    // Shuffled, so copies come before their sources too.
    for i in (1..texts.len()).rev() {
        texts.swap(i, rng.below(i as u64 + 1) as usize);
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, words)| (format!("d{i:04}"), words.join(" ")))
        .collect()
}

fn write_jsonl(path: &Path, docs: &[(String, String)]) {
    let mut out = String::new();
    for (id, text) in docs {
        out.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

fn options(input: &Path, output: &Path) -> DedupOptions {
    DedupOptions {
        inputs: vec![input.to_path_buf()],
        output: output.to_path_buf(),
        algorithm: "minhash-lsh".to_string(),
        params: Default::default(),
        text_field: "text".to_string(),
        id_field: "id".to_string(),
        html_field: None,
        extract: Default::default(),
        boilerplate_lines: None,
        write_text: false,
        keep: Keep::First,
        clusters: None,
        clusters_format: TableFormat::Csv,
        memory: None,
        stage: None,
        shard: None,
        index: None,
        inflated_copy: false,
        checkpoint_bytes: neardup_dedup::pipeline::DEFAULT_CHECKPOINT_BYTES,
        min_words: 0,
        skip_invalid: false,
    }
}

fn shingles(text: &str) -> HashSet<Vec<&str>> {
    let words: Vec<&str> = text.split(' ').collect();
    words.windows(5).map(<[&str]>::to_vec).collect()
}

/// The oracle: documents joined when their exact word 5-shingle Jaccard is at least 0.9 (the
/// planted copies are at 0.97 or more, unrelated documents near 0), each component keeping
/// its first document in input order.
fn removed_by_oracle(docs: &[(String, String)]) -> BTreeSet<String> {
    let sets: Vec<_> = docs.iter().map(|(_, t)| shingles(t)).collect();
    let mut parent: Vec<usize> = (0..docs.len()).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for a in 0..docs.len() {
        for b in a + 1..docs.len() {
            let common = sets[a].intersection(&sets[b]).count();
            let jaccard = common as f64 / (sets[a].len() + sets[b].len() - common) as f64;
            if jaccard >= 0.9 {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                // The smaller index (first in input order) stays the root.
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    (0..docs.len())
        .filter(|&d| root(&mut parent, d) != d)
        .map(|d| docs[d].0.clone())
        .collect()
}

fn removed_ids(output: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(output.join("removed.txt"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn kept_ids(output: &Path, name: &str) -> BTreeSet<String> {
    std::fs::read_to_string(output.join(name))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn what_is_removed_is_what_the_exact_oracle_calls_a_near_copy() {
    let dir = Dir::new("oracle");
    let docs = corpus(20_261_128);
    let input = dir.0.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let output = dir.0.join("out");
    let summary = run(&options(&input, &output)).unwrap().unwrap();

    let expected = removed_by_oracle(&docs);
    assert!(expected.len() >= 100, "{} planted copies", expected.len());
    assert_eq!(removed_ids(&output), expected);
    assert_eq!(summary.removed, expected.len() as u64);
    assert_eq!(summary.kept + summary.removed, docs.len() as u64);
    // The deduplicated copy holds every other record, once, in input order.
    assert_eq!(summary.deduplicated.len(), 1);
    let kept = kept_ids(&output, &summary.deduplicated[0]);
    let all: BTreeSet<String> = docs.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(
        kept,
        all.difference(&expected).cloned().collect::<BTreeSet<_>>()
    );
}

/// Every output of the run, by name, as bytes (`summary.json` without its timings).
fn outputs(output: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(output)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .filter(|(name, _)| name != "summary.json" && name != "README.md")
        .collect();
    files.sort();
    files
}

#[test]
fn the_outputs_are_the_same_bytes_for_any_thread_count() {
    let dir = Dir::new("threads");
    let docs = corpus(7);
    let input = dir.0.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let mut seen = Vec::new();
    for threads in [1, 2, 3] {
        let output = dir.0.join(format!("out{threads}"));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let summary = pool.install(|| run(&options(&input, &output))).unwrap();
        assert_eq!(summary.unwrap().threads, threads);
        seen.push(outputs(&output));
    }
    assert!(seen[0].len() >= 3, "{:?}", seen[0].iter().map(|f| &f.0));
    assert!(
        seen.iter().all(|s| *s == seen[0]),
        "outputs differ by threads"
    );
}

#[test]
fn a_malformed_record_is_refused_naming_file_and_line_before_any_output() {
    let dir = Dir::new("malformed");
    let input = dir.0.join("corpus.jsonl");
    std::fs::write(
        &input,
        "{\"id\": \"a\", \"text\": \"one two three\"}\n\
         {\"id\": \"b\", \"text\": \"four five six\"}\n\
         {\"id\": \"c\", \"text\": \"seven eight\n",
    )
    .unwrap();
    let output = dir.0.join("out");
    let error = run(&options(&input, &output)).unwrap_err().to_string();
    assert!(
        error.contains(&format!("{}:3", input.display())),
        "error does not name the file and line: {error}"
    );
    assert!(
        !output.join("summary.json").exists() && !output.join("removed.txt").exists(),
        "outputs were published for a refused input"
    );
}

#[test]
fn files_the_run_did_not_create_are_left_as_they_were() {
    let dir = Dir::new("foreign");
    let docs = corpus(3);
    let input = dir.0.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let before = std::fs::read(&input).unwrap();
    let output = dir.0.join("out");
    std::fs::create_dir_all(output.join("notes")).unwrap();
    let foreign = [
        (output.join("my-notes.txt"), b"mine".to_vec()),
        (output.join("notes").join("a.jsonl"), b"{}\n".to_vec()),
        (output.join(".hidden.tmp"), b"not the tool's".to_vec()),
    ];
    for (path, bytes) in &foreign {
        std::fs::write(path, bytes).unwrap();
    }
    for _ in 0..2 {
        run(&options(&input, &output)).unwrap();
    }
    for (path, bytes) in &foreign {
        assert_eq!(
            std::fs::read(path).ok().as_ref(),
            Some(bytes),
            "{} changed",
            path.display()
        );
    }
    assert_eq!(
        std::fs::read(&input).unwrap(),
        before,
        "the input was written"
    );
}
