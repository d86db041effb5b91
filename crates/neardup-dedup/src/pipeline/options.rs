//! What a run is asked ([`DedupOptions`], with [`Keep`] and the [`Stage`]s) and what it
//! reports of each stage ([`StageReport`]).

use std::path::PathBuf;

use neardup::detector::ParamMap;
use serde::Serialize;

/// Which document of a cluster is kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Keep {
    /// The first in input order.
    First,
    /// The longest text (the first among equals).
    Longest,
    /// The one whose `field` holds the largest (`largest`) or smallest value — a number or an
    /// ISO 8601 date (`crate::input::keep_value`); documents without one come last, the first
    /// among equals. `max:date` keeps the newest, `max:score` the best scored.
    ByField { field: String, largest: bool },
}

/// How verified pairs become clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClusterMode {
    /// Each connected component cut until every member is within the threshold of the
    /// document kept for it (`neardup::cluster::anchored`).
    Verified,
    /// Connected components of the verified pairs (transitive: chains join).
    Connected,
}

/// The format of the audit tables (`clusters.*`, `pairs.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TableFormat {
    /// Apache Parquet (zstd).
    Parquet,
    /// CSV with a header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// The stages, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Text → signatures, one shard per input file.
    Sketch,
    /// Signatures → candidate pairs.
    Candidates,
    /// Candidates → verified pairs.
    Verify,
    /// Verified pairs → clusters.
    Components,
    /// Clusters → clusters.parquet, removed.txt, the deduplicated corpus, summary.
    Outputs,
}

impl Keep {
    /// What `--keep` accepts, for `--help` and its errors.
    pub const CHOICES: &'static str = "first (the first in input order), longest (the longest \
        text), max:FIELD or min:FIELD (the largest or smallest value of a field holding numbers \
        or ISO 8601 dates: max:date keeps the newest); the first among equals";

    /// Its name on the command line and in `summary.json`.
    pub fn name(&self) -> String {
        match self {
            Keep::First => "first".into(),
            Keep::Longest => "longest".into(),
            Keep::ByField { field, largest } => {
                format!("{}:{field}", if *largest { "max" } else { "min" })
            }
        }
    }

    /// The field whose values choose, if it is one.
    pub fn field(&self) -> Option<&str> {
        match self {
            Keep::ByField { field, .. } => Some(field),
            _ => None,
        }
    }
}

impl Serialize for Keep {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl ClusterMode {
    /// Every choice, in the order `--help` lists them.
    pub const ALL: [ClusterMode; 2] = [ClusterMode::Verified, ClusterMode::Connected];

    /// Its name on the command line and in `summary.json`.
    pub fn name(self) -> &'static str {
        match self {
            ClusterMode::Verified => "verified",
            ClusterMode::Connected => "connected",
        }
    }

    /// What it does, for `--help`.
    pub fn description(self) -> &'static str {
        match self {
            ClusterMode::Verified => {
                "A document is removed only in the name of a kept one within the threshold \
                 (components cut until every member is)"
            }
            ClusterMode::Connected => {
                "Connected components of the verified pairs (chains of near duplicates join)"
            }
        }
    }
}

impl TableFormat {
    /// Every choice, in the order `--help` lists them.
    pub const ALL: [TableFormat; 3] = [TableFormat::Parquet, TableFormat::Csv, TableFormat::Jsonl];

    /// Its name on the command line, and the files' extension.
    pub fn name(self) -> &'static str {
        match self {
            TableFormat::Parquet => "parquet",
            TableFormat::Csv => "csv",
            TableFormat::Jsonl => "jsonl",
        }
    }

    /// What it writes, for `--help`.
    pub fn description(self) -> &'static str {
        match self {
            TableFormat::Parquet => "Apache Parquet (zstd)",
            TableFormat::Csv => "CSV with a header line",
            TableFormat::Jsonl => "One JSON object per line",
        }
    }
}

impl std::str::FromStr for ClusterMode {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_named(s, &ClusterMode::ALL, |k| k.name())
    }
}

impl std::str::FromStr for TableFormat {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_named(s, &TableFormat::ALL, |k| k.name())
    }
}

impl std::str::FromStr for Keep {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let by_field = |largest: bool, field: &str| match field.trim() {
            "" => Err(format!("`{s}` names no field: give one, as in max:date")),
            field => Ok(Keep::ByField {
                field: field.to_string(),
                largest,
            }),
        };
        match s.split_once(':') {
            None if s == "first" => Ok(Keep::First),
            None if s == "longest" => Ok(Keep::Longest),
            Some(("max", field)) => by_field(true, field),
            Some(("min", field)) => by_field(false, field),
            _ => Err(format!("`{s}` is not one of {}", Keep::CHOICES)),
        }
    }
}

impl std::str::FromStr for Stage {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_named(s, &Stage::ALL, |k| k.name())
    }
}

/// The member of `all` called `s`, or an error listing the names.
fn parse_named<T: Copy>(
    s: &str,
    all: &[T],
    name: fn(T) -> &'static str,
) -> std::result::Result<T, String> {
    all.iter().copied().find(|&v| name(v) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&v| name(v)).collect();
        format!("`{s}` is not one of {}", names.join(", "))
    })
}

impl Stage {
    /// Every stage, in order.
    pub const ALL: [Stage; 5] = [
        Stage::Sketch,
        Stage::Candidates,
        Stage::Verify,
        Stage::Components,
        Stage::Outputs,
    ];

    /// What it does, for `--help`.
    pub fn description(self) -> &'static str {
        match self {
            Stage::Sketch => "Text → signatures, one shard per input file",
            Stage::Candidates => "Signatures → candidate pairs",
            Stage::Verify => "Candidates → verified pairs",
            Stage::Components => "Verified pairs → clusters",
            Stage::Outputs => {
                "Clusters → clusters.parquet, removed.txt, the deduplicated corpus, summary"
            }
        }
    }

    /// Its directory name under `stages/`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Sketch => "sketch",
            Stage::Candidates => "candidates",
            Stage::Verify => "verify",
            Stage::Components => "components",
            Stage::Outputs => "outputs",
        }
    }
}

/// What `neardup dedup` was asked to do.
#[derive(Debug, Clone)]
pub struct DedupOptions {
    /// Files, directories and globs.
    pub inputs: Vec<PathBuf>,
    /// The output directory.
    pub output: PathBuf,
    /// Registered algorithm name.
    pub algorithm: String,
    /// Its parameters.
    pub params: ParamMap,
    /// The text field (JSONL) or column (CSV, Parquet).
    pub text_field: String,
    /// The id field or column (optional in the data: row numbers when absent).
    pub id_field: String,
    /// A field or column holding a page's HTML (`--html-field`), read instead of the text.
    pub html_field: Option<String>,
    /// Which text of a web page is compared (`--extract`; WARC, HTML, `html_field`).
    pub extract: crate::web::extract::Extract,
    /// Drop from pages' text the lines found on at least this many pages of their host
    /// (`--boilerplate-lines`; site templates).
    pub boilerplate_lines: Option<u32>,
    /// Also write the kept records' text as compared (`kept-text.jsonl`: for web pages their
    /// extracted text with URL, host, date, charset and title).
    pub write_text: bool,
    /// Which member of a cluster is kept.
    pub keep: Keep,
    /// How verified pairs become clusters (`None`: verified when the algorithm can compare
    /// any two documents, else connected).
    pub clusters: Option<ClusterMode>,
    /// The format of `clusters.*` and `pairs.*`.
    pub clusters_format: TableFormat,
    /// Memory the in-memory stages may use (signatures, band keys, pairs).
    pub memory: Option<u64>,
    /// Run only this stage.
    pub stage: Option<Stage>,
    /// Sketch only shard `i` of `n` (input files `i`, `i + n`, …).
    pub shard: Option<(usize, usize)>,
    /// The persistent index to deduplicate against and add to.
    pub index: Option<PathBuf>,
    /// Keep compressed JSONL inputs inflated between the sketch and outputs stages.
    pub inflated_copy: bool,
    /// Text bytes of an input file the sketch stage reads between two checkpoints (a killed
    /// run resumes inside the file from the last one).
    pub checkpoint_bytes: u64,
    /// Documents of fewer words are left out of near-duplicate detection, their exact
    /// copies still found (`--min-words`; 0: none; `short_texts`).
    pub min_words: usize,
    /// Malformed JSON Lines records are skipped, counted, and copied to the deduplicated
    /// output as they are, instead of stopping the run.
    pub skip_invalid: bool,
}

impl DedupOptions {
    /// What is read of each record (a fresh tally of pages).
    pub fn fields(&self) -> crate::input::Fields {
        crate::input::Fields {
            html: self.html_field.clone(),
            extract: self.extract,
            min_words: self.min_words,
            skip_invalid: self.skip_invalid,
            keep: self.keep.field().map(str::to_string),
            ..crate::input::Fields::new(&self.text_field, &self.id_field)
        }
    }
}

/// The default of `--checkpoint-every`: about a second or two of sketching per core, one
/// extra Parquet file and marker per 256 MiB of text.
pub const DEFAULT_CHECKPOINT_BYTES: u64 = 256 << 20;

/// Time and size of one stage in this run.
#[derive(Debug, Clone, Serialize)]
pub struct StageReport {
    /// Stage name.
    pub stage: std::borrow::Cow<'static, str>,
    /// Wall seconds spent in this run (0 when skipped).
    pub seconds: f64,
    /// Whether the stored result was reused.
    pub reused: bool,
    /// Rows produced (documents, pairs, clusters).
    pub rows: u64,
}
