//! The experiment parser on arbitrary text: an error naming the file (and a line), never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = std::path::Path::new("fuzz.toml");
    if let Err(e) = neardup_lab::experiment::config::parse(path, text) {
        assert!(e.to_string().contains("fuzz.toml"), "unnamed error: {e}");
    }
});
