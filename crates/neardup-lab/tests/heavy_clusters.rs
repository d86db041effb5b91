//! `neardup dedup` on heavy clusters (issue 51): a crawl's thousands of copies of one page
//! must not make the join quadratic. Before `neardup::heavy`, the corpora here stopped at the
//! default pair limit ("LSH banding would report at least … pairs"); now they run, and their
//! clusters are those of every verified pair — the oracle: all pairs brute force (sharing a
//! join key and verified, or within the threshold for the Hamming joins, which find every
//! such pair), anchored by `neardup::cluster::anchored::anchor_all` as the pipeline anchors.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::dedup_corpus::{chain_corpus, fresh_dir, write_jsonl};
use common::ok;
use common::tables::{frame, strings};
use neardup::detector::ParamMap;
use neardup::hash::SplitMix64;

fn dir(name: &str) -> PathBuf {
    fresh_dir("heavy-clusters", name)
}

/// A chain corpus (chains, unrelated documents, a few exact copies) and two heavy clusters of
/// a 60-word page each: `exact` copies of it and `near` copies with one word replaced.
fn heavy_corpus(seed: u64, exact: usize, near: usize) -> Vec<(String, String)> {
    let mut docs = chain_corpus(seed, 8, 10);
    let mut rng = SplitMix64::new(seed ^ 404);
    for page in 0..2 {
        let words: Vec<String> = (0..60).map(|i| format!("p{page}w{i}")).collect();
        for i in 0..exact {
            docs.push((format!("page{page}-exact{i}"), words.join(" ")));
        }
        for i in 0..near {
            let mut w = words.clone();
            let at = rng.below(60) as usize;
            w[at] = format!("x{}", rng.below(1 << 30));
            docs.push((format!("page{page}-near{i}"), w.join(" ")));
        }
    }
    docs
}

/// Every document's representative as the pipeline's rule gives it on every verified pair
/// (`keep first`: the smallest document number represents).
fn oracle(algorithm: &str, params: &ParamMap, texts: &[&str]) -> Vec<u32> {
    let detector = neardup::registry::detector(algorithm, params).unwrap();
    let n = texts.len();
    let all_pairs = |keep: &dyn Fn(usize, usize) -> bool| -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                if keep(a, b) {
                    pairs.push((a as u32, b as u32));
                }
            }
        }
        pairs
    };
    let reps = |pairs: &[(u32, u32)], compare: &(dyn Fn(u32, u32) -> (f64, bool) + Sync)| {
        neardup::cluster::anchored::anchor_all(n, pairs, |d| d, compare, true)
            .into_iter()
            .map(|a| a.representative)
            .collect()
    };
    match detector.streaming() {
        Some(stream) => {
            let table = neardup::streaming::SignatureTable::sketch_all(stream.as_ref(), texts);
            let per = stream.keys_per_doc();
            let mut keys = vec![0u64; n * per];
            for (d, out) in keys.chunks_mut(per).enumerate() {
                stream.keys(table.row(d), out);
            }
            let pairs = all_pairs(&|a, b| {
                let shared = (0..per).any(|p| keys[a * per + p] == keys[b * per + p]);
                shared
                    && !table.is_empty_doc(a)
                    && !table.is_empty_doc(b)
                    && stream.verify(&table, a as u32, b as u32).is_some()
            });
            reps(&pairs, &|a, b| stream.compare(&table, a, b))
        }
        None => {
            // The Hamming joins report every pair within the distance; an index that cannot
            // compare any pair (SimHash's) gives connected clusters.
            let index = detector.build(texts).unwrap();
            let bits = detector.build_params()["bits"].as_u64().unwrap() as f64;
            let k = detector.query_params()["max_distance"].as_u64().unwrap() as f64;
            let within = |a: usize, b: usize| index.score(a, b).unwrap() >= 1.0 - k / bits - 1e-12;
            let pairs = all_pairs(&|a, b| within(a, b));
            assert!(
                !detector.compares_any_pair(),
                "{algorithm} compares: use its compare"
            );
            let compare = |a: u32, b: u32| (index.score(a as usize, b as usize).unwrap(), false);
            neardup::cluster::anchored::anchor_all(n, &pairs, |d| d, compare, false)
                .into_iter()
                .map(|a| a.representative)
                .collect()
        }
    }
}

/// Runs `neardup dedup` at the default limits; (representative ids, rows of `pairs.parquet`).
fn dedup(input: &Path, out: &Path, extra: &[&str]) -> (Vec<String>, usize) {
    let mut args = vec![
        "dedup",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    ok(&args);
    let clusters = frame(&out.join("clusters.parquet"));
    let pairs = frame(&out.join("pairs.parquet")).height();
    (strings(&clusters, "representative"), pairs)
}

/// Two clusters of 1,500 exact and 1,500 near copies each beside chains: the join of every
/// pair would report over 10^8 band collisions (the default limit is 2·10^7); the sparse join
/// gives the clusters of every pair, with an audit table proportional to the corpus.
#[test]
fn heavy_clusters_run_at_the_default_limits_and_cluster_as_every_pair() {
    let seed = 51;
    let docs = heavy_corpus(seed, 1500, 1500);
    let d = dir("oracle");
    let input = d.join("corpus.jsonl");
    write_jsonl(&input, &docs);
    let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
    let id_of = |r: u32| docs[r as usize].0.clone();
    let tf = || {
        let mut p = ParamMap::new();
        p.insert("weighting".into(), "tf".into());
        p
    };
    for (algorithm, params, extra) in [
        ("minhash-lsh", ParamMap::new(), vec![]),
        ("exact", ParamMap::new(), vec![]),
        ("simhash", ParamMap::new(), vec![]),
        ("simhash", tf(), vec!["--param", "weighting=tf"]),
    ] {
        let want: Vec<String> = oracle(algorithm, &params, &texts)
            .into_iter()
            .map(id_of)
            .collect();
        let out = d.join(format!("{algorithm}-{}", extra.len()));
        let mut args = vec!["--algorithm", algorithm];
        args.extend(extra.iter().copied());
        let (reps, pairs) = dedup(&input, &out, &args);
        let differ = reps.iter().zip(&want).filter(|(a, b)| a != b).count();
        assert_eq!(
            differ, 0,
            "seed {seed} {algorithm} {extra:?}: representatives"
        );
        // Runs of up to 64 documents sharing a key still give all their pairs (near copies
        // edited at nearby words share a band): linear, against 4.5 million pairs in all.
        assert!(
            pairs < 16 * docs.len(),
            "seed {seed} {algorithm} {extra:?}: {pairs} rows in pairs.parquet"
        );
        // The same bytes on one thread: heavy runs are connected in a fixed order.
        let one = d.join(format!("{algorithm}-{}-one-thread", extra.len()));
        args.extend(["--threads", "1"]);
        dedup(&input, &one, &args);
        for table in ["clusters.parquet", "pairs.parquet"] {
            let same =
                std::fs::read(out.join(table)).unwrap() == std::fs::read(one.join(table)).unwrap();
            assert!(
                same,
                "seed {seed} {algorithm} {extra:?}: {table} differs on one thread"
            );
        }
    }
}

/// Adding k exact copies of a document changes only that document's cluster: every other
/// document keeps its representative, and the copies are represented as it is.
#[test]
fn exact_copies_change_only_their_documents_cluster() {
    let seed = 52;
    let base = chain_corpus(seed, 10, 10);
    let d = dir("copies");
    let input = d.join("base.jsonl");
    write_jsonl(&input, &base);
    let (before, _) = dedup(&input, &d.join("before"), &[]);
    for (x, k) in [(3usize, 10usize), (17, 100), (40, 2000)] {
        let mut docs = base.clone();
        for i in 0..k {
            docs.push((format!("copy{i}"), base[x].1.clone()));
        }
        let input = d.join(format!("with-{k}.jsonl"));
        write_jsonl(&input, &docs);
        let (after, _) = dedup(&input, &d.join(format!("after-{k}")), &[]);
        let rep_of: BTreeMap<&str, &str> = docs
            .iter()
            .map(|(id, _)| id.as_str())
            .zip(after.iter().map(String::as_str))
            .collect();
        for (i, (id, _)) in base.iter().enumerate() {
            assert_eq!(
                rep_of[id.as_str()],
                before[i],
                "seed {seed}, {k} copies of {x}: {id}"
            );
        }
        for i in 0..k {
            assert_eq!(
                rep_of[format!("copy{i}").as_str()],
                before[x],
                "seed {seed}: copy{i}"
            );
        }
    }
}
