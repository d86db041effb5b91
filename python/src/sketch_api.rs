//! Batch functions: text → signatures (`minhash`, `simhash`), signatures → band keys
//! (`band_keys`), and text → scored pairs for any registered algorithm (`detect`). Each runs
//! the library's own code (the registry's detectors), in parallel, with the GIL released.

use neardup::detector::ParamMap;
use neardup::detectors::simhash::SimHash;
use neardup::minhash::lsh::Banding;
use neardup::streaming::SignatureTable;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors;
use crate::text_input::Texts;

/// Parameters as the Python layer sends them: one JSON object.
pub fn parse_params(params: &str) -> PyResult<ParamMap> {
    serde_json::from_str(params).map_err(errors::params)
}

/// `data` (row-major) as an `rows × width` NumPy array, without copying.
pub fn matrix<T: numpy::Element>(
    py: Python<'_>,
    rows: usize,
    width: usize,
    data: Vec<T>,
) -> PyResult<Bound<'_, PyArray2<T>>> {
    let array = Array2::from_shape_vec((rows, width), data)
        .map_err(|e| PyValueError::new_err(format!("internal shape error: {e}")))?;
    Ok(array.into_pyarray(py))
}

/// MinHash signatures of `texts` (n × num_perm, uint32) with `minhash-lsh`'s sketch
/// parameters: exactly the signatures `neardup dedup` stores in its sketch stage.
#[pyfunction]
pub fn minhash<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    params: &str,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let mut map = parse_params(params)?;
    // Signatures do not depend on how candidates are verified; exact verification would make
    // the detector keep shingle sets instead of streaming.
    map.insert("verify".into(), "estimate".into());
    let detector = neardup::registry::detector("minhash-lsh", &map).map_err(errors::library)?;
    let stream = detector
        .streaming()
        .expect("minhash-lsh with estimate verification streams");
    let texts = Texts::extract(texts)?;
    let docs = texts.as_slice();
    let table = py.detach(|| SignatureTable::sketch_all(stream.as_ref(), docs));
    let (width, words, empty) = table.into_parts();
    matrix(py, empty.len(), width, words)
}

/// SimHash fingerprints of `texts` (n × bits/64, uint64) with `simhash`'s parameters
/// (tf-idf statistics from `texts` themselves unless `idf_from` is given).
#[pyfunction]
pub fn simhash<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    params: &str,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let map = parse_params(params)?;
    let texts = Texts::extract(texts)?;
    let docs = texts.as_slice();
    let fps = py
        .detach(|| SimHash::fingerprints(&map, docs))
        .map_err(errors::library)?;
    matrix(py, fps.empty.len(), fps.words, fps.data)
}

/// Band keys (n × bands, uint64) of MinHash signatures: band `j` hashes values
/// `j·rows … (j+1)·rows − 1`, as the LSH join does.
#[pyfunction]
pub fn band_keys<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let view = signatures.as_array();
    let (n, num_perm) = view.dim();
    let banding = Banding::new(bands, rows, num_perm).map_err(errors::library)?;
    let keys = py.detach(|| {
        let mut keys = vec![0u64; n * bands];
        if bands > 0 {
            keys.par_chunks_mut(bands)
                .enumerate()
                .for_each_init(Vec::new, |row, (i, out)| {
                    // Rows of a non-contiguous array are gathered once per document.
                    row.clear();
                    row.extend(view.row(i).iter().copied());
                    for (band, k) in out.iter_mut().enumerate() {
                        *k = banding.key(row, band);
                    }
                });
        }
        keys
    });
    matrix(py, n, bands, keys)
}

/// Scored pairs `(a, b, score)` with `a < b` (indices into `texts`) that `algorithm` reports.
#[pyfunction]
pub fn detect(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    algorithm: &str,
    params: &str,
) -> PyResult<Vec<(u32, u32, f64)>> {
    let map = parse_params(params)?;
    let detector = neardup::registry::detector(algorithm, &map).map_err(errors::library)?;
    let texts = Texts::extract(texts)?;
    let docs = texts.as_slice();
    let pairs = py
        .detach(|| detector.build(docs)?.query(&ParamMap::new()))
        .map_err(errors::library)?;
    Ok(pairs.into_iter().map(|p| (p.a, p.b, p.score)).collect())
}

/// The registered algorithms as a JSON list: name, summary, build and query defaults, and
/// whether `dedup` streams it.
#[pyfunction]
pub fn algorithms() -> PyResult<String> {
    let list: Vec<serde_json::Value> = neardup::registry::algorithms()
        .iter()
        .map(|a| a.to_json())
        .collect();
    Ok(serde_json::Value::Array(list).to_string())
}
