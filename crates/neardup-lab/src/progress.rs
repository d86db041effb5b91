//! Progress bars for long work, on stderr. indicatif hides them when stderr is not a
//! terminal (CI logs, pipes), so they never pollute output that tools parse.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar counting items (documents, cells…).
pub fn items(len: u64, message: impl Into<String>) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{msg:30} [{bar:30}] {pos}/{len} ({elapsed}, eta {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(message.into());
    bar
}

/// A bar counting bytes read from a file.
pub fn bytes(len: u64, message: impl Into<String>) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{msg:30} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(message.into());
    bar
}
