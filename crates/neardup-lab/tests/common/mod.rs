//! Running the `neardup` binary from the integration tests.

use std::path::PathBuf;
use std::process::{Command, Output};

#[allow(dead_code)] // each test crate uses part of it
pub mod dedup_corpus;
#[allow(dead_code)] // each test crate uses part of it
pub mod tables;

/// Runs `neardup args…` (the binary of this build; `$NEARDUP_TEST_BIN` runs another, to check
/// that a regression test fails on the revision before its fix).
pub fn neardup(args: &[&str]) -> Output {
    Command::new(binary())
        .args(args)
        // Tiny --memory limits force spilled joins on small corpora (the real overhead,
        // about 100 MB, refuses them: tests of the limit itself run without this).
        .env("NEARDUP_TEST_MEMORY_OVERHEAD", "0")
        .output()
        .expect("the binary runs")
}

/// The binary the tests run: this build's, or `$NEARDUP_TEST_BIN`.
pub fn binary() -> std::ffi::OsString {
    std::env::var_os("NEARDUP_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_neardup").into())
}

/// Runs `neardup args…`, which must succeed; its stdout.
pub fn ok(args: &[&str]) -> String {
    let out = neardup(args);
    assert!(
        out.status.success(),
        "neardup {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs `neardup args…`, which must fail; its stderr.
#[allow(dead_code)] // each test crate uses part of it
pub fn err(args: &[&str]) -> String {
    let out = neardup(args);
    assert!(!out.status.success(), "neardup {args:?} should fail");
    String::from_utf8(out.stderr).expect("UTF-8 stderr")
}

/// The shared corpora (`$NEARDUP_DATA_DIR`, else `../shared/datasets` beside the checkout),
/// when `file` is there. Missing data fails under CI (where ../shared is always present) and
/// is reported otherwise.
#[allow(dead_code)] // each test crate uses part of it
pub fn shared_data(file: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("NEARDUP_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets")
        });
    if dir.join(file).is_file() {
        Some(dir)
    } else if std::env::var_os("CI").is_some() {
        panic!("CI must provide the shared corpora at {}", dir.display());
    } else {
        eprintln!("{file} not found in {}: test not run", dir.display());
        None
    }
}
