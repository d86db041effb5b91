//! `neardup calibrate`'s command line (the feature itself is `crate::calibrate`).

use std::path::PathBuf;

use anyhow::Result;

use super::args::CorpusArgs;
use super::invocation::{Invocation, Run};
use crate::output_format::ReportFormat;

/// Choose parameters from your own labelled pairs: sweep each algorithm's grid (shingles,
/// signature length, variants), pick the threshold with the best F1 (or the best recall at
/// --target-precision) with 95 % bootstrap intervals, rank the configurations and print the
/// recommended command.
///
/// Labels: --pairs FILE (id_a,id_b[,label]) or, without it, the corpus's cluster labels:
/// every pair inside a cluster, the cross-cluster pairs with exact word 3-shingle Jaccard
/// ≥ 0.3 (a uniform sample of as many as the duplicates when there are more) and 10 × as
/// many uniformly random other pairs, each weighted by the corpus pairs it stands for. With
/// cluster labels, configurations are ranked by the clusters deduplicating with them would
/// make (B-cubed F1), with documents removed and the largest cluster shown.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus (JSONL[.gz], CSV[.gz], Parquet, or a directory of .txt files).
    #[arg(long)]
    pub corpus: PathBuf,
    /// Labelled pairs CSV `id_a,id_b[,label]` (default: pairs from the cluster labels).
    #[arg(long)]
    pub pairs: Option<PathBuf>,
    /// Algorithm to calibrate (repeatable; default: every registered one).
    #[arg(long = "algorithm", value_name = "NAME")]
    pub algorithms: Vec<String>,
    /// `key=value` fixed for every grid point of the preceding --algorithm (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Highest recall among thresholds with at least this precision, instead of the
    /// highest F1.
    #[arg(long, value_name = "P")]
    pub target_precision: Option<f64>,
    /// Choose on the other pairs and report the chosen setting on this fraction (e.g. 0.3) of
    /// the clusters (or of the connected components of --pairs), drawn with --seed: held-out
    /// pairs share no document with the others.
    #[arg(long, value_name = "FRACTION")]
    pub holdout: Option<f64>,
    /// Bootstrap resamples behind the 95 % intervals.
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Seed of the bootstrap, the holdout split and the sampled non-duplicates.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What ranks the configurations: the clusters deduplication would make (B-cubed F1
    /// against the corpus's cluster labels; the default when it has them and no
    /// --target-precision is given) or the pair objective (F1, or recall at the target).
    #[arg(long, value_enum)]
    pub rank_by: Option<crate::calibrate::options::RankBy>,
    /// Write a report here: README.md, calibration.json, charts/.
    #[arg(long = "output", short = 'o', alias = "out")]
    pub out: Option<PathBuf>,
    /// Output: a ranking table with the recommendation, CSV (one row per configuration), or
    /// JSON (one object per configuration).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// How to read the corpus.
    #[command(flatten)]
    pub input: CorpusArgs,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        let configs = super::eval::configs(
            &invocation.positioned(&["calibrate"], "algorithms"),
            &invocation.positioned(&["calibrate"], "params"),
        )?;
        let options = crate::calibrate::Options {
            corpus: self.corpus,
            load: self.input.options(),
            pairs: self.pairs,
            algorithms: configs
                .into_iter()
                .map(|c| (c.algorithm, c.params))
                .collect(),
            target_precision: self.target_precision,
            holdout: self.holdout,
            bootstrap: self.bootstrap,
            seed: self.seed,
            out: self.out,
            rank_by: self.rank_by,
        };
        crate::calibrate::run(&options, self.format, &mut invocation.out)
    }
}
