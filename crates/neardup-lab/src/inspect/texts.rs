//! The texts of the documents a page shows, read back from the run's inputs: each input is
//! streamed once, a block at a time, and only the wanted documents' texts are kept (memory:
//! the sample, not the corpus). A record without an id is named by its document number
//! across the inputs, as `neardup dedup` names it.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use anyhow::Result;
use neardup_dedup::input::{Fields, expand, for_each_record_block};

/// id → text of every document of `inputs` (in order) whose id is in `wanted`.
pub fn collect(
    inputs: &[String],
    fields: &Fields,
    wanted: &HashSet<&str>,
) -> Result<HashMap<String, String>> {
    let mut found = HashMap::new();
    if wanted.is_empty() {
        return Ok(found);
    }
    let paths: Vec<PathBuf> = inputs.iter().map(PathBuf::from).collect();
    let mut number = 0u64;
    for file in expand(&paths)? {
        for_each_record_block(&file, fields, |block| {
            for r in block {
                let id = r.id.unwrap_or_else(|| number.to_string());
                number += 1;
                if wanted.contains(id.as_str()) {
                    found.insert(id, r.text.into_owned());
                }
            }
            Ok(())
        })?;
        if found.len() == wanted.len() {
            break;
        }
    }
    Ok(found)
}
