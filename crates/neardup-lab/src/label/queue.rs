//! The pairs of a labelling session still to answer, and the one being asked: what the
//! terminal and the page both drive. An answer is recorded in the session's file before the
//! queue moves on; undo takes back this session's last answer and asks that pair again.

use anyhow::Result;

use super::sample::ToLabel;
use super::session::{Answer, Session};

/// A session's queue.
pub struct Queue<'a> {
    session: Session,
    pending: Vec<&'a ToLabel>,
    /// The pair being asked (`pending.len()`: none left).
    position: usize,
    /// Pairs drawn in all.
    drawn: usize,
    id: Box<dyn Fn(u32) -> String + Send + 'a>,
}

impl std::fmt::Debug for Queue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Queue({} of {})", self.position, self.pending.len())
    }
}

impl<'a> Queue<'a> {
    /// The pairs of `drawn` that `session` has not answered yet; `id` names a document.
    pub fn new(
        session: Session,
        drawn: &'a [ToLabel],
        id: impl Fn(u32) -> String + Send + 'a,
    ) -> Queue<'a> {
        let pending = session.pending(drawn, &id);
        Queue {
            session,
            pending,
            position: 0,
            drawn: drawn.len(),
            id: Box::new(id),
        }
    }

    /// The pair being asked, if any is left.
    pub fn current(&self) -> Option<&'a ToLabel> {
        self.pending.get(self.position).copied()
    }

    /// Its documents' ids.
    pub fn ids(&self, pair: &ToLabel) -> (String, String) {
        ((self.id)(pair.a), (self.id)(pair.b))
    }

    /// Records `answer` for the current pair and moves on.
    pub fn answer(&mut self, answer: Answer) -> Result<()> {
        let Some(pair) = self.current() else {
            anyhow::bail!("every pair is answered");
        };
        let ids = self.ids(pair);
        self.session.record(pair, ids, answer)?;
        self.position += 1;
        Ok(())
    }

    /// Takes back this session's last answer (an answer of an earlier session stays);
    /// whether there was one.
    pub fn undo(&mut self) -> Result<bool> {
        if self.position == 0 {
            return Ok(false);
        }
        self.session.undo()?;
        self.position -= 1;
        Ok(true)
    }

    /// Answers in the file, and pairs drawn.
    pub fn progress(&self) -> (usize, usize) {
        (self.session.answered(), self.drawn)
    }

    /// Pairs this session has answered, and those left.
    pub fn done(&self) -> (usize, usize) {
        (self.position, self.pending.len() - self.position)
    }
}
