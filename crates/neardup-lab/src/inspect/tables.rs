//! Reading a dedup run's audit tables back, in the format it wrote them (`--clusters-format
//! parquet | csv | jsonl`): `pairs.*` (id_a, id_b, similarity, stage) and `clusters.*` (id,
//! cluster, cluster_size, kept, representative, similarity_to_representative).

use std::path::Path;

use anyhow::{Context, Result, bail};
use polars::prelude::*;
use serde::Deserialize;

/// The stages of an `eval --dump` pair, in the order the page shows them (a `dedup` run's
/// pairs have the detector's stages instead).
pub const OUTCOMES: [&str; 4] = ["missed", "false positive", "true positive", "unlabelled"];

/// A row of `pairs.*`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PairRow {
    pub id_a: String,
    pub id_b: String,
    pub similarity: Option<f64>,
    pub stage: String,
}

/// A row of `clusters.*`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ClusterRow {
    pub id: String,
    pub cluster: u32,
    pub cluster_size: u32,
    pub kept: bool,
    pub representative: String,
    #[serde(rename = "similarity_to_representative")]
    pub similarity: Option<f64>,
}

/// The pairs and clusters tables `tables` (summary.json's list) names in `dir`.
pub fn read(dir: &Path, tables: &serde_json::Value) -> Result<(Vec<PairRow>, Vec<ClusterRow>)> {
    let names: Vec<&str> = tables
        .as_array()
        .map(|t| t.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let find = |stem: &str| {
        names
            .iter()
            .find(|n| n.starts_with(&format!("{stem}.")))
            .map(|n| dir.join(n))
            .with_context(|| {
                format!(
                    "{}: summary.json lists no {stem} table (a run before the audit tables; rerun dedup)",
                    dir.display()
                )
            })
    };
    let (pairs, clusters) = (find("pairs")?, find("clusters")?);
    Ok((rows(&pairs)?, rows(&clusters)?))
}

/// Every row of one table, by its extension.
fn rows<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let what = || format!("{}", path.display());
    match ext {
        "jsonl" => {
            let text = std::fs::read_to_string(path).with_context(what)?;
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, l)| {
                    serde_json::from_str(l).with_context(|| {
                        format!("{}:{}: not a row of this table", path.display(), i + 1)
                    })
                })
                .collect()
        }
        "csv" => {
            let mut reader = csv::Reader::from_path(path).with_context(what)?;
            reader
                .deserialize()
                .enumerate()
                .map(|(i, r)| {
                    r.with_context(|| {
                        format!("{}:{}: not a row of this table", path.display(), i + 2)
                    })
                })
                .collect()
        }
        "parquet" => {
            let file = std::fs::File::open(path).with_context(what)?;
            let frame = ParquetReader::new(file).finish().map_err(|e| {
                anyhow::anyhow!("{}: not a readable Parquet table: {e}", path.display())
            })?;
            frame_rows(&frame).with_context(what)
        }
        other => bail!("{}: unknown table format `{other}`", path.display()),
    }
}

/// A frame's rows through JSON objects (the tables are small beside the corpus: one row per
/// document or pair).
fn frame_rows<T: for<'de> Deserialize<'de>>(frame: &DataFrame) -> Result<Vec<T>> {
    let columns = frame.columns();
    (0..frame.height())
        .map(|i| {
            let mut obj = serde_json::Map::new();
            for c in columns {
                let v = match c.get(i)? {
                    AnyValue::Null => serde_json::Value::Null,
                    AnyValue::Boolean(b) => b.into(),
                    AnyValue::String(s) => s.into(),
                    AnyValue::StringOwned(s) => s.as_str().into(),
                    AnyValue::Float64(x) => x.into(),
                    AnyValue::Float32(x) => f64::from(x).into(),
                    AnyValue::UInt32(x) => x.into(),
                    AnyValue::UInt64(x) => x.into(),
                    AnyValue::Int32(x) => x.into(),
                    AnyValue::Int64(x) => x.into(),
                    other => bail!("column {}: unexpected value {other}", c.name()),
                };
                obj.insert(c.name().to_string(), v);
            }
            Ok(serde_json::from_value(serde_json::Value::Object(obj))?)
        })
        .collect()
}
