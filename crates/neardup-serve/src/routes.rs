//! The routes. Every request passes [`guard`]: the bearer token (all but `/health`), the time
//! bound, and the metrics. Bodies are bounded by `DefaultBodyLimit` (413 beyond). Work that may
//! wait (an add waits for its log sync; a page is extracted; a batch) runs on the blocking
//! pool, so the event loop keeps answering.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, MatchedPath, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use neardup::streaming::SketchScratch;
use neardup_dedup::live::{AddMode, Match, NewDoc, Probe, Refusal};
use rayon::prelude::*;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::App;
use crate::api::{self, BadRequest, CheckAnswer, Content, Document};

/// Every route, as `openapi.json` lists it (a test holds the two equal).
pub const ROUTES: &[(&str, &str)] = &[
    ("POST", "/v1/check"),
    ("POST", "/v1/add"),
    ("POST", "/v1/batch/check"),
    ("POST", "/v1/batch/add"),
    ("GET", "/v1/docs/{id}"),
    ("DELETE", "/v1/docs/{id}"),
    ("GET", "/v1/stats"),
    ("GET", "/health"),
    ("GET", "/metrics"),
    ("GET", "/openapi.json"),
];

/// The OpenAPI 3 description of [`ROUTES`].
pub const OPENAPI: &str = include_str!("openapi.json");

/// The service's router.
pub fn router(app: Arc<App>) -> Router {
    let limit = app.config.max_body;
    Router::new()
        .route("/v1/check", post(check))
        .route("/v1/add", post(add))
        .route("/v1/batch/check", post(batch_check))
        .route("/v1/batch/add", post(batch_add))
        // `{*id}`: an id may hold slashes (a URL), sent percent-encoded or not.
        .route("/v1/docs/{*id}", get(get_doc).delete(delete_doc))
        .route("/v1/stats", get(stats))
        .route("/health", get(health))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi))
        .route_layer(middleware::from_fn_with_state(Arc::clone(&app), guard))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(app)
}

fn error(status: StatusCode, bad: BadRequest) -> Response {
    (status, axum::Json(bad)).into_response()
}

fn bad(bad: BadRequest) -> Response {
    error(StatusCode::BAD_REQUEST, bad)
}

/// Token, time bound and metrics around every matched route.
async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |p| p.as_str())
        .replace("{*id}", "{id}");
    let response = if !authorized(&app, &req) {
        let mut r = error(
            StatusCode::UNAUTHORIZED,
            BadRequest::new(
                Some("authorization"),
                "this service needs `Authorization: Bearer TOKEN` (the token of its --token-file)",
            ),
        );
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            "Bearer".parse().expect("a header value"),
        );
        r
    } else {
        match tokio::time::timeout(app.config.request_timeout, next.run(req)).await {
            Ok(r) => r,
            Err(_) => error(
                StatusCode::REQUEST_TIMEOUT,
                BadRequest::new(
                    None,
                    format!(
                        "the request took longer than {} s (body included); send smaller batches",
                        app.config.request_timeout.as_secs()
                    ),
                ),
            ),
        }
    };
    app.metrics
        .observe(&route, response.status().as_u16(), started.elapsed());
    response
}

/// Whether the request carries the token (always, when the service has none). Compared as
/// SHA-256 digests, byte by byte without an early exit, so the time taken says nothing about
/// how much of a guess was right.
fn authorized(app: &App, req: &Request) -> bool {
    let Some(token) = &app.config.token else {
        return true;
    };
    if req.uri().path() == "/health" {
        return true;
    }
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    let (a, b) = (
        Sha256::digest(given.as_bytes()),
        Sha256::digest(token.as_bytes()),
    );
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

/// Refuses a body whose `Content-Type` is not one of `accepted`.
/// (Refusals are boxed: a `Response` is large for the `Ok` path to carry.)
fn content_type(headers: &HeaderMap, accepted: &[&str]) -> Result<(), Box<Response>> {
    let given = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = given
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if accepted.contains(&essence.as_str()) {
        return Ok(());
    }
    Err(Box::new(error(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        BadRequest::new(
            Some("content-type"),
            format!("{given:?}; expected {}", accepted.join(" or ")),
        ),
    )))
}

const JSON: &[&str] = &["application/json"];
const NDJSON: &[&str] = &[
    "application/x-ndjson",
    "application/jsonl",
    "application/json",
];

thread_local! {
    static SCRATCH: RefCell<SketchScratch> = RefCell::new(SketchScratch::default());
}

/// A document's signature: sketched from its text as `dedup` would, or given.
fn probe_of(app: &App, doc: &Document) -> Probe {
    if let Content::Signature(row) = &doc.content {
        return Probe {
            row: row.clone(),
            empty: false,
        };
    }
    let text =
        api::text_of(&doc.content, doc.url.as_deref(), app.config.extract).unwrap_or_default();
    SCRATCH.with(|s| app.live.sketch(&text, &mut s.borrow_mut()))
}

/// Whether checking `doc` may take long enough to keep the event loop from other requests.
fn is_slow(doc: &Document) -> bool {
    matches!(doc.content, Content::Html(_) | Content::HtmlBytes { .. })
}

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(work)
        .await
        .expect("request work does not panic")
}

async fn check(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(r) = content_type(&headers, JSON) {
        return *r;
    }
    let doc = match api::parse_one(&body, app.live.width()) {
        Ok(d) => d,
        Err(e) => return bad(e),
    };
    let answer = |app: &App, doc: &Document| {
        let matches = app.live.check(&probe_of(app, doc));
        serde_json::to_value(CheckAnswer::new(doc.id.as_deref(), &matches))
            .expect("answers serialize")
    };
    let value = if is_slow(&doc) {
        let app = Arc::clone(&app);
        blocking(move || answer(&app, &doc)).await
    } else {
        answer(&app, &doc)
    };
    axum::Json(value).into_response()
}

/// `?mode=if_new` (the default) or `?mode=always`.
fn add_mode(uri: &Uri) -> Result<AddMode, Box<Response>> {
    let mode = uri
        .query()
        .unwrap_or("")
        .split('&')
        .find_map(|kv| kv.strip_prefix("mode="));
    match mode {
        None | Some("if_new") => Ok(AddMode::IfNew),
        Some("always") => Ok(AddMode::Always),
        Some(other) => Err(Box::new(bad(BadRequest::new(
            Some("mode"),
            format!("{other:?}; expected if_new (add only what is new) or always"),
        )))),
    }
}

/// The id a document is added under: its `id`, else its `url`.
fn id_for_add(doc: &Document) -> Result<String, BadRequest> {
    doc.id.clone().or_else(|| doc.url.clone()).ok_or_else(|| {
        BadRequest::new(
            Some("id"),
            "an add needs an id (or a url, which is then its id): removal and answers name documents by it",
        )
    })
}

fn refusal(r: Refusal) -> Response {
    match r {
        Refusal::Conflict(why) => error(StatusCode::CONFLICT, BadRequest::new(Some("id"), why)),
        Refusal::Storage(e) => error(
            StatusCode::INSUFFICIENT_STORAGE,
            BadRequest::new(None, format!("{e}; nothing was added, checks still answer")),
        ),
    }
}

async fn add(State(app): State<Arc<App>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let (mode, doc) = match (add_mode(&uri), content_type(&headers, JSON)) {
        (Ok(mode), Ok(())) => match api::parse_one(&body, app.live.width()) {
            Ok(doc) => (mode, doc),
            Err(e) => return bad(e),
        },
        (Err(r), _) | (_, Err(r)) => return *r,
    };
    let id = match id_for_add(&doc) {
        Ok(id) => id,
        Err(e) => return bad(e),
    };
    blocking(move || {
        let new = NewDoc {
            probe: probe_of(&app, &doc),
            url: doc.url,
            id: id.clone(),
        };
        match app.live.add(vec![new], mode) {
            Ok(mut outcomes) => match outcomes.pop().expect("one outcome") {
                Ok(outcome) => axum::Json(api::add_answer(&id, &outcome)).into_response(),
                Err(r) => refusal(r),
            },
            Err(r) => refusal(r),
        }
    })
    .await
}

fn ndjson(lines: Vec<Value>) -> Response {
    let mut body = String::new();
    for line in lines {
        body.push_str(&line.to_string());
        body.push('\n');
    }
    ([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response()
}

async fn batch_check(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(r) = content_type(&headers, NDJSON) {
        return *r;
    }
    let docs = match api::parse_batch(&body, app.live.width(), app.config.max_batch) {
        Ok(d) => d,
        Err(e) => return bad(e),
    };
    blocking(move || {
        let lines: Vec<Value> = docs
            .par_iter()
            .map(|doc| {
                let matches: Vec<Match> = app.live.check(&probe_of(&app, doc));
                serde_json::to_value(CheckAnswer::new(doc.id.as_deref(), &matches))
                    .expect("answers serialize")
            })
            .collect();
        ndjson(lines)
    })
    .await
}

async fn batch_add(
    State(app): State<Arc<App>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (mode, docs) = match (add_mode(&uri), content_type(&headers, NDJSON)) {
        (Ok(mode), Ok(())) => match api::parse_batch(&body, app.live.width(), app.config.max_batch)
        {
            Ok(docs) => (mode, docs),
            Err(e) => return bad(e),
        },
        (Err(r), _) | (_, Err(r)) => return *r,
    };
    let mut ids = Vec::with_capacity(docs.len());
    for (n, doc) in docs.iter().enumerate() {
        match id_for_add(doc) {
            Ok(id) => ids.push(id),
            Err(mut e) => {
                e.line = Some(n + 1);
                return bad(e);
            }
        }
    }
    blocking(move || {
        let new: Vec<NewDoc> = docs
            .into_par_iter()
            .zip(ids.clone())
            .map(|(doc, id)| NewDoc {
                probe: probe_of(&app, &doc),
                url: doc.url,
                id,
            })
            .collect();
        match app.live.add(new, mode) {
            Ok(outcomes) => ndjson(
                outcomes
                    .into_iter()
                    .zip(&ids)
                    .map(|(o, id)| match o {
                        Ok(outcome) => api::add_answer(id, &outcome),
                        Err(r) => json!({"id": id, "status": "refused", "error": r.to_string()}),
                    })
                    .collect(),
            ),
            Err(r) => refusal(r),
        }
    })
    .await
}

async fn get_doc(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.live.doc(&id) {
        Some(info) => axum::Json(info).into_response(),
        None => error(
            StatusCode::NOT_FOUND,
            BadRequest::new(Some("id"), format!("{id:?} is not indexed")),
        ),
    }
}

async fn delete_doc(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let removing = id.clone();
    match blocking(move || app.live.remove(&removing)).await {
        Ok(true) => axum::Json(json!({"id": id, "removed": true})).into_response(),
        Ok(false) => error(
            StatusCode::NOT_FOUND,
            BadRequest::new(Some("id"), format!("{id:?} is not indexed")),
        ),
        Err(r) => refusal(r),
    }
}

async fn stats(State(app): State<Arc<App>>) -> Response {
    let app2 = Arc::clone(&app);
    let stats = blocking(move || app2.live.stats()).await;
    let mut v = serde_json::to_value(stats).expect("stats serialize");
    v["width"] = app.live.width().into();
    v["extract"] = app.config.extract.name().into();
    v["min_words"] = app.config.live.min_words.into();
    axum::Json(v).into_response()
}

async fn health(State(app): State<Arc<App>>) -> Response {
    axum::Json(json!({"status": "ok", "algorithm": app.live.algorithm()})).into_response()
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    let app2 = Arc::clone(&app);
    let stats = blocking(move || app2.live.stats()).await;
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        app.metrics.render(&stats),
    )
        .into_response()
}

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}
