//! `neardup label` in a terminal, driven by a script: answers written at once, undo, resume
//! without asking a pair twice, and a labels file `calibrate --pairs` reads.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::dedup_corpus::{chain_corpus, fresh_dir, write_jsonl};
use common::{err, ok};

/// Runs `neardup label …` with `keys` on its standard input; its stdout.
fn label(args: &[&str], keys: &str) -> String {
    let mut child = Command::new(common::binary())
        .arg("label")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(keys.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn rows(path: &std::path::Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

#[test]
fn a_session_writes_every_answer_undoes_and_resumes() {
    let d = fresh_dir("label", "session");
    let corpus = d.join("corpus.jsonl");
    write_jsonl(&corpus, &chain_corpus(31, 6, 10));
    let out = d.join("labels.csv");
    let args = [
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--per-stratum",
        "3",
        "--terminal",
    ];
    let shown = label(&args, "d\nn\nu\nn\nx\ns\nq\n");
    assert!(shown.contains("pair 1 of") && shown.contains("`x`: answer d, n, s, u or q"));
    let first = rows(&out);
    let labels: Vec<&str> = first.iter().map(|r| r[2].as_str()).collect();
    assert_eq!(labels, ["1", "0", "skip"], "undo took the first `n` back");
    // Resume: the next pair is a new one, and end of input keeps what was answered.
    label(&args, "d\n");
    let second = rows(&out);
    assert_eq!(second.len(), 4);
    assert_eq!(second[..3], first[..]);
    let pairs: std::collections::BTreeSet<(String, String)> = second
        .iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert_eq!(pairs.len(), 4, "no pair asked twice");
    for r in &second {
        let weight: f64 = r[4].parse().unwrap();
        assert!(weight >= 1.0, "{r:?}");
    }
    // calibrate reads it (skips left out), and --sample-only keeps an existing file.
    let json = ok(&[
        "calibrate",
        "--corpus",
        corpus.to_str().unwrap(),
        "--pairs",
        out.to_str().unwrap(),
        "--algorithm",
        "exact",
        "--format",
        "json",
        "--bootstrap",
        "50",
    ]);
    assert!(json.contains("\"algorithm\": \"exact\""), "{json}");
    let e = err(&[
        "label",
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--sample-only",
    ]);
    assert!(e.contains("exists"), "{e}");
    std::fs::write(&out, "something else\n").unwrap();
    let mut again = vec!["label"];
    again.extend(args);
    let e = err(&again);
    assert!(e.contains("labels.csv:1: not a labels file"), "{e}");
}

/// `--from OUT_DIR` stratifies by the similarity the dedup run used: the same sample as
/// giving its parameters by hand, another one than the defaults'.
#[test]
fn from_a_dedup_run_uses_its_parameters() {
    let d = fresh_dir("label", "from");
    let corpus = d.join("corpus.jsonl");
    write_jsonl(&corpus, &chain_corpus(32, 6, 10));
    let run = d.join("run");
    let c = corpus.to_str().unwrap();
    ok(&[
        "dedup",
        c,
        "-o",
        run.to_str().unwrap(),
        "--param",
        "k=3",
        "--param",
        "num_perm=64",
    ]);
    let sample = |name: &str, extra: &[&str]| {
        let out = d.join(name);
        let mut args = vec![
            "label",
            "--corpus",
            c,
            "--out",
            out.to_str().unwrap(),
            "--sample-only",
        ];
        args.extend_from_slice(extra);
        ok(&args);
        std::fs::read_to_string(out).unwrap()
    };
    let from = sample("from.csv", &["--from", run.to_str().unwrap()]);
    assert_eq!(
        from,
        sample("by-hand.csv", &["--param", "k=3", "--param", "num_perm=64"])
    );
    assert_ne!(from, sample("defaults.csv", &[]));
}

/// A running `neardup label` server (killed when dropped).
struct Server {
    child: std::process::Child,
    address: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(corpus: &std::path::Path, out: &std::path::Path) -> Server {
    use std::io::BufRead;
    let mut child = Command::new(common::binary())
        .args(["label", "--corpus", corpus.to_str().unwrap(), "--out"])
        .arg(out)
        .args(["--per-stratum", "3"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    for line in stderr.lines() {
        let line = line.unwrap();
        if let Some(at) = line.split("label at http://").nth(1) {
            let address = at.split('/').next().unwrap().to_string();
            return Server { child, address };
        }
    }
    let _ = child.kill();
    panic!("the server did not start (exit {:?})", child.wait());
}

/// Sends one HTTP/1.1 request (`headers` besides Host); the status and body.
fn request(server: &Server, head: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(&server.address).unwrap();
    let mut text = format!(
        "{head} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        server.address
    );
    for (k, v) in headers {
        text.push_str(&format!("{k}: {v}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(text.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).unwrap();
    let reply = String::from_utf8_lossy(&reply).to_string();
    let status = reply.split(' ').nth(1).unwrap().parse().unwrap();
    let body = reply.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

/// The session's token, as the page holds it.
fn token(server: &Server) -> String {
    let (_, page) = request(server, "GET /", &[], b"");
    let at = page.find("const TOKEN = \"").unwrap() + 15;
    page[at..at + 32].to_string()
}

/// Issue 56 items 11 and 12: only the session's page records answers (a `no-cors` POST from
/// another origin recorded three), any body gets an answer and the server goes on (a
/// non-UTF-8 body stopped it), and an answer names its pair (a second tab's answer was
/// recorded for the next pair, one it never showed).
#[test]
fn only_the_sessions_page_answers_and_only_the_pair_it_shows() {
    let d = fresh_dir("label", "server");
    let corpus = d.join("corpus.jsonl");
    write_jsonl(&corpus, &chain_corpus(31, 6, 10));
    let out = d.join("labels.csv");
    let server = serve(&corpus, &out);
    let forged = request(&server, "POST /api/answer", &[], b"d");
    assert_eq!(forged.0, 403, "{forged:?}");
    assert_eq!(
        rows(&out).len(),
        0,
        "a request without the token recorded an answer"
    );
    let t = token(&server);
    let auth = [("X-Neardup-Token", t.as_str())];
    let (status, _) = request(&server, "POST /api/answer", &auth, &[0xff, 0xfe, b'd']);
    assert_eq!(status, 400);
    let (status, state) = request(&server, "GET /api/state", &auth, b"");
    assert_eq!(status, 200, "the server still serves");
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    let (a, b) = (&state["pair"]["id_a"], &state["pair"]["id_b"]);
    let answer = serde_json::json!({"answer": "d", "id_a": a, "id_b": b}).to_string();
    assert_eq!(
        request(&server, "POST /api/answer", &auth, answer.as_bytes()).0,
        200
    );
    // The same answer again, from a tab still showing that pair: refused, nothing recorded.
    let (status, now) = request(&server, "POST /api/answer", &auth, answer.as_bytes());
    assert_eq!(status, 409);
    assert!(
        now.contains("\"pair\""),
        "409 carries the pair asked now: {now}"
    );
    let rows = rows(&out);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (&rows[0][0], &rows[0][1]),
        (
            &a.as_str().unwrap().to_string(),
            &b.as_str().unwrap().to_string()
        )
    );
}

/// Issue 56 item 12: an id with a comma is written quoted and read back (it blocked the
/// session on its pair, and `--sample-only` wrote it unquoted, a 7-field row); a last row
/// cut off mid-answer (a full disk) is dropped when the session opens, never glued onto the
/// next answer.
#[test]
fn ids_with_commas_round_trip_and_a_cut_row_is_dropped() {
    let d = fresh_dir("label", "commas");
    let corpus = d.join("corpus.jsonl");
    let docs: Vec<(String, String)> = chain_corpus(31, 6, 10)
        .into_iter()
        .map(|(id, text)| (format!("{id}, x"), text))
        .collect();
    write_jsonl(&corpus, &docs);
    let sample = d.join("sample.csv");
    let c = corpus.to_str().unwrap();
    ok(&[
        "label",
        "--corpus",
        c,
        "--out",
        sample.to_str().unwrap(),
        "--per-stratum",
        "3",
        "--sample-only",
    ]);
    let mut reader = csv::Reader::from_path(&sample).unwrap();
    let first = reader.records().next().unwrap().unwrap();
    assert_eq!(first.len(), 6);
    assert!(first[0].ends_with(", x"), "{first:?}");
    let out = d.join("labels.csv");
    let args = [
        "--corpus",
        c,
        "--out",
        out.to_str().unwrap(),
        "--per-stratum",
        "3",
        "--terminal",
    ];
    label(&args, "d\nn\n");
    let whole = std::fs::read(&out).unwrap();
    // A disk that filled mid-row: the row lost its end.
    std::fs::write(&out, &whole[..whole.len() - 5]).unwrap();
    label(&args, "d\n");
    let mut reader = csv::Reader::from_path(&out).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r.len() == 6 && r[0].ends_with(", x")));
}
