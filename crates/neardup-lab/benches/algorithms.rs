//! Every registered algorithm (build + query, defaults) on a real corpus, and SpotSigs'
//! partitioned, pruned join against the brute-force all-pairs Jaccard on the same spot sets.
//!
//! ```sh
//! NEARDUP_DATA_DIR=../shared/datasets cargo bench -p neardup-lab --bench algorithms
//! ```
//! Uses `licenses` from the data directory; without it the benches fall back to 5,000
//! documents of the embedded corpus (said on stderr).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neardup::detector::ParamMap;
use neardup::detectors::spotsigs::{SpotSigsParams, partitioned_join};
use neardup::join::jaccard_join_brute;
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
    let sets = neardup::detectors::spotsigs::spot_sets(&SpotSigsParams::default(), &docs);
    let mut g = c.benchmark_group(format!("spotsigs_join/{}", corpus.name));
    g.sample_size(10);
    for tau in [0.5, 0.85] {
        let pruned = partitioned_join(&sets, tau);
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
            b.iter(|| partitioned_join(&sets, tau).len())
        });
        g.bench_function(format!("brute_tau_{tau}"), |b| {
            b.iter(|| jaccard_join_brute(&sets, tau).len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench_algorithms, bench_spotsigs_join);
criterion_main!(benches);
