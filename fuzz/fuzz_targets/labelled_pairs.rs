//! The labelled-pairs reader on arbitrary bytes against a small corpus: an error naming the
//! file, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup_lab::corpus::synthetic::{SyntheticSpec, generate};

fuzz_target!(|data: &[u8]| {
    static CORPUS: std::sync::OnceLock<neardup_lab::corpus::Corpus> = std::sync::OnceLock::new();
    let corpus = CORPUS.get_or_init(|| generate(SyntheticSpec { docs: 20, seed: 1 }).unwrap());
    let path = std::env::temp_dir().join(format!("neardup-fuzz-{}.pairs.csv", std::process::id()));
    std::fs::write(&path, data).expect("temporary file");
    if let Err(e) = neardup_lab::corpus::pairs::load(&path, corpus) {
        assert!(e.to_string().contains("neardup-fuzz"), "unnamed error: {e}");
    }
});
