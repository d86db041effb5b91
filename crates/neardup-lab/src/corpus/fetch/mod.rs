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

/// The regular files of the `.tar.gz` at `path` whose paths `wanted` accepts.
fn read_archive(path: &Path, wanted: fn(&str) -> bool) -> Result<Vec<ArchiveFile>> {
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
