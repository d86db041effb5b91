//! `StreamKernel`: an algorithm's streamable split (`neardup::streaming`) for pipelines that
//! run the stages themselves (`neardup.ray`): sketch a file or a batch of texts, derive the
//! join keys, verify candidate pairs. Each step is the library's own code, so a distributed
//! run computes what `neardup dedup` computes.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

use neardup::streaming::{SignatureTable, StreamingDetector};
use neardup_dedup::input::expand;
use neardup_dedup::pipeline::sketch_file;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors;
use crate::sketch_api::{matrix, parse_params};
use crate::text_input::Texts;

/// Signatures and empty flags.
type Signatures<'py> = (Bound<'py, PyArray2<u32>>, Bound<'py, PyArray1<bool>>);

/// Signatures, empty flags, ids, text bytes and line numbers of one file; then, when its
/// records are web pages, what happened to them (records skipped by reason, extraction
/// outcomes), else `None`.
type Sketched<'py> = (
    Bound<'py, PyArray2<u32>>,
    Bound<'py, PyArray1<bool>>,
    Vec<Option<String>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u64>>,
    Option<BTreeMap<String, u64>>,
);

/// The one input file `path` names (a path that expands to several is refused).
pub fn one_input(path: &std::path::Path) -> anyhow::Result<neardup_dedup::input::InputFile> {
    let mut files = expand(&[path.to_path_buf()])?;
    if files.len() != 1 {
        anyhow::bail!("{}: one input file expected", path.display());
    }
    Ok(files.remove(0))
}

/// Representatives, similarities and within-threshold flags of [`StreamKernel::anchor`].
type Anchored<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<bool>>,
);

/// One group of components handed to [`StreamKernel::anchor`], numbered locally in document
/// order (the order `neardup dedup` numbers them in, so ties go the same way).
struct AnchorGroup<'a> {
    docs: &'a [u64],
    /// Input rows sorted by document.
    order: Vec<usize>,
    /// Per local document: its component.
    labels: Vec<u32>,
    /// Verified pairs in local numbers.
    edges: Vec<(u32, u32)>,
}

impl<'a> AnchorGroup<'a> {
    fn new(docs: &'a [u64], roots: &[u64], edge_a: &[u64], edge_b: &[u64]) -> PyResult<Self> {
        let mut order: Vec<usize> = (0..docs.len()).collect();
        order.sort_unstable_by_key(|&i| docs[i]);
        let sorted: Vec<u64> = order.iter().map(|&i| docs[i]).collect();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(PyValueError::new_err(
                "a document appears twice in one group",
            ));
        }
        let local = |d: u64| {
            sorted.binary_search(&d).map(|l| l as u32).map_err(|_| {
                PyValueError::new_err(format!("pair names document {d}, not in the group"))
            })
        };
        let mut root_ids: Vec<u64> = roots.to_vec();
        root_ids.sort_unstable();
        root_ids.dedup();
        let labels = order
            .iter()
            .map(|&i| root_ids.binary_search(&roots[i]).expect("listed") as u32)
            .collect();
        let edges = edge_a
            .iter()
            .zip(edge_b)
            .map(|(&a, &b)| Ok((local(a)?, local(b)?)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(AnchorGroup {
            docs,
            order,
            labels,
            edges,
        })
    }

    /// (representative, similarity, within) per input row.
    fn anchor(
        &self,
        stream: &dyn StreamingDetector,
        words: &[u32],
        width: usize,
        bytes: &[i64],
        longest: bool,
        cut: bool,
    ) -> (Vec<u64>, Vec<f64>, Vec<bool>) {
        use neardup::cluster::anchored::{Components, anchor_component};
        let n = self.order.len();
        let mut sorted_words = Vec::with_capacity(n * width);
        for &i in &self.order {
            sorted_words.extend_from_slice(&words[i * width..(i + 1) * width]);
        }
        let table = SignatureTable::from_parts(width, sorted_words, vec![false; n]);
        let components = Components::new(&self.labels, self.edges.iter().copied());
        let rank = |l: u32| {
            let b = bytes[self.order[l as usize]].clamp(0, u32::MAX as i64) as u32;
            if longest { u32::MAX - b } else { 0 }
        };
        let assignments: Vec<_> = (0..components.len())
            .into_par_iter()
            .flat_map_iter(|c| {
                let (members, edges) = components.get(c);
                anchor_component(
                    members,
                    edges,
                    rank,
                    |a, b| stream.compare(&table, a, b),
                    cut,
                )
            })
            .collect();
        let mut rep: Vec<u32> = (0..n as u32).collect();
        let mut sim = vec![1.0; n];
        let mut within = vec![true; n];
        for a in assignments {
            rep[a.document as usize] = a.representative;
            sim[a.document as usize] = a.similarity;
            within[a.document as usize] = a.within;
        }
        let mut out = (vec![0u64; n], vec![0.0; n], vec![false; n]);
        for (l, &i) in self.order.iter().enumerate() {
            out.0[i] = self.docs[self.order[rep[l] as usize]];
            out.1[i] = sim[l];
            out.2[i] = within[l];
        }
        out
    }
}

/// A streamable algorithm configuration.
#[derive(Debug)]
#[pyclass(frozen, module = "neardup._native")]
pub struct StreamKernel {
    stream: Box<dyn StreamingDetector>,
    resolved_params: String,
}

impl StreamKernel {
    /// Row count and row-major words of a signature array (borrowed when it is contiguous).
    fn rows<'a>(&self, sigs: &'a PyReadonlyArray2<'_, u32>) -> PyResult<(usize, Cow<'a, [u32]>)> {
        let view = sigs.as_array();
        if view.ncols() != self.stream.width() {
            return Err(PyValueError::new_err(format!(
                "signatures have {} columns; {} signatures have {}",
                view.ncols(),
                self.stream.name(),
                self.stream.width()
            )));
        }
        let words = match sigs.as_slice() {
            Ok(words) => Cow::Borrowed(words),
            Err(_) => Cow::Owned(view.iter().copied().collect()),
        };
        Ok((view.nrows(), words))
    }
}

#[pymethods]
impl StreamKernel {
    #[new]
    fn new(algorithm: &str, params: &str) -> PyResult<Self> {
        let map = parse_params(params)?;
        let detector = neardup::registry::detector(algorithm, &map).map_err(errors::library)?;
        let resolved_params = serde_json::Value::Object(detector.resolved_params()).to_string();
        let stream = detector.streaming().ok_or_else(|| {
            let streamed: Vec<&str> = neardup::registry::algorithms()
                .iter()
                .filter(|a| a.streams_by_default())
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
            resolved_params,
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

    /// Every parameter as it runs (defaults filled in and resolved: a minhash-lsh default's
    /// threshold, bands and rows), as JSON: what `summary.json` records, as the CLI's does.
    #[getter]
    fn resolved_params(&self) -> String {
        self.resolved_params.clone()
    }

    /// Signatures (n × width) and empty flags of `texts`.
    fn sketch<'py>(&self, py: Python<'py>, texts: &Bound<'py, PyAny>) -> PyResult<Signatures<'py>> {
        let texts = Texts::extract(texts)?;
        let docs = texts.as_slice();
        let table = py.detach(|| SignatureTable::sketch_all(self.stream.as_ref(), docs));
        let (_, words, empty) = table.into_parts();
        let n = empty.len();
        Ok((
            matrix(py, n, self.stream.width(), words)?,
            PyArray1::from_vec(py, empty),
        ))
    }

    /// One input file read exactly as `neardup dedup` reads it (any supported format, the
    /// same field rules and errors naming file and line; web pages — WARC, HTML files, an
    /// `html_field` — compared by the text `extract` takes of them): signatures, empty
    /// flags, ids (`None` where a record has none), text lengths in bytes, line (or row)
    /// numbers, and for web pages the counts of what happened to them.
    #[pyo3(signature = (path, text_field, id_field, extract="main", html_field=None))]
    fn sketch_file<'py>(
        &self,
        py: Python<'py>,
        path: PathBuf,
        text_field: &str,
        id_field: &str,
        extract: &str,
        html_field: Option<String>,
    ) -> PyResult<Sketched<'py>> {
        let fields = crate::dedup_api::record_fields(text_field, id_field, extract, html_field)?;
        let (shard, pages) = py
            .detach(|| -> anyhow::Result<_> {
                let file = one_input(&path)?;
                let shard = sketch_file(&file, Some(self.stream.as_ref()), &fields)?.0;
                let pages = fields.reads_pages(&file).then(|| fields.tally.counts());
                Ok((shard, pages))
            })
            .map_err(errors::pipeline)?;
        let (width, words, empty) = shard.table.into_parts();
        Ok((
            matrix(py, empty.len(), width, words)?,
            PyArray1::from_vec(py, empty),
            shard.ids,
            PyArray1::from_vec(py, shard.bytes),
            PyArray1::from_vec(py, shard.lines),
            pages,
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
        matrix(py, n, k, keys)
    }

    /// Verified clusters of the connected components in one group (`neardup dedup
    /// --clusters verified`, `neardup::cluster::anchored`): documents `docs` (distinct, any
    /// order) with their component's root, signature and text length, the verified pairs
    /// `(edge_a[i], edge_b[i])` among them; `keep` is `first` or `longest`. Returns, in the
    /// input order, each document's representative, its similarity to it and whether that is
    /// within the threshold; `cut = false` only measures (connected components).
    #[allow(clippy::too_many_arguments)]
    fn anchor<'py>(
        &self,
        py: Python<'py>,
        docs: PyReadonlyArray1<'py, u64>,
        roots: PyReadonlyArray1<'py, u64>,
        signatures: PyReadonlyArray2<'py, u32>,
        bytes: PyReadonlyArray1<'py, i64>,
        edge_a: PyReadonlyArray1<'py, u64>,
        edge_b: PyReadonlyArray1<'py, u64>,
        keep: &str,
        cut: bool,
    ) -> PyResult<Anchored<'py>> {
        let longest = match keep {
            "first" => false,
            "longest" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "keep must be 'first' or 'longest', not {other:?}"
                )));
            }
        };
        let (n, words) = self.rows(&signatures)?;
        let (docs, roots, bytes) = (docs.as_slice()?, roots.as_slice()?, bytes.as_slice()?);
        let (edge_a, edge_b) = (edge_a.as_slice()?, edge_b.as_slice()?);
        if docs.len() != n || roots.len() != n || bytes.len() != n || edge_a.len() != edge_b.len() {
            return Err(PyValueError::new_err(
                "docs, roots, signatures and bytes must have as many rows; edge_a and edge_b too",
            ));
        }
        let group = AnchorGroup::new(docs, roots, edge_a, edge_b)?;
        let w = self.stream.width();
        let (rep, sim, within) =
            py.detach(|| group.anchor(self.stream.as_ref(), &words, w, bytes, longest, cut));
        Ok((
            PyArray1::from_vec(py, rep),
            PyArray1::from_vec(py, sim),
            PyArray1::from_vec(py, within),
        ))
    }

    /// Scores of candidate pairs (row i of `a` against row i of `b`, both non-empty
    /// documents); NaN where verification rejects the pair.
    fn verify<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u32>,
        b: PyReadonlyArray2<'py, u32>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (n, left) = self.rows(&a)?;
        let (n_right, right) = self.rows(&b)?;
        if n != n_right {
            return Err(PyValueError::new_err("a and b must have as many rows"));
        }
        let w = self.stream.width();
        let words = [left.as_ref(), right.as_ref()].concat();
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
