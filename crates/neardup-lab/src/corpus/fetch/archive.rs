//! What a converter of `neardup datasets fetch` reads and gives.

/// One regular file of an archive: its path inside it and its bytes.
#[derive(Debug)]
pub struct ArchiveFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

#[cfg(test)]
impl ArchiveFile {
    /// A file of `text` at `path`: the converters' tests build their snapshots of them.
    pub fn of(path: &str, text: &str) -> ArchiveFile {
        ArchiveFile {
            path: path.to_string(),
            bytes: text.as_bytes().to_vec(),
        }
    }
}

/// What a converter built.
#[derive(Debug, Default)]
pub struct Converted {
    /// The JSON Lines, uncompressed.
    pub jsonl: Vec<u8>,
    pub documents: usize,
}

/// A dataset's converter: which files of the archive it reads, and how.
#[derive(Debug, Clone, Copy)]
pub struct Converter {
    /// Builds the JSONL from the files read.
    pub convert: fn(Vec<ArchiveFile>) -> Result<Converted, String>,
    /// Whether a file (its path inside the archive) is read.
    pub reads: fn(&str) -> bool,
}

impl Converted {
    /// Appends one record as a line of JSON, fields in the order the record declares them.
    pub fn push(&mut self, record: &impl serde::Serialize) {
        serde_json::to_writer(&mut self.jsonl, record).expect("records serialize");
        self.jsonl.push(b'\n');
        self.documents += 1;
    }
}
