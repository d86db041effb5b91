//! What the inputs are: files, directories and globs expanded into a sorted list of corpus
//! files, each with its format and compression (from its name, or a stream's first bytes).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A corpus file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// One JSON object per line.
    Jsonl,
    /// CSV with a header row.
    Csv,
    /// Apache Parquet.
    Parquet,
    /// WARC (ISO 28500) or WET: web pages in records (`.warc`, `.warc.wet`).
    Warc,
    /// One HTML page (`.html`, `.htm`, `.xhtml`).
    Html,
}

impl FileFormat {
    /// The extension of this format's output files.
    pub fn extension(self) -> &'static str {
        match self {
            FileFormat::Jsonl => "jsonl",
            FileFormat::Csv => "csv",
            FileFormat::Parquet => "parquet",
            FileFormat::Warc => "warc.gz",
            FileFormat::Html => "html",
        }
    }
}

/// How a file is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// Zstandard (`.zst`).
    Zstd,
}

/// One input file.
#[derive(Debug, Clone)]
pub struct InputFile {
    /// Its path as given (or as found under a directory).
    pub path: PathBuf,
    /// Its format.
    pub format: FileFormat,
    /// Its compression.
    pub compression: Compression,
    /// Size in bytes (as stored; 0 for a stream).
    pub size: u64,
    /// Read once, as it comes: standard input (`-`), a FIFO, a process substitution
    /// (`<(…)`). Its compression is told by its first bytes, its format is JSONL unless its
    /// name says otherwise, and it cannot be sought, reread or checked against an earlier run.
    pub stream: bool,
}

impl InputFile {
    /// The same input read from `copy`, its inflated bytes (an uncompressed file).
    pub fn inflated(&self, copy: PathBuf) -> InputFile {
        InputFile {
            path: copy,
            compression: Compression::None,
            stream: false,
            ..self.clone()
        }
    }

    /// A stream input at `path` (`-`: standard input).
    fn stream(path: &Path) -> Result<InputFile> {
        let (format, compression) = detect(path).unwrap_or((FileFormat::Jsonl, Compression::None));
        if format != FileFormat::Jsonl {
            return Err(Error::file(
                path,
                "a stream (standard input, a FIFO, <(…)) is read once, as JSON Lines \
                 (optionally gzip or zstd): CSV, Parquet, WARC and HTML need a regular file",
            ));
        }
        Ok(InputFile {
            path: path.to_path_buf(),
            format,
            compression,
            size: 0,
            stream: true,
        })
    }
}

/// Whether `path` is standard input (`-`) or something that exists but is neither a regular
/// file nor a directory (a FIFO, `/dev/fd/N` of a process substitution, a character device).
fn is_stream(path: &Path) -> bool {
    path == Path::new("-") || std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// A corpus name from a path: the file name without its extensions.
pub fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    name.split('.').next().unwrap_or(&name).to_string()
}

/// Format and compression from a file name, if it is a corpus file.
pub fn detect(path: &Path) -> Option<(FileFormat, Compression)> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let compression = compression_of(path);
    let stem = match compression {
        Compression::Gzip => name.strip_suffix(".gz")?,
        Compression::Zstd => name.strip_suffix(".zst")?,
        Compression::None => name.as_str(),
    };
    let format = if stem.ends_with(".jsonl") || stem.ends_with(".json") || stem.ends_with(".ndjson")
    {
        FileFormat::Jsonl
    } else if stem.ends_with(".csv") {
        FileFormat::Csv
    } else if stem.ends_with(".parquet") && compression == Compression::None {
        FileFormat::Parquet
    } else if stem.ends_with(".warc") || stem.ends_with(".wet") {
        FileFormat::Warc
    } else if stem.ends_with(".html") || stem.ends_with(".htm") || stem.ends_with(".xhtml") {
        FileFormat::Html
    } else {
        return None;
    };
    Some((format, compression))
}

/// The refusal of an ARC file (the Internet Archive's format before WARC), which is not read.
fn refuse_arc(path: &Path) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".arc") || name.ends_with(".arc.gz") {
        return Err(Error::file(
            path,
            "an ARC file (the Internet Archive's format before WARC) is not read: convert it to \
             WARC first, e.g. `warcio recompress FILE.arc.gz FILE.warc.gz`",
        ));
    }
    Ok(())
}

/// Expands files, directories (recursively, corpus files only) and glob patterns into a
/// sorted list without repeats. A named file with an unknown extension, a pattern matching
/// nothing or an empty directory is an error.
pub fn expand(inputs: &[PathBuf]) -> Result<Vec<InputFile>> {
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut streams: Vec<PathBuf> = Vec::new();
    for input in inputs {
        let text = input.to_string_lossy();
        if !input.exists() && text.contains(['*', '?', '[']) {
            paths.extend(glob_files(input, &text)?);
        } else if input.is_dir() {
            paths.extend(directory_files(input)?);
        } else if is_stream(input) {
            streams.push(input.clone());
            paths.push(input.clone());
        } else if input.is_file() {
            refuse_arc(input)?;
            if detect(input).is_none() {
                return Err(Error::file(
                    input,
                    "unknown format: expected .jsonl, .json, .ndjson, .csv, .warc, .warc.wet, \
                     .html, .htm (each optionally .gz or .zst) or .parquet",
                ));
            }
            paths.push(input.clone());
        } else {
            // An I/O error, so that callers (the Python package) can tell it from bad data.
            return Err(Error::Io {
                path: input.clone(),
                io: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or directory"),
            });
        }
    }
    if let Some(twice) = streams
        .iter()
        .find(|&s| streams.iter().filter(|&t| t == s).count() > 1)
    {
        return Err(Error::file(
            twice,
            "a stream can be read only once: given twice",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    paths.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    for path in &paths {
        refuse_arc(path)?;
    }
    paths
        .into_iter()
        .map(|path| {
            if streams.contains(&path) {
                return InputFile::stream(&path);
            }
            let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
            let (format, compression) = detect(&path).expect("filtered");
            Ok(InputFile {
                path,
                format,
                compression,
                size: meta.len(),
                stream: false,
            })
        })
        .collect()
}

/// The corpus files a glob pattern matches, sorted (ARC files too, to be refused by name).
fn glob_files(input: &Path, pattern: &str) -> Result<Vec<PathBuf>> {
    let matches = glob::glob(pattern)
        .map_err(|e| Error::file(input, format!("not a valid glob pattern: {e}")))?;
    let mut found: Vec<PathBuf> = matches
        .filter_map(|m| m.ok())
        .filter(|p| p.is_file() && (detect(p).is_some() || refuse_arc(p).is_err()))
        .collect();
    if found.is_empty() {
        return Err(Error::file(input, "the pattern matches no corpus file"));
    }
    found.sort();
    Ok(found)
}

/// The corpus files below a directory, recursively, sorted.
fn directory_files(input: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    walk(input, &mut found)?;
    if found.is_empty() {
        return Err(Error::file(
            input,
            "the directory holds no corpus file (.jsonl, .json, .csv, .parquet, .warc, \
             .html, optionally .gz / .zst)",
        ));
    }
    found.sort();
    Ok(found)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        } else if path.is_dir() {
            walk(&path, out)?;
        } else if detect(&path).is_some() || refuse_arc(&path).is_err() {
            out.push(path);
        }
    }
    Ok(())
}

/// The compression a file name says (`.gz`, `.zst`; case-insensitive).
pub fn compression_of(path: &Path) -> Compression {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".gz") {
        Compression::Gzip
    } else if name.ends_with(".zst") {
        Compression::Zstd
    } else {
        Compression::None
    }
}
