//! Labelling in a terminal: each pair as one word-level diff (`[-only in the first-]`,
//! `{+only in the second+}`, coloured on a terminal), then one key and Enter: `d` duplicate,
//! `n` not, `s` skip, `u` undo, `q` quit (end of input quits too; every answer is on disk).

use std::io::{BufRead, Write};

use anyhow::Result;

use super::queue::Queue;
use super::sample::ToLabel;
use super::session::Answer;
use crate::inspect::diff::{Side, segments};

/// Asks for every pair left in `queue`; `text` gives a document's text.
pub fn label(
    queue: &mut Queue<'_>,
    text: &dyn Fn(u32) -> String,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    colour: bool,
) -> Result<()> {
    while let Some(p) = queue.current() {
        let (done, left) = queue.done();
        show(
            out,
            p,
            queue.ids(p),
            &segments(&text(p.a), &text(p.b)),
            colour,
            (done, done + left),
        )?;
        write!(out, "[d]uplicate [n]ot [s]kip [u]ndo [q]uit > ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        let answer = match line.trim() {
            "d" | "y" => Answer::Duplicate,
            "n" => Answer::Not,
            "s" => Answer::Skip,
            "u" => {
                if !queue.undo()? {
                    writeln!(out, "nothing of this session to undo")?;
                }
                continue;
            }
            "q" => break,
            other => {
                writeln!(out, "`{other}`: answer d, n, s, u or q")?;
                continue;
            }
        };
        queue.answer(answer)?;
    }
    Ok(())
}

/// One pair: where it is in the session, its stratum and similarity, and the diff.
fn show(
    out: &mut dyn Write,
    p: &ToLabel,
    (a, b): (String, String),
    diff: &[crate::inspect::diff::Segment],
    colour: bool,
    (i, n): (usize, usize),
) -> Result<()> {
    writeln!(
        out,
        "\n── pair {} of {n} ── {a}  ×  {b} ── similarity {:.3} (stratum {}) ──",
        i + 1,
        p.similarity,
        p.stratum
    )?;
    let (red, green, plain) = if colour {
        ("\x1b[31m", "\x1b[32m", "\x1b[0m")
    } else {
        ("", "", "")
    };
    for s in diff {
        match s.side {
            Side::Both => write!(out, "{}", s.text)?,
            Side::First => write!(out, "{red}[-{}-]{plain}", s.text)?,
            Side::Second => write!(out, "{green}{{+{}+}}{plain}", s.text)?,
        }
    }
    writeln!(out)?;
    Ok(())
}
