//! The lab's errors are the data layer's (`neardup_dedup::Error`): every data error names its
//! file, and its line where there is one, whichever command read the file.

pub use neardup_dedup::error::{Error as LabError, Result};
