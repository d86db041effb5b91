//! Criterion benches of the MinHash family on a synthetic corpus shaped like
//! `../shared/peers/make_corpus.py` (Zipf vocabulary of 50,000 pseudo-words, 240–360 words per
//! document, 20 % near-duplicate copies with 2 % word edits).
//!
//! ```sh
//! cargo bench -p neardup --bench minhash
//! ```
//! Side-by-side figures against datasketch and rensa come from `neardup bench` and
//! `just bench-peers` (same corpus bytes, same run); these benches track regressions.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use neardup::features::{FeatureParams, Scratch};
use neardup::hash::SplitMix64;
use neardup::minhash::lsh::{Banding, LshIndex, candidate_pairs};
use neardup::minhash::{MinHasher, OnePermutationHasher, Signatures, SketchKind, Sketcher};
use neardup::text::{Tokenizer, WordParams};

const DOCS: usize = 20_000;

fn corpus(docs: usize, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64::new(seed);
    let syllables = [
        "ka", "lo", "mi", "ne", "su", "ra", "ti", "po", "ve", "da", "sh", "or",
    ];
    let vocab: Vec<String> = (0..50_000)
        .map(|i| {
            let mut w = String::new();
            let mut x = i + 1;
            while x > 0 {
                w.push_str(syllables[x % syllables.len()]);
                x /= syllables.len();
            }
            w
        })
        .collect();
    // Zipf(1) by inverse CDF on the harmonic numbers.
    let harmonic: Vec<f64> = vocab
        .iter()
        .enumerate()
        .scan(0.0, |acc, (r, _)| {
            *acc += 1.0 / (r + 1) as f64;
            Some(*acc)
        })
        .collect();
    let total = *harmonic.last().unwrap();
    let draw = |rng: &mut SplitMix64| {
        let u = rng.next_f64() * total;
        let i = harmonic.partition_point(|&h| h < u).min(vocab.len() - 1);
        vocab[i].as_str()
    };
    let mut out: Vec<String> = Vec::with_capacity(docs);
    for d in 0..docs {
        if d > 0 && rng.below(5) == 0 {
            let src = out[rng.below(out.len() as u64) as usize].clone();
            let mut words: Vec<&str> = src.split(' ').collect();
            let edits = (words.len() / 50).max(1);
            for _ in 0..edits {
                let p = rng.below(words.len() as u64) as usize;
                words[p] = draw(&mut rng);
            }
            out.push(words.join(" "));
        } else {
            let n = 240 + rng.below(121) as usize;
            let words: Vec<&str> = (0..n).map(|_| draw(&mut rng)).collect();
            out.push(words.join(" "));
        }
    }
    out
}

fn peers_features() -> FeatureParams {
    // Lower-case, split on whitespace, 5 words: the shingles of ../shared/peers.
    FeatureParams {
        words: WordParams {
            tokenizer: Tokenizer::Whitespace,
            ..FeatureParams::words(5).words
        },
        ..FeatureParams::words(5)
    }
}

fn bench_sketch(c: &mut Criterion) {
    let docs = corpus(DOCS, 42);
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let bytes: usize = docs.iter().map(String::len).sum();
    let shingler = peers_features().shingler(1);
    let mut g = c.benchmark_group("minhash128");
    g.sample_size(10);
    g.throughput(Throughput::Elements(DOCS as u64));
    for kind in [SketchKind::Classic, SketchKind::Oph] {
        let sketcher = Sketcher::new(kind, 128, 7).unwrap();
        g.bench_function(BenchmarkId::new("end_to_end", format!("{kind:?}")), |b| {
            b.iter(|| Signatures::compute(&refs, &shingler, &sketcher, 128))
        });
    }
    // Pre-shingled (hashes computed outside the timed loop), one thread: the sketch kernel.
    let hashed: Vec<Vec<u64>> = refs
        .iter()
        .map(|d| {
            let mut v = Vec::new();
            shingler.hashes_into(d, &mut Scratch::default(), &mut v);
            v
        })
        .collect();
    let classic = MinHasher::new(128, 7).unwrap();
    let oph = OnePermutationHasher::new(128, 7).unwrap();
    let mut row = vec![0u32; 128];
    g.bench_function("sketch_only/classic_1thread", |b| {
        b.iter(|| hashed.iter().for_each(|h| classic.sketch_into(h, &mut row)))
    });
    g.bench_function("sketch_only/oph_1thread", |b| {
        b.iter(|| hashed.iter().for_each(|h| oph.sketch_into(h, &mut row)))
    });
    g.finish();
    let mut g = c.benchmark_group("shingling");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes as u64));
    let mut scratch = Scratch::default();
    let mut out = Vec::new();
    g.bench_function("word5_whitespace_1thread", |b| {
        b.iter(|| {
            for d in &refs {
                out.clear();
                shingler.hashes_into(d, &mut scratch, &mut out);
            }
        })
    });
    let unicode = FeatureParams::words(5).shingler(1);
    g.bench_function("word5_unicode_1thread", |b| {
        b.iter(|| {
            for d in &refs {
                out.clear();
                unicode.hashes_into(d, &mut scratch, &mut out);
            }
        })
    });
    g.finish();
}

fn bench_lsh(c: &mut Criterion) {
    let docs = corpus(DOCS, 42);
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let sketcher = Sketcher::new(SketchKind::Classic, 128, 7).unwrap();
    let sigs = Signatures::compute(&refs, &peers_features().shingler(1), &sketcher, 128);
    let banding = Banding::new(9, 13, 128).unwrap();
    // Correctness once, inside the bench: every planted copy shares a band with something.
    assert!(!candidate_pairs(&sigs, &banding).unwrap().is_empty());
    let mut g = c.benchmark_group("lsh_insert_query_9x13");
    g.sample_size(10);
    g.throughput(Throughput::Elements(DOCS as u64));
    g.bench_function("batch_join", |b| {
        b.iter(|| candidate_pairs(&sigs, &banding))
    });
    g.bench_function("incremental_index", |b| {
        b.iter(|| {
            let mut index = LshIndex::new(banding);
            for i in 0..sigs.len() {
                index.insert(i as u32, sigs.row(i));
            }
            (0..sigs.len())
                .map(|i| index.query(sigs.row(i)).len())
                .sum::<usize>()
        })
    });
    g.finish();
}

/// datasketch's SHA-1 of every word of the corpus (`neardup.MinHash.update_batch`'s hashing),
/// 256 words per call as `Permutations::apply_tokens` hands them: the CPU's widest tier and
/// the portable one (on the AVX-512 test machine: 18 and 27 ns per word of this corpus).
fn bench_sha1_lanes(c: &mut Criterion) {
    use neardup::minhash::sha1_lanes::{first_eight_bytes_all, first_eight_bytes_portable};
    let docs = corpus(2_000, 42);
    let words: Vec<&[u8]> = docs
        .iter()
        .flat_map(|d| d.split_whitespace())
        .map(str::as_bytes)
        .collect();
    let mut g = c.benchmark_group("sha1_lanes");
    g.sample_size(10);
    g.throughput(Throughput::Elements(words.len() as u64));
    type Tier = fn(&[&[u8]], &mut [u64]);
    let tiers: [(&str, Tier); 2] = [
        ("widest", first_eight_bytes_all),
        ("portable", first_eight_bytes_portable),
    ];
    for (name, tier) in tiers {
        g.bench_function(name, |b| {
            let mut out = [0u64; 256];
            b.iter(|| {
                for chunk in words.chunks(256) {
                    tier(chunk, &mut out[..chunk.len()]);
                }
                out[0]
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_sketch, bench_lsh, bench_sha1_lanes);
criterion_main!(benches);
