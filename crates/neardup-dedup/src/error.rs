//! The data layer's error type: every data error names its file, and its line where there is one.

use std::path::{Path, PathBuf};

/// Errors of reading inputs, running the pipeline and writing outputs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
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

/// What a caught panic said (its `&str` or `String` payload).
pub fn panic_reason(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown reason".into())
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A line-level error.
    pub fn line(path: &Path, line: usize, reason: impl Into<String>) -> Self {
        Error::Line {
            path: path.to_path_buf(),
            line,
            reason: reason.into(),
        }
    }

    /// A file-level error.
    pub fn file(path: &Path, reason: impl Into<String>) -> Self {
        Error::File {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: &Path, io: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            io,
        }
    }
}
