//! Empty: it exists so that the `syn` build-dependency above is resolved with the host
//! dependencies, where polars' proc-macros use it.
fn main() {}
