//! The join of `neardup.ray`'s candidates stage
//! (`neardup_dedup::pipeline::external_join`, tested there).

use neardup_dedup::pipeline::external_join::pairs_sharing_a_key;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// First and second documents of pairs.
type Pairs<'py> = (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u64>>);

/// Every pair (a < b) of documents whose rows agree in `position` (the band) and `key`,
/// once, sorted by (a, b). Rows are (position[i], key[i], doc[i]) in any order.
#[pyfunction]
pub fn candidate_pairs<'py>(
    py: Python<'py>,
    position: PyReadonlyArray1<'py, u64>,
    key: PyReadonlyArray1<'py, u64>,
    doc: PyReadonlyArray1<'py, u64>,
) -> PyResult<Pairs<'py>> {
    let (position, key, doc) = (position.as_slice()?, key.as_slice()?, doc.as_slice()?);
    if position.len() != key.len() || key.len() != doc.len() {
        return Err(PyValueError::new_err(
            "position, key and doc must have as many rows",
        ));
    }
    let (a, b) = py.detach(|| pairs_sharing_a_key(position, key, doc));
    Ok((PyArray1::from_vec(py, a), PyArray1::from_vec(py, b)))
}
