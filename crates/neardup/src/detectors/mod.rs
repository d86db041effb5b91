//! One file per registered algorithm: its parameter structs and its [`Algorithm`] impl.
//! The mechanics they share (signatures, banding, Hamming search…) live in the topical
//! modules; these files wire them into detectors.
//!
//! [`Algorithm`]: crate::detector::Algorithm

pub mod minhash_lsh;
pub mod supershingles;
