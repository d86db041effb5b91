//! The stage files and outputs this crate writes itself, read back through polars, with every
//! failure (a panic of the reader included) an error naming the file. Inputs, which anyone
//! may have written, go through `input::parquet` instead: polars-parquet allocates the counts
//! a corrupt file declares.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use crate::error::{Error, Result};

/// Reads a whole Parquet file into a frame; every failure is an error naming the file.
pub fn read_frame(path: &Path) -> Result<DataFrame> {
    read_frame_with(path, |reader| reader.finish())
}

/// Reads a Parquet file with a configured reader (columns, a slice of rows, its metadata);
/// every failure is an error naming the file.
pub fn read_frame_with<T>(
    path: &Path,
    read: impl FnOnce(ParquetReader<File>) -> PolarsResult<T>,
) -> Result<T> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // polars-parquet 0.55 panics on some malformed metadata instead of returning an error
    // (found by fuzzing: `expect("thrift bool field")` in its thrift reader), so a corrupt
    // file would abort the whole run. Its panic becomes this file's error.
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        read(ParquetReader::new(file))
    }));
    match read {
        Ok(df) => df.map_err(|e| Error::file(path, format!("cannot read Parquet: {e}"))),
        Err(panic) => {
            let why = crate::error::panic_reason(panic.as_ref());
            Err(Error::file(
                path,
                format!("cannot read Parquet: the reader failed on corrupt metadata ({why})"),
            ))
        }
    }
}
