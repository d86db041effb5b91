//! `neardup datasets fetch NAME`: a corpus rebuilt from the upstream snapshot its manifest
//! names — the archive, or the snapshot's files, downloaded (or given with `--archive`: the
//! archive, or a folder holding the files, such as a checkout), converted to the published
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

mod alongside;
mod archive;
mod bible;
mod download;
mod licenses;
mod read;
mod twenty_news;

use std::path::Path;

use anyhow::{Context, Result, bail};
use archive::{ArchiveFile, Converter};

use super::manifest::{FetchSpec, Manifest};

/// The converter called `name` (`[fetch] converter` in a manifest).
fn converter(name: &str) -> Option<Converter> {
    match name {
        "20news-bydate" => Some(Converter {
            convert: twenty_news::convert,
            reads: |p| p.contains("/20news-bydate-"),
        }),
        "scrollmapper-bible-en" => Some(Converter {
            convert: bible::convert_english,
            reads: bible::reads_english,
        }),
        "scrollmapper-bible-zh" => Some(Converter {
            convert: bible::convert_chinese,
            reads: bible::reads_chinese,
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

/// Where the snapshot comes from.
#[derive(Debug)]
pub enum Source<'a> {
    /// The manifest's URL, or another (a mirror); for a manifest that lists files, the
    /// folder URL each file's name is appended to.
    Url(&'a str),
    /// A local copy: the archive, or a folder holding the files.
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
    alongside::check_targets(&spec.alongside, data_dir)?;
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create {}", data_dir.display()))?;
    let wanted = |path: &str| (to_jsonl.reads)(path) || alongside::wanted(spec, path);
    let Fetched { mut files, from } = read_source(spec, source, &target, &wanted)?;
    let beside = alongside::found(spec, &files).map_err(|e| anyhow::anyhow!("{from}: {e}"));
    files.retain(|f| (to_jsonl.reads)(&f.path));
    let built = (to_jsonl.convert)(files).map_err(|e| anyhow::anyhow!("{from}: {e}"))?;
    let got = neardup_dedup::input::checksummed::sha256_of(&built.jsonl[..])?;
    if &got != content_sha256 {
        bail!(
            "{}: the {} documents built have content sha256 {got}, where manifest {} expects \
             {content_sha256}: the source is not the snapshot the manifest names (or the \
             converter is wrong); nothing was written",
            from,
            built.documents,
            manifest.name
        );
    }
    // The files beside the records first: the records' file is what says a fetch is done.
    let beside = alongside::write(&beside?, data_dir)?;
    write_gzip(&target, &built.jsonl)?;
    let beside: Vec<String> = beside.iter().map(|p| p.display().to_string()).collect();
    Ok(format!(
        "{}: {} documents, content sha256 {got} as the manifest expects; wrote {}{}",
        manifest.name,
        built.documents,
        target.display(),
        if beside.is_empty() {
            String::new()
        } else {
            format!(" and beside it {}", beside.join(", "))
        }
    ))
}

/// The snapshot's files a converter reads, and where they came from (for messages).
struct Fetched {
    files: Vec<ArchiveFile>,
    from: String,
}

/// Reads the snapshot from `source`: a local archive or folder, or downloaded — the
/// manifest's archive or files, or those of a mirror.
fn read_source(
    spec: &FetchSpec,
    source: Option<Source<'_>>,
    target: &Path,
    wanted: &dyn Fn(&str) -> bool,
) -> Result<Fetched> {
    let mirror = match source {
        Some(Source::File(path)) => {
            return Ok(Fetched {
                files: read::local(path, wanted)?,
                from: path.display().to_string(),
            });
        }
        Some(Source::Url(url)) => Some(url),
        None => None,
    };
    match (&spec.archive, spec.files.as_slice()) {
        (Some(archive), []) => {
            let url = mirror.unwrap_or(archive);
            let downloaded = download::one(url, target)?;
            Ok(Fetched {
                files: read::archive(downloaded.path(), wanted)?,
                from: url.to_string(),
            })
        }
        (None, [first, ..]) => {
            let files = download::files(&spec.files, mirror, target)?;
            let files = files.into_iter().filter(|f| wanted(&f.path)).collect();
            Ok(Fetched {
                files,
                from: mirror.unwrap_or(first).to_string(),
            })
        }
        _ => bail!("a manifest's [fetch] names an archive or files, one of the two"),
    }
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

    /// Every embedded manifest can be fetched: its `[fetch]` names a converter this build has
    /// and an archive or files (one of the two), and it carries the content checksum the
    /// rebuilt records are checked against. A manifest without `[fetch]` says where the
    /// corpus comes from instead.
    #[test]
    fn every_manifest_names_a_converter_and_one_source() {
        for manifest in crate::corpus::manifest::all() {
            let spec = manifest
                .fetch
                .as_ref()
                .unwrap_or_else(|| panic!("{}", manifest.name));
            assert!(converter(&spec.converter).is_some(), "{}", manifest.name);
            assert!(
                spec.archive.is_some() == spec.files.is_empty(),
                "{}: archive or files",
                manifest.name
            );
            assert!(manifest.content_sha256.is_some(), "{}", manifest.name);
        }
        let mut manifest = crate::corpus::manifest::find("bible-en").unwrap();
        manifest.fetch = None;
        let e = fetch(&manifest, Path::new("/nonexistent"), None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no converter yet") && e.contains("scrollmapper"),
            "{e}"
        );
    }

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
        let files = read::archive(&path, &licenses::reads).unwrap();
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
        let err = read::archive(&path, &licenses::reads)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("x.whl") && err.contains("not a readable"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
