//! `neardup dedup`: runs the stages (`crate::dedup`) and prints what was done.

use std::io::Write;

use anyhow::Result;

use neardup_dedup::pipeline::{DedupOptions, run as run_stages};

/// Runs `neardup dedup` and prints the summary (or what a partial run did).
pub fn run(options: &DedupOptions, out: &mut impl Write) -> Result<()> {
    match run_stages(options)? {
        Some(s) => {
            writeln!(
                out,
                "{} documents, {} clusters of near-duplicates ({} documents), {} removed, {} kept; {:.2} s ({:.1} MB/s)",
                s.documents,
                s.clusters,
                s.documents_in_clusters,
                s.removed,
                s.kept,
                s.seconds,
                s.text_bytes as f64 / 1e6 / s.seconds.max(1e-9)
            )?;
            writeln!(out, "wrote {}", options.output.display())?;
        }
        None => {
            let what = match (options.shard, options.stage) {
                (Some((i, n)), _) => format!("sketch shard {i}/{n}"),
                (None, Some(stage)) => format!("stage {}", stage.name()),
                (None, None) => "nothing".into(),
            };
            writeln!(out, "finished {what} in {}", options.output.display())?;
        }
    }
    Ok(())
}
