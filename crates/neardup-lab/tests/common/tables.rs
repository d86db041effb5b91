//! The audit tables of a `neardup dedup` output read back in the tests.

use std::path::Path;

use polars::prelude::*;

/// A Parquet file as a data frame.
pub fn frame(path: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(path).unwrap())
        .finish()
        .unwrap()
}

/// A string column's values (none missing).
pub fn strings(df: &DataFrame, name: &str) -> Vec<String> {
    let c = df.column(name).unwrap().str().unwrap().clone();
    (0..c.len())
        .map(|i| c.get(i).unwrap().to_string())
        .collect()
}
