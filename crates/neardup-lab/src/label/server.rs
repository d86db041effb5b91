//! Labelling in a browser: a page served on the loopback interface only (`tiny_http`), its
//! keys sending each answer to the server, which records it in the session's file before
//! answering (so a killed server loses nothing and the same command resumes).
//!
//! Routes: `GET /` the page; `GET /api/state` progress and the pair being asked (ids,
//! similarity, stratum, the word-level diff); `POST /api/answer` with body `d`, `n` or `s`;
//! `POST /api/undo`. Requests whose `Host` is not this address are refused (a page of
//! another site cannot drive the session through the browser).

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
    for request in bound.server.incoming_requests() {
        let allowed = request
            .headers()
            .iter()
            .find(|h| h.field.equiv("Host"))
            .is_some_and(|h| hosts.iter().any(|a| h.value.as_str() == a));
        if !allowed {
            request.respond(Response::from_string("wrong host").with_status_code(403))?;
            continue;
        }
        let mut queue = queue.lock().map_err(|_| anyhow!("a request panicked"))?;
        handle(request, &mut queue, text, context)?;
    }
    Ok(())
}

/// One request.
fn handle(
    mut request: Request,
    queue: &mut Queue<'_>,
    text: &dyn Fn(u32) -> String,
    context: &Context,
) -> Result<()> {
    let mut body = String::new();
    request.as_reader().read_to_string(&mut body)?;
    let outcome = match (request.method(), request.url()) {
        (Method::Get, "/") => {
            let html = Header::from_bytes("Content-Type", "text/html; charset=utf-8")
                .map_err(|_| anyhow!("header"))?;
            return Ok(request.respond(Response::from_string(PAGE).with_header(html))?);
        }
        (Method::Get, "/api/state") => Ok(()),
        (Method::Post, "/api/answer") => match body.trim() {
            "d" => queue.answer(Answer::Duplicate),
            "n" => queue.answer(Answer::Not),
            "s" => queue.answer(Answer::Skip),
            other => Err(anyhow!("`{other}` is not an answer (d, n or s)")),
        },
        (Method::Post, "/api/undo") => queue.undo().map(|_| ()),
        _ => {
            return Ok(request.respond(Response::from_string("not found").with_status_code(404))?);
        }
    };
    let response = match outcome {
        Ok(()) => {
            let json = Header::from_bytes("Content-Type", "application/json")
                .map_err(|_| anyhow!("header"))?;
            Response::from_string(state(queue, text, context).to_string()).with_header(json)
        }
        Err(e) => Response::from_string(format!("{e:#}")).with_status_code(400),
    };
    Ok(request.respond(response)?)
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
        "pair": pair,
    })
}
