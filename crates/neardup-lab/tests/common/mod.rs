//! Running the `neardup` binary from the integration tests.

use std::process::{Command, Output};

#[allow(dead_code)] // each test crate uses part of it
pub mod dedup_corpus;

/// Runs `neardup args…`.
pub fn neardup(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(args)
        // Tiny --memory limits force spilled joins on small corpora (the real overhead,
        // about 100 MB, refuses them: tests of the limit itself run without this).
        .env("NEARDUP_TEST_MEMORY_OVERHEAD", "0")
        .output()
        .expect("the binary runs")
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
