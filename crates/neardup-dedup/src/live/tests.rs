//! The live index against its oracles: `dedup --index` run on each document in turn (the
//! batch answer), brute force over every earlier document (for algorithms whose join finds
//! every pair within the threshold), and replay after a process ends without folding.

use std::path::Path;

use neardup::hash::SplitMix64;
use neardup::streaming::SketchScratch;

use super::*;
use crate::pipeline::options::TableFormat;
use crate::test_dir::TestDir;
use crate::{DedupOptions, Keep};

fn word(rng: &mut SplitMix64) -> String {
    format!("w{}", rng.below(3_000))
}

/// 24 stories of 120 words, then 36 copies of them with 0 to 40 % of their words replaced
/// (so some copies fall either side of the threshold), in shuffled order.
pub(super) fn corpus(seed: u64) -> Vec<(String, String)> {
    let mut rng = SplitMix64::new(seed);
    let mut texts: Vec<Vec<String>> = (0..24)
        .map(|_| (0..120).map(|_| word(&mut rng)).collect())
        .collect();
    for i in 0..36 {
        let mut copy = texts[rng.below(24) as usize].clone();
        let replaced = [0, 1, 3, 6, 12, 24, 48][i % 7];
        for _ in 0..replaced {
            let at = rng.below(120) as usize;
            copy[at] = word(&mut rng);
        }
        texts.push(copy);
    }
    for i in (1..texts.len()).rev() {
        texts.swap(i, rng.below(i as u64 + 1) as usize);
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, w)| (format!("d{i:03}"), w.join(" ")))
        .collect()
}

fn config(algorithm: &str, params: &[(&str, serde_json::Value)]) -> LiveConfig {
    LiveConfig {
        algorithm: algorithm.into(),
        params: params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        ..Default::default()
    }
}

fn new_doc(live: &LiveIndex, id: &str, text: &str) -> NewDoc {
    NewDoc {
        id: id.into(),
        url: Some(format!("https://Example.org/{id}")),
        probe: live.sketch(text, &mut SketchScratch::default()),
    }
}

fn add_one(live: &LiveIndex, id: &str, text: &str) -> Outcome {
    let mut out = live
        .add(vec![new_doc(live, id, text)], AddMode::IfNew)
        .unwrap();
    out.pop().unwrap().unwrap()
}

/// `dedup --index DIR` on one document: whether it was removed, and the id it was removed for.
fn batch_decision(
    index: &Path,
    work: &Path,
    algorithm: &LiveConfig,
    id: &str,
    text: &str,
) -> Option<String> {
    let input = work.join("one.jsonl");
    std::fs::write(
        &input,
        format!("{}\n", serde_json::json!({"id": id, "text": text})),
    )
    .unwrap();
    let out = work.join("out");
    let options = DedupOptions {
        inputs: vec![input],
        output: out.clone(),
        algorithm: algorithm.algorithm.clone(),
        params: algorithm.params.clone(),
        text_field: "text".into(),
        id_field: "id".into(),
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
        index: Some(index.to_path_buf()),
        inflated_copy: false,
        checkpoint_bytes: crate::pipeline::DEFAULT_CHECKPOINT_BYTES,
        min_words: 0,
        skip_invalid: false,
    };
    let summary = crate::run(&options).unwrap().unwrap();
    let kept_for = (summary.removed == 1).then(|| kept_id(&out.join("clusters.csv"), id));
    std::fs::remove_dir_all(&out).unwrap();
    kept_for
}

/// The document kept for `id` (the `representative` column of its row) in a `clusters.csv`.
fn kept_id(clusters: &Path, id: &str) -> String {
    let mut reader = csv::Reader::from_path(clusters).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (id_col, kept_col) = (col("id"), col("representative"));
    let row = reader
        .records()
        .map(|r| r.unwrap())
        .find(|r| &r[id_col] == id)
        .unwrap();
    row[kept_col].to_string()
}

fn decision(outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Added { .. } => None,
        Outcome::Duplicate { matches } => Some(matches[0].id.clone()),
        Outcome::AlreadyIndexed => panic!("no id repeats"),
    }
}

fn adds_decide_as_dedup_index_on_each_document(config: LiveConfig) {
    let work = TestDir::new(&format!("live-oracle-{}", config.algorithm));
    let live_dir = work.join("live");
    let batch_dir = work.join("batch");
    let (live, _) = LiveIndex::open(&live_dir, &config).unwrap();
    let mut duplicates = 0;
    for (i, (id, text)) in corpus(7).iter().enumerate() {
        let served = decision(&add_one(&live, id, text));
        let batch = batch_decision(&batch_dir, &work, &config, id, text);
        assert_eq!(
            served, batch,
            "document {i} ({id}) under {}",
            config.algorithm
        );
        duplicates += served.is_some() as usize;
        if i == 30 {
            // Half-way, the recent part becomes a segment: answers must not change.
            live.fold().unwrap();
        }
    }
    assert!(
        (5..36).contains(&duplicates),
        "the corpus must have copies found and copies missed: {duplicates} duplicates"
    );
}

#[test]
fn minhash_adds_decide_as_dedup_index_does() {
    adds_decide_as_dedup_index_on_each_document(config("minhash-lsh", &[]));
}

#[test]
fn simhash_adds_decide_as_dedup_index_does() {
    let c = config(
        "simhash",
        &[
            ("weighting", serde_json::json!("tf")),
            ("max_distance", serde_json::json!(3)),
        ],
    );
    adds_decide_as_dedup_index_on_each_document(c);
}

#[test]
fn exact_adds_decide_as_dedup_index_does() {
    adds_decide_as_dedup_index_on_each_document(config("exact", &[]));
}

/// Brute force for the exact hash: a document is a duplicate exactly when an earlier added
/// (not removed) one has the same normalized text's signature — every pair is a candidate.
#[test]
fn exact_matches_equal_brute_force_over_every_earlier_document() {
    let work = TestDir::new("live-brute");
    let (live, _) = LiveIndex::open(&work.join("i"), &config("exact", &[])).unwrap();
    let docs = corpus(3);
    let mut added: Vec<(String, Probe)> = Vec::new();
    for (id, text) in &docs {
        let probe = live.sketch(text, &mut SketchScratch::default());
        let brute: Vec<String> = added
            .iter()
            .filter(|(_, p)| p.row == probe.row && !p.empty)
            .map(|(i, _)| i.clone())
            .collect();
        let found: Vec<String> = live.check(&probe).into_iter().map(|m| m.id).collect();
        assert_eq!(found, brute, "{id}");
        if let Outcome::Added { .. } = add_one(&live, id, text) {
            added.push((id.clone(), probe));
        }
    }
}

#[test]
fn a_process_ended_without_folding_is_replayed_whole() {
    let work = TestDir::new("live-replay");
    let dir = work.join("i");
    let c = config("minhash-lsh", &[]);
    let docs = corpus(11);
    let (live, _) = LiveIndex::open(&dir, &c).unwrap();
    let before: Vec<Outcome> = docs.iter().map(|(id, t)| add_one(&live, id, t)).collect();
    assert!(live.remove("d005").unwrap());
    let stats = live.stats();
    // Dropped without a fold, as a killed process leaves it: only the log holds the adds.
    drop(live);
    let (live, replay) = LiveIndex::open(&dir, &c).unwrap();
    let added = before
        .iter()
        .filter(|o| matches!(o, Outcome::Added { .. }))
        .count();
    // Every add, and the removal; a duplicate is never logged.
    assert_eq!(replay.records, added + 1);
    assert_eq!(stats.documents as usize, added - 1);
    assert_eq!(live.stats().documents, stats.documents);
    assert!(live.doc("d005").is_none());
    for ((id, text), outcome) in docs.iter().zip(&before) {
        let probe = live.sketch(text, &mut SketchScratch::default());
        let matches: Vec<String> = live.check(&probe).into_iter().map(|m| m.id).collect();
        match outcome {
            Outcome::Added { .. } if id != "d005" => {
                assert!(matches.contains(id), "{id} lost: {matches:?}");
                let info = live.doc(id).unwrap();
                assert_eq!(info.host.as_deref(), Some("example.org"));
                assert_eq!(info.stored_in, "log");
            }
            _ => assert!(!matches.contains(id)),
        }
    }
    // Folded, closed and reopened: the same documents, now in a segment, with their URLs.
    live.close().unwrap();
    let (live, replay) = LiveIndex::open(&dir, &c).unwrap();
    assert_eq!(replay.records, 0);
    assert_eq!(live.stats().documents, stats.documents);
    let info = live.doc("d000").unwrap();
    assert!(info.stored_in.ends_with(".seg"), "{info:?}");
    assert_eq!(info.url.as_deref(), Some("https://Example.org/d000"));
}

#[test]
fn two_clients_adding_one_page_at_once_get_one_added() {
    let work = TestDir::new("live-race");
    let (live, _) = LiveIndex::open(&work.join("i"), &config("minhash-lsh", &[])).unwrap();
    let mut rng = SplitMix64::new(5);
    for round in 0..20 {
        let text = &(0..120)
            .map(|_| word(&mut rng))
            .collect::<Vec<_>>()
            .join(" ");
        let outcomes: Vec<Outcome> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|t| {
                    let live = &live;
                    s.spawn(move || add_one(live, &format!("r{round}-t{t}"), text))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let added: Vec<usize> = (0..8)
            .filter(|&t| matches!(outcomes[t], Outcome::Added { .. }))
            .collect();
        assert_eq!(added.len(), 1, "round {round}: {outcomes:?}");
        let winner = format!("r{round}-t{}", added[0]);
        for o in &outcomes {
            if let Outcome::Duplicate { matches } = o {
                assert_eq!(matches[0].id, winner);
            }
        }
    }
}

#[test]
fn removed_documents_match_nothing_before_and_after_a_fold() {
    let work = TestDir::new("live-remove");
    let dir = work.join("i");
    let c = config("minhash-lsh", &[]);
    let (live, _) = LiveIndex::open(&dir, &c).unwrap();
    let docs = corpus(2);
    let (id, text) = &docs[0];
    add_one(&live, id, text);
    live.fold().unwrap();
    assert!(live.remove(id).unwrap());
    assert!(!live.remove(id).unwrap(), "removed once");
    let probe = live.sketch(text, &mut SketchScratch::default());
    assert!(live.check(&probe).is_empty());
    // Re-added under the same id after its removal, then folded: one document, the new one.
    assert!(matches!(add_one(&live, id, text), Outcome::Added { .. }));
    live.close().unwrap();
    let (live, _) = LiveIndex::open(&dir, &c).unwrap();
    assert_eq!(live.stats().documents, 1);
    let m = live.check(&probe);
    assert_eq!(m.len(), 1, "{m:?}");
}

#[test]
fn an_id_names_one_document() {
    let work = TestDir::new("live-ids");
    let (live, _) = LiveIndex::open(&work.join("i"), &config("minhash-lsh", &[])).unwrap();
    let docs = corpus(4);
    add_one(&live, "a", &docs[0].1);
    let refused = |text: &str, mode| {
        let mut out = live.add(vec![new_doc(&live, "a", text)], mode).unwrap();
        out.pop().unwrap()
    };
    for (text, mode) in [
        (docs[1].1.as_str(), AddMode::IfNew),
        ("", AddMode::IfNew),
        (docs[1].1.as_str(), AddMode::Always),
    ] {
        let other = refused(text, mode);
        assert!(matches!(other, Err(Refusal::Conflict(_))), "{other:?}");
    }
    // The same document again under its id: nothing to add, in either mode.
    let again = refused(&docs[0].1, AddMode::Always).unwrap();
    assert_eq!(again, Outcome::AlreadyIndexed);
    assert_eq!(live.stats().documents, 1);
}

#[test]
fn a_log_of_another_index_is_refused_by_name() {
    let work = TestDir::new("live-other-log");
    let (a, b) = (work.join("a"), work.join("b"));
    let (live, _) = LiveIndex::open(&a, &config("minhash-lsh", &[])).unwrap();
    add_one(&live, "x", &corpus(1)[0].1);
    drop(live);
    let (live, _) = LiveIndex::open(&b, &config("exact", &[])).unwrap();
    drop(live);
    std::fs::copy(a.join(LOG_FILE), b.join(LOG_FILE)).unwrap();
    let e = LiveIndex::open(&b, &config("exact", &[]))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("live.log") && e.contains("a log of another index"),
        "{e}"
    );
}
