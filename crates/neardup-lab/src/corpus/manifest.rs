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
