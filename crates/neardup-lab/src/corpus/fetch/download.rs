//! Downloads for `neardup datasets fetch`, with `curl` (present on every system this runs
//! on, with TLS, proxies and retries; a Rust HTTP stack would add megabytes to a binary that
//! fetches once). A download lands beside the target as `<target>.download.part` and is
//! removed once read: the tool's own file, never one that was there before.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::archive::ArchiveFile;

/// A downloaded file, removed when dropped.
pub struct Download(PathBuf);

impl Download {
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Download {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Downloads `url` to `<target>.download.part`, which must not exist.
pub fn one(url: &str, target: &Path) -> Result<Download> {
    let part = PathBuf::from(format!("{}.download.part", target.display()));
    if part.exists() {
        bail!(
            "{} exists (an interrupted fetch?): remove it to fetch again",
            part.display()
        );
    }
    eprintln!("neardup: downloading {url}");
    let status = std::process::Command::new("curl")
        .args([
            "--fail",
            "--location",
            "--retry",
            "3",
            "--silent",
            "--show-error",
        ])
        .arg("--output")
        .arg(&part)
        .arg(url)
        .status();
    let download = Download(part);
    match status {
        Ok(s) if s.success() => Ok(download),
        Ok(s) => bail!("downloading {url} failed (curl: {s}); nothing was written"),
        Err(e) => bail!(
            "cannot run curl to download {url} ({e}): download the snapshot yourself and \
             give it with --archive (the archive, or a folder holding its files)"
        ),
    }
}

/// The path of `url` after its host (`https://host/a/b.txt` is `a/b.txt`): a listed file's
/// path in the snapshot, which converters recognize it by.
pub fn path_of(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme.split_once('/').map_or("", |(_, path)| path)
}

/// Downloads the snapshot's `files` one after the other — from `mirror/<file name>` when a
/// mirror is given — each read under its path in the snapshot.
pub fn files(files: &[String], mirror: Option<&str>, target: &Path) -> Result<Vec<ArchiveFile>> {
    let mut out = Vec::with_capacity(files.len());
    for url in files {
        let path = path_of(url);
        let from = match mirror {
            Some(base) => {
                let name = path.rsplit('/').next().unwrap_or(path);
                format!("{}/{name}", base.trim_end_matches('/'))
            }
            None => url.clone(),
        };
        let download = one(&from, target)?;
        let bytes = std::fs::read(download.path())
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", download.path().display()))?;
        out.push(ArchiveFile {
            path: path.to_string(),
            bytes,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_file_is_known_by_its_path_in_the_snapshot() {
        assert_eq!(
            path_of("https://raw.githubusercontent.com/o/r/abc/formats/txt/ChiUn.txt"),
            "o/r/abc/formats/txt/ChiUn.txt"
        );
        assert_eq!(path_of("http://127.0.0.1:8000/x.txt"), "x.txt");
        assert_eq!(path_of("http://host"), "");
    }
}
