//! Progress bars for long work, on stderr. indicatif hides them when stderr is not a
//! terminal (CI logs, pipes), so they never pollute output that tools parse; a long run there
//! still reports each step as one plain stderr line (see [`Items`]).

use std::fmt::Display;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

/// Whether progress is silenced (bars hidden, progress lines not printed). Warnings and errors
/// are printed either way. Process-wide: `neardup.dedup(progress=False)` sets it for its call.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences progress (or lets it show again); returns the previous setting.
pub fn set_quiet(quiet: bool) -> bool {
    QUIET.swap(quiet, Ordering::Relaxed)
}

fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Prints a progress line (`neardup: …`) on stderr unless progress is silenced.
pub fn say(line: impl Display) {
    if !quiet() {
        eprintln!("neardup: {line}");
    }
}

/// Prints a warning (`neardup: warning: …`) on stderr, silenced or not.
pub fn warn(line: impl Display) {
    eprintln!("neardup: warning: {line}");
}

/// A new bar of `len`, hidden when progress is silenced.
fn new_bar(len: u64) -> ProgressBar {
    if quiet() {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(len)
    }
}

/// A bar counting items (cells of an experiment…). On a terminal it is an indicatif bar; when
/// stderr is not one, every new message becomes a line `neardup: [pos/len] message` instead,
/// so a run in CI or under nohup still shows where it is without redrawing.
#[derive(Debug)]
pub struct Items {
    bar: ProgressBar,
    lines: bool,
}

/// See [`Items`].
pub fn items(len: u64, message: impl Into<String>) -> Items {
    let bar = new_bar(len);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{wide_bar}] {pos}/{len} ({elapsed}, eta {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(message.into());
    let lines = bar.is_hidden() && !quiet();
    Items { bar, lines }
}

impl Items {
    pub fn inc(&self, delta: u64) {
        self.bar.inc(delta);
    }

    /// Says what the next step is; as a plain line when no bar can be drawn.
    pub fn set_message(&self, message: impl Into<String>) {
        let message = message.into();
        if self.lines {
            let len = self.bar.length().unwrap_or(0);
            let done = self.bar.position();
            // Without a bar, the rate and what is left still matter: a calibration step can
            // take minutes.
            let elapsed = self.bar.elapsed().as_secs_f64();
            let timing = if done > 0 {
                let left = elapsed / done as f64 * len.saturating_sub(done) as f64;
                format!(" ({elapsed:.0} s so far, about {left:.0} s left)")
            } else {
                String::new()
            };
            eprintln!("neardup: [{done}/{len}] {}{timing}", message.trim_end());
        }
        self.bar.set_message(message);
    }

    /// Runs `f` (which prints) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// A step of unknown length (a stage, a sample drawn): on a terminal a spinner with the time
/// so far; when it ends, one line `neardup: NAME: WHAT (S s)` wherever stderr goes, unless
/// progress is silenced.
#[derive(Debug)]
pub struct Step {
    bar: ProgressBar,
    name: String,
    start: std::time::Instant,
}

/// See [`Step`].
pub fn step(name: impl Into<String>) -> Step {
    let name = name.into();
    let bar = if quiet() {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
    );
    bar.set_message(name.clone());
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    Step {
        bar,
        name,
        start: std::time::Instant::now(),
    }
}

impl Step {
    /// Ends the step, saying what it made; the seconds it took.
    pub fn finish(self, what: impl Display) -> f64 {
        let seconds = self.start.elapsed().as_secs_f64();
        self.bar.finish_and_clear();
        say(format_args!("{}: {what} ({seconds:.1} s)", self.name));
        seconds
    }
}

/// A bar counting bytes read from input files, in decimal units (MB, MB/s: the units the
/// summary gives) of the files as stored, compressed or not.
///
/// Bars are as wide as the terminal (`wide_bar` takes what the text leaves): indicatif pads
/// every line to the terminal's width, so a line with fixed-width parts that was wider than a
/// narrow terminal wrapped, and its second line was padded out again.
pub fn bytes(len: u64, message: impl Into<String>) -> ProgressBar {
    let bar = new_bar(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{wide_bar}] {decimal_bytes}/{decimal_total_bytes} of input ({decimal_bytes_per_sec}, eta {eta})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(message.into());
    bar
}
