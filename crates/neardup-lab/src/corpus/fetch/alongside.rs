//! The files a published dataset ships with beside its records — its licence, its notice —
//! taken from the same snapshot (`[[fetch.alongside]]` in the manifest), each recognized by
//! its SHA-256 and written next to the records, as `../shared/datasets/` has them
//! (`licenses.LICENSE.txt`, `bible-zh.LICENSE.txt`, …): whoever redistributes a fetched
//! corpus has its attribution at hand.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::archive::ArchiveFile;
use crate::corpus::manifest::{Alongside, FetchSpec};

/// Whether the snapshot's file at `path` is `from` (the snapshot's own path, under whatever
/// folder the archive, the download or the checkout puts it in).
fn is(from: &str, path: &str) -> bool {
    path == from
        || path
            .strip_suffix(from)
            .is_some_and(|folder| folder.ends_with('/'))
}

/// Whether `path` is one of the files `spec` ships beside the records.
pub fn wanted(spec: &FetchSpec, path: &str) -> bool {
    spec.alongside.iter().any(|a| is(&a.from, path))
}

fn sha256(bytes: &[u8]) -> String {
    neardup_dedup::input::checksummed::sha256_of(bytes).expect("reading memory cannot fail")
}

/// Each file `spec` ships beside the records, found among `files` by its path and its
/// SHA-256 (a checkout may hold several files so named): (its name in the data directory,
/// its bytes). A file missing, or only there with other bytes, is an error naming it.
pub fn found(spec: &FetchSpec, files: &[ArchiveFile]) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::with_capacity(spec.alongside.len());
    for a in &spec.alongside {
        let named: Vec<&ArchiveFile> = files.iter().filter(|f| is(&a.from, &f.path)).collect();
        match named.iter().find(|f| sha256(&f.bytes) == a.sha256) {
            Some(f) => out.push((a.file.clone(), f.bytes.clone())),
            None if named.is_empty() => {
                bail!("{}: not in the snapshot; nothing was written", a.from)
            }
            None => bail!(
                "{}: in the snapshot with sha256 {}, where the manifest expects {}; nothing \
                 was written",
                named[0].path,
                sha256(&named[0].bytes),
                a.sha256
            ),
        }
    }
    Ok(out)
}

/// Before any work: each file to write beside the records is absent, or already the one
/// expected (then left as it is); anything else there is an error, never overwritten.
pub fn check_targets(alongside: &[Alongside], data_dir: &Path) -> Result<()> {
    for a in alongside {
        let target = data_dir.join(&a.file);
        if target.exists() && !is_already(&target, &a.sha256) {
            bail!(
                "{}: a file is there that is not the one fetch writes (its checksum differs, \
                 or it is not a regular file); move it away to fetch",
                target.display()
            );
        }
    }
    Ok(())
}

fn is_already(target: &Path, sha: &str) -> bool {
    target.is_file() && std::fs::read(target).is_ok_and(|bytes| sha256(&bytes) == sha)
}

/// Writes the files `found` gave into `data_dir`, each atomically; those already there (as
/// [`check_targets`] found them) are left. Returns the paths written.
pub fn write(found: &[(String, Vec<u8>)], data_dir: &Path) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (name, bytes) in found {
        let target = data_dir.join(name);
        if target.exists() {
            continue;
        }
        neardup_dedup::fsutil::write_bytes(&target, bytes).map_err(|e| anyhow::anyhow!("{e}"))?;
        written.push(target);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(from: &str, text: &str) -> FetchSpec {
        FetchSpec {
            archive: None,
            files: Vec::new(),
            converter: String::new(),
            alongside: vec![Alongside {
                from: from.to_string(),
                file: "x.LICENSE.txt".to_string(),
                sha256: sha256(text.as_bytes()),
            }],
        }
    }

    /// The file is found under any folder but not by a longer name; among files so named,
    /// the one with the expected bytes; otherwise an error names the file.
    #[test]
    fn the_file_is_known_by_its_path_and_its_checksum() {
        let spec = spec("LICENSE", "MIT");
        assert!(wanted(&spec, "o/r/c/LICENSE") && wanted(&spec, "LICENSE"));
        assert!(!wanted(&spec, "o/r/c/NOT-LICENSE") && !wanted(&spec, "LICENSE.md"));
        let files = [
            ArchiveFile::of("sources/zh/ChiUn/LICENSE", "other"),
            ArchiveFile::of("LICENSE", "MIT"),
            ArchiveFile::of("README.md", "r"),
        ];
        assert_eq!(
            found(&spec, &files).unwrap(),
            [("x.LICENSE.txt".to_string(), b"MIT".to_vec())]
        );
        let e = found(&spec, &files[..1]).unwrap_err().to_string();
        assert!(
            e.contains("sources/zh/ChiUn/LICENSE: in the snapshot with sha256"),
            "{e}"
        );
        let e = found(&spec, &files[2..]).unwrap_err().to_string();
        assert!(e.contains("LICENSE: not in the snapshot"), "{e}");
    }

    /// A file there already is left when it is the expected one and refused otherwise,
    /// before anything is written; a missing one is written.
    #[test]
    fn files_there_are_kept_or_refused_never_replaced() {
        let dir = std::env::temp_dir().join(format!("neardup-alongside-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let spec = spec("LICENSE", "MIT");
        check_targets(&spec.alongside, &dir).unwrap();
        let found = vec![("x.LICENSE.txt".to_string(), b"MIT".to_vec())];
        assert_eq!(write(&found, &dir).unwrap(), [dir.join("x.LICENSE.txt")]);
        check_targets(&spec.alongside, &dir).unwrap();
        assert!(write(&found, &dir).unwrap().is_empty());
        std::fs::write(dir.join("x.LICENSE.txt"), "mine").unwrap();
        let e = check_targets(&spec.alongside, &dir)
            .unwrap_err()
            .to_string();
        assert!(e.contains("move it away"), "{e}");
        assert_eq!(std::fs::read(dir.join("x.LICENSE.txt")).unwrap(), b"mine");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
