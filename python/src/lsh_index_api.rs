//! `MinHashIndex`: the library's incremental `LshIndex` behind a lock, with the signatures it
//! needs to remove documents, to verify candidates and to be saved. The Python `MinHashLSH`
//! (datasketch's interface) maps user keys to the integer ids used here.
//!
//! A MinHash value is `value_words` 32-bit words: 1 for neardup's and datasketch's `affine32`
//! and `legacy` signatures, 2 for `affine64`, 4 for a `WeightedMinHash` (two int64 per value).
//! The index bands the words (b bands of r·`value_words` words), which is the banding of the
//! values (b bands of r values): two bands of values are equal exactly when their words are.

use std::collections::HashMap;
use std::sync::RwLock;

use neardup::minhash::lsh::{Banding, LshIndex};
use numpy::{PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;

use crate::errors;
use crate::sketch_api::matrix;

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
    value_words: usize,
    state: RwLock<State>,
}

impl MinHashIndex {
    /// Words in one signature.
    fn width(&self) -> usize {
        self.num_perm * self.value_words
    }

    fn check_width(&self, words: usize) -> PyResult<()> {
        if words != self.width() {
            return Err(PyValueError::new_err(format!(
                "signature has {words} words; this index takes num_perm = {} values of {} \
                 32-bit words",
                self.num_perm, self.value_words
            )));
        }
        Ok(())
    }

    fn signature(&self, signature: &PyReadonlyArray1<'_, u32>) -> PyResult<Vec<u32>> {
        let view = signature.as_array();
        self.check_width(view.len())?;
        Ok(view.iter().copied().collect())
    }

    /// The fraction of values (not words) on which `a` and `b` agree: the MinHash estimate
    /// of their Jaccard similarity.
    fn agreement(&self, a: &[u32], b: &[u32]) -> f64 {
        let w = self.value_words;
        let same = a
            .chunks_exact(w)
            .zip(b.chunks_exact(w))
            .filter(|(x, y)| x == y)
            .count();
        same as f64 / self.num_perm as f64
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
    #[pyo3(signature = (num_perm, bands, rows, value_words=1))]
    fn new(num_perm: usize, bands: usize, rows: usize, value_words: usize) -> PyResult<Self> {
        if !matches!(value_words, 1 | 2 | 4) {
            return Err(PyValueError::new_err(format!(
                "value_words must be 1, 2 or 4, not {value_words}"
            )));
        }
        Banding::new(bands, rows, num_perm).map_err(errors::library)?;
        let banding = Banding::new(bands, rows * value_words, num_perm * value_words)
            .map_err(errors::library)?;
        Ok(MinHashIndex {
            num_perm,
            bands,
            rows,
            value_words,
            state: RwLock::new(State {
                index: LshIndex::new(banding),
                signatures: HashMap::new(),
            }),
        })
    }

    /// Signature length in values.
    #[getter]
    fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// Number of bands b.
    #[getter]
    fn bands(&self) -> usize {
        self.bands
    }

    /// Rows (values) per band r.
    #[getter]
    fn rows(&self) -> usize {
        self.rows
    }

    /// 32-bit words per value.
    #[getter]
    fn value_words(&self) -> usize {
        self.value_words
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

    /// Adds `ids[i]` with row `i` of `signatures`, all or none: an id already indexed or
    /// repeated in `ids` is an error before anything is added.
    fn insert_many(
        &self,
        py: Python<'_>,
        ids: PyReadonlyArray1<'_, u32>,
        signatures: PyReadonlyArray2<'_, u32>,
    ) -> PyResult<()> {
        let ids = ids.as_array().to_vec();
        let rows = signatures.as_array();
        if rows.nrows() != ids.len() {
            return Err(PyValueError::new_err(format!(
                "{} ids for {} signatures",
                ids.len(),
                rows.nrows()
            )));
        }
        self.check_width(rows.ncols())?;
        let rows: Vec<Box<[u32]>> = rows.outer_iter().map(|r| r.to_vec().into()).collect();
        py.detach(|| {
            let mut state = self.write();
            let mut seen = std::collections::HashSet::with_capacity(ids.len());
            if let Some(id) = ids
                .iter()
                .find(|id| state.signatures.contains_key(id) || !seen.insert(**id))
            {
                return Err(PyValueError::new_err(format!("id {id} is already indexed")));
            }
            for (id, signature) in ids.into_iter().zip(rows) {
                state.index.insert(id, &signature);
                state.signatures.insert(id, signature);
            }
            Ok(())
        })
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

    /// Removes every id of `ids`, all or none: a missing or repeated id is a `KeyError`
    /// before anything is removed.
    fn remove_many(&self, py: Python<'_>, ids: PyReadonlyArray1<'_, u32>) -> PyResult<()> {
        let ids = ids.as_array().to_vec();
        py.detach(|| {
            let mut state = self.write();
            let mut seen = std::collections::HashSet::with_capacity(ids.len());
            if let Some(id) = ids
                .iter()
                .find(|id| !state.signatures.contains_key(id) || !seen.insert(**id))
            {
                return Err(PyKeyError::new_err(*id));
            }
            for id in ids {
                let signature = state.signatures.remove(&id).expect("checked above");
                state.index.remove(id, &signature);
            }
            Ok(())
        })
    }

    /// The signatures of `ids`, one row each (n × num_perm·value_words); a missing id is a
    /// `KeyError`.
    fn signatures<'py>(
        &self,
        py: Python<'py>,
        ids: PyReadonlyArray1<'py, u32>,
    ) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let ids = ids.as_array();
        let state = self.read();
        let mut words = Vec::with_capacity(ids.len() * self.width());
        for id in ids.iter() {
            let signature = state
                .signatures
                .get(id)
                .ok_or_else(|| PyKeyError::new_err(*id))?;
            words.extend_from_slice(signature);
        }
        drop(state);
        matrix(py, ids.len(), self.width(), words)
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
            ids.retain(|id| self.agreement(&state.signatures[id], &signature) >= t);
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
