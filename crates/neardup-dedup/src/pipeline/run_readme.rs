//! The run's `README.md`: what ran, the clusters (how they were formed, their sizes, the
//! largest), time per stage and peak memory — from the summary.

use super::options::ClusterMode;
use super::summary::Summary;

pub(super) fn readme(s: &Summary, output: &std::path::Path) -> String {
    let mut out = String::new();
    let mb = s.text_bytes as f64 / 1e6;
    out.push_str("# Deduplication summary\n\n");
    out.push_str(&format!(
        "`{}` ({}) on {} input file{}: {} documents, {:.1} MB of text.\n\n",
        s.algorithm,
        if s.streamed {
            "streamed: texts never all in memory"
        } else {
            "in memory"
        },
        s.inputs.len(),
        if s.inputs.len() == 1 { "" } else { "s" },
        s.documents,
        mb
    ));
    out.push_str(&left_out(s));
    if s.spilled {
        out.push_str(
            "The signatures did not fit `--memory`: the join spilled its keys to disk and read \
             the candidates' signatures back from the sketch shards.\n\n",
        );
    }
    if s.indexed_documents > 0 {
        out.push_str(&format!(
            "Deduplicated against an index of {} documents: {} new documents duplicate one of them \
             (removed, counted below); every new document was then added to the index.\n\n",
            s.indexed_documents, s.duplicates_of_index
        ));
    }
    out.push_str(&clusters_said(s));
    out.push_str("| stage | seconds | rows | |\n|---|---:|---:|---|\n");
    for st in &s.stages {
        out.push_str(&format!(
            "| {} | {:.2} | {} | {} |\n",
            st.stage,
            st.seconds,
            st.rows,
            if st.reused { "reused" } else { "" }
        ));
    }
    let ran_on = match (s.engine.name.as_str(), s.engine.partitions) {
        ("ray", Some(p)) => format!("on Ray: {} CPUs, {p} partitions per shuffle", s.threads),
        _ => format!(
            "peak RSS {}, {} threads",
            s.peak_rss_bytes
                .map_or("unknown".into(), neardup::resources::human_bytes),
            s.threads
        ),
    };
    out.push_str(&format!(
        "\nTotal {:.2} s ({:.1} MB/s of text), {ran_on}. Outputs: {}, `removed.txt`, {}.\n",
        s.seconds,
        mb / s.seconds.max(1e-9),
        s.tables
            .iter()
            .map(|d| format!("`{d}`"))
            .collect::<Vec<_>>()
            .join(", "),
        s.deduplicated
            .iter()
            .map(|d| format!("`{d}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out.push_str("\n## Next\n\n");
    for step in super::next_steps::next_steps(output, &s.inputs, &s.algorithm) {
        out.push_str(&format!("- `{}`: {}.\n", step.command, step.why));
    }
    out
}

/// What the run left out of the comparison: short documents (`--min-words`) and malformed
/// records (`--skip-invalid`).
fn left_out(s: &Summary) -> String {
    let mut out = String::new();
    if s.min_words > 0 {
        out.push_str(&format!(
            "{} documents had fewer than {} words (`--min-words`): they took no part in \
             near-duplicate detection; exact copies of them (case and spacing aside) were still \
             found.\n\n",
            s.short_documents, s.min_words
        ));
    }
    if let Some(n) = s.without_keep_value.filter(|&n| n > 0) {
        out.push_str(&format!(
            "{n} documents had no value in the field `--keep {}` chooses by: in a cluster, \
             one with a value was kept before them.\n\n",
            s.keep.name()
        ));
    }
    if s.invalid_records > 0 {
        out.push_str(&format!(
            "{} malformed records were skipped (`--skip-invalid`): not compared, and copied to \
             the deduplicated output as they are.\n\n",
            s.invalid_records
        ));
    }
    out
}

/// The README's account of the clusters: counts, how they were formed, sizes, the largest.
fn clusters_said(s: &Summary) -> String {
    let mut out = String::new();
    out.push_str(match s.cluster_mode {
        ClusterMode::Verified => {
            "Clusters are **verified**: a document is removed only in the name of the kept \
             document it is within the threshold of (chains of near duplicates are cut).\n\n"
        }
        ClusterMode::Connected => {
            "Clusters are **connected** components of the verified pairs: a chain of near \
             duplicates is one cluster, and a removed document may be far from the kept one \
             (`similarity_to_representative` in the clusters table says how far).\n\n"
        }
    });
    out.push_str(
        "| documents | clusters (≥ 2) | in clusters | removed | removed below the threshold | \
         kept | verified pairs |\n|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    out.push_str(&format!(
        "| {} | {} | {} | {} | {} | {} | {} |\n\n",
        s.documents,
        s.clusters,
        s.documents_in_clusters,
        s.removed,
        s.removed_below_threshold
            .map_or("unknown".to_string(), |n| n.to_string()),
        s.kept,
        s.pairs
    ));
    if s.cluster_sizes.is_empty() {
        return out;
    }
    out.push_str("| cluster size | clusters | documents |\n|---|---:|---:|\n");
    for b in &s.cluster_sizes {
        let size = if b.min == b.max {
            b.min.to_string()
        } else {
            format!("{}–{}", b.min, b.max)
        };
        out.push_str(&format!("| {size} | {} | {} |\n", b.clusters, b.documents));
    }
    out.push_str("\nLargest clusters:\n\n| cluster | size | kept document |\n|---:|---:|---|\n");
    for c in &s.largest_clusters {
        out.push_str(&format!(
            "| {} | {} | `{}` |\n",
            c.cluster,
            c.size,
            c.representative.replace('`', "'")
        ));
    }
    out.push('\n');
    out
}
