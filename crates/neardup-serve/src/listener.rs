//! Accepting connections: HTTP/1.1 with keep-alive, a bound on the time a client may take to
//! send its headers (a slow client cannot hold a connection open by trickling bytes), a bound
//! on open connections (past it, new ones wait in the kernel's accept queue instead of each
//! taking memory), and a graceful stop: on SIGTERM or SIGINT no new connection is taken, the
//! requests under way finish (30 s at most), and `run` then folds the log.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::App;

static STOP: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Stops the service as SIGTERM does (from any thread; a stop asked before the service
/// listens is kept until it does).
pub fn request_stop() {
    STOP.notify_one();
}

/// Serves `app` until a stop signal or [`request_stop`].
pub async fn serve(
    app: Arc<App>,
    started: Instant,
    ready: impl FnOnce(SocketAddr) + Send + 'static,
) -> Result<()> {
    let listener = TcpListener::bind(app.config.listen)
        .await
        .with_context(|| format!("--listen {}: cannot listen there", app.config.listen))?;
    let address = listener.local_addr()?;
    write_serving_file(&app, address)?;
    eprintln!(
        "neardup serve: answering on http://{address}/ ({:.2} s after start; {}); \
         stop with SIGTERM or Ctrl-C",
        started.elapsed().as_secs_f64(),
        if app.config.token.is_some() {
            "a bearer token is required"
        } else {
            "loopback only, no token"
        }
    );
    ready(address);
    let reporter = tokio::spawn(report_every_minute(Arc::clone(&app)));
    let router = crate::routes::router(Arc::clone(&app));
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(app.config.max_connections));
    // The handlers are installed now, before the first connection: a SIGTERM that arrives
    // before the loop first waits must still stop it gracefully.
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("installing a SIGTERM handler")?;
    let mut interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .context("installing a SIGINT handler")?;
    // Under the `neardup` binary the signals are taken by its signal thread
    // (`temp_files::install_signal_cleanup`), which then calls `request_stop`.
    neardup_dedup::temp_files::on_stop_signal(request_stop);
    let mut stop = std::pin::pin!(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = interrupt.recv() => {}
            _ = STOP.notified() => {}
        }
    });
    loop {
        let permit = tokio::select! {
            p = Arc::clone(&slots).acquire_owned() => p.expect("the semaphore is never closed"),
            _ = &mut stop => break,
        };
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of descriptors or a reset before accept: wait a moment, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(app.config.header_timeout)
            .keep_alive(true)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
    eprintln!("neardup serve: stopping; finishing the requests under way");
    reporter.abort();
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(Duration::from_secs(30)) => {
            eprintln!("neardup serve: requests still under way after 30 s are dropped (none was acknowledged)");
        }
    }
    Ok(())
}

/// `DIR/serving.json`: who holds the index, so a batch writer refused its lock can say so.
fn write_serving_file(app: &App, address: SocketAddr) -> Result<()> {
    let path = app.config.dir.join(neardup_dedup::index::SERVING_FILE);
    let body = serde_json::json!({
        "address": format!("http://{address}"),
        "pid": std::process::id(),
    });
    neardup_dedup::fsutil::write_bytes(&path, body.to_string().as_bytes())?;
    Ok(())
}

/// A line a minute: requests/s over the minute, p50 and p99, the index's size.
async fn report_every_minute(app: Arc<App>) {
    let every = app.config.report_every;
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        tick.tick().await;
        let (requests, p50, p99) = app.metrics.take_minute();
        let app2 = Arc::clone(&app);
        let Ok(stats) = tokio::task::spawn_blocking(move || app2.live.stats()).await else {
            return;
        };
        eprintln!(
            "neardup serve: {:.0} requests/s, p50 ≤ {:.2} ms, p99 ≤ {:.2} ms; {} documents ({} since the last fold), log {:.1} MB",
            requests as f64 / every.as_secs_f64(),
            p50.as_secs_f64() * 1e3,
            p99.as_secs_f64() * 1e3,
            stats.documents,
            stats.recent_documents,
            stats.log_bytes as f64 / 1e6
        );
    }
}
