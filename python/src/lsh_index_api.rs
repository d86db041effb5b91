//! `MinHashIndex`: the library's incremental `LshIndex` behind a lock, with the signatures it
//! needs to remove documents and to verify candidates. The Python `MinHashLSH` (datasketch's
//! interface) maps user keys to the integer ids used here.

use std::collections::HashMap;
use std::sync::RwLock;

use neardup::minhash::agreement;
use neardup::minhash::lsh::{Banding, LshIndex};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;

use crate::errors;

#[derive(Debug)]
struct State {
    index: LshIndex,
    signatures: HashMap<u32, Box<[u32]>>,
}

/// An incremental MinHash LSH index over integer ids (thread-safe).
#[derive(Debug)]
#[pyclass(frozen, module = "neardup._native")]
pub struct MinHashIndex {
    num_perm: usize,
    bands: usize,
    rows: usize,
    state: RwLock<State>,
}

impl MinHashIndex {
    fn signature(&self, signature: &PyReadonlyArray1<'_, u32>) -> PyResult<Vec<u32>> {
        let view = signature.as_array();
        if view.len() != self.num_perm {
            return Err(PyValueError::new_err(format!(
                "signature has {} values; this index takes num_perm = {}",
                view.len(),
                self.num_perm
            )));
        }
        Ok(view.iter().copied().collect())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a way that
        // matters more than losing the index, so poisoning is ignored.
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl MinHashIndex {
    #[new]
    fn new(num_perm: usize, bands: usize, rows: usize) -> PyResult<Self> {
        let banding = Banding::new(bands, rows, num_perm).map_err(errors::library)?;
        Ok(MinHashIndex {
            num_perm,
            bands,
            rows,
            state: RwLock::new(State {
                index: LshIndex::new(banding),
                signatures: HashMap::new(),
            }),
        })
    }

    /// Signature length.
    #[getter]
    fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// Number of bands b.
    #[getter]
    fn bands(&self) -> usize {
        self.bands
    }

    /// Rows per band r.
    #[getter]
    fn rows(&self) -> usize {
        self.rows
    }

    /// Adds `id` with `signature`; a present id is an error.
    fn insert(&self, id: u32, signature: PyReadonlyArray1<'_, u32>) -> PyResult<()> {
        let signature = self.signature(&signature)?;
        let mut state = self.write();
        if state.signatures.contains_key(&id) {
            return Err(PyValueError::new_err(format!("id {id} is already indexed")));
        }
        state.index.insert(id, &signature);
        state.signatures.insert(id, signature.into_boxed_slice());
        Ok(())
    }

    /// Removes `id`; a missing id is a `KeyError`.
    fn remove(&self, id: u32) -> PyResult<()> {
        let mut state = self.write();
        let signature = state
            .signatures
            .remove(&id)
            .ok_or_else(|| PyKeyError::new_err(id))?;
        state.index.remove(id, &signature);
        Ok(())
    }

    /// Ids sharing at least one band with `signature`, sorted; with `min_similarity`, only
    /// those whose signatures agree on at least that fraction of values (the MinHash
    /// estimate of Jaccard similarity).
    #[pyo3(signature = (signature, min_similarity=None))]
    fn query(
        &self,
        signature: PyReadonlyArray1<'_, u32>,
        min_similarity: Option<f64>,
    ) -> PyResult<Vec<u32>> {
        let signature = self.signature(&signature)?;
        let state = self.read();
        let mut ids = state.index.query(&signature);
        if let Some(t) = min_similarity {
            ids.retain(|id| agreement(&state.signatures[id], &signature) >= t);
        }
        Ok(ids)
    }

    fn __len__(&self) -> usize {
        self.read().signatures.len()
    }

    fn __contains__(&self, id: u32) -> bool {
        self.read().signatures.contains_key(&id)
    }
}
