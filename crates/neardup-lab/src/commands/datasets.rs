//! `neardup datasets list`, `neardup datasets verify [NAME...]` and
//! `neardup datasets fetch NAME` (`corpus::fetch`).

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Subcommand;
use neardup_dedup::input::checksummed::sha256_file;

use super::invocation::{Invocation, Run};
use crate::corpus::manifest::data_dir;
use crate::corpus::manifest::{self, Manifest};

/// Lists the manifests and whether each file is present in `data_dir`.
pub fn list(data_dir: &Path, out: &mut impl Write) -> Result<()> {
    writeln!(out, "data directory: {}", data_dir.display())?;
    writeln!(
        out,
        "{:<18} {:<8} {:>7}  {:<26} {:<8} description",
        "name", "format", "docs", "file", "present"
    )?;
    for m in manifest::all() {
        let present = if m.path(data_dir).is_file() {
            "yes"
        } else {
            "no"
        };
        writeln!(
            out,
            "{:<18} {:<8} {:>7}  {:<26} {:<8} {} [license: {}]",
            m.name,
            format!("{:?}", m.format).to_lowercase(),
            m.docs,
            m.file,
            present,
            m.description,
            m.license
        )?;
    }
    Ok(())
}

/// Checks the SHA-256 of every present file (or of the named datasets, which must be present).
/// Prints one line per dataset; fails if any checksum is wrong or a named file is missing.
pub fn verify(data_dir: &Path, names: &[String], out: &mut impl Write) -> Result<()> {
    let manifests: Vec<Manifest> = if names.is_empty() {
        manifest::all()
    } else {
        names
            .iter()
            .map(|n| manifest::find(n))
            .collect::<Result<_, _>>()?
    };
    let mut bad = Vec::new();
    let mut present = 0;
    for m in &manifests {
        let path = m.path(data_dir);
        if !path.is_file() {
            writeln!(out, "{:<18} missing  {}", m.name, path.display())?;
            if !names.is_empty() {
                bad.push(format!("{} is missing ({})", m.name, path.display()));
            }
            continue;
        }
        present += 1;
        let got = sha256_file(&path)?;
        if got == m.sha256 {
            writeln!(out, "{:<18} ok       sha256 {got}", m.name)?;
        } else if m.is_rebuilt(&path)? {
            writeln!(
                out,
                "{:<18} ok       rebuilt: the published records (content sha256 {}), recompressed",
                m.name,
                m.content_sha256.as_deref().unwrap_or_default()
            )?;
        } else {
            writeln!(
                out,
                "{:<18} MISMATCH sha256 {got}, expected {}",
                m.name, m.sha256
            )?;
            bad.push(format!(
                "{}: wrong checksum (sha256 {got}, expected {})",
                path.display(),
                m.sha256
            ));
        }
    }
    if !bad.is_empty() {
        bail!("{}", bad.join("; "));
    }
    if present == 0 {
        bail!(
            "no dataset file is in {} (nothing verified); give --data-dir or set NEARDUP_DATA_DIR",
            data_dir.display()
        );
    }
    Ok(())
}

/// The real corpora the project knows (manifests in datasets/*.toml).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Data directory (default: $NEARDUP_DATA_DIR, else datasets/cache).
    #[arg(long, global = true)]
    pub data_dir: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: DatasetsCommand,
}

/// `neardup datasets …`
#[derive(Debug, Subcommand)]
pub enum DatasetsCommand {
    /// List the manifests and whether each file is in the data directory.
    List,
    /// Check the SHA-256 of the files present (or of the named datasets).
    Verify {
        /// Dataset names (default: every present file).
        names: Vec<String>,
    },
    /// Rebuild a dataset from the upstream snapshot its manifest names: download the archive
    /// or the snapshot's files (with curl), convert them to the published JSON Lines, check
    /// their SHA-256 against the manifest, and write NAME.jsonl.gz into the data directory
    /// (never over a file there).
    Fetch {
        /// The dataset (`neardup datasets list` names them; every one has a converter).
        name: String,
        /// A local copy of the upstream snapshot instead of downloading it: its archive, or a
        /// folder holding its files (a checkout of the upstream commit).
        #[arg(long, conflicts_with = "url")]
        archive: Option<PathBuf>,
        /// Download from here instead (a mirror of the manifest's snapshot): the archive's
        /// URL, or for a manifest that lists files, the folder URL they are fetched from by name.
        #[arg(long)]
        url: Option<String>,
    },
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let dir = data_dir(self.data_dir.as_deref());
        match self.command {
            DatasetsCommand::List => list(&dir, &mut invocation.out),
            DatasetsCommand::Verify { names } => verify(&dir, &names, &mut invocation.out),
            DatasetsCommand::Fetch { name, archive, url } => {
                use crate::corpus::fetch::{self, Source};
                let source = match (&archive, &url) {
                    (Some(file), _) => Some(Source::File(file)),
                    (None, Some(url)) => Some(Source::Url(url)),
                    (None, None) => None,
                };
                let said = fetch::fetch(&manifest::find(&name)?, &dir, source)?;
                writeln!(invocation.out, "{said}")?;
                Ok(())
            }
        }
    }
}
