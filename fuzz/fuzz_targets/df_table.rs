//! The document-frequency table reader on arbitrary bytes: an error naming the file, never a
//! panic; what it accepts writes back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup::features::dftable::DfTable;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz.df");
    match DfTable::from_bytes(path, data) {
        Ok(t) => assert_eq!(DfTable::from_bytes(path, &t.to_bytes()).unwrap(), t),
        Err(e) => assert!(e.to_string().contains("fuzz.df"), "unnamed error: {e}"),
    }
});
