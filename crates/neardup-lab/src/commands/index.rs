//! `neardup index remove` and `neardup index show`: the persistent index of
//! `neardup dedup --index` (`neardup_dedup::index`).

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use anyhow::Result;
use clap::Subcommand;
use neardup_dedup::index::IncrementalIndex;

use super::invocation::{Invocation, Run};
use crate::error::LabError;

/// Removes every indexed document whose id is a line of `ids_file`.
pub fn remove(index: &Path, ids_file: &Path, out: &mut impl Write) -> Result<()> {
    let text = std::fs::read_to_string(ids_file).map_err(|e| LabError::io(ids_file, e))?;
    let ids: HashSet<String> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    if ids.is_empty() {
        return Err(LabError::file(ids_file, "no id in it (one id per line expected)").into());
    }
    let mut index = IncrementalIndex::open_existing(index)?;
    let (removed, found) = index.remove_ids(&ids)?;
    let mut missing: Vec<&String> = ids.iter().filter(|id| !found.contains(*id)).collect();
    missing.sort();
    writeln!(
        out,
        "removed {removed} documents ({} of {} ids found); the index holds {} documents",
        found.len(),
        ids.len(),
        index.documents()
    )?;
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(5).map(|s| s.as_str()).collect();
        writeln!(
            out,
            "not in the index: {} ids (first: {})",
            missing.len(),
            shown.join(", ")
        )?;
    }
    Ok(())
}

/// Prints the manifest: algorithm, signatures, segments.
pub fn show(index: &Path, out: &mut impl Write) -> Result<()> {
    let index = IncrementalIndex::open_existing(index)?;
    let m = index.manifest();
    writeln!(
        out,
        "{} documents in {} segments; algorithm {}, {} words per signature, generation {}",
        index.documents(),
        m.segments.len(),
        m.algorithm,
        m.width,
        m.generation
    )?;
    writeln!(out, "signatures: {}", m.sketch_key)?;
    for s in &m.segments {
        writeln!(
            out,
            "  {}  {:>10} documents  checksum {}  source {}",
            s.file, s.documents, s.checksum, s.source
        )?;
    }
    Ok(())
}

/// The persistent index of `neardup dedup --index`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: IndexCommand,
}

/// `neardup index …`
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Remove documents from an index by id (every indexed document with that id).
    Remove {
        /// The index directory.
        #[arg(long)]
        index: PathBuf,
        /// A file of ids, one per line (`removed.txt` of a dedup run is one).
        #[arg(long)]
        ids: PathBuf,
    },
    /// Describe an index: algorithm, signatures, segments and where they came from.
    Show {
        /// The index directory.
        #[arg(long)]
        index: PathBuf,
    },
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        match self.command {
            IndexCommand::Remove { index, ids } => remove(&index, &ids, &mut invocation.out),
            IndexCommand::Show { index } => show(&index, &mut invocation.out),
        }
    }
}
