//! `neardup reproduce`'s command line (the orchestration is `run.rs`'s, shared with `run`).

use std::path::PathBuf;

use anyhow::Result;

use super::invocation::{Invocation, Run};
use crate::corpus::manifest::data_dir;

/// The main job: run the standard experiments (real corpora when the data directory has
/// them, the embedded corpus otherwise) and regenerate the reports and their index.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Data directory for real corpora (default: $NEARDUP_DATA_DIR, else datasets/cache).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Reports directory.
    #[arg(long = "output", short = 'o', alias = "out", default_value = "reports")]
    pub out: PathBuf,
    /// Raw-result cache.
    #[arg(long, default_value = ".neardup-cache")]
    pub cache: PathBuf,
    /// Recompute cells even when cached.
    #[arg(long)]
    pub force: bool,
    /// Only these standard experiments (repeatable).
    #[arg(long = "only", value_name = "NAME")]
    pub only: Vec<String>,
    /// Also measure the parameter guide on 10^6 documents (minutes, about 7 GB) and write its
    /// record into the guide's folder; without it the guide shows the committed record.
    #[arg(long)]
    pub guide_full: bool,
}

impl Run for Args {
    fn run(self, _invocation: &mut Invocation<'_>) -> Result<()> {
        super::run::reproduce(
            &self.out,
            &self.cache,
            &data_dir(self.data_dir.as_deref()),
            self.force,
            &self.only,
            self.guide_full,
        )
    }
}
