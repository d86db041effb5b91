//! The snapshot's files a converter reads, from an archive — a `.tar.gz`, or a zip (a Python
//! wheel) — or from a folder holding them (a checkout of the upstream repository).

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};

use super::archive::ArchiveFile;

/// The regular files of the archive or folder at `path` whose paths `wanted` accepts.
pub fn local(path: &Path, wanted: &dyn Fn(&str) -> bool) -> Result<Vec<ArchiveFile>> {
    if path.is_dir() {
        let mut files = Vec::new();
        folder(path, "", wanted, &mut files)?;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    } else {
        archive(path, wanted)
    }
}

/// [`local`] of a folder: paths relative to it, `/`-separated; symbolic links are not
/// followed (a checkout has none the converters read).
fn folder(
    dir: &Path,
    prefix: &str,
    wanted: &dyn Fn(&str) -> bool,
    files: &mut Vec<ArchiveFile>,
) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read folder {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read folder {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{prefix}{name}");
        let kind = entry
            .file_type()
            .with_context(|| format!("cannot read {}", entry.path().display()))?;
        if kind.is_dir() {
            folder(&entry.path(), &format!("{path}/"), wanted, files)?;
        } else if kind.is_file() && wanted(&path) {
            let bytes = std::fs::read(entry.path())
                .with_context(|| format!("cannot read {}", entry.path().display()))?;
            files.push(ArchiveFile { path, bytes });
        }
    }
    Ok(())
}

/// [`local`] of an archive.
pub fn archive(path: &Path, wanted: &dyn Fn(&str) -> bool) -> Result<Vec<ArchiveFile>> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut magic = [0u8; 4];
    let is_zip = file.read_exact(&mut magic).is_ok() && magic == *b"PK\x03\x04";
    drop(file);
    if is_zip {
        from_zip(path, wanted)
    } else {
        from_tar_gz(path, wanted)
    }
}

/// [`archive`] of a `.tar.gz`.
fn from_tar_gz(path: &Path, wanted: &dyn Fn(&str) -> bool) -> Result<Vec<ArchiveFile>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut files = Vec::new();
    let damaged = |e: std::io::Error| {
        anyhow::anyhow!("{}: not a readable .tar.gz archive ({e})", path.display())
    };
    for entry in archive.entries().map_err(damaged)? {
        let mut entry = entry.map_err(damaged)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .map_err(damaged)?
            .to_string_lossy()
            .into_owned();
        if wanted(&name) {
            let mut bytes = Vec::with_capacity(entry.size() as usize);
            entry.read_to_end(&mut bytes).map_err(damaged)?;
            files.push(ArchiveFile { path: name, bytes });
        }
    }
    Ok(files)
}

/// [`archive`] of a zip.
fn from_zip(path: &Path, wanted: &dyn Fn(&str) -> bool) -> Result<Vec<ArchiveFile>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let damaged =
        |e: &dyn std::fmt::Display| anyhow::anyhow!("{}: not a readable zip ({e})", path.display());
    let mut archive = zip::ZipArchive::new(file).map_err(|e| damaged(&e))?;
    let mut files = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| damaged(&e))?;
        let name = entry.name().map_err(|e| damaged(&e))?.to_string();
        if entry.is_file() && wanted(&name) {
            let mut bytes = Vec::with_capacity(entry.size() as usize);
            entry.read_to_end(&mut bytes).map_err(|e| damaged(&e))?;
            files.push(ArchiveFile { path: name, bytes });
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder (a checkout) is read like an archive: the wanted files by their paths
    /// relative to it, in path order, nothing else.
    #[test]
    fn a_folder_is_read_like_an_archive() {
        let dir = std::env::temp_dir().join(format!("neardup-fetch-folder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("formats/txt")).unwrap();
        std::fs::create_dir_all(dir.join("formats/json")).unwrap();
        std::fs::write(dir.join("formats/txt/b.txt"), "b").unwrap();
        std::fs::write(dir.join("formats/txt/a.txt"), "a").unwrap();
        std::fs::write(dir.join("formats/json/a.json"), "{}").unwrap();
        std::fs::write(dir.join("README.md"), "r").unwrap();
        let files = local(&dir, &|p: &str| p.ends_with(".txt")).unwrap();
        let got: Vec<(&str, &[u8])> = files
            .iter()
            .map(|f| (f.path.as_str(), f.bytes.as_slice()))
            .collect();
        assert_eq!(
            got,
            [
                ("formats/txt/a.txt", &b"a"[..]),
                ("formats/txt/b.txt", &b"b"[..])
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
