//! The document-frequency table file: collection statistics of a reference corpus, written by
//! `neardup idf build` and read through `idf_from`.
//!
//! A table holds one *section* per kind of feature (terms, shingles, spots …), each named by
//! the canonical description of how its features are extracted, so an algorithm finds the
//! section that matches its own parameters and refuses one that does not. Keys are feature
//! hashes with the fixed [`super::statistics::STATISTICS_SEED`], so one table serves every
//! seed.
//!
//! Layout (little-endian): `NDDF`, format version (u32), header length (u64), the header as
//! JSON ([`Header`]), each section's entries as (key u64, document frequency u32) sorted by
//! key, and an XXH3-64 checksum of everything before it. A file that is truncated, corrupt or
//! of another version is an error naming the file.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

const MAGIC: &[u8; 4] = b"NDDF";
/// Version of the layout; bump when it changes.
pub const VERSION: u32 = 1;

/// One kind of feature's document frequencies.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// How the features were extracted (canonical JSON, see `statistics`).
    pub description: String,
    /// Documents with at least one feature of this kind.
    pub docs: u64,
    /// (feature key, documents containing it), sorted by key.
    pub entries: Vec<(u64, u32)>,
}

/// What the header records about each section.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SectionHeader {
    description: String,
    docs: u64,
    entries: u64,
}

/// The JSON header.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Header {
    sections: Vec<SectionHeader>,
    /// Where the statistics came from (corpus paths and checksums), for people.
    sources: Vec<String>,
}

/// A whole table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DfTable {
    /// Sections, in the order written.
    pub sections: Vec<Section>,
    /// Corpora counted, as `path (sha256 …)`.
    pub sources: Vec<String>,
}

fn bad(path: &Path, reason: impl Into<String>) -> Error {
    Error::BadFile {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

impl DfTable {
    /// The section described by `description`.
    pub fn section(&self, description: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.description == description)
    }

    /// Serializes the table (sections' entries must be sorted by key).
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = Header {
            sections: self
                .sections
                .iter()
                .map(|s| SectionHeader {
                    description: s.description.clone(),
                    docs: s.docs,
                    entries: s.entries.len() as u64,
                })
                .collect(),
            sources: self.sources.clone(),
        };
        let json = serde_json::to_vec(&header).expect("the header serializes");
        let mut out = Vec::with_capacity(
            24 + json.len()
                + self
                    .sections
                    .iter()
                    .map(|s| s.entries.len() * 12)
                    .sum::<usize>(),
        );
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(json.len() as u64).to_le_bytes());
        out.extend_from_slice(&json);
        for s in &self.sections {
            debug_assert!(s.entries.windows(2).all(|w| w[0].0 < w[1].0));
            for &(k, df) in &s.entries {
                out.extend_from_slice(&k.to_le_bytes());
                out.extend_from_slice(&df.to_le_bytes());
            }
        }
        let sum = xxhash_rust::xxh3::xxh3_64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Writes the table to `w`.
    pub fn write(&self, w: &mut dyn Write) -> std::io::Result<()> {
        w.write_all(&self.to_bytes())
    }

    /// Parses a table read from `path` (used in error messages).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<DfTable> {
        if bytes.len() < 24 || &bytes[..4] != MAGIC {
            return Err(bad(
                path,
                "not a neardup document-frequency table (write one with `neardup idf build`)",
            ));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != sum {
            return Err(bad(
                path,
                "checksum mismatch: the file is truncated or corrupt",
            ));
        }
        let version = u32::from_le_bytes(body[4..8].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(bad(
                path,
                format!("table format version {version}; this neardup reads version {VERSION}"),
            ));
        }
        let hlen = u64::from_le_bytes(body[8..16].try_into().expect("8 bytes")) as usize;
        let json = body
            .get(16..16usize.saturating_add(hlen))
            .ok_or_else(|| bad(path, "header runs past the end of the file"))?;
        let header: Header = serde_json::from_slice(json)
            .map_err(|e| bad(path, format!("malformed header: {e}")))?;
        let mut rest = &body[16 + hlen..];
        let mut sections = Vec::with_capacity(header.sections.len());
        for h in header.sections {
            let n = usize::try_from(h.entries)
                .ok()
                .filter(|n| n.checked_mul(12).is_some_and(|b| b <= rest.len()))
                .ok_or_else(|| bad(path, "a section runs past the end of the file"))?;
            let (mine, tail) = rest.split_at(n * 12);
            rest = tail;
            let entries: Vec<(u64, u32)> = mine
                .chunks_exact(12)
                .map(|c| {
                    (
                        u64::from_le_bytes(c[..8].try_into().expect("8 bytes")),
                        u32::from_le_bytes(c[8..].try_into().expect("4 bytes")),
                    )
                })
                .collect();
            if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
                return Err(bad(path, "section entries are not sorted by key"));
            }
            sections.push(Section {
                description: h.description,
                docs: h.docs,
                entries,
            });
        }
        if !rest.is_empty() {
            return Err(bad(path, "trailing bytes after the last section"));
        }
        Ok(DfTable {
            sections,
            sources: header.sources,
        })
    }

    /// Reads the table at `path`.
    pub fn read(path: &Path) -> Result<DfTable> {
        let bytes = std::fs::read(path).map_err(|io| Error::Io {
            path: path.to_path_buf(),
            io,
        })?;
        DfTable::from_bytes(path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> DfTable {
        DfTable {
            sections: vec![
                Section {
                    description: "{\"features\":\"terms\"}".into(),
                    docs: 10,
                    entries: vec![(1, 3), (7, 10), (u64::MAX, 1)],
                },
                Section {
                    description: "{\"features\":\"spots\"}".into(),
                    docs: 9,
                    entries: vec![],
                },
            ],
            sources: vec!["corpus.jsonl (sha256 00)".into()],
        }
    }

    #[test]
    fn round_trip() {
        let t = table();
        let back = DfTable::from_bytes(Path::new("t.df"), &t.to_bytes()).unwrap();
        assert_eq!(back, t);
        assert_eq!(back.section("{\"features\":\"spots\"}").unwrap().docs, 9);
        assert!(back.section("x").is_none());
    }

    #[test]
    fn corrupt_files_are_named_errors() {
        let bytes = table().to_bytes();
        let p = Path::new("ref.df");
        let err = |b: &[u8]| DfTable::from_bytes(p, b).unwrap_err().to_string();
        assert!(err(b"hello").contains("not a neardup document-frequency table"));
        assert!(err(&bytes[..bytes.len() - 1]).contains("checksum"));
        let mut flipped = bytes.clone();
        flipped[30] ^= 1;
        assert!(err(&flipped).contains("ref.df: checksum mismatch"));
        // Every truncation fails cleanly, never panics.
        for n in 0..bytes.len() {
            assert!(DfTable::from_bytes(p, &bytes[..n]).is_err(), "length {n}");
        }
    }
}
