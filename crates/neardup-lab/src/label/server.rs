//! Labelling in a browser: a page served on the loopback interface only (`tiny_http`), its
//! keys sending each answer to the server, which records it in the session's file before
//! answering (so a killed server loses nothing and the same command resumes).
//!
//! Routes: `GET /` the page; `GET /api/state` progress and the pair being asked (ids,
//! similarity, stratum, the word-level diff); `POST /api/answer` with the JSON body
//! `{"answer": "d"|"n"|"s", "id_a": …, "id_b": …}`, the pair it answers named (a second tab
//! on an older pair gets 409 and the pair being asked, never an answer recorded for a pair it
//! did not show); `POST /api/undo`.
//!
//! Only this session's page may drive it: requests whose `Host` is not this address are
//! refused (DNS rebinding), and every `/api/` request must carry the session's random token
//! in the `X-Neardup-Token` header, which the page alone holds. A page of another origin or
//! a `file://` page can send a `no-cors` POST but neither set that header nor read the page
//! (three labels were recorded that way). Any body, UTF-8 or not, gets an answer: a bad
//! request never stops the server.

use std::sync::Mutex;

use anyhow::{Result, anyhow};
use serde_json::json;
use tiny_http::{Header, Method, Request, Response, Server};

use super::queue::Queue;
use super::session::Answer;
use crate::inspect::diff::segments;

const PAGE: &str = include_str!("page.html");

/// A bound server: where it listens.
pub struct Bound {
    server: Server,
    /// `127.0.0.1:PORT`.
    pub address: String,
}

impl std::fmt::Debug for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bound({})", self.address)
    }
}

/// Binds 127.0.0.1:`port` (0: any free port).
pub fn bind(port: u16) -> Result<Bound> {
    let server = Server::http(("127.0.0.1", port))
        .map_err(|e| anyhow!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let address = server
        .server_addr()
        .to_ip()
        .map(|a| a.to_string())
        .ok_or_else(|| anyhow!("the server has no IP address"))?;
    Ok(Bound { server, address })
}

/// What the page needs besides the queue.
#[derive(Debug, Clone)]
pub struct Context {
    /// The labels file, and the command that uses it.
    pub out: String,
    pub next: String,
    /// What "duplicate" means here, shown above every pair (`--question`).
    pub question: String,
}

/// Serves until the process is stopped; `text` gives a document's text.
pub fn serve(
    bound: Bound,
    queue: Queue<'_>,
    text: &(dyn Fn(u32) -> String + Sync),
    context: &Context,
) -> Result<()> {
    let queue = Mutex::new(queue);
    let hosts = [
        bound.address.clone(),
        bound.address.replace("127.0.0.1", "localhost"),
    ];
    let token = session_token()?;
    for request in bound.server.incoming_requests() {
        let header = |name: &'static str| {
            request
                .headers()
                .iter()
                .find(|h| h.field.equiv(name))
                .map(|h| h.value.as_str().to_string())
        };
        let host_ok = header("Host").is_some_and(|h| hosts.contains(&h));
        let token_ok = !request.url().starts_with("/api/")
            || header("X-Neardup-Token").is_some_and(|t| t == token);
        if !host_ok || !token_ok {
            let why = if host_ok {
                "no session token"
            } else {
                "wrong host"
            };
            let _ = request.respond(Response::from_string(why).with_status_code(403));
            continue;
        }
        let mut queue = queue.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = handle(request, &mut queue, text, context, &token) {
            eprintln!("neardup: label: a request failed ({e:#}); still serving");
        }
    }
    Ok(())
}

/// 128 random bits from the operating system, hex: the token only this session's page holds.
fn session_token() -> Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| anyhow!("cannot draw the session's token from /dev/urandom: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// An answer as the page sends it.
#[derive(Debug, serde::Deserialize)]
struct Answered {
    answer: String,
    id_a: String,
    id_b: String,
}

/// One request.
fn handle(
    mut request: Request,
    queue: &mut Queue<'_>,
    text: &dyn Fn(u32) -> String,
    context: &Context,
    token: &str,
) -> Result<()> {
    let mut body = Vec::new();
    request.as_reader().read_to_end(&mut body)?;
    let outcome = match (request.method(), request.url()) {
        (Method::Get, "/") => {
            let html = Header::from_bytes("Content-Type", "text/html; charset=utf-8")
                .map_err(|_| anyhow!("header"))?;
            let page = PAGE.replace("__SESSION_TOKEN__", token);
            return Ok(request.respond(Response::from_string(page).with_header(html))?);
        }
        (Method::Get, "/api/state") => Ok(()),
        (Method::Post, "/api/answer") => answer(queue, &body),
        (Method::Post, "/api/undo") => queue.undo().map(|_| ()).map_err(Refusal::Bad),
        _ => {
            return Ok(request.respond(Response::from_string("not found").with_status_code(404))?);
        }
    };
    let json =
        Header::from_bytes("Content-Type", "application/json").map_err(|_| anyhow!("header"))?;
    let response = match outcome {
        Ok(()) => Response::from_string(state(queue, text, context).to_string()).with_header(json),
        Err(Refusal::Stale) => Response::from_string(state(queue, text, context).to_string())
            .with_header(json)
            .with_status_code(409),
        Err(Refusal::Bad(e)) => Response::from_string(format!("{e:#}")).with_status_code(400),
    };
    Ok(request.respond(response)?)
}

/// Why an answer was not recorded.
enum Refusal {
    /// It names a pair other than the one being asked (another tab answered it).
    Stale,
    /// It is not an answer, or it could not be saved.
    Bad(anyhow::Error),
}

/// Records an answer if it names the pair being asked.
fn answer(queue: &mut Queue<'_>, body: &[u8]) -> std::result::Result<(), Refusal> {
    let given: Answered = serde_json::from_slice(body).map_err(|e| {
        Refusal::Bad(anyhow!(
            "not an answer ({e}): send {{\"answer\", \"id_a\", \"id_b\"}}"
        ))
    })?;
    let kind = match given.answer.as_str() {
        "d" => Answer::Duplicate,
        "n" => Answer::Not,
        "s" => Answer::Skip,
        other => {
            return Err(Refusal::Bad(anyhow!(
                "`{other}` is not an answer (d, n or s)"
            )));
        }
    };
    let asked = queue.current().map(|p| queue.ids(p));
    if asked != Some((given.id_a, given.id_b)) {
        return Err(Refusal::Stale);
    }
    queue.answer(kind).map_err(Refusal::Bad)
}

/// Progress and the pair being asked, as the page shows them.
fn state(queue: &Queue<'_>, text: &dyn Fn(u32) -> String, context: &Context) -> serde_json::Value {
    let (answered, total) = queue.progress();
    let pair = queue.current().map(|p| {
        let (id_a, id_b) = queue.ids(p);
        json!({
            "number": answered + 1,
            "id_a": id_a,
            "id_b": id_b,
            "similarity": p.similarity,
            "stratum": p.stratum,
            "diff": segments(&text(p.a), &text(p.b)),
        })
    });
    json!({
        "answered": answered,
        "total": total,
        "out": context.out,
        "next": context.next,
        "question": context.question,
        "pair": pair,
    })
}
