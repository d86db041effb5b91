//! What `neardup bench` can run: its tasks and options (shared by the in-process tasks in
//! `bench.rs` and the whole-pipeline task in `bench_dedup.rs`).

/// Tasks with a fixed definition; any registered algorithm name is also a task (build + query
/// with default parameters, end to end from text).
pub const FIXED_TASKS: &[&str] = &[
    "shingle_word5",
    "minhash128_sketch",
    "minhash128_end_to_end",
    "minhash128_oph_end_to_end",
    "lsh_insert_query",
    "minhash_lsh_end_to_end",
    "simhash64_end_to_end",
    "hamming_all_pairs",
    "dedup_end_to_end",
];

/// What to run.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// The corpus (JSONL with `id` and `text`); optional for `hamming_all_pairs` with
    /// `fingerprints`.
    pub corpus: Option<std::path::PathBuf>,
    /// The task.
    pub task: String,
    /// Planted pairs CSV.
    pub truth: Option<std::path::PathBuf>,
    /// Best of this many runs.
    pub repeat: usize,
    /// LSH threshold.
    pub threshold: f64,
    /// `hamming_all_pairs` on this many random 64-bit fingerprints (1 % planted neighbours
    /// within distance 3) instead of the corpus's SimHashes.
    pub fingerprints: Option<usize>,
    /// `dedup_end_to_end`: parameters passed to `neardup dedup --param`.
    pub params: Vec<String>,
    /// `dedup_end_to_end`: the configuration's name in the JSON line.
    pub label: Option<String>,
    /// `dedup_end_to_end`: `neardup dedup --memory`, in bytes.
    pub dedup_memory: Option<u64>,
    /// `dedup_end_to_end`: `neardup dedup --clusters` (`verified`, `connected`).
    pub dedup_clusters: Option<String>,
}

/// Every task name.
pub fn tasks() -> Vec<String> {
    FIXED_TASKS
        .iter()
        .map(|s| s.to_string())
        .chain(
            neardup::registry::algorithms()
                .into_iter()
                .map(|a| a.name.to_string()),
        )
        .collect()
}
