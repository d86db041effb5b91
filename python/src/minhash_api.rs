//! datasketch-compatible MinHash updates (`neardup.MinHash`, `neardup.bulk`): tokens hashed
//! with SHA-1 and permuted by `neardup::minhash::datasketch` with the GIL released, into the
//! NumPy array a Python `MinHash` holds as its `hashvalues`.
//!
//! Tokens are `bytes` (as datasketch takes them) or `str` (their UTF-8 bytes); both are
//! borrowed from the Python objects, which are immutable and kept alive while Rust reads them.
//! Other buffers (`bytearray`, `memoryview`) are copied first, since Python code could change
//! them while the GIL is released.

use neardup::minhash::datasketch::{Permutations, Scheme, Values};
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};
use rayon::prelude::*;

use crate::sketch_api::matrix;
use crate::text_input::Texts;

/// Tokens' bytes as (start, length) spans, in order: borrowed from the Python objects that
/// hold them (`bytes` and `str`, immutable, kept alive by `owners` while the GIL is released)
/// or copied into `copies` (whose buffers stay put when the vector of them grows).
struct TokenBytes<'py> {
    owners: Vec<Bound<'py, PyAny>>,
    copies: Vec<Vec<u8>>,
    spans: Vec<(*const u8, usize)>,
}

impl<'py> TokenBytes<'py> {
    /// The tokens of an iterable (list and tuple read directly).
    fn extract(tokens: &Bound<'py, PyAny>) -> PyResult<Self> {
        let mut out = TokenBytes {
            owners: Vec::new(),
            copies: Vec::new(),
            spans: Vec::new(),
        };
        if tokens.is_instance_of::<PyBytes>() || tokens.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "update_batch takes an iterable of tokens (bytes or str), not one token",
            ));
        }
        if let Ok(list) = tokens.cast::<PyList>() {
            out.reserve(list.len());
            // The length is read again each time: a token's buffer protocol (Python code)
            // could shorten the list.
            let mut i = 0;
            while i < list.len() {
                prefetch_item(list, i + 8);
                out.push_list_item(list, i)?;
                i += 1;
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
        self.owners.reserve(n);
        self.spans.reserve(n);
    }

    /// `list[i]` (`i` < its length): an exact `bytes` read in place ([`exact_bytes_span`]),
    /// anything else through `push`.
    #[inline(always)]
    fn push_list_item(&mut self, list: &Bound<'py, PyList>, i: usize) -> PyResult<()> {
        // SAFETY: `i` is within the list and the GIL is held, so the item is a valid object;
        // `owners` keeps a reference to it as long as its span is read.
        unsafe {
            let item = list_item(list, i);
            let owner = Bound::from_borrowed_ptr(list.py(), item);
            match exact_bytes_span(item) {
                Some(span) => {
                    self.spans.push(span);
                    self.owners.push(owner);
                    Ok(())
                }
                None => self.push(owner),
            }
        }
    }

    fn push(&mut self, item: Bound<'py, PyAny>) -> PyResult<()> {
        let bytes: &[u8] = if let Ok(bytes) = item.cast::<PyBytes>() {
            bytes.as_bytes()
        } else if let Ok(text) = item.cast::<PyString>() {
            // Python caches the UTF-8 form inside the str object: it lives as long as `item`.
            text.to_str()?.as_bytes()
        } else if let Ok(array) = item.cast::<PyByteArray>() {
            self.copies.push(array.to_vec());
            self.copies.last().expect("just pushed")
        } else if let Ok(buffer) = pyo3::buffer::PyBuffer::<u8>::get(&item) {
            self.copies.push(buffer.to_vec(item.py())?);
            self.copies.last().expect("just pushed")
        } else {
            return Err(PyTypeError::new_err(format!(
                "a token must be bytes or str (SHA-1 hashes bytes; give hashfunc= for other \
                 values), not {}",
                item.get_type().name()?
            )));
        };
        self.spans.push((bytes.as_ptr(), bytes.len()));
        self.owners.push(item);
        Ok(())
    }

    /// Every token's bytes, in order.
    fn slices(&self) -> Vec<&[u8]> {
        self.spans
            .iter()
            // SAFETY: each span lies in an object `owners` keeps alive or in a buffer of
            // `copies`, neither changed nor freed before `self` is.
            .map(|&(start, len)| unsafe { std::slice::from_raw_parts(start, len) })
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

/// Batches of at least this many tokens are hashed with the GIL released. Smaller ones keep
/// it: releasing and taking it back cost more than the work they would free (20news, a post
/// of ~200 words per `update_batch`: 70 ns per token released, 48 held), and a batch under
/// this size takes well under a millisecond, a fraction of Python's 5 ms switch interval.
const RELEASE_GIL_FROM: usize = 4096;

/// The permutations `[a, b]` of `scheme` (`MinHash.permutations`: a 2 × num_perm array, or
/// anything NumPy makes one of, of the scheme's dtype), copied out of Python so that Rust
/// reads them with or without the GIL.
enum OwnedPermutations {
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl OwnedPermutations {
    fn extract(scheme: Scheme, permutations: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (owned, shape) = match scheme {
            Scheme::Affine32 => {
                let (data, shape) = contiguous_copy::<u32>(permutations)?;
                (OwnedPermutations::U32(data), shape)
            }
            Scheme::Affine64 | Scheme::Legacy => {
                let (data, shape) = contiguous_copy::<u64>(permutations)?;
                (OwnedPermutations::U64(data), shape)
            }
        };
        if shape.len() != 2 || shape[0] != 2 {
            return Err(PyValueError::new_err(format!(
                "permutations must be a 2 × num_perm array [a, b], not {shape:?}"
            )));
        }
        Ok(owned)
    }

    fn view(&self, scheme: Scheme) -> Permutations<'_> {
        match (scheme, self) {
            (Scheme::Affine32, OwnedPermutations::U32(p)) => {
                let (a, b) = halves(p);
                Permutations::Affine32(a, b)
            }
            (Scheme::Affine64, OwnedPermutations::U64(p)) => {
                let (a, b) = halves(p);
                Permutations::Affine64(a, b)
            }
            (Scheme::Legacy, OwnedPermutations::U64(p)) => {
                let (a, b) = halves(p);
                Permutations::Legacy(a, b)
            }
            _ => unreachable!("extracted for this scheme"),
        }
    }
}

/// A copy of `object`'s elements as `T` in C order, and its shape: read straight from a
/// C-contiguous NumPy array of `T` (the permutations a `MinHash` holds), otherwise through
/// `numpy.ascontiguousarray(object, dtype=T)` as datasketch's arithmetic would convert them.
fn contiguous_copy<T: numpy::Element + Copy>(
    object: &Bound<'_, PyAny>,
) -> PyResult<(Vec<T>, Vec<usize>)> {
    let py = object.py();
    let array = match object.cast::<PyArrayDyn<T>>() {
        Ok(array) if array.is_c_contiguous() => array.clone(),
        _ => {
            let kwargs = PyDict::new(py);
            kwargs.set_item("dtype", numpy::dtype::<T>(py))?;
            py.import("numpy")?
                .call_method("ascontiguousarray", (object,), Some(&kwargs))?
                .cast_into::<PyArrayDyn<T>>()?
        }
    };
    // SAFETY: the array is C-contiguous and the GIL is held while it is copied, so no Python
    // code changes it meanwhile (rust-numpy's borrow tracking, which this skips, guards only
    // against other Rust code; it cost ~0.3 µs a call).
    let data = unsafe { array.as_slice() }
        .map_err(|e| PyValueError::new_err(e.to_string()))?
        .to_vec();
    Ok((data, array.shape().to_vec()))
}

fn halves<T>(both: &[T]) -> (&[T], &[T]) {
    both.split_at(both.len() / 2)
}

/// `values` lowered by `update`, as a new NumPy array: a MinHash's `hashvalues` are replaced,
/// never changed in place, as in datasketch. The GIL is released for batches of
/// [`RELEASE_GIL_FROM`] tokens and more.
fn lowered<'py>(
    py: Python<'py>,
    scheme: Scheme,
    values: &Bound<'py, PyAny>,
    permutations: Permutations<'_>,
    tokens: usize,
    update: impl FnOnce(Permutations<'_>, Values<'_>) -> Option<()> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let release = tokens >= RELEASE_GIL_FROM;
    Ok(match scheme {
        Scheme::Affine32 => {
            let mut v: Vec<u32> = copied(values)?;
            detached_if(py, release, || update(permutations, Values::U32(&mut v)))
                .ok_or_else(mismatched)?;
            PyArray1::from_vec(py, v).into_any()
        }
        Scheme::Affine64 | Scheme::Legacy => {
            let mut v: Vec<u64> = copied(values)?;
            detached_if(py, release, || update(permutations, Values::U64(&mut v)))
                .ok_or_else(mismatched)?;
            PyArray1::from_vec(py, v).into_any()
        }
    })
}

/// A copy of a one-dimensional NumPy array of `T` (a MinHash's hash values).
fn copied<T: numpy::Element + Copy>(values: &Bound<'_, PyAny>) -> PyResult<Vec<T>> {
    let array = values.cast::<PyArray1<T>>()?;
    if array.is_c_contiguous() {
        // SAFETY: as in `contiguous_copy`: C-contiguous, copied with the GIL held.
        let slice = unsafe { array.as_slice() };
        return slice
            .map(<[T]>::to_vec)
            .map_err(|e| PyValueError::new_err(e.to_string()));
    }
    Ok(array.readonly().as_array().iter().copied().collect())
}

/// `work()`, with the GIL released when `release`.
fn detached_if<T: Send>(py: Python<'_>, release: bool, work: impl FnOnce() -> T + Send) -> T {
    if release { py.detach(work) } else { work() }
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
    // A short list of exact `bytes` is read in place: `lowered` hashes fewer tokens than
    // RELEASE_GIL_FROM with the GIL held and runs no Python code first, so the list and its
    // items stay as they are. Anything else is held by `TokenBytes`.
    let held;
    let slices = match tokens.cast::<PyList>() {
        Ok(list) if list.len() < RELEASE_GIL_FROM => bytes_in_place(list),
        _ => None,
    };
    let slices = match slices {
        Some(slices) => slices,
        None => {
            held = TokenBytes::extract(tokens)?;
            held.slices()
        }
    };
    lowered(
        py,
        scheme,
        values,
        owned.view(scheme),
        slices.len(),
        |p, v| p.apply_tokens(v, slices.iter().copied()),
    )
}

/// The bytes of the items of `list`, read in place without taking a reference to each, when
/// every item is an exact `bytes` (`None` otherwise). The slices are valid only as long as
/// the GIL is held and no Python code runs, when nothing can change the list or free its
/// items: the caller hashes them at once. (Taking and dropping a reference per token, as
/// [`TokenBytes`] must when the GIL is released, cost ~8 % of `update_batch` on 20news's
/// posts: `farm-bench --vs`, 12 pairs.)
fn bytes_in_place<'a>(list: &'a Bound<'_, PyList>) -> Option<Vec<&'a [u8]>> {
    let mut out = Vec::with_capacity(list.len());
    for i in 0..list.len() {
        prefetch_item(list, i + 8);
        // SAFETY: `i` is within the list, unchanged while the GIL is held and no Python code
        // runs, so the item and its bytes outlive the borrow of `list`.
        let (start, len) = unsafe { exact_bytes_span(list_item(list, i))? };
        // SAFETY: the span of a live `bytes` object (above).
        out.push(unsafe { std::slice::from_raw_parts(start, len) });
    }
    Some(out)
}

/// `list[i]`, borrowed (no reference taken).
///
/// # Safety
/// `i` is within the list and the GIL is held.
#[inline(always)]
unsafe fn list_item(list: &Bound<'_, PyList>, i: usize) -> *mut pyo3::ffi::PyObject {
    // SAFETY: the caller's contract.
    unsafe { pyo3::ffi::PyList_GET_ITEM(list.as_ptr(), i as pyo3::ffi::Py_ssize_t) }
}

/// Where an exact `bytes` object's bytes are, read from its fields without a call into
/// Python (20news's tokens took 10 ns less each than through pyo3's checks and calls);
/// `None` for any other object, subclasses of `bytes` included.
///
/// # Safety
/// `item` is a valid object and the GIL is held; the span is valid while the object lives
/// (a `bytes` object's size and bytes never change).
#[inline(always)]
unsafe fn exact_bytes_span(item: *mut pyo3::ffi::PyObject) -> Option<(*const u8, usize)> {
    use pyo3::ffi;
    // SAFETY: the caller's contract.
    unsafe {
        (ffi::PyBytes_CheckExact(item) != 0).then(|| {
            (
                ffi::PyBytes_AS_STRING(item) as *const u8,
                ffi::Py_SIZE(item) as usize,
            )
        })
    }
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
    lowered(
        py,
        scheme,
        values,
        owned.view(scheme),
        hashes.len(),
        |p, v| p.apply_hashes(v, hashes),
    )
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

/// Tokens whose lists `MinHash.bulk` reads (GIL held) before hashing them (GIL released): a
/// batch this size stays in cache between the two. Reading all the lists first, as before,
/// made `bulk` slower on two threads than a loop of `update_batch` on one (20news: 62 ms
/// against 49): the tokens' objects had left the cache by the time they were hashed.
const BULK_BATCH_TOKENS: usize = 16_384;

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
    let permutations = owned.view(scheme);
    let width = permutations.len();
    let start = Rows::start(scheme, initial, width)?;
    let mut rows = start.empty();
    let count = match ngram {
        Some(n) => {
            let texts = Texts::extract(documents)?;
            let texts = texts.as_slice();
            rows.push(py, &start, texts.len(), |i, v| {
                lower_by_words(permutations, v, texts[i], n)
            });
            texts.len()
        }
        None => {
            let documents: Vec<Bound<'py, PyAny>> =
                documents.try_iter()?.collect::<PyResult<_>>()?;
            let mut first = 0;
            while first < documents.len() {
                let (mut lists, mut tokens) = (Vec::new(), 0);
                while first + lists.len() < documents.len() && tokens < BULK_BATCH_TOKENS {
                    let list = TokenBytes::extract(&documents[first + lists.len()])?;
                    tokens += list.spans.len();
                    lists.push(list);
                }
                let slices: Vec<Vec<&[u8]>> = lists.iter().map(TokenBytes::slices).collect();
                rows.push(py, &start, slices.len(), |i, v| {
                    permutations.apply_tokens(v, slices[i].iter().copied());
                });
                first += lists.len();
            }
            documents.len()
        }
    };
    rows.into_matrix(py, count, width)
}

/// Signatures of one scheme's dtype, row after row (`MinHash.bulk`'s output as it grows).
enum Rows {
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Rows {
    /// The empty signature every row starts from (`initial`, of `width` values).
    fn start(scheme: Scheme, initial: &Bound<'_, PyAny>, width: usize) -> PyResult<Rows> {
        let start = match scheme {
            Scheme::Affine32 => Rows::U32(copied(initial)?),
            Scheme::Affine64 | Scheme::Legacy => Rows::U64(copied(initial)?),
        };
        check_width(start.len(), width)?;
        Ok(start)
    }

    fn empty(&self) -> Rows {
        match self {
            Rows::U32(_) => Rows::U32(Vec::new()),
            Rows::U64(_) => Rows::U64(Vec::new()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Rows::U32(v) => v.len(),
            Rows::U64(v) => v.len(),
        }
    }

    /// Appends `count` rows, each `start` lowered by `fill(i, values)` (i counted from 0 in
    /// this call), in parallel with the GIL released.
    fn push(
        &mut self,
        py: Python<'_>,
        start: &Rows,
        count: usize,
        fill: impl Fn(usize, Values<'_>) + Sync,
    ) {
        fn filled<T: Copy + Send + Sync>(
            out: &mut Vec<T>,
            start: &[T],
            count: usize,
            fill: impl Fn(usize, &mut [T]) + Sync,
        ) {
            let (base, width) = (out.len(), start.len());
            out.extend(start.iter().copied().cycle().take(count * width));
            if width > 0 {
                out[base..]
                    .par_chunks_mut(width)
                    .enumerate()
                    .for_each(|(i, row)| fill(i, row));
            }
        }
        match (self, start) {
            (Rows::U32(out), Rows::U32(s)) => {
                py.detach(|| filled(out, s, count, |i, row| fill(i, Values::U32(row))))
            }
            (Rows::U64(out), Rows::U64(s)) => {
                py.detach(|| filled(out, s, count, |i, row| fill(i, Values::U64(row))))
            }
            _ => unreachable!("rows and their start have one dtype"),
        }
    }

    /// The rows as a NumPy matrix, `rows` × `width`.
    fn into_matrix(self, py: Python<'_>, rows: usize, width: usize) -> PyResult<Bound<'_, PyAny>> {
        debug_assert_eq!(self.len(), rows * width);
        Ok(match self {
            Rows::U32(data) => matrix(py, rows, width, data)?.into_any(),
            Rows::U64(data) => matrix(py, rows, width, data)?.into_any(),
        })
    }
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
