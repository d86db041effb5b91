//! Every registered algorithm (build + query, defaults) on a real corpus; SpotSigs'
//! partitioned, pruned join against the brute-force all-pairs Jaccard on the same spot sets;
//! and SpotSigs' spot extraction on documents of 20k, 40k and 80k tokens (linear: the time
//! doubles with the length).
//!
//! ```sh
//! NEARDUP_DATA_DIR=../shared/datasets cargo bench -p neardup-lab --bench algorithms
//! ```
//! Uses `licenses` from the data directory; without it the benches fall back to 5,000
//! documents of the embedded corpus (said on stderr).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neardup::detector::ParamMap;
use neardup::detectors::spotsigs::{SpotSigsParams, partitioned_join, spot_signatures};
use neardup::join::jaccard_join_brute;
use neardup::pairs::Budget;
use neardup_lab::corpus::synthetic::{SyntheticSpec, generate};
use neardup_lab::corpus::{Corpus, manifest};

fn corpus() -> Corpus {
    let dir = manifest::data_dir(None);
    match manifest::find("licenses").and_then(|m| m.load(&dir)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("licenses not available ({e}); using 5,000 embedded documents");
            generate(SyntheticSpec {
                docs: 5000,
                seed: 1,
            })
            .expect("embedded corpus")
        }
    }
}

fn bench_algorithms(c: &mut Criterion) {
    let corpus = corpus();
    let docs = corpus.texts();
    let mut g = c.benchmark_group(format!("algorithms/{}", corpus.name));
    g.sample_size(10);
    g.throughput(Throughput::Bytes(corpus.text_bytes() as u64));
    for a in neardup::registry::algorithms() {
        let d = a.detector(&ParamMap::new()).expect("defaults are valid");
        g.bench_function(a.name, |b| {
            b.iter(|| {
                d.build(&docs)
                    .unwrap()
                    .query(&ParamMap::new())
                    .unwrap()
                    .len()
            })
        });
    }
    g.finish();
}

fn bench_spotsigs_join(c: &mut Criterion) {
    let corpus = corpus();
    let docs = corpus.texts();
    // The spot sets of the default parameters, computed once; only the joins are timed.
    let (sets, _, _) = spot_signatures(&SpotSigsParams::default(), &docs).expect("spots");
    let mut g = c.benchmark_group(format!("spotsigs_join/{}", corpus.name));
    g.sample_size(10);
    for tau in [0.5, 0.85] {
        let pruned =
            partitioned_join(&sets, tau, &Budget::with_limit("bench", u64::MAX)).expect("no limit");
        let brute = jaccard_join_brute(&sets, tau);
        assert_eq!(
            pruned, brute,
            "pruned and brute-force pair sets differ at τ = {tau}"
        );
        eprintln!(
            "spotsigs τ = {tau}: {} pairs, identical to brute force",
            pruned.len()
        );
        g.bench_function(format!("pruned_tau_{tau}"), |b| {
            b.iter(|| {
                partitioned_join(&sets, tau, &Budget::with_limit("bench", u64::MAX))
                    .map(|p| p.len())
            })
        });
        g.bench_function(format!("brute_tau_{tau}"), |b| {
            b.iter(|| jaccard_join_brute(&sets, tau).len())
        });
    }
    g.finish();
}

/// One document of `tokens` words: 30 % function words, the rest drawn from 5,000 content
/// words (seeded), so antecedents are often far from the next content word in chain terms.
fn long_document(tokens: usize) -> String {
    let mut rng = neardup::hash::SplitMix64::new(1);
    let stop = ["the", "is", "a", "of", "to", "was"];
    (0..tokens)
        .map(|_| {
            if rng.next_f64() < 0.3 {
                stop[rng.below(6) as usize].to_string()
            } else {
                format!("w{}", rng.below(5000))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn bench_spot_extraction(c: &mut Criterion) {
    let mut g = c.benchmark_group("spotsigs_extraction");
    g.sample_size(10);
    for tokens in [20_000, 40_000, 80_000] {
        let doc = long_document(tokens);
        let docs = [doc.as_str(), doc.as_str()];
        let p = SpotSigsParams {
            chain: 3,
            ..SpotSigsParams::default()
        };
        g.throughput(Throughput::Bytes(2 * doc.len() as u64));
        g.bench_function(format!("{tokens}_tokens"), |b| {
            b.iter(|| spot_signatures(&p, &docs).expect("spots").0.len())
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    bench_algorithms,
    bench_spotsigs_join,
    bench_spot_extraction
);
criterion_main!(benches);
