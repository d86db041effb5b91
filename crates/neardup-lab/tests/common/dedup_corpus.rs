//! The corpus of the `dedup` tests: random sources with exact and near copies, and extra
//! JSONL fields that the outputs must preserve.

use std::path::{Path, PathBuf};

/// The corpus seed (printed by [`corpus`]).
pub const SEED: u64 = 20261122;

/// SplitMix64, so the corpus depends only on `SEED`.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Documents: `n` random 80-word sources; every 5th has an exact copy, every 7th a copy with
/// 2 substituted words, a few are empty or punctuation only. Returns (id, text) in order.
pub fn corpus(n: usize) -> Vec<(String, String)> {
    println!("corpus seed {SEED}");
    let mut rng = Rng(SEED);
    let mut docs = Vec::new();
    for i in 0..n {
        let words: Vec<String> = (0..80).map(|_| format!("w{}", rng.below(3000))).collect();
        let text = words.join(" ");
        docs.push((format!("s{i}"), text.clone()));
        if i % 5 == 0 {
            docs.push((format!("s{i}-exact"), text.clone()));
        }
        if i % 7 == 0 {
            let mut w = words.clone();
            for _ in 0..2 {
                let at = rng.below(80) as usize;
                w[at] = format!("x{}", rng.below(1000));
            }
            docs.push((format!("s{i}-near"), w.join(" ")));
        }
        if i % 50 == 0 {
            docs.push((
                format!("s{i}-empty"),
                if i % 100 == 0 {
                    "".into()
                } else {
                    " ... ".into()
                },
            ));
        }
    }
    docs
}

pub fn write_jsonl(path: &Path, docs: &[(String, String)]) {
    let mut s = String::new();
    for (i, (id, text)) in docs.iter().enumerate() {
        // Extra fields of several types, in varying order, must survive untouched.
        if i % 2 == 0 {
            s.push_str(&format!(
                "{{\"id\": \"{id}\", \"meta\": {{\"n\": {i}, \"tags\": [\"a\", null]}}, \"text\": {}}}\n",
                serde_json::to_string(text).unwrap()
            ));
        } else {
            s.push_str(&format!(
                "{{\"text\": {}, \"id\": \"{id}\", \"score\": {}.5}}\n",
                serde_json::to_string(text).unwrap(),
                i
            ));
        }
    }
    std::fs::write(path, s).unwrap();
}

/// An empty directory `neardup-<suite>-<pid>/<name>` under the system's temporary directory.
pub fn fresh_dir(suite: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir()
        .join(format!("neardup-{suite}-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Chains of accumulating edits: each document is the one before with two words replaced, so
/// neighbours are near duplicates (Jaccard of word 5-shingles about 0.7) and documents three
/// or more steps apart are not; unrelated documents between them, and exact copies.
pub fn chain_corpus(seed: u64, chains: usize, length: usize) -> Vec<(String, String)> {
    println!("chain corpus seed {seed}");
    let mut rng = neardup::hash::SplitMix64::new(seed);
    let word = |rng: &mut neardup::hash::SplitMix64| format!("w{}", rng.below(20000));
    let mut docs = Vec::new();
    for c in 0..chains {
        let mut words: Vec<String> = (0..60).map(|_| word(&mut rng)).collect();
        for i in 0..length {
            if i > 0 {
                for _ in 0..2 {
                    let at = rng.below(60) as usize;
                    words[at] = word(&mut rng);
                }
            }
            docs.push((format!("c{c}-{i}"), words.join(" ")));
            if i % 5 == 3 {
                let other: Vec<String> = (0..60).map(|_| word(&mut rng)).collect();
                docs.push((format!("u{c}-{i}"), other.join(" ")));
            }
        }
        docs.push((format!("c{c}-copy"), words.join(" ")));
    }
    docs
}
