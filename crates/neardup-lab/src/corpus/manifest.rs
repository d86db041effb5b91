//! Dataset manifests (`datasets/*.toml`, embedded at build time): name, file, format, fields,
//! license, source and SHA-256 of each real corpus the project knows. The files themselves
//! live in the data directory: `--data-dir`, else `$NEARDUP_DATA_DIR`, else `datasets/cache`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::model::{Corpus, Fields, Format, LoadOptions};
use crate::error::{LabError, Result};

include!(concat!(env!("OUT_DIR"), "/manifests.rs"));

/// One dataset manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Short name used on the command line and in experiments.
    pub name: String,
    /// File name inside the data directory.
    pub file: String,
    /// Format of the file.
    pub format: Format,
    /// One line.
    pub description: String,
    /// License as stated upstream.
    pub license: String,
    /// Where it came from.
    pub source: String,
    /// Expected SHA-256 of the file.
    pub sha256: String,
    /// SHA-256 of the uncompressed JSONL: what a file rebuilt by `neardup datasets fetch`
    /// (gzipped by another deflate than the published one) is recognized by.
    #[serde(default)]
    pub content_sha256: Option<String>,
    /// Where `neardup datasets fetch` rebuilds it from (`[fetch]`).
    #[serde(default)]
    pub fetch: Option<FetchSpec>,
    /// Expected number of documents.
    pub docs: usize,
    /// Field names.
    #[serde(default)]
    pub fields: Fields,
    /// Keep only the records whose field has this value (`[filter] translation = "ChiUn"`):
    /// one file can give several datasets.
    #[serde(default)]
    pub filter: std::collections::BTreeMap<String, String>,
}

/// Where `neardup datasets fetch` rebuilds a corpus from (`[fetch]` in `datasets/NAME.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchSpec {
    /// The upstream snapshot: a `.tar.gz` or zip archive's URL.
    #[serde(default)]
    pub archive: Option<String>,
    /// Or the snapshot's files the converter reads, one URL each: where the whole snapshot
    /// is far larger than they are (bible-zh reads 10 MB of a 1 GB commit).
    #[serde(default)]
    pub files: Vec<String>,
    /// The converter that builds the JSONL from it (`corpus::fetch`).
    pub converter: String,
    /// Files of the snapshot the dataset ships with beside its records (its licence, its
    /// notice), written next to them.
    #[serde(default)]
    pub alongside: Vec<Alongside>,
}

/// A file of the snapshot written beside the records (`[[fetch.alongside]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alongside {
    /// Its path in the snapshot (under the archive's top folder, if any).
    pub from: String,
    /// Its name in the data directory.
    pub file: String,
    /// Its SHA-256: what it is recognized by.
    pub sha256: String,
}

impl Manifest {
    /// The file's path in `data_dir`.
    pub fn path(&self, data_dir: &Path) -> PathBuf {
        data_dir.join(&self.file)
    }

    /// Loads the corpus from `data_dir` and checks its checksum and size.
    pub fn load(&self, data_dir: &Path) -> Result<Corpus> {
        let path = self.path(data_dir);
        let options = LoadOptions {
            format: Some(self.format),
            fields: self.fields.clone(),
            keep: self
                .filter
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            ..LoadOptions::default()
        };
        let mut corpus = super::load(&path, &options)?;
        if corpus.sha256 != self.sha256 && self.is_rebuilt(&path)? {
            // The same records recompressed (`datasets fetch`): known by the published
            // checksum, so every result keyed by it is the same.
            corpus.sha256 = self.sha256.clone();
        }
        if corpus.sha256 != self.sha256 {
            return Err(LabError::file(
                &path,
                format!(
                    "wrong checksum: sha256 {} but manifest {} expects {}",
                    corpus.sha256, self.name, self.sha256
                ),
            ));
        }
        if corpus.len() != self.docs {
            return Err(LabError::file(
                &path,
                format!(
                    "{} documents where manifest {} expects {}",
                    corpus.len(),
                    self.name,
                    self.docs
                ),
            ));
        }
        if !self.filter.is_empty() {
            // A filtered corpus is not the file: its checksum (the key of cached truths and
            // cells) names the filter too.
            use sha2::Digest;
            let mut h = sha2::Sha256::new();
            h.update(corpus.sha256.as_bytes());
            for (k, v) in &self.filter {
                h.update(format!("\0{k}={v}").as_bytes());
            }
            corpus.sha256 = neardup_dedup::input::checksummed::hex(&h.finalize());
            corpus.source = format!("{} ({} only)", corpus.source, {
                let f: Vec<String> = self
                    .filter
                    .iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect();
                f.join(", ")
            });
        }
        corpus.name = self.name.clone();
        Ok(corpus)
    }
}

impl Manifest {
    /// Whether the file at `path` is this dataset: the published bytes, or the same records
    /// recompressed.
    pub fn matches(&self, path: &Path) -> Result<bool> {
        let sum = neardup_dedup::input::checksummed::sha256_file(path)
            .map_err(|e| LabError::file(path, e.to_string()))?;
        Ok(sum == self.sha256 || self.is_rebuilt(path)?)
    }

    /// Whether the gzip file at `path` holds exactly the published records (its uncompressed
    /// SHA-256 is `content_sha256`).
    pub fn is_rebuilt(&self, path: &Path) -> Result<bool> {
        let Some(want) = &self.content_sha256 else {
            return Ok(false);
        };
        let file = std::fs::File::open(path).map_err(|e| LabError::file(path, e.to_string()))?;
        let gz = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
        // Not gzip, or damaged: not the rebuilt file.
        Ok(neardup_dedup::input::checksummed::sha256_of(gz).is_ok_and(|sum| &sum == want))
    }
}

/// Every embedded manifest, sorted by name.
pub fn all() -> Vec<Manifest> {
    let mut v: Vec<Manifest> = MANIFESTS
        .iter()
        .map(|(file, text)| {
            toml::from_str(text)
                .unwrap_or_else(|e| panic!("embedded manifest datasets/{file} is invalid: {e}"))
        })
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// The manifest called `name`.
pub fn find(name: &str) -> Result<Manifest> {
    let all = all();
    all.iter().find(|m| m.name == name).cloned().ok_or_else(|| {
        LabError::file(
            Path::new("datasets"),
            format!(
                "no dataset manifest named `{name}` (known: {})",
                all.iter()
                    .map(|m| m.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })
}

/// The data directory: the flag, else `$NEARDUP_DATA_DIR`, else `datasets/cache`.
pub fn data_dir(flag: Option<&Path>) -> PathBuf {
    flag.map(Path::to_path_buf)
        .or_else(|| {
            std::env::var_os("NEARDUP_DATA_DIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from("datasets/cache"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gzip(bytes: &[u8], level: u32) -> Vec<u8> {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    }

    fn sha256_hex(bytes: &[u8]) -> String {
        use sha2::Digest;
        neardup_dedup::input::checksummed::hex(&sha2::Sha256::digest(bytes))
    }

    /// A file of the published records compressed otherwise (what `datasets fetch` writes)
    /// loads under the published checksum; other records do not load.
    #[test]
    fn recompressed_records_load_as_the_published_file() {
        let dir = std::env::temp_dir().join(format!("neardup-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let records = b"{\"id\":\"a\",\"text\":\"one two\"}\n{\"id\":\"b\",\"text\":\"three\"}\n";
        let published = gzip(records, 1);
        let manifest = Manifest {
            name: "tiny".into(),
            file: "tiny.jsonl.gz".into(),
            format: Format::Jsonl,
            description: String::new(),
            license: String::new(),
            source: String::new(),
            sha256: sha256_hex(&published),
            content_sha256: Some(sha256_hex(records)),
            fetch: None,
            docs: 2,
            fields: Fields {
                label: None,
                ..Fields::default()
            },
            filter: Default::default(),
        };
        let path = manifest.path(&dir);
        for (what, bytes) in [("published", published), ("rebuilt", gzip(records, 9))] {
            std::fs::write(&path, &bytes).unwrap();
            let corpus = manifest
                .load(&dir)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(corpus.sha256, manifest.sha256, "{what}");
            assert!(manifest.matches(&path).unwrap(), "{what}");
        }
        let mut other = records.to_vec();
        other[20] = b'X';
        std::fs::write(&path, gzip(&other, 9)).unwrap();
        let e = manifest.load(&dir).unwrap_err().to_string();
        assert!(e.contains("wrong checksum"), "{e}");
        assert!(!manifest.matches(&path).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn embedded_manifests_parse() {
        let all = all();
        for name in [
            "bible-en",
            "bible-zh",
            "bible-zh-chiun",
            "licenses",
            "licenses-notices",
            "20news",
        ] {
            assert!(all.iter().any(|m| m.name == name), "{name}");
        }
        assert!(
            find("nope")
                .unwrap_err()
                .to_string()
                .contains("known: 20news")
        );
    }
}
