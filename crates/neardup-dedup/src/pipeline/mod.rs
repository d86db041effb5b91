//! `neardup dedup`: deduplicate a real corpus in stages.
//!
//! ```text
//! inputs ──sketch (one shard per input file, streamed)──▶ stages/sketch/NNNNN.parquet
//!        ──candidates (band keys → pairs, per band)─────▶ stages/candidates/pairs.parquet
//!        ──verify (full-signature estimate)─────────────▶ stages/verify/pairs.parquet
//!        ──components (union–find, verified clusters)───▶ stages/components/clusters.parquet
//!        ──outputs──▶ clusters.*, pairs.*, removed.txt, deduplicated.<ext>, summary.json, README.md
//! ```
//!
//! Each stage is skipped when its marker carries the key of its current inputs (the hash of
//! the input files' bytes, the parameters it depends on, the keys of the stages before),
//! so a rerun after a kill resumes from the last finished shard or stage, and a rerun with a
//! new threshold reuses the signatures. Documents are numbered by input file, then by record,
//! whatever the sharding or thread count, so every output is byte-identical across runs.
//!
//! With `--index DIR` (`incremental_index`), the new documents are joined with each other and
//! with every indexed document (by key lookup, not a join of the whole index), the components
//! span both, a new document whose cluster holds an indexed one is removed, and the new
//! documents are then added to the index.
//!
//! Algorithms with a streamable split (`neardup::streaming`) never hold texts: the sketch
//! stage keeps one block of lines in memory. When the signatures do not fit `--memory`, the
//! candidates and verify stages run as an external join over the sketch shards
//! (`spilled_join`), with the same output. The others read every text into memory in the
//! verify stage and run `build` + `query`.

mod anchoring;
mod audit_tables;
mod candidates;
pub mod clusters;
mod components;
mod deduplicated;
mod documents;
pub mod external_join;
pub mod external_outputs;
mod inflated_copy;
mod memory_plan;
pub mod next_steps;
pub mod options;
pub mod outputs;
mod publish;
mod run_readme;
pub mod short_texts;
mod signature_checks;
mod sketch;
mod sketch_file;
mod sketched;
pub mod spilled_join;
mod stage;
pub mod stage_columns;
pub mod stage_files;
mod state;
mod summary;
mod verify;

pub use deduplicated::{deduplicated_names, write_deduplicated};
pub use documents::Documents;
pub use options::{
    ClusterMode, DEFAULT_CHECKPOINT_BYTES, DedupOptions, Keep, Stage, StageReport, TableFormat,
};
pub use sketch_file::sketch_file;
pub use summary::{Engine, SizeBucket, size_buckets};

use std::time::Instant;

use stage_files::key;
use state::Run;

/// Runs `neardup dedup`; returns the summary written to `summary.json` (`None` when only a
/// sketch shard or one stage ran).
pub fn run(options: &DedupOptions) -> anyhow::Result<Option<outputs::Summary>> {
    let mut run = Run::open(options)?;
    let started = Instant::now();
    let only = options.stage;
    let wants = |s: Stage| only.is_none_or(|o| o == s);

    let sketched = run.sketch_stage(wants(Stage::Sketch))?;
    let Some(sketched) = sketched.filter(|_| only != Some(Stage::Sketch)) else {
        return Ok(None);
    };
    crate::machine::return_freed_memory();
    let mut docs = run.load_documents(&sketched)?;
    docs.check_ids(&run.files)?;
    run.open_index(&sketched.keys, docs.len())?;
    let candidates_key = run.candidates_key(&sketched.keys);
    let candidates = run.candidates_stage(&mut docs, &candidates_key, wants(Stage::Candidates))?;
    if only == Some(Stage::Candidates) {
        return Ok(None);
    }
    if let Some(candidates) = &candidates {
        let spill = docs.spill.as_ref().map(|(_, budget)| *budget);
        let budget = run.memory.check_candidates(
            docs.len(),
            candidates.len() as u64,
            spill,
            &options.output,
        )?;
        if let (Some((_, held)), Some(budget)) = (&mut docs.spill, budget) {
            *held = budget;
        }
    }
    crate::machine::return_freed_memory();
    let verify_key = key(&("verify", &candidates_key));
    let verified = run.verify_stage(&docs, candidates, &verify_key, wants(Stage::Verify))?;
    if only == Some(Stage::Verify) {
        return Ok(None);
    }
    crate::machine::return_freed_memory();
    // The representative depends on --keep, the cut on --clusters.
    let components_key = key(&("components", &verify_key, run.cluster_mode, &options.keep));
    let (verified, built) = verified.map_or((None, None), |(p, b)| (Some(p), b));
    let clusters = run.components_stage(&docs, verified, built, &components_key)?;
    if only == Some(Stage::Components) {
        return Ok(None);
    }
    // Before the outputs: a rerun joins against every segment but its own, so adding first
    // loses nothing if the outputs are then interrupted.
    run.add_to_index(&mut docs, &clusters)?;
    // The outputs need ids and places, not signatures (with 1.5 million pairs under
    // `--memory 256MiB`, the signatures kept through the outputs stage made it the peak).
    docs.table = neardup::streaming::SignatureTable::new(docs.table.width());
    crate::machine::return_freed_memory();
    let summary = run.outputs_stage(&docs, &clusters, &components_key, started)?;
    Ok(Some(summary))
}
