//! `neardup label`: labelled pairs made from a user's own corpus, for `neardup calibrate
//! --pairs`. Pairs are drawn stratified by a configuration's similarity estimate ([`sample`]),
//! so that the few pairs a person labels cover every similarity and still estimate the whole
//! corpus (each carries its stratum and weight, the inverse of its chance to be drawn); a
//! person judges them on a local page ([`server`]) or in the terminal ([`terminal`]), both
//! driving one [`queue`], each answer written at once and a killed session resumed where it
//! stopped ([`session`]).

pub mod queue;
pub mod sample;
pub mod server;
pub mod session;
pub mod terminal;
