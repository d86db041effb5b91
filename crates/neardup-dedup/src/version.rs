//! What build this is, for summaries and `--version`: its own module so that the pipeline
//! can stamp outputs without importing the crate root that re-exports it.

/// The version with the revision it was built from (stamped by `build.rs`: `git` of the
/// checkout at build time; `unknown` when built outside one).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("NEARDUP_REVISION"),
    ")"
);

/// The revision the code was built from.
pub const REVISION: &str = env!("NEARDUP_REVISION");
