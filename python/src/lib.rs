//! `neardup._native`: the Rust side of the `neardup` Python package.
//!
//! Thin bindings over the `neardup` library (and, for `dedup`, the lab's pipeline): texts are
//! borrowed from Python `str` objects or Arrow string buffers without copying (`text_input`),
//! the GIL is released while Rust works, and results are handed to NumPy without copying. The
//! Python layer (`python/neardup/*.py`) adds keyword arguments, docstrings and pyarrow tables;
//! parameters cross as one JSON object so that they are parsed and validated by the same code,
//! with the same messages, as `neardup --param k=v`.

mod dedup_api;
mod errors;
mod extract_api;
mod join_api;
mod lsh_index_api;
mod minhash_api;
mod sketch_api;
mod stream_api;
mod text_input;
mod tuning_api;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", neardup_dedup::VERSION)?;
    m.add_function(wrap_pyfunction!(sketch_api::minhash, m)?)?;
    m.add_function(wrap_pyfunction!(sketch_api::simhash, m)?)?;
    m.add_function(wrap_pyfunction!(sketch_api::band_keys, m)?)?;
    m.add_function(wrap_pyfunction!(sketch_api::detect, m)?)?;
    m.add_function(wrap_pyfunction!(sketch_api::algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_api::dedup, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_api::expand_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(extract_api::extract, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_api::publish_external, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_api::deduplicated_names, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_api::write_deduplicated, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_api::write_kept_text, m)?)?;
    m.add_function(wrap_pyfunction!(join_api::candidate_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(tuning_api::lsh_tune, m)?)?;
    m.add_function(wrap_pyfunction!(tuning_api::hamming_designs, m)?)?;
    m.add_function(wrap_pyfunction!(tuning_api::containment_bandings, m)?)?;
    m.add_function(wrap_pyfunction!(tuning_api::containment_partitions, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_api::datasketch_update, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_api::datasketch_apply_hashes, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_api::datasketch_bulk, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_api::sha1_hash32, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_api::sha1_hash64, m)?)?;
    m.add_class::<lsh_index_api::MinHashIndex>()?;
    m.add_class::<stream_api::StreamKernel>()?;
    Ok(())
}
