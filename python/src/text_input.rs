//! Texts from Python without copying them: a sequence of `str` (each borrowed as UTF-8 from the
//! string object; CPython caches it, and for ASCII it is the object's own buffer), or Arrow
//! string arrays through the Arrow PyCapsule interface (`__arrow_c_array__`, pyarrow ≥ 14;
//! a `ChunkedArray`'s chunks one by one), read in place from their offset and data buffers.
//!
//! The borrowed `&str`s live as long as the [`Texts`] that holds the Python objects (strings or
//! capsules), so the GIL can be released while Rust reads them: `str` objects are immutable, and
//! an exported Arrow array stays valid until its capsule releases it.

use std::ffi::{CStr, c_char, c_void};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyString, PyTuple};

/// The Arrow C data interface's `ArrowSchema` (arrow.apache.org/docs/format/CDataInterface.html).
#[repr(C)]
struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

/// The Arrow C data interface's `ArrowArray`.
#[repr(C)]
struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

/// Texts borrowed from Python objects, kept alive by `_owners`.
pub struct Texts<'py> {
    _owners: Vec<Bound<'py, PyAny>>,
    texts: Vec<&'py str>,
}

impl<'py> Texts<'py> {
    /// The texts, in order.
    pub fn as_slice(&self) -> &[&'py str] {
        &self.texts
    }

    /// Reads `obj`: a pyarrow `Array` / `ChunkedArray` of strings (or any object with
    /// `__arrow_c_array__`), or any iterable of `str`.
    pub fn extract(obj: &Bound<'py, PyAny>) -> PyResult<Texts<'py>> {
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "texts must be a sequence of str (or an Arrow string array), not one str",
            ));
        }
        let mut texts = Texts {
            _owners: Vec::new(),
            texts: Vec::new(),
        };
        if obj.hasattr("__arrow_c_array__")? {
            texts.push_arrow(obj)?;
        } else if obj.hasattr("chunks")? && obj.hasattr("__arrow_c_stream__")? {
            for chunk in obj.getattr("chunks")?.try_iter()? {
                texts.push_arrow(&chunk?)?;
            }
        } else {
            let iter = obj.try_iter().map_err(|_| {
                PyTypeError::new_err(format!(
                    "texts must be a sequence of str or an Arrow string array, not {}",
                    type_name(obj)
                ))
            })?;
            let mut strings = Vec::new();
            for (i, item) in iter.enumerate() {
                let item = item?;
                if !item.is_instance_of::<PyString>() {
                    return Err(PyTypeError::new_err(format!(
                        "texts[{i}] is {}, not str",
                        type_name(&item)
                    )));
                }
                strings.push(item);
            }
            texts._owners = strings;
            texts.texts.reserve(texts._owners.len());
            for (i, item) in texts._owners.iter().enumerate() {
                let s: &str = item
                    .cast::<PyString>()
                    .expect("checked")
                    .to_str()
                    .map_err(|e| {
                        PyValueError::new_err(format!("texts[{i}] is not valid UTF-8: {e}"))
                    })?;
                // SAFETY: the `str` object is immutable and owned by `_owners`, which lives as
                // long as `self`; its UTF-8 buffer is freed only with the object.
                texts
                    .texts
                    .push(unsafe { std::mem::transmute::<&str, &'py str>(s) });
            }
        }
        Ok(texts)
    }

    /// Appends the strings of one Arrow array exported through `__arrow_c_array__`.
    fn push_arrow(&mut self, array: &Bound<'py, PyAny>) -> PyResult<()> {
        let exported = array.call_method0("__arrow_c_array__")?;
        let exported = exported.cast::<PyTuple>().map_err(|_| {
            PyTypeError::new_err("__arrow_c_array__ did not return (schema, array) capsules")
        })?;
        let schema_capsule = exported.get_item(0)?;
        let array_capsule = exported.get_item(1)?;
        let schema = capsule_pointer::<ArrowSchema>(&schema_capsule, c"arrow_schema")?;
        let arrow = capsule_pointer::<ArrowArray>(&array_capsule, c"arrow_array")?;
        // SAFETY: both capsules hold live, unreleased structs (checked by name above) that stay
        // valid until the capsules are destroyed, which `_owners` prevents for our lifetime.
        let (schema, arrow) = unsafe { (&*schema, &*arrow) };
        let format = unsafe { CStr::from_ptr(schema.format) }.to_bytes();
        let large = match format {
            b"u" => false,
            b"U" => true,
            other => {
                return Err(PyTypeError::new_err(format!(
                    "texts: Arrow type {:?} is not a string array; cast it to pyarrow.string() \
                     or pyarrow.large_string()",
                    String::from_utf8_lossy(other)
                )));
            }
        };
        if arrow.release.is_none() || schema.release.is_none() {
            return Err(PyValueError::new_err(
                "texts: the Arrow array was already released",
            ));
        }
        if arrow.n_buffers != 3 || arrow.length < 0 || arrow.offset < 0 {
            return Err(PyValueError::new_err(
                "texts: malformed Arrow string array (expected 3 buffers)",
            ));
        }
        let first = self.texts.len();
        let (len, offset) = (arrow.length as usize, arrow.offset as usize);
        // SAFETY: an Arrow string array of `length` rows at `offset` has a validity bitmap
        // (or null), `offset + length + 1` offsets and the data they point into.
        unsafe {
            let buffers = std::slice::from_raw_parts(arrow.buffers, 3);
            let validity = buffers[0] as *const u8;
            let bounds = |i: usize| -> (usize, usize) {
                if large {
                    let o = buffers[1] as *const i64;
                    (*o.add(i) as usize, *o.add(i + 1) as usize)
                } else {
                    let o = buffers[1] as *const i32;
                    (*o.add(i) as usize, *o.add(i + 1) as usize)
                }
            };
            let data = buffers[2] as *const u8;
            self.texts.reserve(len);
            for row in 0..len {
                let i = offset + row;
                if arrow.null_count != 0
                    && !validity.is_null()
                    && (*validity.add(i / 8) >> (i % 8)) & 1 == 0
                {
                    return Err(PyValueError::new_err(format!(
                        "texts[{}] is null",
                        first + row
                    )));
                }
                let (start, end) = bounds(i);
                let bytes: &'py [u8] = if end > start {
                    std::slice::from_raw_parts(data.add(start), end - start)
                } else {
                    &[]
                };
                let s = std::str::from_utf8(bytes).map_err(|e| {
                    PyValueError::new_err(format!("texts[{}] is not valid UTF-8: {e}", first + row))
                })?;
                self.texts.push(s);
            }
        }
        self._owners.push(schema_capsule);
        self._owners.push(array_capsule);
        self._owners.push(exported.clone().into_any());
        Ok(())
    }
}

fn capsule_pointer<T>(capsule: &Bound<'_, PyAny>, name: &CStr) -> PyResult<*const T> {
    let capsule = capsule
        .cast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err("__arrow_c_array__ did not return capsules"))?;
    Ok(capsule.pointer_checked(Some(name))?.as_ptr() as *const T)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "an object".into(), |n| n.to_string())
}
