//! [`load`]: a corpus from any supported file, by its format's loader, extracted when asked,
//! after checking it fits `--max-memory`.

use std::path::Path;

use super::model::{Corpus, Format, LoadOptions};
use super::{csv_file, jsonl, pages, parquet, txt_dir};
use crate::error::{LabError, Result};

/// Loads a corpus from a file or directory.
pub fn load(path: &Path, options: &LoadOptions) -> Result<Corpus> {
    if !path.exists() {
        return Err(LabError::file(path, "no such file or directory"));
    }
    let format = match options.format.or_else(|| Format::guess(path)) {
        Some(f) => f,
        None => {
            return Err(LabError::file(
                path,
                "cannot tell the format from the name; expected .jsonl, .csv (either optionally .gz or .zst), .parquet or a directory of .txt files",
            ));
        }
    };
    check_fits_in_memory(path)?;
    let corpus = match format {
        Format::Jsonl => jsonl::load(path, options),
        Format::Csv => csv_file::load(path, options),
        Format::Parquet => parquet::load(path, options),
        Format::Txt => txt_dir::load(path, options),
    }?;
    let corpus = match options.extract {
        Some(mode) => pages::reading::extracted(&corpus, mode),
        None => Ok(corpus),
    }?;
    // What an index built next is counted beside (`--max-memory` bounds the process).
    if let Some(rss) = neardup_dedup::machine::rss_bytes() {
        neardup::resources::set_held_bytes(rss);
    }
    Ok(corpus)
}

/// The workbench holds a corpus in memory: one whose bytes on disk alone pass
/// `--max-memory` is refused before it is read, with the least limit that loads it (its
/// size, half as much again for ids and offsets, and the process: measured, 286 MB of JSONL
/// took 310 MB loaded).
fn check_fits_in_memory(path: &Path) -> Result<()> {
    let Ok(Some(limit)) = neardup::resources::memory_limit() else {
        return Ok(());
    };
    let size = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => m.len(),
        _ => return Ok(()),
    };
    if size <= limit {
        return Ok(());
    }
    let need = (size + size / 2 + (64 << 20)).div_ceil(1 << 20);
    Err(LabError::file(
        path,
        format!(
            "this command holds the corpus in memory, and its {} on disk alone pass \
             --max-memory {}; give --max-memory {need}MiB or more (an algorithm's index comes \
             on top, and is checked before it is built), or deduplicate it with `neardup dedup \
             --memory`, which streams",
            neardup::resources::human_bytes(size),
            neardup::resources::human_bytes(limit),
        ),
    ))
}
