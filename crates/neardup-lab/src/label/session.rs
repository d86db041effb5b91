//! The labels file of a session: `id_a,id_b,label,stratum,weight,similarity`, one row per
//! answer (`1` duplicate, `0` not, `skip`). Every answer is appended and synced at once, so a
//! killed session loses nothing; a new session reads the file and goes on with the pairs not
//! answered yet; undo rewrites the file without its last row, atomically.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::sample::ToLabel;

/// The header of a labels file.
pub const HEADER: &str = "id_a,id_b,label,stratum,weight,similarity";

/// One answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Duplicate,
    Not,
    Skip,
}

impl Answer {
    fn cell(self) -> &'static str {
        match self {
            Answer::Duplicate => "1",
            Answer::Not => "0",
            Answer::Skip => "skip",
        }
    }
}

/// An open labels file.
#[derive(Debug)]
pub struct Session {
    path: PathBuf,
    /// The answered pairs (ids), in file order.
    answered: Vec<(String, String)>,
}

impl Session {
    /// Opens `path`: a new file gets its header; an existing one must be a labels file, and
    /// its answers are kept.
    pub fn open(path: &Path) -> Result<Session> {
        if path.exists() {
            if !path.is_file() {
                bail!("{}: exists and is not a regular file", path.display());
            }
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read", path.display()))?;
            let mut lines = text.lines();
            if lines.next() != Some(HEADER) {
                bail!(
                    "{}:1: not a labels file (expected the header {HEADER})",
                    path.display()
                );
            }
            let answered = lines
                .enumerate()
                .map(|(i, l)| {
                    let mut cells = l.split(',');
                    match (cells.next(), cells.next()) {
                        (Some(a), Some(b)) => Ok((a.to_string(), b.to_string())),
                        _ => bail!("{}:{}: not a row of a labels file", path.display(), i + 2),
                    }
                })
                .collect::<Result<_>>()?;
            return Ok(Session {
                path: path.to_path_buf(),
                answered,
            });
        }
        neardup_dedup::fsutil::write_bytes(path, format!("{HEADER}\n").as_bytes())?;
        Ok(Session {
            path: path.to_path_buf(),
            answered: Vec::new(),
        })
    }

    /// The pairs of `sample` not answered yet, in its order (`id` names a document).
    pub fn pending<'s>(
        &self,
        sample: &'s [ToLabel],
        id: impl Fn(u32) -> String,
    ) -> Vec<&'s ToLabel> {
        let done: HashSet<&(String, String)> = self.answered.iter().collect();
        sample
            .iter()
            .filter(|p| !done.contains(&(id(p.a), id(p.b))))
            .collect()
    }

    /// How many pairs are answered.
    pub fn answered(&self) -> usize {
        self.answered.len()
    }

    /// Appends one answer and syncs it to disk.
    pub fn record(&mut self, pair: &ToLabel, ids: (String, String), answer: Answer) -> Result<()> {
        for id in [&ids.0, &ids.1] {
            if id.contains([',', '"', '\n']) {
                bail!("id `{id}` cannot be written to a labels file (a comma, quote or newline)");
            }
        }
        let row = format!(
            "{},{},{},{},{},{}\n",
            ids.0,
            ids.1,
            answer.cell(),
            pair.stratum,
            pair.weight,
            pair.similarity
        );
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .with_context(|| format!("{}: cannot append", self.path.display()))?;
        f.write_all(row.as_bytes())?;
        f.sync_data()?;
        self.answered.push(ids);
        Ok(())
    }

    /// Takes the last answer back (the file rewritten atomically without it); whether there
    /// was one.
    pub fn undo(&mut self) -> Result<bool> {
        if self.answered.pop().is_none() {
            return Ok(false);
        }
        let text = std::fs::read_to_string(&self.path)?;
        let mut lines: Vec<&str> = text.lines().collect();
        lines.pop();
        let mut kept = lines.join("\n");
        kept.push('\n');
        neardup_dedup::fsutil::write_bytes(&self.path, kept.as_bytes())?;
        Ok(true)
    }
}
