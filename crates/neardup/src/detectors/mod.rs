//! One file per registered algorithm: its parameter structs and its [`Algorithm`] impl.
//! The mechanics they share (signatures, banding, Hamming search…) live in the topical
//! modules; these files wire them into detectors.
//!
//! [`Algorithm`]: crate::detector::Algorithm

pub mod exact;
pub mod henzinger;
pub mod imatch;
pub mod longest_sentences;
pub mod minhash_lsh;
pub mod random_projection;
pub mod simhash;
pub mod spotsigs;
pub mod supershingles;
pub mod tianwang;
