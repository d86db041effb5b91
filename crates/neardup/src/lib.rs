//! # neardup — near-duplicate text detection
//!
//! The classic algorithms for finding near-duplicate documents, implemented to be compared
//! on equal terms: shingling and MinHash with LSH banding, Broder's supershingles, SimHash,
//! Charikar's random projection, I-Match, SpotSigs, and friends.
//!
//! ## The central design decision
//!
//! Every algorithm is split into **text → signature** and **signature → candidates**. The
//! first half is embarrassingly parallel and allocation-free per token: text is normalized
//! once into a reused buffer, tokenized by internal iteration (callbacks over borrowed
//! `&str`), and every token and shingle becomes a 64-bit seeded hash — shingle strings are
//! never built. The second half works on fixed-size signatures only (band keys, fingerprints,
//! spot sets), with batch joins that sort instead of hashing so that their output order, and
//! therefore every result, is identical for any number of threads.
//!
//! Algorithms plug into a registry ([`registry`]) through the [`detector::Algorithm`] trait:
//! a name, a serde build-parameter struct, a serde query-parameter struct, `build` and
//! `query`. The experiment runner in `neardup-lab` never needs to know which algorithm it is
//! running.
//!
//! ```
//! use neardup::detector::ParamMap;
//! let docs = [
//!     "the quick brown fox jumps over the lazy dog near the river bank today",
//!     "the quick brown fox jumps over the lazy dog near the river bank tonight",
//!     "an entirely different sentence about something else altogether, friend",
//! ];
//! let mut params = ParamMap::new();
//! params.insert("threshold".into(), 0.6.into());
//! let detector = neardup::registry::detector("minhash-lsh", &params).unwrap();
//! let pairs = detector.build(&docs).unwrap().query(&ParamMap::new()).unwrap();
//! assert_eq!((pairs[0].a, pairs[0].b), (0, 1));
//! ```

#![deny(missing_docs)]

pub mod cluster;
pub mod detector;
pub mod detectors;
pub mod distinct;
pub mod error;
pub mod features;
pub mod hamming;
pub mod hash;
pub mod heavy;
pub mod join;
pub mod keyjoin;
pub mod minhash;
pub mod pairs;
pub mod registry;
pub mod resources;
pub mod simhash;
pub mod streaming;
pub mod text;
pub mod units;

pub use error::{Error, Result};

#[cfg(test)]
mod testutil;
