//! `neardup man --output DIR`: manual pages from the command line's own definition
//! (clap_mangen), `neardup.1` and `neardup-<subcommand>.1` for every subcommand.

use std::path::Path;
use std::path::PathBuf;

use anyhow::Result;

use super::invocation::{Invocation, Run};

/// Writes the pages of `cmd` and its subcommands into `dir`; returns how many.
pub fn write(cmd: &clap::Command, dir: &Path) -> Result<usize> {
    neardup_dedup::fsutil::check_dir(dir)?;
    let mut written = 0;
    let mut todo = vec![(cmd.clone(), cmd.get_name().to_string())];
    while let Some((c, name)) = todo.pop() {
        let mut page = Vec::new();
        clap_mangen::Man::new(c.clone().name(name.clone())).render(&mut page)?;
        neardup_dedup::fsutil::write_bytes(&dir.join(format!("{name}.1")), &page)?;
        written += 1;
        for sub in c.get_subcommands().filter(|s| s.get_name() != "help") {
            todo.push((sub.clone(), format!("{name}-{}", sub.get_name())));
        }
    }
    Ok(written)
}

/// Write the manual pages (neardup.1 and one per subcommand) into a directory.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to write them (created if missing).
    #[arg(long, short, default_value = "man")]
    pub output: PathBuf,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let pages = write(&invocation.definition(), &self.output)?;
        eprintln!(
            "neardup: wrote {pages} manual pages to {}",
            self.output.display()
        );
        Ok(())
    }
}
