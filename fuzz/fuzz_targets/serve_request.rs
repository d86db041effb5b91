//! The lookup service's request decoder on arbitrary bytes, as one document and as an NDJSON
//! batch: a refusal naming what is wrong, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup_serve::api::{parse_batch, parse_one};

fuzz_target!(|data: &[u8]| {
    if let Err(e) = parse_one(data, 4) {
        assert!(!e.error.is_empty());
    }
    if let Err(e) = parse_batch(data, 4, 1000) {
        assert!(!e.error.is_empty());
    }
});
