//! `neardup algorithms`: every registered algorithm with its default parameters, one line each.

use std::io::Write;

use anyhow::Result;

use super::invocation::{Invocation, Run};
use crate::params::render_params;

/// Prints `NAME  build params | query params  # summary [dedup: …]` for every algorithm; the
/// bracket says whether `neardup dedup` streams it with default parameters or reads every text
/// into memory (and, for an algorithm that streams only when configured so, how).
pub fn run(out: &mut impl Write) -> Result<()> {
    let all = neardup::registry::algorithms();
    let width = all.iter().map(|a| a.name.len()).max().unwrap_or(0);
    for a in all {
        let streams = a.streams_by_default();
        writeln!(
            out,
            "{:width$}  {} | {}  # {} [dedup: {}]",
            a.name,
            render_params(&a.build_defaults),
            render_params(&a.query_defaults),
            a.summary,
            match (streams, a.streams_when) {
                (true, _) => "streamed".to_string(),
                (false, Some(when)) => format!("in memory; streamed with {when}"),
                (false, None) => "in memory".to_string(),
            }
        )?;
    }
    Ok(())
}

/// List every registered algorithm with its default parameters, one line each.
#[derive(Debug, clap::Args)]
pub struct Args {}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        run(&mut invocation.out)
    }
}
