//! SimHash and Hamming-search benches (issue: SimHash, random projection, permuted tables).
//!
//! ```sh
//! cargo bench -p neardup --bench simhash
//! NEARDUP_BENCH_INDEX=10000000 cargo bench -p neardup --bench simhash -- query   # 10M index
//! ```
//! * `simhash64/end_to_end` — raw text → 64-bit SimHash (tf-weighted Unicode words), MB/s.
//! * `hamming/all_pairs_1m_k3` — every pair within distance 3 among 1,000,000 random 64-bit
//!   fingerprints with 10,000 planted neighbours; checked once against planted pairs, another
//!   design, and brute force on a 50,000-fingerprint prefix.
//! * `hamming/query/<tables>` — one query against an index of `NEARDUP_BENCH_INDEX`
//!   fingerprints (default 2,000,000) for each design; the index's memory is printed.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use neardup::features::FeatureParams;
use neardup::hamming::design::{Design, best_for_join};
use neardup::hamming::tables::{PermutedTables, all_pairs};
use neardup::hamming::{Bits, brute};
use neardup::hash::SplitMix64;
use neardup::pairs::pack;
use neardup::simhash::{Fingerprints, SignSketcher, Weights};

fn text_corpus(docs: usize) -> Vec<String> {
    let mut rng = SplitMix64::new(42);
    let syllables = [
        "ka", "lo", "mi", "ne", "su", "ra", "ti", "po", "ve", "da", "sh", "or", "the", "and", "of",
    ];
    (0..docs)
        .map(|_| {
            let n = 240 + rng.below(121) as usize;
            (0..n)
                .map(|_| {
                    let len = 1 + rng.below(3) as usize;
                    (0..len)
                        .map(|_| syllables[rng.below(syllables.len() as u64) as usize])
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn bench_simhash(c: &mut Criterion) {
    let docs = text_corpus(20_000);
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let bytes: usize = docs.iter().map(String::len).sum();
    let shingler = FeatureParams::words(1).shingler(1);
    let mut g = c.benchmark_group("simhash64");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes as u64));
    for (name, w) in [
        ("end_to_end_tf", Weights::Tf),
        ("end_to_end_binary", Weights::Binary),
    ] {
        let sketcher = SignSketcher::new(1, 7);
        g.bench_function(name, |b| {
            b.iter(|| Fingerprints::compute(&refs, &shingler, w, &sketcher))
        });
    }
    let sketcher = SignSketcher::new(6, 7);
    g.bench_function("projection384_end_to_end_tf", |b| {
        b.iter(|| Fingerprints::compute(&refs, &shingler, Weights::Tf, &sketcher))
    });
    g.finish();
}

/// `n` random fingerprints plus `planted` copies of random ones with 1–3 bits flipped.
fn planted(n: usize, planted: usize, seed: u64) -> (Vec<u64>, Vec<u64>) {
    let mut rng = SplitMix64::new(seed);
    let mut fps: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let mut pairs = Vec::new();
    for _ in 0..planted {
        let src = rng.below(n as u64) as usize;
        let mut f = fps[src];
        for _ in 0..1 + rng.below(3) {
            f = f.flip(rng.below(64) as u32);
        }
        pairs.push(pack(src as u32, fps.len() as u32));
        fps.push(f);
    }
    (fps, pairs)
}

fn bench_join(c: &mut Criterion) {
    let (fps, planted_pairs) = planted(1_000_000, 10_000, 3);
    // Correctness once, before timing.
    let found = all_pairs(&fps, 3, None).unwrap();
    let missing = planted_pairs
        .iter()
        .filter(|p| found.binary_search(p).is_err())
        .count();
    assert_eq!(missing, 0, "every planted pair within distance 3 is found");
    assert_eq!(
        found,
        all_pairs(&fps, 3, Some(&Design::single(64, 3, 6).unwrap())).unwrap(),
        "20-table design agrees"
    );
    let prefix = &fps[..50_000];
    assert_eq!(
        all_pairs(prefix, 3, None).unwrap(),
        brute::all_pairs(prefix, 3),
        "brute force on a 50k prefix"
    );
    let design = best_for_join(64, 3, fps.len()).unwrap();
    println!(
        "hamming/all_pairs_1m_k3: {} pairs, design {} blocks ({} tables)",
        found.len(),
        design.blocks(),
        design.tables.len()
    );
    let mut g = c.benchmark_group("hamming");
    g.sample_size(10);
    g.throughput(Throughput::Elements(fps.len() as u64));
    g.bench_function("all_pairs_1m_k3", |b| {
        b.iter(|| all_pairs(&fps, 3, None).unwrap())
    });
    g.finish();
}

fn bench_query(c: &mut Criterion) {
    let n: usize = std::env::var("NEARDUP_BENCH_INDEX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    let (fps, _) = planted(n, n / 100, 5);
    let mut rng = SplitMix64::new(9);
    let queries: Vec<u64> = (0..1000)
        .map(|_| fps[rng.below(fps.len() as u64) as usize].flip(rng.below(64) as u32))
        .collect();
    let mut g = c.benchmark_group("hamming/query");
    g.sample_size(10);
    g.throughput(Throughput::Elements(queries.len() as u64));
    for design in [
        Design::single(64, 3, 4),
        Design::single(64, 3, 5),
        Design::two_level(64, 3, 4, 4),
        Design::single(64, 3, 6),
    ] {
        let design = design.unwrap();
        let tables = design.tables.len();
        let index = PermutedTables::build(design, &fps).unwrap();
        // Correctness once: the first queries agree with a scan.
        for &q in queries.iter().take(3) {
            assert_eq!(index.query(q, 3).unwrap(), brute::query(&fps, q, 3));
        }
        println!(
            "hamming/query/{tables}: {n} fingerprints, index {:.0} MB",
            index.heap_bytes() as f64 / 1e6
        );
        g.bench_function(
            BenchmarkId::new(format!("{n}"), format!("{tables}_tables")),
            |b| {
                b.iter(|| {
                    queries
                        .iter()
                        .map(|&q| index.query(q, 3).unwrap().len())
                        .sum::<usize>()
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench_simhash, bench_join, bench_query);
criterion_main!(benches);
