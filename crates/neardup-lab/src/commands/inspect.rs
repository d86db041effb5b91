//! `neardup inspect`'s command line (the feature itself is `crate::inspect`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use super::invocation::{Invocation, Run};
use crate::inspect::{Inspection, Sampling, html, inspect};

/// See what a `neardup dedup` run found: pairs sampled per similarity band (just above the
/// threshold first, and those connected components removed below it), each shown side by
/// side with the words that differ highlighted, its similarity and exact Jaccard and what
/// deduplication decided; the cluster sizes and the largest clusters with each member's
/// similarity to the document kept. Writes one static HTML page (no server: open it in a
/// browser) and prints a summary, or JSON with --format json.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The output directory of a `neardup dedup` run.
    pub output: PathBuf,
    /// Where to write the page (default: OUTPUT/inspect.html).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Pairs shown per similarity band.
    #[arg(long, default_value_t = 5)]
    pub per_band: usize,
    /// Largest clusters shown.
    #[arg(long, default_value_t = 5)]
    pub clusters: usize,
    /// Members shown per cluster (the least similar to the kept document first).
    #[arg(long, default_value_t = 20)]
    pub members: usize,
    /// Seed of the sample within each band (the same seed shows the same pairs).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The summary printed: text for people, or the whole inspection (texts and diffs
    /// included) as JSON.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// How the inspection is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A summary per band and cluster.
    Text,
    /// Everything, as one JSON document.
    Json,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let sampling = Sampling {
            per_band: self.per_band,
            clusters: self.clusters,
            members: self.members,
            seed: self.seed,
        };
        let found = inspect(&self.output, sampling)?;
        let page = self
            .html
            .unwrap_or_else(|| self.output.join("inspect.html"));
        neardup_dedup::fsutil::write_bytes(&page, html::page(&found).as_bytes())?;
        let out = &mut invocation.out;
        match self.format {
            Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(&found)?)?,
            Format::Text => summary(&found, out)?,
        }
        eprintln!("neardup: wrote {}", page.display());
        Ok(())
    }
}

/// The text summary: what ran, the bands with their sampled pairs, the largest clusters.
fn summary(i: &Inspection, out: &mut impl Write) -> Result<()> {
    let num = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:.3}"));
    writeln!(
        out,
        "{}: {} documents, {} removed{}, {} pairs ({} clusters; {}{})",
        i.output,
        i.documents,
        i.removed,
        i.removed_below_threshold
            .map(|n| format!(" ({n} below the threshold from the kept document)"))
            .unwrap_or_default(),
        i.pairs,
        i.cluster_mode,
        i.algorithm,
        i.threshold
            .map(|t| format!(", threshold {t}"))
            .unwrap_or_default()
    )?;
    for b in &i.bands {
        writeln!(out, "\n{} — {} pairs", b.name, b.count)?;
        for p in &b.samples {
            writeln!(
                out,
                "  {:<24} {:<24} similarity {}  exact {}  {}",
                p.id_a,
                p.id_b,
                num(p.similarity),
                num(p.exact),
                p.decision
            )?;
        }
    }
    for c in &i.largest {
        let least = c.members.first().and_then(|m| m.similarity);
        writeln!(
            out,
            "\ncluster {}: {} documents, {} kept; least similar member {}",
            c.cluster,
            c.size,
            c.representative,
            num(least)
        )?;
    }
    Ok(())
}
