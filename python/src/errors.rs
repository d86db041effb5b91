//! Rust errors → Python exceptions, with the CLI's messages (`neardup: error: {e:#}` minus the
//! prefix): invalid parameters and bad input are `ValueError`; file-system failures are
//! `OSError` subclasses chosen by the I/O error's kind (`FileNotFoundError`, …).

use pyo3::PyErr;
use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyOSError, PyPermissionError, PyValueError,
};
use std::io::ErrorKind;

use neardup_dedup::Error as DataError;

/// A library error (parameters, pair limits, memory estimates).
pub fn library(e: neardup::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// An error of the lab's pipeline, with its whole context chain.
pub fn pipeline(e: anyhow::Error) -> PyErr {
    let message = format!("{e:#}");
    let io_kind = e.chain().find_map(|c| {
        if let Some(DataError::Io { io, .. }) = c.downcast_ref::<DataError>() {
            Some(io.kind())
        } else {
            c.downcast_ref::<std::io::Error>().map(|io| io.kind())
        }
    });
    match io_kind {
        None => PyValueError::new_err(message),
        Some(ErrorKind::NotFound) => PyFileNotFoundError::new_err(message),
        Some(ErrorKind::PermissionDenied) => PyPermissionError::new_err(message),
        Some(ErrorKind::AlreadyExists) => PyFileExistsError::new_err(message),
        Some(_) => PyOSError::new_err(message),
    }
}

/// A malformed parameter object (never from the Python layer, which builds it with `json`).
pub fn params(e: serde_json::Error) -> PyErr {
    PyValueError::new_err(format!("parameters: {e}"))
}
