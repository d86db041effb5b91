//! datasketch-compatible MinHash updates (`neardup.MinHash`, `neardup.bulk`): tokens hashed
//! with SHA-1 and permuted by `neardup::minhash::datasketch` with the GIL released, into the
//! NumPy array a Python `MinHash` holds as its `hashvalues`.
//!
//! Tokens are `bytes` (as datasketch takes them) or `str` (their UTF-8 bytes); both are
//! borrowed from the Python objects, which are immutable and kept alive while Rust reads them.
//! Other buffers (`bytearray`, `memoryview`) are copied first, since Python code could change
//! them while the GIL is released.

use neardup::minhash::datasketch::{Permutations, Scheme, Values};
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString, PyTuple};
use rayon::prelude::*;

use crate::sketch_api::matrix;
use crate::text_input::Texts;

/// Where one token's bytes are: in a Python object (borrowed) or copied.
enum Place {
    Borrowed(usize),
    Copied(usize),
}

/// Tokens' bytes, borrowed from Python objects where they are immutable.
struct TokenBytes<'py> {
    objects: Vec<Bound<'py, PyAny>>,
    copies: Vec<Vec<u8>>,
    places: Vec<Place>,
}

impl<'py> TokenBytes<'py> {
    /// The tokens of an iterable (list and tuple read directly).
    fn extract(tokens: &Bound<'py, PyAny>) -> PyResult<Self> {
        let mut out = TokenBytes {
            objects: Vec::new(),
            copies: Vec::new(),
            places: Vec::new(),
        };
        if tokens.is_instance_of::<PyBytes>() || tokens.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "update_batch takes an iterable of tokens (bytes or str), not one token",
            ));
        }
        if let Ok(list) = tokens.cast::<PyList>() {
            out.reserve(list.len());
            for (i, item) in list.iter().enumerate() {
                prefetch_item(list, i + 8);
                out.push(item)?;
            }
        } else if let Ok(tuple) = tokens.cast::<PyTuple>() {
            out.reserve(tuple.len());
            for item in tuple.iter() {
                out.push(item)?;
            }
        } else {
            for item in tokens.try_iter()? {
                out.push(item?)?;
            }
        }
        Ok(out)
    }

    fn reserve(&mut self, n: usize) {
        self.objects.reserve(n);
        self.places.reserve(n);
    }

    fn push(&mut self, item: Bound<'py, PyAny>) -> PyResult<()> {
        if item.is_instance_of::<PyBytes>() || item.is_instance_of::<PyString>() {
            self.places.push(Place::Borrowed(self.objects.len()));
            self.objects.push(item);
        } else if let Ok(array) = item.cast::<PyByteArray>() {
            self.places.push(Place::Copied(self.copies.len()));
            self.copies.push(array.to_vec());
        } else if let Ok(buffer) = pyo3::buffer::PyBuffer::<u8>::get(&item) {
            self.places.push(Place::Copied(self.copies.len()));
            self.copies.push(buffer.to_vec(item.py())?);
        } else {
            return Err(PyTypeError::new_err(format!(
                "a token must be bytes or str (SHA-1 hashes bytes; give hashfunc= for other \
                 values), not {}",
                item.get_type().name()?
            )));
        }
        Ok(())
    }

    /// Every token's bytes, in order.
    fn slices(&self) -> PyResult<Vec<&[u8]>> {
        self.places
            .iter()
            .map(|place| match *place {
                Place::Copied(i) => Ok(self.copies[i].as_slice()),
                Place::Borrowed(i) => {
                    let object = &self.objects[i];
                    match object.cast::<PyBytes>() {
                        Ok(bytes) => Ok(bytes.as_bytes()),
                        Err(_) => Ok(object.cast::<PyString>()?.to_str()?.as_bytes()),
                    }
                }
            })
            .collect()
    }
}

/// Asks the CPU for the object `list[i]` before it is read: a corpus's tokens are a million
/// separate `bytes` objects whose headers missed the cache one after another (20news: 65 ns
/// per token, against 41 for tokens that stay cached; 48–60 with the prefetch).
#[inline(always)]
fn prefetch_item(list: &Bound<'_, PyList>, i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < list.len() {
        // SAFETY: `i` is within the list, whose items are valid objects while the GIL is held;
        // a prefetch reads nothing the program sees.
        unsafe {
            let item = pyo3::ffi::PyList_GET_ITEM(list.as_ptr(), i as pyo3::ffi::Py_ssize_t);
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                item as *const i8,
            );
        }
    }
}

fn scheme(name: &str) -> PyResult<Scheme> {
    Scheme::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "scheme must be one of affine32, affine64, legacy, got {name:?}"
        ))
    })
}

/// The permutations `[a, b]` of `scheme`: a C-contiguous 2 × num_perm NumPy array of its
/// dtype (`MinHash.permutations`), read in place.
enum OwnedPermutations<'py> {
    U32(PyReadonlyArray2<'py, u32>),
    U64(PyReadonlyArray2<'py, u64>),
}

impl<'py> OwnedPermutations<'py> {
    fn extract(scheme: Scheme, permutations: &Bound<'py, PyAny>) -> PyResult<Self> {
        let owned = match scheme {
            Scheme::Affine32 => OwnedPermutations::U32(permutations.extract()?),
            Scheme::Affine64 | Scheme::Legacy => OwnedPermutations::U64(permutations.extract()?),
        };
        let shape = match &owned {
            OwnedPermutations::U32(p) => p.shape().to_vec(),
            OwnedPermutations::U64(p) => p.shape().to_vec(),
        };
        if shape[0] != 2 {
            return Err(PyValueError::new_err(format!(
                "permutations must be a 2 × num_perm array [a, b], not {shape:?}"
            )));
        }
        Ok(owned)
    }

    fn view(&self, scheme: Scheme) -> PyResult<Permutations<'_>> {
        let contiguous = |e: numpy::AsSliceError| PyValueError::new_err(e.to_string());
        Ok(match (scheme, self) {
            (Scheme::Affine32, OwnedPermutations::U32(p)) => {
                let (a, b) = halves(p.as_slice().map_err(contiguous)?);
                Permutations::Affine32(a, b)
            }
            (Scheme::Affine64, OwnedPermutations::U64(p)) => {
                let (a, b) = halves(p.as_slice().map_err(contiguous)?);
                Permutations::Affine64(a, b)
            }
            (Scheme::Legacy, OwnedPermutations::U64(p)) => {
                let (a, b) = halves(p.as_slice().map_err(contiguous)?);
                Permutations::Legacy(a, b)
            }
            _ => unreachable!("extracted for this scheme"),
        })
    }
}

fn halves<T>(both: &[T]) -> (&[T], &[T]) {
    both.split_at(both.len() / 2)
}

/// `values` lowered by `update` (with the GIL released), as a new NumPy array: a MinHash's
/// `hashvalues` are replaced, never changed in place, as in datasketch.
fn lowered<'py>(
    py: Python<'py>,
    scheme: Scheme,
    values: &Bound<'py, PyAny>,
    permutations: Permutations<'_>,
    update: impl FnOnce(Permutations<'_>, Values<'_>) -> Option<()> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    fn copied<'py, T: numpy::Element + Copy>(values: &Bound<'py, PyAny>) -> PyResult<Vec<T>> {
        let array: PyReadonlyArray1<T> = values.extract()?;
        Ok(match array.as_slice() {
            Ok(slice) => slice.to_vec(),
            Err(_) => array.as_array().iter().copied().collect(),
        })
    }
    Ok(match scheme {
        Scheme::Affine32 => {
            let mut v: Vec<u32> = copied(values)?;
            py.detach(|| update(permutations, Values::U32(&mut v)))
                .ok_or_else(mismatched)?;
            PyArray1::from_vec(py, v).into_any()
        }
        Scheme::Affine64 | Scheme::Legacy => {
            let mut v: Vec<u64> = copied(values)?;
            py.detach(|| update(permutations, Values::U64(&mut v)))
                .ok_or_else(mismatched)?;
            PyArray1::from_vec(py, v).into_any()
        }
    })
}

/// `MinHash.update_batch` with datasketch's default hash (SHA-1): the new hash values.
#[pyfunction]
pub fn datasketch_update<'py>(
    py: Python<'py>,
    scheme_name: &str,
    values: &Bound<'py, PyAny>,
    permutations: &Bound<'py, PyAny>,
    tokens: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let scheme = scheme(scheme_name)?;
    let owned = OwnedPermutations::extract(scheme, permutations)?;
    let tokens = TokenBytes::extract(tokens)?;
    let slices = tokens.slices()?;
    lowered(py, scheme, values, owned.view(scheme)?, |p, v| {
        p.apply_tokens(v, slices.iter().copied())
    })
}

/// `MinHash.update_batch` with a user's `hashfunc`: the hash values lowered by the token
/// hashes `hashes` (uint64, already checked to fit the scheme's width).
#[pyfunction]
pub fn datasketch_apply_hashes<'py>(
    py: Python<'py>,
    scheme_name: &str,
    values: &Bound<'py, PyAny>,
    permutations: &Bound<'py, PyAny>,
    hashes: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, PyAny>> {
    let scheme = scheme(scheme_name)?;
    let owned = OwnedPermutations::extract(scheme, permutations)?;
    let hashes = hashes
        .as_slice()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    lowered(py, scheme, values, owned.view(scheme)?, |p, v| {
        p.apply_hashes(v, hashes)
    })
}

/// Python's `str.split()` separators: Unicode white space, and U+001C–U+001F, which Python
/// also counts as space (`str.isspace`).
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Lowers `values` by the word `ngram`-grams of `text` (words joined by one space), as
/// `update_batch([" ".join(w[i:i+n]).encode() for i in …])` on `w = text.split()` does. The
/// grams are written one after another into one buffer, not allocated one by one.
fn lower_by_words(p: Permutations<'_>, values: Values<'_>, text: &str, ngram: usize) {
    let words: Vec<&str> = text
        .split(is_python_space)
        .filter(|w| !w.is_empty())
        .collect();
    if ngram <= 1 {
        p.apply_tokens(values, words.iter().map(|w| w.as_bytes()));
        return;
    }
    let mut joined = String::new();
    let mut ends = Vec::new();
    for window in words.windows(ngram) {
        for (i, w) in window.iter().enumerate() {
            if i > 0 {
                joined.push(' ');
            }
            joined.push_str(w);
        }
        ends.push(joined.len());
    }
    let starts = std::iter::once(0).chain(ends.iter().copied());
    let grams = starts.zip(&ends).map(|(s, &e)| &joined.as_bytes()[s..e]);
    p.apply_tokens(values, grams);
}

/// The signatures of many token lists (`MinHash.bulk`) or texts (`neardup.bulk`), one row
/// each, computed in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (scheme_name, initial, permutations, documents, ngram=None))]
pub fn datasketch_bulk<'py>(
    py: Python<'py>,
    scheme_name: &str,
    initial: &Bound<'py, PyAny>,
    permutations: &Bound<'py, PyAny>,
    documents: &Bound<'py, PyAny>,
    ngram: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let scheme = scheme(scheme_name)?;
    let owned = OwnedPermutations::extract(scheme, permutations)?;
    let permutations = owned.view(scheme)?;
    let width = permutations.len();
    match ngram {
        Some(n) => {
            let texts = Texts::extract(documents)?;
            let texts = texts.as_slice();
            bulk_rows(py, scheme, initial, width, texts.len(), |i, v| {
                lower_by_words(permutations, v, texts[i], n)
            })
        }
        None => {
            let lists: Vec<TokenBytes> = documents
                .try_iter()?
                .map(|doc| TokenBytes::extract(&doc?))
                .collect::<PyResult<_>>()?;
            let slices: Vec<Vec<&[u8]>> = lists
                .iter()
                .map(TokenBytes::slices)
                .collect::<PyResult<_>>()?;
            bulk_rows(py, scheme, initial, width, slices.len(), |i, v| {
                permutations.apply_tokens(v, slices[i].iter().copied());
            })
        }
    }
}

/// `rows` signatures of `width` values, each started from `initial` (the empty signature)
/// and lowered by `fill(row, values)`.
fn bulk_rows<'py>(
    py: Python<'py>,
    scheme: Scheme,
    initial: &Bound<'py, PyAny>,
    width: usize,
    rows: usize,
    fill: impl Fn(usize, Values<'_>) + Sync,
) -> PyResult<Bound<'py, PyAny>> {
    fn filled<T: Copy + Send + Sync>(
        start: &[T],
        rows: usize,
        fill: impl Fn(usize, &mut [T]) + Sync,
    ) -> Vec<T> {
        let width = start.len();
        let mut out: Vec<T> = start.iter().copied().cycle().take(rows * width).collect();
        if width > 0 {
            out.par_chunks_mut(width)
                .enumerate()
                .for_each(|(i, row)| fill(i, row));
        }
        out
    }
    let matrix_of = |e: numpy::AsSliceError| PyValueError::new_err(e.to_string());
    Ok(match scheme {
        Scheme::Affine32 => {
            let start: PyReadonlyArray1<u32> = initial.extract()?;
            let start = start.as_slice().map_err(matrix_of)?.to_vec();
            check_width(start.len(), width)?;
            let data = py.detach(|| filled(&start, rows, |i, row| fill(i, Values::U32(row))));
            let m: Bound<PyArray2<u32>> = matrix(py, rows, width, data)?;
            m.into_any()
        }
        Scheme::Affine64 | Scheme::Legacy => {
            let start: PyReadonlyArray1<u64> = initial.extract()?;
            let start = start.as_slice().map_err(matrix_of)?.to_vec();
            check_width(start.len(), width)?;
            let data = py.detach(|| filled(&start, rows, |i, row| fill(i, Values::U64(row))));
            let m: Bound<PyArray2<u64>> = matrix(py, rows, width, data)?;
            m.into_any()
        }
    })
}

fn check_width(values: usize, permutations: usize) -> PyResult<()> {
    if values != permutations {
        return Err(mismatched());
    }
    Ok(())
}

/// datasketch's error for hash values and permutations of different lengths.
fn mismatched() -> PyErr {
    PyValueError::new_err("Numbers of hash values and permutations mismatch")
}

/// datasketch's `sha1_hash32`.
#[pyfunction]
pub fn sha1_hash32(data: &[u8]) -> u32 {
    neardup::minhash::datasketch::sha1_hash32(data)
}

/// datasketch's `sha1_hash64`.
#[pyfunction]
pub fn sha1_hash64(data: &[u8]) -> u64 {
    neardup::minhash::datasketch::sha1_hash64(data)
}
