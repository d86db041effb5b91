//! The PARQUET loader on arbitrary bytes: an error naming the file, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup_lab::corpus::{Format, LoadOptions, load};

fuzz_target!(|data: &[u8]| {
    // libfuzzer-sys installs a panic hook that aborts at once, before any `catch_unwind` runs.
    // The loader deliberately catches polars-parquet's panics on corrupt metadata and turns them
    // into errors, so restore the default hook: a panic the loader does not catch still reaches
    // libfuzzer-sys's own `catch_unwind` and aborts, and is still reported as a crash.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| drop(std::panic::take_hook()));
    let path = std::env::temp_dir().join(format!("neardup-fuzz-{}.parquet", std::process::id()));
    std::fs::write(&path, data).expect("temporary file");
    for skip_invalid in [false, true] {
        let options = LoadOptions {
            format: Some(Format::Parquet),
            skip_invalid,
            ..LoadOptions::default()
        };
        if let Err(e) = load(&path, &options) {
            assert!(e.to_string().contains("neardup-fuzz"), "unnamed error: {e}");
        }
    }
});
