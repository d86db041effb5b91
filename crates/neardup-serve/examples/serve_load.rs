//! A load generator for `neardup serve`: N keep-alive clients on loopback, each sending its
//! share of a JSONL corpus's records as checks, adds or batches of adds, bounded in count and
//! time; prints one JSON line (requests, records, seconds, rates, p50/p99/max latency).
//!
//! ```text
//! cargo run --release -p neardup-serve --example serve_load -- \
//!     --address 127.0.0.1:8411 --corpus corpus.jsonl --route check --clients 32 --seconds 10
//! ```
//!
//! Only loopback addresses are accepted: a load test never leaves the machine.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

struct Options {
    address: SocketAddr,
    corpus: String,
    route: String,
    clients: usize,
    seconds: f64,
    limit: usize,
    batch: usize,
    token: Option<String>,
}

fn options() -> Options {
    let mut o = Options {
        address: "127.0.0.1:8411".parse().unwrap(),
        corpus: String::new(),
        route: "check".into(),
        clients: 32,
        seconds: 10.0,
        limit: usize::MAX,
        batch: 1,
        token: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let v = pair.get(1).cloned().unwrap_or_default();
        match pair[0].as_str() {
            "--address" => o.address = v.parse().expect("--address ADDR:PORT"),
            "--corpus" => o.corpus = v,
            "--route" => o.route = v,
            "--clients" => o.clients = v.parse().expect("--clients N"),
            "--seconds" => o.seconds = v.parse().expect("--seconds S"),
            "--records" => o.limit = v.parse().expect("--records N"),
            "--batch" => o.batch = v.parse().expect("--batch N"),
            "--token" => o.token = Some(v),
            other => panic!("unknown option {other}"),
        }
    }
    assert!(o.address.ip().is_loopback(), "loopback addresses only");
    assert!(
        ["check", "add", "batch-add", "batch-check"].contains(&o.route.as_str()),
        "--route check|add|batch-check|batch-add"
    );
    o
}

/// The request bodies: one record each (check, add) or `batch` NDJSON lines.
fn bodies(o: &Options) -> Vec<Bytes> {
    let text = std::fs::read_to_string(&o.corpus).expect("--corpus FILE.jsonl");
    let records: Vec<String> = text
        .lines()
        .take(o.limit)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSONL");
            match o.route.as_str() {
                "check" | "batch-check" => serde_json::json!({"text": v["text"]}).to_string(),
                _ => serde_json::json!({"id": v["id"], "text": v["text"]}).to_string(),
            }
        })
        .collect();
    if o.route.starts_with("batch") {
        records
            .chunks(o.batch.max(1))
            .map(|c| Bytes::from(c.join("\n") + "\n"))
            .collect()
    } else {
        records.into_iter().map(Bytes::from).collect()
    }
}

async fn client(
    o: Arc<Options>,
    bodies: Arc<Vec<Bytes>>,
    me: usize,
    deadline: Instant,
) -> Vec<u32> {
    let stream = tokio::net::TcpStream::connect(o.address)
        .await
        .expect("connect");
    stream.set_nodelay(true).unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(connection);
    let (path, content_type) = match o.route.as_str() {
        "check" => ("/v1/check", "application/json"),
        "add" => ("/v1/add", "application/json"),
        "batch-check" => ("/v1/batch/check", "application/x-ndjson"),
        _ => ("/v1/batch/add", "application/x-ndjson"),
    };
    let mut latencies = Vec::new();
    // Checks cycle through the corpus until the deadline; adds send each record once.
    let cycle = o.route.ends_with("check");
    let mut i = me;
    while (cycle || i < bodies.len()) && Instant::now() < deadline {
        let body = &bodies[i % bodies.len()];
        let mut req = Request::post(path)
            .header("host", "localhost")
            .header("content-type", content_type);
        if let Some(t) = &o.token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let req = req.body(Full::new(body.clone())).unwrap();
        let started = Instant::now();
        let response = sender.send_request(req).await.expect("a response");
        let status = response.status();
        let _ = response.into_body().collect().await.expect("a body");
        assert!(status.is_success(), "{path}: {status}");
        latencies.push(started.elapsed().as_micros().min(u32::MAX as u128) as u32);
        i += o.clients;
    }
    latencies
}

fn main() {
    let o = Arc::new(options());
    let bodies = Arc::new(bodies(&o));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(o.seconds);
    let mut latencies: Vec<u32> = runtime.block_on(async {
        let tasks: Vec<_> = (0..o.clients)
            .map(|c| tokio::spawn(client(Arc::clone(&o), Arc::clone(&bodies), c, deadline)))
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.expect("a client"));
        }
        all
    });
    let seconds = started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let q = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0) as f64
            / 1e3
    };
    let requests = latencies.len();
    let records = if o.route.starts_with("batch") {
        requests * o.batch
    } else {
        requests
    };
    println!(
        "{}",
        serde_json::json!({
            "route": o.route, "clients": o.clients, "batch": o.batch,
            "requests": requests, "records": records, "seconds": seconds,
            "requests_per_s": requests as f64 / seconds, "records_per_s": records as f64 / seconds,
            "p50_ms": q(0.5), "p99_ms": q(0.99), "max_ms": latencies.last().copied().unwrap_or(0) as f64 / 1e3,
        })
    );
}
