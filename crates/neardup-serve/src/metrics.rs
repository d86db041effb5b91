//! What the service says about itself: `GET /metrics` in Prometheus' text format (requests by
//! route and status, a latency histogram by route, the index's size and log size), and a line
//! a minute on standard error (requests/s, p50 and p99 over that minute).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use neardup_dedup::live::Stats;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteStatus {
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Route {
    route: String,
}

/// Latency buckets of the minute line: bucket `i` holds latencies in [2^i, 2^(i+1)) µs.
const MINUTE_BUCKETS: usize = 32;

/// The service's counters.
pub struct Metrics {
    registry: Registry,
    requests: Family<RouteStatus, Counter>,
    latency: Family<Route, Histogram>,
    documents: Gauge,
    recent: Gauge,
    log_bytes: Gauge,
    memory: Gauge,
    minute: [AtomicU64; MINUTE_BUCKETS],
    /// Serializes scrapes (the gauges are set, then the registry encoded).
    scrape: Mutex<()>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("neardup");
        let requests = Family::<RouteStatus, Counter>::default();
        // 50 µs to ~6.7 s, doubling.
        let latency = Family::<Route, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(50e-6, 2.0, 18))
        });
        let (documents, recent, log_bytes, memory) = Default::default();
        registry.register(
            "requests",
            "Requests answered, by route and status",
            requests.clone(),
        );
        registry.register(
            "request_duration_seconds",
            "Time from a request's arrival to its answer, by route",
            latency.clone(),
        );
        registry.register(
            "index_documents",
            "Documents indexed",
            Gauge::clone(&documents),
        );
        registry.register(
            "recent_documents",
            "Documents added since the log was last folded into a segment",
            Gauge::clone(&recent),
        );
        registry.register(
            "log_bytes",
            "Bytes in the write-ahead log",
            Gauge::clone(&log_bytes),
        );
        registry.register(
            "index_memory_bytes",
            "Heap bytes the index holds (key tables, ids, recent documents; not the mapped signatures)",
            Gauge::clone(&memory),
        );
        Metrics {
            registry,
            requests,
            latency,
            documents,
            recent,
            log_bytes,
            memory,
            minute: [const { AtomicU64::new(0) }; MINUTE_BUCKETS],
            scrape: Mutex::new(()),
        }
    }

    /// Counts one answered request.
    pub fn observe(&self, route: &str, status: u16, took: Duration) {
        self.requests
            .get_or_create(&RouteStatus {
                route: route.to_string(),
                status,
            })
            .inc();
        self.latency
            .get_or_create(&Route {
                route: route.to_string(),
            })
            .observe(took.as_secs_f64());
        let micros = took.as_micros().max(1) as u64;
        let bucket = (63 - micros.leading_zeros() as usize).min(MINUTE_BUCKETS - 1);
        self.minute[bucket].fetch_add(1, Ordering::Relaxed);
    }

    /// The exposition text, with the index's gauges as `stats` has them now.
    pub fn render(&self, stats: &Stats) -> String {
        let _one = self.scrape.lock().expect("scrape lock");
        self.documents.set(stats.documents as i64);
        self.recent.set(stats.recent_documents as i64);
        self.log_bytes.set(stats.log_bytes as i64);
        self.memory.set(stats.memory_bytes as i64);
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String");
        out
    }

    /// Takes the minute's latencies: (requests, p50, p99), the quantiles as the upper bound of
    /// their bucket (within a factor of 2).
    pub fn take_minute(&self) -> (u64, Duration, Duration) {
        let counts: Vec<u64> = self
            .minute
            .iter()
            .map(|c| c.swap(0, Ordering::Relaxed))
            .collect();
        let total: u64 = counts.iter().sum();
        let quantile = |q: f64| {
            let rank = ((total as f64) * q).ceil().max(1.0) as u64;
            let mut seen = 0;
            for (i, &c) in counts.iter().enumerate() {
                seen += c;
                if seen >= rank {
                    return Duration::from_micros(2u64 << i);
                }
            }
            Duration::ZERO
        };
        (total, quantile(0.5), quantile(0.99))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minutes_quantiles_are_their_buckets_bounds() {
        let m = Metrics::new();
        for micros in 1..=1000u64 {
            m.observe("/v1/check", 200, Duration::from_micros(micros));
        }
        let (n, p50, p99) = m.take_minute();
        assert_eq!(n, 1000);
        // The exact p50 is 500 µs, in [256, 512): bound 512; p99 990 µs in [512, 1024).
        assert_eq!(p50, Duration::from_micros(512));
        assert_eq!(p99, Duration::from_micros(1024));
        assert_eq!(m.take_minute().0, 0, "taken, the minute starts again");
    }

    #[test]
    fn the_exposition_names_every_series() {
        let m = Metrics::new();
        m.observe("/v1/add", 200, Duration::from_millis(3));
        let stats = Stats {
            algorithm: "minhash-lsh".into(),
            sketch_key: String::new(),
            documents: 7,
            segments: 1,
            recent_documents: 2,
            removed_pending: 0,
            log_bytes: 99,
            memory_bytes: 1000,
        };
        let text = m.render(&stats);
        for line in [
            "neardup_requests_total{route=\"/v1/add\",status=\"200\"} 1",
            "neardup_index_documents 7",
            "neardup_log_bytes 99",
            "neardup_request_duration_seconds_count{route=\"/v1/add\"} 1",
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
    }
}
