//! `neardup site [REPORTS]`: the report index and the static site rebuilt from the reports
//! as they are on disk, without running anything. `reproduce` ends with the same step; the
//! benchmark scripts, which rewrite one report's README.md (performance, dedup, ray,
//! python), end with this command so that report's page follows it.

use std::path::PathBuf;

use anyhow::{Result, bail};

use super::invocation::{Invocation, Run};

/// Rebuild reports/README.md, reports/index.html and every report's index.html from the
/// Markdown in the reports folder (nothing is measured or run).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The reports folder.
    #[arg(default_value = "reports")]
    pub reports: PathBuf,
}

impl Run for Args {
    fn run(self, _invocation: &mut Invocation<'_>) -> Result<()> {
        if !self.reports.join("README.md").is_file() {
            bail!(
                "{}: not a reports folder (no README.md); `neardup reproduce` makes one",
                self.reports.display()
            );
        }
        let order: Vec<String> = super::run::standard()?
            .into_iter()
            .map(|e| e.name)
            .collect();
        // The index names the last regeneration as `reproduce` wrote it, not this binary.
        crate::report::index::write_index(&self.reports, &order, None)?;
        eprintln!(
            "neardup: site in {}",
            self.reports.join("index.html").display()
        );
        Ok(())
    }
}
