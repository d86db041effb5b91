//! `DIR/live-meta/LOG_ID.jsonl`: the URL and time of each document a fold committed (segments
//! hold ids and signatures only).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::doc::DocMeta;
use crate::error::{Error, Result};

/// The folder under the index folder.
const META_DIR: &str = "live-meta";

/// Writes the folded documents' URLs and times as `DIR/live-meta/LOG_ID.jsonl`.
pub(super) fn write_folded_meta(
    dir: &Path,
    log_id: &str,
    meta: &[(String, DocMeta)],
) -> Result<()> {
    let folder = dir.join(META_DIR);
    std::fs::create_dir_all(&folder).map_err(|e| Error::io(&folder, e))?;
    let path = folder.join(format!("{log_id}.jsonl"));
    crate::fsutil::write_atomic(&path, |w| {
        for (id, m) in meta {
            let line = serde_json::json!({"id": id, "url": m.url, "added_ms": m.added_ms});
            serde_json::to_writer(&mut *w, &line)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// Every folded document's URL and time (the last one written for an id).
pub(super) fn read_folded_meta(dir: &Path) -> Result<HashMap<String, DocMeta>> {
    let folder = dir.join(META_DIR);
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Ok(out);
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    #[derive(Deserialize)]
    struct Line {
        id: String,
        url: Option<String>,
        added_ms: u64,
    }
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        for (n, line) in text.lines().enumerate() {
            let l: Line = serde_json::from_str(line)
                .map_err(|e| Error::line(&path, n + 1, format!("not a document's facts: {e}")))?;
            out.insert(
                l.id,
                DocMeta {
                    url: l.url,
                    added_ms: l.added_ms,
                },
            );
        }
    }
    Ok(out)
}
