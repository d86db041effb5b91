//! `StreamKernel`: an algorithm's streamable split (`neardup::streaming`) for pipelines that
//! run the stages themselves (`neardup.ray`): sketch a file or a batch of texts, derive the
//! join keys, verify candidate pairs. Each step is the library's own code, so a distributed
//! run computes what `neardup dedup` computes.

use std::path::PathBuf;

use neardup::streaming::{SignatureTable, SketchScratch, StreamingDetector};
use neardup_lab::dedup::inputs::{expand, for_each_record_block};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors;
use crate::sketch_api::parse_params;
use crate::text_input::Texts;

/// Signatures and empty flags of `docs`, in parallel.
fn sketch_texts(stream: &dyn StreamingDetector, docs: &[&str]) -> (Vec<u32>, Vec<bool>) {
    let (_, words, empty) = SignatureTable::sketch_all(stream, docs).into_parts();
    (words, empty)
}

/// Signatures and empty flags.
type Signatures<'py> = (Bound<'py, PyArray2<u32>>, Bound<'py, PyArray1<bool>>);

/// Signatures, empty flags, ids, text bytes and line numbers of one file.
type Sketched<'py> = (
    Bound<'py, PyArray2<u32>>,
    Bound<'py, PyArray1<bool>>,
    Vec<Option<String>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u64>>,
);

/// A streamable algorithm configuration.
#[derive(Debug)]
#[pyclass(frozen, module = "neardup._native")]
pub struct StreamKernel {
    stream: Box<dyn StreamingDetector>,
    build_params: String,
}

impl StreamKernel {
    fn matrix<'py, T: numpy::Element>(
        py: Python<'py>,
        rows: usize,
        width: usize,
        data: Vec<T>,
    ) -> PyResult<Bound<'py, PyArray2<T>>> {
        Array2::from_shape_vec((rows, width), data)
            .map(|a| a.into_pyarray(py))
            .map_err(|e| PyValueError::new_err(format!("internal shape error: {e}")))
    }

    /// Row count and row-major words of a signature array.
    fn rows(&self, sigs: &PyReadonlyArray2<'_, u32>) -> PyResult<(usize, Vec<u32>)> {
        let view = sigs.as_array();
        if view.ncols() != self.stream.width() {
            return Err(PyValueError::new_err(format!(
                "signatures have {} columns; {} signatures have {}",
                view.ncols(),
                self.stream.name(),
                self.stream.width()
            )));
        }
        Ok((view.nrows(), view.iter().copied().collect()))
    }
}

#[pymethods]
impl StreamKernel {
    #[new]
    fn new(algorithm: &str, params: &str) -> PyResult<Self> {
        let map = parse_params(params)?;
        let detector = neardup::registry::detector(algorithm, &map).map_err(errors::library)?;
        let build_params = serde_json::Value::Object(detector.build_params()).to_string();
        let stream = detector.streaming().ok_or_else(|| {
            let streamed: Vec<&str> = neardup::registry::algorithms()
                .iter()
                .filter(|a| {
                    a.detector(&Default::default())
                        .map(|d| d.streaming().is_some())
                        .unwrap_or(false)
                })
                .map(|a| a.name)
                .collect();
            PyValueError::new_err(format!(
                "{algorithm} with these parameters has no streamable signature (it needs the \
                 corpus in memory: use neardup.dedup); streamed: {}",
                streamed.join(", ")
            ))
        })?;
        Ok(StreamKernel {
            stream,
            build_params,
        })
    }

    /// Registered algorithm name.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.stream.name()
    }

    /// 32-bit words per signature.
    #[getter]
    fn width(&self) -> usize {
        self.stream.width()
    }

    /// Join keys per document.
    #[getter]
    fn keys_per_doc(&self) -> usize {
        self.stream.keys_per_doc()
    }

    /// What the signatures depend on (equal strings: reusable signatures).
    #[getter]
    fn sketch_key(&self) -> String {
        self.stream.sketch_key()
    }

    /// Every build parameter, defaults filled in, as JSON.
    #[getter]
    fn build_params(&self) -> String {
        self.build_params.clone()
    }

    /// Signatures (n × width) and empty flags of `texts`.
    fn sketch<'py>(&self, py: Python<'py>, texts: &Bound<'py, PyAny>) -> PyResult<Signatures<'py>> {
        let texts = Texts::extract(texts)?;
        let docs = texts.as_slice();
        let (words, empty) = py.detach(|| sketch_texts(self.stream.as_ref(), docs));
        let n = empty.len();
        Ok((
            Self::matrix(py, n, self.stream.width(), words)?,
            PyArray1::from_vec(py, empty),
        ))
    }

    /// One input file read exactly as `neardup dedup` reads it (any supported format, the
    /// same field rules and errors naming file and line): signatures, empty flags, ids
    /// (`None` where a record has none), text lengths in bytes and line (or row) numbers.
    fn sketch_file<'py>(
        &self,
        py: Python<'py>,
        path: PathBuf,
        text_field: &str,
        id_field: &str,
    ) -> PyResult<Sketched<'py>> {
        let result = py.detach(|| -> anyhow::Result<_> {
            let files = expand(std::slice::from_ref(&path))?;
            let mut words = Vec::new();
            let mut empty = Vec::new();
            let mut ids = Vec::new();
            let mut bytes = Vec::new();
            let mut lines = Vec::new();
            let width = self.stream.width();
            for file in &files {
                for_each_record_block(file, text_field, id_field, |records| {
                    let start = empty.len();
                    words.resize((start + records.len()) * width, 0);
                    empty.resize(start + records.len(), false);
                    words[start * width..]
                        .par_chunks_mut(width.max(1))
                        .zip(empty[start..].par_iter_mut())
                        .zip(records.par_iter())
                        .for_each_init(SketchScratch::default, |s, ((row, e), r)| {
                            *e = !self.stream.sketch(&r.text, s, row);
                        });
                    for r in records {
                        bytes.push(r.text.len() as u32);
                        lines.push(r.line);
                        ids.push(r.id);
                    }
                    Ok(())
                })?;
            }
            Ok((words, empty, ids, bytes, lines))
        });
        let (words, empty, ids, bytes, lines) = result.map_err(errors::pipeline)?;
        let n = empty.len();
        Ok((
            Self::matrix(py, n, self.stream.width(), words)?,
            PyArray1::from_vec(py, empty),
            ids,
            PyArray1::from_vec(py, bytes),
            PyArray1::from_vec(py, lines),
        ))
    }

    /// Join keys (n × keys_per_doc, uint64) of signatures: documents whose keys agree in
    /// some column are candidates.
    fn keys<'py>(
        &self,
        py: Python<'py>,
        signatures: PyReadonlyArray2<'py, u32>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let (n, words) = self.rows(&signatures)?;
        let (w, k) = (self.stream.width(), self.stream.keys_per_doc());
        let keys = py.detach(|| {
            let mut keys = vec![0u64; n * k];
            if k > 0 {
                keys.par_chunks_mut(k)
                    .zip(words.par_chunks(w.max(1)))
                    .for_each(|(out, sig)| self.stream.keys(sig, out));
            }
            keys
        });
        Self::matrix(py, n, k, keys)
    }

    /// Scores of candidate pairs (row i of `a` against row i of `b`, both non-empty
    /// documents); NaN where verification rejects the pair.
    fn verify<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u32>,
        b: PyReadonlyArray2<'py, u32>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (n, mut words) = self.rows(&a)?;
        let (n_right, right) = self.rows(&b)?;
        if n != n_right {
            return Err(PyValueError::new_err("a and b must have as many rows"));
        }
        let w = self.stream.width();
        words.extend_from_slice(&right);
        let table = SignatureTable::from_parts(w, words, vec![false; 2 * n]);
        let scores = py.detach(|| {
            (0..n)
                .into_par_iter()
                .map(|i| {
                    self.stream
                        .verify(&table, i as u32, (n + i) as u32)
                        .unwrap_or(f64::NAN)
                })
                .collect::<Vec<f64>>()
        });
        Ok(PyArray1::from_vec(py, scores))
    }
}
