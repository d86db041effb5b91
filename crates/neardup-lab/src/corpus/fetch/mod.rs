//! `neardup datasets fetch NAME`: a corpus rebuilt from the upstream snapshot its manifest
//! names — the archive downloaded (or given with `--archive`), converted to the published
//! JSON Lines, checked against the manifest's `content_sha256` (the SHA-256 of the
//! uncompressed JSONL), then gzipped into the data directory. Nothing is put in place unless
//! the check passes, and a file already there is never overwritten.
//!
//! The check is on the uncompressed content: the published `.gz` files were written by
//! Python's zlib, whose level-9 bytes this build's pure-Rust deflate does not reproduce.
//! [`super::manifest::Manifest::load`] accepts such a file by its content, under the
//! published checksum, so every result keyed by it is unchanged.
//!
//! A converter per dataset: adding one is a file in this folder plus a line in
//! [`converter`].

mod archive;
mod licenses;
mod twenty_news;

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use archive::{ArchiveFile, Converter};

use super::manifest::Manifest;

/// The converter called `name` (`[fetch] converter` in a manifest).
fn converter(name: &str) -> Option<Converter> {
    match name {
        "20news-bydate" => Some(Converter {
            convert: twenty_news::convert,
            reads: |p| p.contains("/20news-bydate-"),
        }),
        "scancode-licenses" => Some(Converter {
            convert: licenses::convert_texts,
            reads: licenses::reads,
        }),
        "scancode-notices" => Some(Converter {
            convert: licenses::convert_notices,
            reads: licenses::reads,
        }),
        _ => None,
    }
}

/// Where the archive comes from.
#[derive(Debug)]
pub enum Source<'a> {
    /// The manifest's URL, or another (a mirror).
    Url(&'a str),
    /// A local copy.
    File(&'a Path),
}

/// Rebuilds `manifest`'s file in `data_dir` from `source` (the manifest's URL when `None`).
/// Returns what to tell the user.
pub fn fetch(manifest: &Manifest, data_dir: &Path, source: Option<Source<'_>>) -> Result<String> {
    let (spec, content_sha256) = match (&manifest.fetch, &manifest.content_sha256) {
        (Some(spec), Some(sum)) => (spec, sum),
        _ => bail!(
            "dataset `{}` has no converter yet: build it from its source as \
             ../shared/datasets/README.md describes ({})",
            manifest.name,
            manifest.source
        ),
    };
    let to_jsonl = converter(&spec.converter).with_context(|| {
        format!(
            "datasets/{}.toml: no converter `{}`",
            manifest.name, spec.converter
        )
    })?;
    let target = manifest.path(data_dir);
    if target.exists() {
        return already_there(manifest, &target);
    }
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create {}", data_dir.display()))?;
    let downloaded;
    let archive = match source.unwrap_or(Source::Url(&spec.archive)) {
        Source::File(path) => path,
        Source::Url(url) => {
            downloaded = download(url, &target)?;
            downloaded.path()
        }
    };
    let files = read_archive(archive, to_jsonl.reads)?;
    let built =
        (to_jsonl.convert)(files).map_err(|e| anyhow::anyhow!("{}: {e}", archive.display()))?;
    let got = neardup_dedup::input::checksummed::sha256_of(&built.jsonl[..])?;
    if &got != content_sha256 {
        bail!(
            "{}: the {} documents built have content sha256 {got}, where manifest {} expects \
             {content_sha256}: the archive is not the snapshot the manifest names (or the \
             converter is wrong); nothing was written",
            archive.display(),
            built.documents,
            manifest.name
        );
    }
    write_gzip(&target, &built.jsonl)?;
    Ok(format!(
        "{}: {} documents, content sha256 {got} as the manifest expects; wrote {}",
        manifest.name,
        built.documents,
        target.display()
    ))
}

/// A file already at the target is checked, never replaced.
fn already_there(manifest: &Manifest, target: &Path) -> Result<String> {
    if target.is_file() && manifest.matches(target)? {
        return Ok(format!(
            "{}: {} is there already and verifies; nothing to do",
            manifest.name,
            target.display()
        ));
    }
    bail!(
        "{}: a file is there that is not {}'s (its checksum differs, or it is not a regular \
         file); move it away to fetch",
        target.display(),
        manifest.name
    )
}

/// A downloaded archive, removed when dropped (it is the tool's own file).
struct Download(PathBuf);

impl Download {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Download {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Downloads `url` beside `target` with `curl` (present on every system this runs on, with
/// TLS, proxies and retries; a Rust HTTP stack would add megabytes to a binary that fetches
/// once).
fn download(url: &str, target: &Path) -> Result<Download> {
    let part = PathBuf::from(format!("{}.download.part", target.display()));
    if part.exists() {
        bail!(
            "{} exists (an interrupted fetch?): remove it to fetch again",
            part.display()
        );
    }
    eprintln!("neardup: downloading {url}");
    let status = std::process::Command::new("curl")
        .args(["--fail", "--location", "--retry", "3", "--output"])
        .arg(&part)
        .arg(url)
        .status();
    let download = Download(part);
    match status {
        Ok(s) if s.success() => Ok(download),
        Ok(s) => bail!("downloading {url} failed (curl: {s}); nothing was written"),
        Err(e) => bail!(
            "cannot run curl to download {url} ({e}): download the archive yourself and \
             give it with --archive FILE"
        ),
    }
}

/// The regular files of the archive at `path` — a `.tar.gz`, or a zip (a Python wheel) —
/// whose paths `wanted` accepts.
fn read_archive(path: &Path, wanted: fn(&str) -> bool) -> Result<Vec<ArchiveFile>> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut magic = [0u8; 4];
    let is_zip = file.read_exact(&mut magic).is_ok() && magic == *b"PK\x03\x04";
    drop(file);
    if is_zip {
        read_zip(path, wanted)
    } else {
        read_tar_gz(path, wanted)
    }
}

/// [`read_archive`] of a `.tar.gz`.
fn read_tar_gz(path: &Path, wanted: fn(&str) -> bool) -> Result<Vec<ArchiveFile>> {
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

/// [`read_archive`] of a zip.
fn read_zip(path: &Path, wanted: fn(&str) -> bool) -> Result<Vec<ArchiveFile>> {
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

/// Writes `jsonl` gzipped (no name, no time: the same bytes on every machine) to `target`,
/// atomically.
fn write_gzip(target: &Path, jsonl: &[u8]) -> Result<()> {
    use std::io::Write;
    neardup_dedup::fsutil::write_atomic(target, |w| {
        let mut gz = flate2::GzBuilder::new()
            .mtime(0)
            .operating_system(255)
            .write(w, flate2::Compression::best());
        gz.write_all(jsonl)?;
        gz.finish().map(|_| ())
    })
    .map_err(|e| anyhow::anyhow!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wheel is a zip: its wanted files are read (a deflated and a stored one), the rest
    /// and the directories are not, and a file that is neither archive is refused by name.
    #[test]
    fn a_zip_archive_is_read_like_a_tar_gz() {
        use std::io::Write as _;
        let dir = std::env::temp_dir().join(format!("neardup-fetch-zip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.whl");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        let deflated = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let stored = deflated.compression_method(zip::CompressionMethod::Stored);
        zip.add_directory("licensedcode/data/licenses/", stored)
            .unwrap();
        zip.start_file("licensedcode/data/licenses/mit.LICENSE", deflated)
            .unwrap();
        zip.write_all(&b"mit text ".repeat(100)).unwrap();
        zip.start_file("licensedcode/data/rules/mit_1.RULE", stored)
            .unwrap();
        zip.write_all(b"rule text").unwrap();
        zip.start_file("licensedcode/__init__.py", stored).unwrap();
        zip.write_all(b"").unwrap();
        zip.finish().unwrap();
        let files = read_archive(&path, licenses::reads).unwrap();
        let got: Vec<(&str, usize)> = files
            .iter()
            .map(|f| (f.path.as_str(), f.bytes.len()))
            .collect();
        assert_eq!(
            got,
            [
                ("licensedcode/data/licenses/mit.LICENSE", 900),
                ("licensedcode/data/rules/mit_1.RULE", 9)
            ]
        );
        std::fs::write(&path, b"neither").unwrap();
        let err = read_archive(&path, licenses::reads)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("x.whl") && err.contains("not a readable"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
