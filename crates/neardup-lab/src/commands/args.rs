//! Arguments that several subcommands share: how to read a corpus, and the parsers of sizes,
//! counts, shards and named choices.

use clap::Args;
use neardup_dedup::web::extract::Extract;

use crate::corpus::{Fields, Format, LoadOptions};

/// How to read a corpus file.
#[derive(Debug, Clone, Args)]
pub struct CorpusArgs {
    /// Input format (default: guessed from the name).
    #[arg(long = "input-format", value_enum)]
    pub input_format: Option<FormatArg>,
    /// Field holding the document id.
    #[arg(long, default_value = "id")]
    pub id_field: String,
    /// Field holding the text (JSONL: `meta.body` reaches into a nested object).
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// Field holding the cluster label (null = unlabelled). Every record must have it when
    /// given explicitly; by default `cluster`, optional.
    #[arg(long)]
    pub label_field: Option<String>,
    /// Ignore labels: treat the corpus as unlabelled.
    #[arg(long, conflicts_with = "label_field")]
    pub no_labels: bool,
    /// Skip malformed records (counted and reported) instead of stopping at the first.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Read at most this many documents (at least 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// A field or column holding a web page's HTML, read instead of --text-field: each
    /// document is the page's text as --extract takes it, as `neardup dedup --html-field`
    /// reads it (for a WARC, `neardup extract` writes such a file).
    #[arg(long, value_name = "NAME", conflicts_with = "text_field")]
    pub html_field: Option<String>,
    /// With --html-field: `main` the article or main content, `visible` all text a reader
    /// sees, `none` the markup as it is.
    #[arg(long, default_value = "main", value_name = "MODE", value_parser = parse_extract, requires = "html_field")]
    pub extract: Extract,
}

/// How web pages are read (`dedup`, `extract`): the HTML field, the text extracted, the
/// template lines dropped.
#[derive(Debug, Clone, Args)]
pub struct PageArgs {
    /// A field or column holding a web page's HTML (JSONL, CSV, Parquet): read instead of
    /// --text-field, its text taken as --extract says.
    #[arg(long, value_name = "NAME")]
    pub html_field: Option<String>,
    /// Which text of a web page (WARC/WET, .html files, --html-field) is used: `main` its
    /// article or main content, `visible` all text a reader sees (navigation included), `none`
    /// the markup as it is. WET records are text already and taken as they are.
    #[arg(long, default_value = "main", value_name = "MODE", value_parser = parse_extract)]
    pub extract: Extract,
    /// Drop from each page's text the lines found on K or more pages of its host (site
    /// templates: menus, footers, "related stories"; digits normalised), CCNet-style. Costs
    /// one more pass over the pages (each is extracted twice).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(2..))]
    pub boilerplate_lines: Option<u32>,
}

/// The signatures of a live index (`serve`, `check`): the algorithm and parameters a new
/// index is made with, which an existing one must match (as for `dedup --index`).
#[derive(Debug, Clone, Args)]
pub struct SignatureArgs {
    /// The index's algorithm (a new index's; an existing one must match: its signatures are
    /// stored).
    #[arg(long, default_value = "minhash-lsh", value_name = "NAME")]
    pub algorithm: String,
    /// `key=value` parameter of the algorithm (repeatable), as for `dedup`.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// As `dedup --min-words` (the index's): shorter texts match only their exact copies.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub min_words: usize,
}

impl SignatureArgs {
    /// The live index's configuration, folding every `fold_after` added documents.
    pub fn live_config(
        &self,
        fold_after: usize,
    ) -> anyhow::Result<neardup_dedup::live::LiveConfig> {
        Ok(neardup_dedup::live::LiveConfig {
            algorithm: self.algorithm.clone(),
            params: crate::params::parse_params(&self.params)?,
            min_words: self.min_words,
            fold_after,
        })
    }
}

/// `--extract`'s value.
pub fn parse_extract(name: &str) -> Result<Extract, String> {
    Extract::parse(name).ok_or_else(|| {
        format!(
            "unknown extraction `{name}`: expected one of {}",
            Extract::NAMES.join(", ")
        )
    })
}

/// Input formats on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// JSON Lines.
    Jsonl,
    /// CSV with a header.
    Csv,
    /// Parquet.
    Parquet,
    /// Directory of .txt files.
    Txt,
}

impl CorpusArgs {
    /// The load options these arguments describe.
    pub fn options(&self) -> LoadOptions {
        LoadOptions {
            format: self.input_format.map(|f| match f {
                FormatArg::Jsonl => Format::Jsonl,
                FormatArg::Csv => Format::Csv,
                FormatArg::Parquet => Format::Parquet,
                FormatArg::Txt => Format::Txt,
            }),
            fields: Fields {
                id: self.id_field.clone(),
                text: self
                    .html_field
                    .clone()
                    .unwrap_or_else(|| self.text_field.clone()),
                label: if self.no_labels {
                    None
                } else {
                    Some(self.label_field.clone().unwrap_or_else(|| "cluster".into()))
                },
            },
            label_required: self.label_field.is_some(),
            skip_invalid: self.skip_invalid,
            limit: self.limit.map(|l| l as usize),
            keep: Vec::new(),
            extract: self.html_field.as_ref().map(|_| self.extract),
        }
    }
}

/// A size with an optional unit (`4GiB`, `500MB`, bytes).
pub fn parse_size(s: &str) -> Result<u64, String> {
    neardup::resources::parse_bytes(s)
}

/// A parser for a choice among named values (the pipeline's enums know their names and
/// descriptions; clap stays out of the pipeline crate), listing them in `--help` as
/// `value_enum` would.
pub fn named_choice<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
    description: fn(T) -> &'static str,
) -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = all
        .iter()
        .map(|&v| PossibleValue::new(name(v)).help(description(v)));
    PossibleValuesParser::new(values).map(move |s| {
        *all.iter()
            .find(|&&v| name(v) == s)
            .expect("clap accepts only the listed names")
    })
}

/// `I/N` with 0 ≤ I < N.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}` is not a shard: expected I/N with 0 <= I < N, e.g. 0/4");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Parses `N` or `2^D`.
pub fn parse_count(s: &str) -> Result<f64, String> {
    let s = s.trim();
    if let Some((base, exp)) = s.split_once('^') {
        let (b, e): (f64, i32) = (
            base.trim()
                .parse()
                .map_err(|_| format!("bad base in `{s}`"))?,
            exp.trim()
                .parse()
                .map_err(|_| format!("bad exponent in `{s}`"))?,
        );
        return Ok(b.powi(e));
    }
    s.parse::<f64>()
        .map_err(|_| format!("`{s}` is not a number (or 2^D)"))
}
