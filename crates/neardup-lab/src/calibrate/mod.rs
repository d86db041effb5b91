//! `neardup calibrate`: parameters chosen on a user's own labelled pairs. One folder for the
//! whole feature: what it is asked and finds ([`options`]), the statistics it rests on
//! ([`statistics`]: threshold sweeps and choice; [`resampling`]: bootstrap intervals and the
//! holdout split; [`labelled_pairs`]: the weighted pair sample of a cluster-labelled corpus),
//! what each configuration would do to the corpus's documents ([`clusters`]), what must be
//! read before the ranking ([`alerts`]: outsized labels, a sweeping recommendation), the run
//! ([`run`]), what it prints and writes ([`report`]) and its charts ([`charts`]).

pub mod alerts;
pub mod charts;
pub mod clusters;
pub mod labelled_pairs;
pub mod options;
pub mod report;
pub mod resampling;
pub mod run;
pub mod statistics;

pub use options::Options;
pub use run::run;
