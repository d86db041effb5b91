//! A directory of `.txt` files, searched recursively in sorted order. A document's id is its
//! path relative to the directory, without `.txt`; with the label field `dir`, its label is
//! its parent directory (files directly in the root are unlabelled).

use std::path::{Path, PathBuf};

use super::model::{Corpus, CorpusBuilder, LoadOptions};
use crate::error::{LabError, Result};

/// Loads every `.txt` file below `dir`.
pub fn load(dir: &Path, options: &LoadOptions) -> Result<Corpus> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    let mut builder = CorpusBuilder::new(dir);
    let by_dir = options.fields.label.as_deref() == Some("dir");
    let mut listing = sha2::Sha256::default();
    for (n, file) in files.iter().enumerate() {
        if options.limit.is_some_and(|l| builder.len() >= l) {
            break;
        }
        let rel = file.strip_prefix(dir).unwrap_or(file);
        let id = rel.with_extension("").to_string_lossy().replace('\\', "/");
        let text = match neardup::error::read_text_file(file) {
            Ok(t) => t,
            Err(e) => {
                builder.invalid(options.skip_invalid, e.into())?;
                continue;
            }
        };
        use sha2::Digest;
        listing.update(id.as_bytes());
        listing.update([0]);
        listing.update(text.as_bytes());
        listing.update([0]);
        let label = by_dir
            .then(|| rel.parent().map(|p| p.to_string_lossy().replace('\\', "/")))
            .flatten()
            .filter(|p| !p.is_empty());
        builder.push(n + 1, id, &text, label.as_deref())?;
    }
    use sha2::Digest;
    let sha = neardup_dedup::input::checksummed::hex(&listing.finalize());
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "txt".into());
    builder.finish(name, dir.display().to_string(), sha)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| LabError::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| LabError::io(dir, e))?;
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "txt") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Fields;

    #[test]
    fn ids_and_directory_labels() {
        let d = std::env::temp_dir().join(format!("neardup-txt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("mit")).unwrap();
        std::fs::write(d.join("mit/a.txt"), "one").unwrap();
        std::fs::write(d.join("mit/b.txt"), "two").unwrap();
        std::fs::write(d.join("c.txt"), "three").unwrap();
        std::fs::write(d.join("ignored.md"), "x").unwrap();
        let opts = LoadOptions {
            fields: Fields {
                label: Some("dir".into()),
                ..Fields::default()
            },
            ..LoadOptions::default()
        };
        let c = load(&d, &opts).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c.id(0), "c");
        assert_eq!(c.id(1), "mit/a");
        assert_eq!(c.label(0), None);
        assert_eq!(c.label(1), c.label(2));
        std::fs::write(d.join("bad.txt"), b"\xff").unwrap();
        let e = load(&d, &opts).unwrap_err().to_string();
        assert!(e.contains("bad.txt") && e.contains("UTF-8"), "{e}");
    }
}
