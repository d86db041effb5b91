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
    /// The byte where each one's row starts (undo cuts the file there).
    starts: Vec<u64>,
}

impl Session {
    /// Opens `path`: a new file gets its header; an existing one must be a labels file, and
    /// its answers are kept. A last row without its line end (a disk that filled, a machine
    /// that stopped, mid-answer) is dropped, saying so: the pair is asked again.
    pub fn open(path: &Path) -> Result<Session> {
        if !path.exists() {
            neardup_dedup::fsutil::write_bytes(path, format!("{HEADER}\n").as_bytes())?;
            return Ok(Session {
                path: path.to_path_buf(),
                answered: Vec::new(),
                starts: Vec::new(),
            });
        }
        if !path.is_file() {
            bail!("{}: exists and is not a regular file", path.display());
        }
        let mut bytes =
            std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            eprintln!(
                "neardup: {}: its last row was cut off mid-answer (a full disk or a stop); \
                 dropped, that pair is asked again",
                path.display()
            );
            bytes.truncate(end);
            neardup_dedup::fsutil::write_bytes(path, &bytes)?;
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes.as_slice());
        let (mut answered, mut starts) = (Vec::new(), Vec::new());
        for (i, row) in reader.records().enumerate() {
            let row = row.with_context(|| format!("{}:{}: not CSV", path.display(), i + 1))?;
            if i == 0 {
                if row.iter().collect::<Vec<_>>().join(",") != HEADER {
                    bail!(
                        "{}:1: not a labels file (expected the header {HEADER})",
                        path.display()
                    );
                }
                continue;
            }
            match (row.get(0), row.get(1)) {
                (Some(a), Some(b)) => {
                    answered.push((a.to_string(), b.to_string()));
                    starts.push(row.position().map_or(0, |p| p.byte()));
                }
                _ => bail!("{}:{}: not a row of a labels file", path.display(), i + 1),
            }
        }
        Ok(Session {
            path: path.to_path_buf(),
            answered,
            starts,
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

    /// Appends one answer and syncs it to disk. A write that fails (a full disk) takes its
    /// partial row back, so the next answer is never glued onto it.
    pub fn record(&mut self, pair: &ToLabel, ids: (String, String), answer: Answer) -> Result<()> {
        let line = row(&ids.0, &ids.1, answer.cell(), pair);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .with_context(|| format!("{}: cannot append", self.path.display()))?;
        let before = f.metadata()?.len();
        let written = f.write_all(&line).and_then(|()| f.sync_data());
        if let Err(e) = written {
            let _ = f.set_len(before);
            return Err(e)
                .with_context(|| format!("{}: the answer was not saved", self.path.display()));
        }
        self.answered.push(ids);
        self.starts.push(before);
        Ok(())
    }

    /// Takes the last answer back (the file rewritten atomically without its row); whether
    /// there was one.
    pub fn undo(&mut self) -> Result<bool> {
        let Some(start) = self.starts.pop() else {
            return Ok(false);
        };
        self.answered.pop();
        let mut bytes = std::fs::read(&self.path)?;
        bytes.truncate(start as usize);
        neardup_dedup::fsutil::write_bytes(&self.path, &bytes)?;
        Ok(true)
    }
}

/// One row of a labels file, as CSV (an id with a comma, quote or line break is quoted):
/// `label` empty for a pair not answered yet (`--sample-only`).
pub fn row(id_a: &str, id_b: &str, label: &str, pair: &ToLabel) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let cells = [
        id_a.to_string(),
        id_b.to_string(),
        label.to_string(),
        pair.stratum.to_string(),
        pair.weight.to_string(),
        pair.similarity.to_string(),
    ];
    w.write_record(&cells).expect("writing to memory");
    w.into_inner().expect("writing to memory")
}
