//! The library's one error type.
//!
//! Every variant carries the value that was wrong and why, so that the binary can print a
//! single sentence a user can act on ("parameter `rows` of `minhash-lsh`: bands × rows = 140
//! exceeds num_perm = 128").

use std::path::PathBuf;

/// Errors raised by the algorithm library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A parameter value is out of range or inconsistent with another parameter.
    #[error("parameter `{field}` of `{algorithm}`: {reason}")]
    InvalidParam {
        /// Algorithm (or component, e.g. `lsh`) the parameter belongs to.
        algorithm: String,
        /// Name of the offending parameter.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A parameter name that the algorithm does not have.
    #[error("`{algorithm}` has no parameter `{param}`; its parameters are: {known}")]
    UnknownParam {
        /// Algorithm name.
        algorithm: String,
        /// The unknown name.
        param: String,
        /// Comma-separated list of the parameters it does have.
        known: String,
    },
    /// A parameter value of the wrong type (a string where a number was expected…).
    #[error("parameters of `{algorithm}`: {reason}")]
    BadParamValue {
        /// Algorithm name.
        algorithm: String,
        /// The deserializer's explanation, naming the field.
        reason: String,
    },
    /// An algorithm name that is not registered.
    #[error("unknown algorithm `{name}`; registered algorithms are: {known}")]
    UnknownAlgorithm {
        /// The unknown name.
        name: String,
        /// Comma-separated registered names.
        known: String,
    },
    /// Reading a file failed. (The OS error is part of the message, not a `source`, so error
    /// chains print it once.)
    #[error("{}: {io}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        io: std::io::Error,
    },
    /// A join would produce more pairs than the configured limit (`pairs::limit`).
    #[error(
        "{what} would report at least {pairs} pairs, more than the limit of {limit} (set NEARDUP_MAX_PAIRS or \
         --max-pairs to raise it): its signatures put too many documents together — tighten the parameters"
    )]
    TooManyPairs {
        /// Which join.
        what: String,
        /// Pairs counted when it stopped (a lower bound of what it would produce).
        pairs: u64,
        /// The limit.
        limit: u64,
    },
    /// Building would need more memory than the configured limit (`resources`).
    #[error(
        "{what} would need about {} ({how}), more than the memory limit of {} (set --max-memory or \
         NEARDUP_MAX_MEMORY to raise it)",
        crate::units::human_bytes(*estimate),
        crate::units::human_bytes(*limit)
    )]
    TooMuchMemory {
        /// What would be built.
        what: String,
        /// Estimated bytes.
        estimate: u64,
        /// How the estimate is made (the formula with its values).
        how: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// An environment variable neardup reads has a value it cannot use.
    #[error("environment variable {name}={value:?}: {reason}")]
    InvalidEnv {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What was expected.
        reason: String,
    },
    /// A file neardup wrote (a statistics table, an index) is unreadable: wrong kind,
    /// truncated, corrupt or from another version.
    #[error("{}: {reason}", path.display())]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file's bytes are not valid UTF-8.
    #[error("{path}: not valid UTF-8 (first invalid byte at offset {offset})")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
}

/// `Result` with the library's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Shorthand for [`Error::InvalidParam`].
    pub fn invalid(
        algorithm: impl Into<String>,
        field: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Error::InvalidParam {
            algorithm: algorithm.into(),
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// Fails with [`Error::InvalidParam`] unless `value` lies in the open-closed interval (0, 1].
///
/// Thresholds on similarities use this range throughout: a threshold of 0 would report every
/// pair, and similarities never exceed 1.
pub fn check_unit_threshold(algorithm: &str, field: &str, value: f64) -> Result<()> {
    if value > 0.0 && value <= 1.0 {
        Ok(())
    } else {
        Err(Error::invalid(
            algorithm,
            field,
            format!("{value} is outside (0, 1]"),
        ))
    }
}

/// Fails with [`Error::InvalidParam`] unless `min ≤ max` and both lie in [0, 1] (a band of
/// normalized idf values, named by its `min_field`).
pub fn check_unit_band(algorithm: &str, min_field: &str, min: f64, max: f64) -> Result<()> {
    if (0.0..=1.0).contains(&min) && (0.0..=1.0).contains(&max) && min <= max {
        Ok(())
    } else {
        Err(Error::invalid(
            algorithm,
            min_field,
            format!("the idf band [{min}, {max}] is empty or outside [0, 1]"),
        ))
    }
}

/// Fails with [`Error::InvalidParam`] when `value` is zero.
pub fn check_positive(algorithm: &str, field: &str, value: usize) -> Result<()> {
    if value == 0 {
        Err(Error::invalid(algorithm, field, "must be at least 1"))
    } else {
        Ok(())
    }
}

/// Reads a file as UTF-8 text, with errors naming the file (and the offset of bad bytes).
pub fn read_text_file(path: &std::path::Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|io| Error::Io {
        path: path.to_path_buf(),
        io,
    })?;
    String::from_utf8(bytes).map_err(|e| Error::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Reads an environment variable with `parse`, or `default` when it is unset or empty.
pub(crate) fn parse_env(
    name: &'static str,
    default: u64,
    parse: impl Fn(&str) -> std::result::Result<u64, &'static str>,
) -> Result<u64> {
    match std::env::var(name) {
        Err(std::env::VarError::NotPresent) => Ok(default),
        Ok(v) if v.trim().is_empty() => Ok(default),
        Ok(v) => parse(v.trim()).map_err(|want| Error::InvalidEnv {
            name,
            value: v.clone(),
            reason: format!("expected {want}"),
        }),
        Err(std::env::VarError::NotUnicode(v)) => Err(Error::InvalidEnv {
            name,
            value: v.to_string_lossy().into_owned(),
            reason: "not valid UTF-8".into(),
        }),
    }
}
