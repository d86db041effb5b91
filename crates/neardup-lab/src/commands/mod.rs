//! One file per subcommand of the `neardup` binary.

pub mod algorithms;
pub mod lsh;
pub mod similarity;
