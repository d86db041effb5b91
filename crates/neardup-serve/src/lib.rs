//! # neardup-serve — "have I seen this page?" answered online
//!
//! `neardup serve DIR`: an HTTP/JSON service over a live index (`neardup_dedup::live`) in the
//! folder `neardup dedup --index DIR` uses. A crawler sends each page it fetches and learns
//! whether it is a near-duplicate of a page indexed before, and of which; `add` records it
//! when it is new, in one step that concurrent clients cannot interleave.
//!
//! - [`api`] — request decoding (every refusal names its field and line) and the answers;
//! - [`routes`] — the routes (`ROUTES`, described by `openapi.json`), the token check, the
//!   per-request time bound;
//! - [`listener`] — accepting connections: header-read timeout, a bound on open connections,
//!   graceful shutdown on SIGTERM (in-flight requests finish, then the log is folded);
//! - [`metrics`] — Prometheus counters and latency histograms, and the line a minute.
//!
//! The async stack stays here: the product crate's batch path never runs on it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use neardup_dedup::live::{LiveConfig, LiveIndex};
use neardup_dedup::web::extract::Extract;

pub mod api;
pub mod listener;
pub mod metrics;
pub mod routes;

/// The default address: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8411";

/// How the service runs.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub dir: PathBuf,
    pub live: LiveConfig,
    pub listen: SocketAddr,
    /// The bearer token every request but `/health` must carry (required off loopback).
    pub token: Option<String>,
    /// The largest request body, in bytes (413 beyond).
    pub max_body: usize,
    /// The most records a batch may hold.
    pub max_batch: usize,
    /// How long a request may take, body included (408 beyond).
    pub request_timeout: Duration,
    /// How long a client may take to send a request's headers.
    pub header_timeout: Duration,
    /// Open connections at most; more wait in the kernel's queue.
    pub max_connections: usize,
    /// How pages' text is taken (`dedup --extract`).
    pub extract: Extract,
    /// Seconds between the progress lines (60).
    pub report_every: Duration,
}

impl ServeConfig {
    /// The configuration for `dir` with the defaults.
    pub fn new(dir: PathBuf) -> Self {
        ServeConfig {
            dir,
            live: LiveConfig::default(),
            listen: DEFAULT_LISTEN.parse().expect("a socket address"),
            token: None,
            max_body: 32 << 20,
            max_batch: 100_000,
            request_timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(10),
            max_connections: 16_384,
            extract: Extract::Main,
            report_every: Duration::from_secs(60),
        }
    }

    /// Refuses a configuration that would expose the index: any address but loopback needs a
    /// token.
    pub fn check(&self) -> Result<()> {
        if !self.listen.ip().is_loopback() && self.token.is_none() {
            bail!(
                "--listen {}: an address other than loopback needs --token-file (a bearer token \
                 every request must carry); without one the service answers only this machine",
                self.listen
            );
        }
        if let Some(t) = &self.token
            && (t.len() < 16 || t.chars().any(|c| c.is_whitespace() || c.is_control()))
        {
            bail!(
                "--token-file: the token must be at least 16 printable characters without spaces"
            );
        }
        Ok(())
    }
}

/// Reads a token file: its first line, trimmed.
pub fn read_token(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the token file", path.display()))?;
    Ok(text.lines().next().unwrap_or("").trim().to_string())
}

/// What every handler shares.
#[derive(Debug)]
pub struct App {
    pub live: LiveIndex,
    pub config: ServeConfig,
    pub metrics: metrics::Metrics,
}

/// Opens the index and serves until SIGTERM or SIGINT; then finishes the requests under way
/// and folds the log. `ready` is called with the bound address once the service answers.
pub fn run(config: ServeConfig, ready: impl FnOnce(SocketAddr) + Send + 'static) -> Result<()> {
    config.check()?;
    raise_open_files_limit();
    let started = std::time::Instant::now();
    let (live, replay) = LiveIndex::open(&config.dir, &config.live)?;
    let stats = live.stats();
    eprintln!(
        "neardup serve: index {}: {} documents ({}, {} segments); log replayed in {:.2} s ({} records{}{})",
        config.dir.display(),
        stats.documents,
        stats.algorithm,
        stats.segments,
        replay.seconds,
        replay.records,
        if replay.already_folded {
            ", already folded"
        } else {
            ""
        },
        match &replay.damaged {
            Some((bytes, kept)) => format!(
                "; a damaged tail of {bytes} bytes was cut off and kept as {}",
                kept.display()
            ),
            None => String::new(),
        }
    );
    let app = Arc::new(App {
        live,
        metrics: metrics::Metrics::new(),
        config,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("neardup-serve")
        .build()?;
    runtime.block_on(listener::serve(Arc::clone(&app), started, ready))?;
    // Blocking work still under way (an add waiting for its sync) finishes first.
    runtime.shutdown_timeout(std::time::Duration::from_secs(30));
    let app = Arc::try_unwrap(app).map_err(|_| anyhow::anyhow!("requests still hold the index"))?;
    let dir = app.config.dir.clone();
    app.live.close()?;
    let _ = std::fs::remove_file(dir.join(neardup_dedup::index::SERVING_FILE));
    eprintln!("neardup serve: stopped; the log is folded into the index");
    Ok(())
}

/// Thousands of clients need thousands of descriptors: the soft limit is raised to the hard
/// one (often 1,024 against 2^20).
fn raise_open_files_limit() {
    // Safety: getrlimit/setrlimit with a valid pointer to a local struct.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}
