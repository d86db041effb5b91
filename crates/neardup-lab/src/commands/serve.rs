//! `neardup serve DIR`: the lookup service (`neardup_serve`) over an index folder.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use neardup_dedup::web::extract::Extract;

use super::args::{SignatureArgs, parse_extract, parse_size};
use super::invocation::{Invocation, Run};

/// Answer "have I seen this page?" online: an HTTP/JSON service over an index folder (the one
/// `dedup --index DIR` uses; a missing DIR is a new index).
///
/// POST /v1/check (is it a near-duplicate, of which documents?), POST /v1/add (check, then add
/// if new, in one step; `?mode=always` adds regardless), POST /v1/batch/check and
/// /v1/batch/add (NDJSON in and out), GET and DELETE /v1/docs/{id}, GET /v1/stats, /health,
/// /metrics (Prometheus), /openapi.json. A body is JSON such as {"id": "…", "url": "…",
/// "text": "…"} (or "html", "html_base64" with "content_type", or a precomputed "signature").
///
/// An add is answered only once it is on disk (a write-ahead log, synced); the log is folded
/// into a segment of the index every --fold-after documents and on SIGTERM, after the requests
/// under way finish. While it runs the server holds the folder: `dedup --index DIR` is
/// refused with its address (add through it instead).
///
/// Listens on loopback unless told otherwise; any other address needs --token-file.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The index folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Address and port to listen on (port 0: any free port, printed).
    #[arg(long, default_value = neardup_serve::DEFAULT_LISTEN, value_name = "ADDR:PORT")]
    pub listen: std::net::SocketAddr,
    /// A file whose first line is the bearer token every request but /health must carry
    /// (`Authorization: Bearer TOKEN`); required for any address but loopback.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The index's algorithm and parameters.
    #[command(flatten)]
    pub signatures: SignatureArgs,
    /// How a page's text is taken (`html`, `html_base64`): main, visible or none.
    #[arg(long, default_value = "main", value_name = "MODE", value_parser = parse_extract)]
    pub extract: Extract,
    /// Largest request body (413 beyond).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "32MiB")]
    pub max_body: u64,
    /// Most records in one batch request.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub max_batch: usize,
    /// Seconds a request may take, its body included (408 beyond).
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub request_timeout: u64,
    /// Documents added since the last fold that make the next one due.
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    pub fold_after: usize,
}

impl Run for Args {
    fn run(self, _invocation: &mut Invocation<'_>) -> Result<()> {
        let mut config = neardup_serve::ServeConfig::new(self.dir);
        config.live = self.signatures.live_config(self.fold_after)?;
        config.listen = self.listen;
        config.token = match &self.token_file {
            Some(path) => Some(neardup_serve::read_token(path)?),
            None => None,
        };
        config.extract = self.extract;
        config.max_body = usize::try_from(self.max_body).unwrap_or(usize::MAX);
        config.max_batch = self.max_batch;
        config.request_timeout = Duration::from_secs(self.request_timeout.max(1));
        neardup_serve::run(config, |_| {})
    }
}
