//! The lab's error type: every data error names its file, and its line where there is one.

use std::path::{Path, PathBuf};

/// Errors of the lab's data layer, runner and reports.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A problem at a line of a file (malformed record, missing field, unknown id…).
    #[error("{}:{line}: {reason}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A problem with a whole file (empty corpus, wrong checksum…).
    #[error("{}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An I/O error on a file. (The OS error is part of the message, not a `source`, so error
    /// chains print it once.)
    #[error("{}: {io}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        io: std::io::Error,
    },
    /// An error from the algorithm library.
    #[error(transparent)]
    Algorithm(#[from] neardup::Error),
}

/// `Result` with [`LabError`].
pub type Result<T> = std::result::Result<T, LabError>;

impl LabError {
    /// A line-level error.
    pub fn line(path: &Path, line: usize, reason: impl Into<String>) -> Self {
        LabError::Line {
            path: path.to_path_buf(),
            line,
            reason: reason.into(),
        }
    }

    /// A file-level error.
    pub fn file(path: &Path, reason: impl Into<String>) -> Self {
        LabError::File {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: &Path, io: std::io::Error) -> Self {
        LabError::Io {
            path: path.to_path_buf(),
            io,
        }
    }
}
