//! End-to-end tests of `neardup dedup --index` and `neardup index`: the incremental run against
//! one run over everything (the oracle), reruns that add nothing, removal, and a corrupt
//! segment.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod common;
use common::dedup_corpus::{corpus, fresh_dir, write_jsonl};
use common::tables::frame;
use common::{err, ok};

fn dir(name: &str) -> PathBuf {
    fresh_dir("dedup-index", name)
}

/// The ids of `clusters.parquet`, in document order, and the `kept` flags.
fn ids_and_kept(out: &Path) -> (Vec<String>, Vec<bool>) {
    let df = frame(&out.join("clusters.parquet"));
    let ids = df.column("id").unwrap().str().unwrap().clone();
    let kept = df.column("kept").unwrap().bool().unwrap().clone();
    (
        (0..df.height())
            .map(|i| ids.get(i).unwrap().to_string())
            .collect(),
        (0..df.height()).map(|i| kept.get(i).unwrap()).collect(),
    )
}

/// Verified pairs as (smaller id, larger id) → score, documents named by `ids`.
fn verified(out: &Path, ids: &[String]) -> BTreeMap<(String, String), u64> {
    let df = frame(&out.join("stages/verify/pairs.parquet"));
    let a = df.column("a").unwrap().u32().unwrap().clone();
    let b = df.column("b").unwrap().u32().unwrap().clone();
    let s = df.column("score").unwrap().f64().unwrap().clone();
    (0..df.height())
        .map(|i| {
            let (x, y) = (
                ids[a.get(i).unwrap() as usize].clone(),
                ids[b.get(i).unwrap() as usize].clone(),
            );
            let key = if x < y { (x, y) } else { (y, x) };
            (key, s.get(i).unwrap().to_bits())
        })
        .collect()
}

fn manifest(index: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(index.join("index.json")).unwrap()).unwrap()
}

/// Indexing A and then deduplicating B against the index reports exactly the pairs, with the
/// same scores, of one run over A and B that involve a document of B and no document A's run
/// removed (the index holds what each batch kept); a B document whose
/// cluster holds an A document is removed; a rerun adds nothing and writes the same bytes;
/// removed ids leave exactly their pairs out; a corrupt segment is an error naming it.
#[test]
fn incremental_run_equals_one_run_over_everything() {
    let d = dir("oracle");
    let all = corpus(300);
    let (a, rest) = all.split_at(all.len() * 3 / 5);
    // B: the rest of the corpus (near and exact copies straddle the split) and copies of
    // every 9th A document.
    let mut b = rest.to_vec();
    for (id, text) in a.iter().step_by(9) {
        b.push((format!("{id}-again"), text.clone()));
    }
    let (fa, fb) = (d.join("a.jsonl"), d.join("b.jsonl"));
    write_jsonl(&fa, a);
    write_jsonl(&fb, &b);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (index, whole, out_a, out_b) = (
        d.join("index"),
        d.join("whole"),
        d.join("out-a"),
        d.join("out-b"),
    );
    let th = ["--param", "threshold=0.7"];
    ok(&[&["dedup", &s(&fa), &s(&fb), "-o", &s(&whole)], &th[..]].concat());
    ok(&[
        &["dedup", &s(&fa), "-o", &s(&out_a), "--index", &s(&index)],
        &th[..],
    ]
    .concat());
    let said = ok(&[
        &["dedup", &s(&fb), "-o", &s(&out_b), "--index", &s(&index)],
        &th[..],
    ]
    .concat());
    println!("{said}");

    let (whole_ids, _) = ids_and_kept(&whole);
    let (all_a_ids, a_kept) = ids_and_kept(&out_a);
    // The index holds the documents A's run kept.
    let a_ids: Vec<String> = all_a_ids
        .iter()
        .zip(&a_kept)
        .filter(|(_, k)| **k)
        .map(|(id, _)| id.clone())
        .collect();
    assert!(a_ids.len() < all_a_ids.len(), "A must have duplicates");
    let indexed: BTreeSet<&String> = a_ids.iter().collect();
    let (b_ids, b_kept) = ids_and_kept(&out_b);
    let in_b: BTreeSet<&String> = b_ids.iter().collect();
    let want: BTreeMap<_, _> = verified(&whole, &whole_ids)
        .into_iter()
        .filter(|((x, y), _)| in_b.contains(x) || in_b.contains(y))
        .filter(|((x, y), _)| {
            (in_b.contains(x) || indexed.contains(x)) && (in_b.contains(y) || indexed.contains(y))
        })
        .collect();
    // In the incremental run the new documents come first, then the indexed ones.
    let numbered: Vec<String> = b_ids.iter().chain(&a_ids).cloned().collect();
    let got = verified(&out_b, &numbered);
    assert!(
        got.keys()
            .filter(|(x, y)| in_b.contains(x) != in_b.contains(y))
            .count()
            > 10,
        "the corpus must have pairs across the split"
    );
    assert_eq!(
        got, want,
        "incremental pairs = the whole run's pairs touching B, but for A's removed documents"
    );

    let with_a: BTreeSet<&String> = got
        .keys()
        .filter(|(x, y)| in_b.contains(x) != in_b.contains(y))
        .map(|(x, y)| if in_b.contains(x) { x } else { y })
        .collect();
    for (id, kept) in b_ids.iter().zip(&b_kept) {
        if with_a.contains(id) {
            assert!(!kept, "{id} duplicates an indexed document");
        }
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_b.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["indexed_documents"], a_ids.len());
    assert!(summary["duplicates_of_index"].as_u64().unwrap() >= with_a.len() as u64);
    assert_eq!(manifest(&index)["segments"].as_array().unwrap().len(), 2);

    // A rerun of B (say after a kill once B was added) joins against A only: same bytes,
    // nothing added.
    let before = (
        std::fs::read(out_b.join("clusters.parquet")).unwrap(),
        std::fs::read(out_b.join("deduplicated.jsonl")).unwrap(),
        manifest(&index),
    );
    let rerun = d.join("out-b-again");
    ok(&[
        &["dedup", &s(&fb), "-o", &s(&rerun), "--index", &s(&index)],
        &th[..],
    ]
    .concat());
    assert_eq!(
        std::fs::read(rerun.join("clusters.parquet")).unwrap(),
        before.0
    );
    assert_eq!(
        std::fs::read(rerun.join("deduplicated.jsonl")).unwrap(),
        before.1
    );
    assert_eq!(manifest(&index), before.2, "a source is added once");

    // Removing A documents: B's run afterwards loses exactly their pairs.
    let gone: BTreeSet<String> = with_a
        .iter()
        .take(5)
        .map(|b_id| {
            got.keys()
                .find(|(x, y)| x == *b_id || y == *b_id)
                .map(|(x, y)| if x == *b_id { y.clone() } else { x.clone() })
                .unwrap()
        })
        .filter(|id| !in_b.contains(id))
        .collect();
    let ids_file = d.join("gone.txt");
    std::fs::write(
        &ids_file,
        gone.iter().map(|i| format!("{i}\n")).collect::<String>(),
    )
    .unwrap();
    // A second index of A, with the ids removed, then B against it.
    let index2 = d.join("index2");
    ok(&[
        &[
            "dedup",
            &s(&fa),
            "-o",
            &s(&d.join("out-a2")),
            "--index",
            &s(&index2),
        ],
        &th[..],
    ]
    .concat());
    let said = ok(&[
        "index",
        "remove",
        "--index",
        &s(&index2),
        "--ids",
        &s(&ids_file),
    ]);
    assert!(
        said.contains(&format!("removed {} documents", gone.len())),
        "{said}"
    );
    let out_b2 = d.join("out-b2");
    ok(&[
        &["dedup", &s(&fb), "-o", &s(&out_b2), "--index", &s(&index2)],
        &th[..],
    ]
    .concat());
    let a_left: Vec<String> = a_ids
        .iter()
        .filter(|i| !gone.contains(*i))
        .cloned()
        .collect();
    let numbered: Vec<String> = b_ids.iter().chain(&a_left).cloned().collect();
    let got2 = verified(&out_b2, &numbered);
    let want2: BTreeMap<_, _> = got
        .iter()
        .filter(|((x, y), _)| !gone.contains(x) && !gone.contains(y))
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    assert!(want2.len() < got.len());
    assert_eq!(got2, want2, "removed ids leave exactly their pairs out");
    let shown = ok(&["index", "show", "--index", &s(&index)]);
    assert!(shown.contains("2 segments"), "{shown}");

    // A corrupt segment (B's, which a run of A reads) is an error naming it; nothing is
    // written.
    let seg = d.join("index/segments/00000002.seg");
    let mut bytes = std::fs::read(&seg).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&seg, bytes).unwrap();
    let out_c = d.join("out-corrupt");
    let e = err(&["dedup", &s(&fa), "-o", &s(&out_c), "--index", &s(&index)]);
    assert!(e.contains("00000002.seg") && e.contains("checksum"), "{e}");
    assert!(!out_c.join("clusters.parquet").exists());
}

/// Bad uses: an algorithm that does not stream, other signature parameters, an empty ids
/// file, a directory without an index.
#[test]
fn index_refuses_what_it_cannot_serve() {
    let d = dir("refuse");
    let f = d.join("a.jsonl");
    write_jsonl(&f, &corpus(20));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let index = d.join("index");
    let e = err(&[
        "dedup",
        &s(&f),
        "-o",
        &s(&d.join("o1")),
        "--algorithm",
        "spotsigs",
        "--index",
        &s(&index),
    ]);
    assert!(e.contains("--index needs an algorithm that streams"), "{e}");
    ok(&[
        "dedup",
        &s(&f),
        "-o",
        &s(&d.join("o2")),
        "--index",
        &s(&index),
    ]);
    let e = err(&[
        "dedup",
        &s(&f),
        "-o",
        &s(&d.join("o3")),
        "--index",
        &s(&index),
        "--param",
        "num_perm=64",
    ]);
    assert!(
        e.contains("index.json") && e.contains("other parameters"),
        "{e}"
    );
    // Short documents' signatures are exact fingerprints under --min-words: an index of
    // another N (or none) cannot serve them, and says so.
    let e = err(&[
        "dedup",
        &s(&f),
        "-o",
        &s(&d.join("o4")),
        "--index",
        &s(&index),
        "--min-words",
        "5",
    ]);
    assert!(
        e.contains("min_words=5") && e.contains("--min-words"),
        "{e}"
    );
    let empty = d.join("none.txt");
    std::fs::write(&empty, "\n").unwrap();
    let e = err(&[
        "index",
        "remove",
        "--index",
        &s(&index),
        "--ids",
        &s(&empty),
    ]);
    assert!(e.contains("none.txt") && e.contains("no id"), "{e}");
    let e = err(&["index", "show", "--index", &s(&d)]);
    assert!(e.contains("no index here"), "{e}");
    // --memory counts the index's key tables: 400 indexed documents took 400 × (9 × 12 + 1)
    // = 43,600 bytes beside the new documents' 100 × (512 + 16 + 48) = 57,600 (one thread).
    let big = d.join("big.jsonl");
    write_jsonl(&big, &corpus(400)[..400]);
    let small = d.join("small.jsonl");
    write_jsonl(&small, &corpus(400)[400..500]);
    let idx2 = d.join("index-memory");
    ok(&[
        "dedup",
        &s(&big),
        "-o",
        &s(&d.join("o4")),
        "--index",
        &s(&idx2),
    ]);
    let mem = ["--threads", "1", "--memory", "80000"];
    ok(&[&["dedup", &s(&small), "-o", &s(&d.join("o5"))], &mem[..]].concat());
    let e = err(&[
        &[
            "dedup",
            &s(&small),
            "-o",
            &s(&d.join("o6")),
            "--index",
            &s(&idx2),
        ],
        &mem[..],
    ]
    .concat());
    // (The index holds the documents big.jsonl's run kept.)
    let indexed = manifest(&idx2)["segments"][0]["documents"]
        .as_u64()
        .unwrap();
    assert!(indexed > 300);
    assert!(
        e.contains(&format!("{indexed} indexed documents")) && e.contains("--memory"),
        "{e}"
    );
}

/// The contract of issue 56 item 5: a document of a later batch is only ever removed for a
/// document that some batch kept (in its deduplicated output), within the threshold. With
/// every document indexed, B's documents were removed "for" A documents A's run had removed
/// itself, whose text is in no output. Chains make such pairs: each link is near the one
/// before it, not the one two before.
#[test]
fn a_later_batch_is_removed_only_for_documents_a_batch_kept() {
    let d = dir("kept-only");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (id, text) in common::dedup_corpus::chain_corpus(7, 30, 6) {
        let step: usize = id.rsplit('-').next().unwrap().parse().unwrap_or(9);
        if step < 2 {
            a.push((id, text))
        } else {
            b.push((id, text))
        }
    }
    let (fa, fb) = (d.join("a.jsonl"), d.join("b.jsonl"));
    write_jsonl(&fa, &a);
    write_jsonl(&fb, &b);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (index, out_a, out_b) = (d.join("index"), d.join("out-a"), d.join("out-b"));
    let th = ["--param", "threshold=0.6"];
    ok(&[
        &["dedup", &s(&fa), "-o", &s(&out_a), "--index", &s(&index)],
        &th[..],
    ]
    .concat());
    ok(&[
        &["dedup", &s(&fb), "-o", &s(&out_b), "--index", &s(&index)],
        &th[..],
    ]
    .concat());
    let (a_ids, a_kept) = ids_and_kept(&out_a);
    let kept_somewhere: BTreeSet<String> = a_ids
        .into_iter()
        .zip(a_kept)
        .filter(|(_, k)| *k)
        .map(|(id, _)| id)
        .chain(ids_and_kept(&out_b).0)
        .collect();
    let df = frame(&out_b.join("clusters.parquet"));
    let kept = df.column("kept").unwrap().bool().unwrap().clone();
    let representative = common::tables::strings(&df, "representative");
    let removed: Vec<&String> = (0..df.height())
        .filter(|&i| kept.get(i) == Some(false))
        .map(|i| &representative[i])
        .collect();
    assert!(removed.len() > 5, "B must have documents removed for A's");
    for r in removed {
        assert!(
            kept_somewhere.contains(r),
            "removed for {r}, which no batch kept"
        );
    }
}

/// A batch that would keep a document under an id the index holds from another batch is
/// refused before it is added (an id then named two documents, and `index remove --ids`
/// removed both); a document sent again under its id is removed as a duplicate, as before,
/// and an empty one sent again (never anyone's duplicate, so kept) is not indexed twice.
#[test]
fn an_id_indexed_by_another_batch_is_refused() {
    let d = dir("reused-id");
    let docs = corpus(200);
    let (fa, fb) = (d.join("a.jsonl"), d.join("b.jsonl"));
    write_jsonl(&fa, &docs[..100]);
    let mut b = docs[100..].to_vec();
    b[7].0 = docs[3].0.clone();
    write_jsonl(&fb, &b);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let index = d.join("index");
    ok(&[
        "dedup",
        &s(&fa),
        "-o",
        &s(&d.join("out-a")),
        "--index",
        &s(&index),
    ]);
    let e = err(&[
        "dedup",
        &s(&fb),
        "-o",
        &s(&d.join("out-b")),
        "--index",
        &s(&index),
    ]);
    assert!(
        e.contains("b.jsonl:8") && e.contains("in the index already"),
        "{e}"
    );
    assert_eq!(manifest(&index)["segments"].as_array().unwrap().len(), 1);
    // The same document again, under its id: a duplicate of the indexed one, not added.
    let again = d.join("again.jsonl");
    write_jsonl(&again, &[docs[150].clone(), docs[4].clone()]);
    ok(&[
        "dedup",
        &s(&again),
        "-o",
        &s(&d.join("out-again")),
        "--index",
        &s(&index),
    ]);
    let removed = std::fs::read_to_string(d.join("out-again/removed.txt")).unwrap();
    assert_eq!(removed.trim(), docs[4].0);
    // An empty document, indexed, then sent again with a new one: kept, indexed once.
    let indexed = |index: &Path| -> u64 {
        let m = manifest(index);
        let segments = m["segments"].as_array().unwrap();
        segments
            .iter()
            .map(|s| s["documents"].as_u64().unwrap())
            .sum()
    };
    let empty = ("empty-1".to_string(), String::new());
    let (e1, e2) = (d.join("e1.jsonl"), d.join("e2.jsonl"));
    write_jsonl(&e1, std::slice::from_ref(&empty));
    write_jsonl(&e2, &[empty.clone(), docs[151].clone()]);
    for (input, out) in [(&e1, "out-e1"), (&e2, "out-e2")] {
        let before = indexed(&index);
        ok(&[
            "dedup",
            &s(input),
            "-o",
            &s(&d.join(out)),
            "--index",
            &s(&index),
        ]);
        assert_eq!(indexed(&index), before + 1, "{out}");
    }
    let removed = std::fs::read_to_string(d.join("out-e2/removed.txt")).unwrap();
    assert_eq!(removed.trim(), "", "the empty document sent again is kept");
    let ids_file = d.join("empty-id.txt");
    std::fs::write(&ids_file, "empty-1\n").unwrap();
    let said = ok(&[
        "index",
        "remove",
        "--index",
        &s(&index),
        "--ids",
        &s(&ids_file),
    ]);
    assert!(said.contains("removed 1 document"), "{said}");
}
