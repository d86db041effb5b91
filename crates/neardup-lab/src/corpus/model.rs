//! What a corpus is: [`Corpus`] (ids, texts in one arena, optional labels), the
//! [`CorpusBuilder`] loaders append to, and how to read one ([`LoadOptions`], [`Format`],
//! [`Fields`]). The loaders (one file per format) and [`super::load`] build on this module;
//! it names none of them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{LabError, Result};

/// Input formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One JSON object per line (`.jsonl`, `.ndjson`, `.json`; `.gz` or `.zst`).
    Jsonl,
    /// CSV with a header row (`.csv`; `.gz` or `.zst`).
    Csv,
    /// Apache Parquet (`.parquet`).
    Parquet,
    /// A directory of `.txt` files, searched recursively.
    Txt,
}

impl Format {
    /// Guesses the format from a path: a directory is `txt`, otherwise the extension.
    pub fn guess(path: &Path) -> Option<Format> {
        if path.is_dir() {
            return Some(Format::Txt);
        }
        // The same names the pipeline reads (`neardup_dedup::input::detect`), compressed or not.
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        let name = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".zst"))
            .unwrap_or(&name);
        if name.ends_with(".jsonl") || name.ends_with(".ndjson") || name.ends_with(".json") {
            Some(Format::Jsonl)
        } else if name.ends_with(".csv") {
            Some(Format::Csv)
        } else if name.ends_with(".parquet") {
            Some(Format::Parquet)
        } else {
            None
        }
    }
}

/// Which fields (JSON keys, CSV columns) hold the id, the text and the label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Fields {
    /// Id field. Default `id`.
    pub id: String,
    /// Text field. Default `text`.
    pub text: String,
    /// Cluster label field; `None` = unlabelled corpus. Default `cluster`. For a directory of
    /// text files, the value `dir` labels each file by its parent directory.
    pub label: Option<String>,
}

impl Default for Fields {
    fn default() -> Self {
        Fields {
            id: "id".into(),
            text: "text".into(),
            label: Some("cluster".into()),
        }
    }
}

/// How to load a corpus.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Format; guessed from the path when `None`.
    pub format: Option<Format>,
    /// Field names.
    pub fields: Fields,
    /// Every record must carry the label field (null allowed). When false a record without
    /// it is unlabelled.
    pub label_required: bool,
    /// Skip malformed records (counted in [`Corpus::skipped`]) instead of failing.
    pub skip_invalid: bool,
    /// Stop after this many documents.
    pub limit: Option<usize>,
    /// Keep only records whose field equals the value (JSON Lines: string fields), e.g.
    /// `translation = ChiUn`.
    pub keep: Vec<(String, String)>,
    /// The text field holds web pages' HTML (`--html-field`): each document is the text this
    /// extraction takes of its page, as `neardup dedup` reads it (`None`: texts as they are).
    pub extract: Option<neardup_dedup::web::extract::Extract>,
}

/// A loaded corpus.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Short name (file stem, manifest name, or `default`).
    pub name: String,
    /// Where it came from (path, or a description of the generator).
    pub source: String,
    /// SHA-256 of the source bytes (of the generator's output for generated corpora).
    pub sha256: String,
    /// Records skipped as malformed (only with `skip_invalid`).
    pub skipped: usize,
    /// The first skipped record's error, to show the user what was skipped.
    pub first_skip: Option<String>,
    ids: Vec<String>,
    arena: String,
    offsets: Vec<usize>,
    labels: Vec<Option<u32>>,
    label_names: Vec<String>,
}

impl Corpus {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the corpus has no documents (loaders refuse to return such a corpus).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Document `i`'s id.
    pub fn id(&self, i: usize) -> &str {
        &self.ids[i]
    }

    /// Document `i`'s text.
    pub fn text(&self, i: usize) -> &str {
        &self.arena[self.offsets[i]..self.offsets[i + 1]]
    }

    /// All texts, in order (borrowed from the arena).
    pub fn texts(&self) -> Vec<&str> {
        (0..self.len()).map(|i| self.text(i)).collect()
    }

    /// Document `i`'s cluster label index, if labelled.
    pub fn label(&self, i: usize) -> Option<u32> {
        self.labels[i]
    }

    /// All label indices.
    pub fn labels(&self) -> &[Option<u32>] {
        &self.labels
    }

    /// The name of label index `l`.
    pub fn label_name(&self, l: u32) -> &str {
        &self.label_names[l as usize]
    }

    /// Whether any document is labelled.
    pub fn is_labelled(&self) -> bool {
        self.labels.iter().any(Option::is_some)
    }

    /// Total bytes of text.
    pub fn text_bytes(&self) -> usize {
        self.arena.len()
    }

    /// Map from id to index.
    pub fn id_index(&self) -> HashMap<&str, u32> {
        self.ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i as u32))
            .collect()
    }
}

/// Accumulates documents, checking ids are unique.
#[derive(Debug)]
pub struct CorpusBuilder {
    path: PathBuf,
    ids: Vec<String>,
    first_line: HashMap<String, usize>,
    arena: String,
    offsets: Vec<usize>,
    labels: Vec<Option<u32>>,
    label_index: HashMap<String, u32>,
    label_names: Vec<String>,
    skipped: usize,
    first_skip: Option<String>,
}

impl CorpusBuilder {
    /// An empty builder for documents read from `path` (used in error messages).
    pub fn new(path: &Path) -> Self {
        CorpusBuilder {
            path: path.to_path_buf(),
            ids: Vec::new(),
            first_line: HashMap::new(),
            arena: String::new(),
            offsets: vec![0],
            labels: Vec::new(),
            label_index: HashMap::new(),
            label_names: Vec::new(),
            skipped: 0,
            first_skip: None,
        }
    }

    /// Number of documents so far.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no document was added yet.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Adds a document read at `line`; a repeated id is an error naming both lines.
    pub fn push(&mut self, line: usize, id: String, text: &str, label: Option<&str>) -> Result<()> {
        if let Some(first) = self.first_line.get(&id) {
            return Err(LabError::line(
                &self.path,
                line,
                format!("duplicate id `{id}` (first seen at line {first})"),
            ));
        }
        self.first_line.insert(id.clone(), line);
        self.ids.push(id);
        self.arena.push_str(text);
        self.offsets.push(self.arena.len());
        let label = label.map(|l| match self.label_index.get(l) {
            Some(&i) => i,
            None => {
                let i = self.label_names.len() as u32;
                self.label_names.push(l.to_string());
                self.label_index.insert(l.to_string(), i);
                i
            }
        });
        self.labels.push(label);
        Ok(())
    }

    /// Handles a malformed record: an error, or a counted skip with `skip_invalid`.
    pub fn invalid(&mut self, skip_invalid: bool, err: LabError) -> Result<()> {
        if !skip_invalid {
            return Err(err);
        }
        self.skipped += 1;
        if self.first_skip.is_none() {
            self.first_skip = Some(err.to_string());
        }
        Ok(())
    }

    /// The corpus; an error if it has no document.
    pub fn finish(self, name: String, source: String, sha256: String) -> Result<Corpus> {
        if self.ids.is_empty() {
            let why = if self.skipped > 0 {
                format!(
                    "no valid document ({} malformed records skipped)",
                    self.skipped
                )
            } else {
                "the corpus has no documents".to_string()
            };
            return Err(LabError::file(&self.path, why));
        }
        Ok(Corpus {
            name,
            source,
            sha256,
            skipped: self.skipped,
            first_skip: self.first_skip,
            ids: self.ids,
            arena: self.arena,
            offsets: self.offsets,
            labels: self.labels,
            label_names: self.label_names,
        })
    }
}

pub use neardup_dedup::input::{id_string, stem};

/// Converts a JSON label (string, number or bool) into a label name; null → unlabelled.
pub fn label_string(v: &serde_json::Value) -> std::result::Result<Option<String>, String> {
    match v {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(s) => Ok(Some(s.clone())),
        serde_json::Value::Number(n) => Ok(Some(n.to_string())),
        serde_json::Value::Bool(b) => Ok(Some(b.to_string())),
        other => Err(format!(
            "label must be a string, number or null, not {other}"
        )),
    }
}
