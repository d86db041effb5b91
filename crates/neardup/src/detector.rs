//! The detector interface every algorithm implements, and its type-erased form.
//!
//! An algorithm has two parameter structs, split the way ann-benchmarks splits them:
//! * [`Algorithm::Params`] fix how the index is *built* (features, number of hashes, seed…);
//! * [`Algorithm::Query`] only change how a built index is *queried* (thresholds, distances),
//!   so an experiment builds an index once and sweeps query settings over it.
//!
//! Both are serde structs with `#[serde(default)]`; their field names are the parameter names
//! users write on the command line (`--param k=3`) and in experiment TOML. Parameters travel
//! untyped as a [`ParamMap`] (JSON values, sorted keys) and are checked against the struct's
//! fields: an unknown name is an error listing the known ones.
//!
//! Algorithms never time themselves: the runner owns the clock.

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::features::statistics::StatisticsFeatures;
use crate::resources::Estimate;
use crate::streaming::StreamingDetector;

pub use crate::pairs::{ScoredPair, scored_from_packed};

/// Untyped parameters: name → JSON value, sorted by name.
pub type ParamMap = serde_json::Map<String, Value>;

/// What every parameter struct is.
pub trait Params:
    Serialize + DeserializeOwned + Default + Clone + Debug + Send + Sync + 'static
{
}
impl<T: Serialize + DeserializeOwned + Default + Clone + Debug + Send + Sync + 'static> Params
    for T
{
}

/// A near-duplicate detection algorithm. Implement this in one file and add one line to the
/// registry.
pub trait Algorithm: Send + Sync + 'static {
    /// Registered name (kebab-case).
    const NAME: &'static str;
    /// One line: what it is and which paper it follows.
    const SUMMARY: &'static str;
    /// What [`Algorithm::score`] measures, on what scale, in a few words (`neardup
    /// similarity` prints it beside the score).
    const SCORE: &'static str;
    /// Whether [`Algorithm::compare`] judges any pair (it returns `Some`).
    const COMPARES_ANY_PAIR: bool = false;
    /// When its default configuration does not stream but others do: which (for people,
    /// e.g. `neardup algorithms`).
    const STREAMS_WHEN: Option<&'static str> = None;
    /// Build parameters.
    type Params: Params;
    /// Query parameters.
    type Query: Params;
    /// The built structure: signatures plus whatever the query needs.
    type Index: Send + Sync + 'static;

    /// Checks parameters once, before any work (impossible values, inconsistent pairs).
    fn validate(params: &Self::Params, query: &Self::Query) -> Result<()>;

    /// Text → signatures (and an index over them) for a whole corpus.
    fn build(params: &Self::Params, docs: &[&str]) -> Result<Self::Index>;

    /// Signatures → reported pairs under `query`: `a < b`, each pair once, sorted. Fails only
    /// on resource limits (`error::pair_limit`).
    fn query(
        params: &Self::Params,
        index: &Self::Index,
        query: &Self::Query,
    ) -> Result<Vec<ScoredPair>>;

    /// Reported pairs for a consumer of connectivity only (`neardup dedup`'s components):
    /// like [`query`](Algorithm::query), except that a heavy cluster's long runs may give only
    /// pairs that connect them as all their pairs do (`crate::heavy`). The default is
    /// `query`.
    fn connecting_query(
        params: &Self::Params,
        index: &Self::Index,
        query: &Self::Query,
    ) -> Result<Vec<ScoredPair>> {
        Self::query(params, index, query)
    }

    /// The algorithm's similarity estimate for any pair under `query` (used for ROC curves
    /// and labelled pairs), or `None` when it cannot score pairs it did not report, or cannot
    /// score this corpus at all (collection statistics from too few documents).
    fn score(
        params: &Self::Params,
        index: &Self::Index,
        query: &Self::Query,
        a: usize,
        b: usize,
    ) -> Option<f64>;

    /// Build parameters `neardup calibrate` sweeps by default, each a map over the defaults:
    /// the choices that change what the score measures (shingle kind and size, signature
    /// length, variant). Document the grid in the implementation.
    fn calibration_grid() -> Vec<ParamMap> {
        vec![ParamMap::new()]
    }

    /// Parameters under which the index reports exactly the (candidate) pairs whose
    /// [`Algorithm::score`] is ≥ `threshold`: how a threshold calibrated on scores becomes a
    /// command line. `None` when no parameter follows the score (the decision is made on
    /// something else, such as Broder's supershingle votes).
    fn threshold_params(_params: &Self::Params, _threshold: f64) -> Option<ParamMap> {
        None
    }

    /// Any two documents' score and whether it is within the threshold `query` reports pairs
    /// at — also for pairs that never became candidates: what a cluster's members are
    /// compared with its representative by (`neardup dedup --clusters verified`). `None` when
    /// the algorithm cannot judge an arbitrary pair.
    fn compare(
        _params: &Self::Params,
        _index: &Self::Index,
        _query: &Self::Query,
        _a: usize,
        _b: usize,
    ) -> Option<(f64, bool)> {
        None
    }

    /// The build parameters as they run: every default that is decided from the others
    /// (a threshold from the banding, a banding tuned for the threshold, `auto` choices)
    /// replaced by what it resolves to, so a record of a run says what ran. The default:
    /// the parameters themselves (nothing to resolve).
    fn resolve(params: &Self::Params) -> Self::Params {
        params.clone()
    }

    /// The features whose document frequencies it reads (its collection statistics), if any:
    /// what `neardup idf build` counts for a reference table (`idf_from`).
    fn statistics(_params: &Self::Params) -> Option<StatisticsFeatures> {
        None
    }

    /// Warnings for people about the built index (statistics from too few documents…).
    fn warnings(_index: &Self::Index) -> Vec<String> {
        Vec::new()
    }

    /// Heap bytes held by the index (signatures included).
    fn index_bytes(index: &Self::Index) -> usize;

    /// Bytes building will need for `docs` documents of `text_bytes` bytes in all, with the
    /// formula (checked against the memory limit before building; see [`crate::resources`]).
    fn memory(params: &Self::Params, docs: usize, text_bytes: usize) -> Estimate;

    /// Counts worth reporting about the built index (documents without a signature…).
    fn stats(_index: &Self::Index) -> ParamMap {
        ParamMap::new()
    }

    /// The streamable split (per-document sketch, then a join over fixed-size signatures) of
    /// this configuration, or `None` when it must see the whole corpus in memory (see
    /// [`crate::streaming`]). Sketch + join must report exactly what `build` + `query` do.
    fn streaming(
        _params: &Self::Params,
        _query: &Self::Query,
    ) -> Option<Box<dyn StreamingDetector>> {
        None
    }
}

/// A configured algorithm, type-erased (what the registry hands out).
pub trait Detector: Send + Sync + Debug {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// All build parameters, defaults filled in.
    fn build_params(&self) -> ParamMap;
    /// All query parameters, defaults filled in.
    fn query_params(&self) -> ParamMap;
    /// Every parameter as it runs: the build parameters resolved ([`Algorithm::resolve`])
    /// and the query parameters — what a record of a run reports (`summary.json`, `eval`,
    /// calibrate).
    fn resolved_params(&self) -> ParamMap;
    /// Builds the index over `docs`.
    fn build(&self, docs: &[&str]) -> Result<Box<dyn Index>>;
    /// The features of its collection statistics, if it reads any.
    fn statistics(&self) -> Option<StatisticsFeatures>;
    /// The memory building over `docs` will need (see [`Algorithm::memory`]).
    fn memory(&self, docs: &[&str]) -> Estimate;
    /// Parameters that report the pairs scoring ≥ `threshold` (see
    /// [`Algorithm::threshold_params`]).
    fn threshold_params(&self, threshold: f64) -> Option<ParamMap>;
    /// The streamable split, if this configuration has one (see [`Algorithm::streaming`]).
    fn streaming(&self) -> Option<Box<dyn StreamingDetector>>;
    /// Whether its built index judges any pair ([`Algorithm::COMPARES_ANY_PAIR`]).
    fn compares_any_pair(&self) -> bool;
}

/// A built index, type-erased.
pub trait Index: Send + Sync {
    /// Pairs under the detector's query parameters overridden by `overrides` (which may only
    /// name query parameters).
    fn query(&self, overrides: &ParamMap) -> Result<Vec<ScoredPair>>;
    /// Pairs under the detector's query parameters that connect the documents as
    /// [`query`](Index::query)'s do (see [`Algorithm::connecting_query`]).
    fn connecting_query(&self) -> Result<Vec<ScoredPair>>;
    /// Similarity estimate of any pair, if the algorithm has one.
    fn score(&self, a: usize, b: usize) -> Option<f64>;
    /// Any pair's score and whether it is within the threshold (see [`Algorithm::compare`]).
    fn compare(&self, a: usize, b: usize) -> Option<(f64, bool)>;
    /// Heap bytes held.
    fn heap_bytes(&self) -> usize;
    /// Counts about the index (see [`Algorithm::stats`]).
    fn stats(&self) -> ParamMap;
    /// Warnings for people (see [`Algorithm::warnings`]).
    fn warnings(&self) -> Vec<String>;
}

/// Parameters of `A` split into (build, query) maps.
pub fn split_params<A: Algorithm>(map: &ParamMap) -> Result<(ParamMap, ParamMap)> {
    let build_keys = to_map(&A::Params::default());
    let query_keys = to_map(&A::Query::default());
    let (mut build, mut query) = (ParamMap::new(), ParamMap::new());
    for (k, v) in map {
        if build_keys.contains_key(k) {
            build.insert(k.clone(), v.clone());
        } else if query_keys.contains_key(k) {
            query.insert(k.clone(), v.clone());
        } else {
            let known: Vec<&str> = build_keys
                .keys()
                .chain(query_keys.keys())
                .map(String::as_str)
                .collect();
            return Err(Error::UnknownParam {
                algorithm: A::NAME.to_string(),
                param: k.clone(),
                known: known.join(", "),
            });
        }
    }
    Ok((build, query))
}

/// Serializes a parameter struct into a map (every field, defaults included).
pub fn to_map<P: Serialize>(p: &P) -> ParamMap {
    match serde_json::to_value(p) {
        Ok(Value::Object(m)) => m,
        _ => panic!("parameter structs serialize to JSON objects"),
    }
}

/// Deserializes `P` from defaults overlaid with `overrides`. A value of the wrong type is an
/// error naming its parameter (serde's own message loses the name inside flattened structs).
fn from_map<P: Params>(algorithm: &str, base: &ParamMap, overrides: &ParamMap) -> Result<P> {
    let overlay = |only: Option<&str>| {
        let mut m = base.clone();
        for (k, v) in overrides {
            if only.is_none_or(|o| o == k) {
                m.insert(k.clone(), v.clone());
            }
        }
        serde_json::from_value::<P>(Value::Object(m))
    };
    overlay(None).map_err(|e| {
        match overrides
            .iter()
            .find_map(|(k, v)| overlay(Some(k)).err().map(|e| (k, v, e)))
        {
            Some((k, v, e)) => Error::invalid(
                algorithm,
                k.as_str(),
                format!("{} is not a valid value: {e}", crate::detector::show(v)),
            ),
            None => Error::BadParamValue {
                algorithm: algorithm.to_string(),
                reason: e.to_string(),
            },
        }
    })
}

/// A parameter value as a user typed it (strings unquoted).
pub fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The erased form of an [`Algorithm`] with its parameters.
pub struct Configured<A: Algorithm> {
    params: A::Params,
    query: A::Query,
}

impl<A: Algorithm> Debug for Configured<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(A::NAME)
            .field("params", &self.params)
            .field("query", &self.query)
            .finish()
    }
}

impl<A: Algorithm> Configured<A> {
    /// Parses and validates `map` (build and query parameters mixed).
    pub fn from_params(map: &ParamMap) -> Result<Self> {
        let (build, query) = split_params::<A>(map)?;
        let params: A::Params = from_map(A::NAME, &to_map(&A::Params::default()), &build)?;
        let query: A::Query = from_map(A::NAME, &to_map(&A::Query::default()), &query)?;
        A::validate(&params, &query)?;
        Ok(Configured { params, query })
    }

    /// The typed parameters.
    pub fn params(&self) -> (&A::Params, &A::Query) {
        (&self.params, &self.query)
    }
}

impl<A: Algorithm> Detector for Configured<A> {
    fn name(&self) -> &'static str {
        A::NAME
    }
    fn compares_any_pair(&self) -> bool {
        A::COMPARES_ANY_PAIR
    }
    fn build_params(&self) -> ParamMap {
        to_map(&self.params)
    }
    fn query_params(&self) -> ParamMap {
        to_map(&self.query)
    }
    fn resolved_params(&self) -> ParamMap {
        let mut all = to_map(&A::resolve(&self.params));
        all.extend(to_map(&self.query));
        all
    }
    fn build(&self, docs: &[&str]) -> Result<Box<dyn Index>> {
        if docs.len() > u32::MAX as usize {
            return Err(Error::invalid(
                A::NAME,
                "docs",
                "at most 2^32 − 1 documents per index",
            ));
        }
        crate::resources::check_memory(A::NAME, &self.memory(docs))?;
        let index = A::build(&self.params, docs)?;
        Ok(Box::new(Built::<A> {
            params: self.params.clone(),
            query: self.query.clone(),
            index,
        }))
    }
    fn statistics(&self) -> Option<StatisticsFeatures> {
        A::statistics(&self.params)
    }
    fn memory(&self, docs: &[&str]) -> Estimate {
        A::memory(&self.params, docs.len(), docs.iter().map(|d| d.len()).sum())
    }
    fn threshold_params(&self, threshold: f64) -> Option<ParamMap> {
        A::threshold_params(&self.params, threshold)
    }
    fn streaming(&self) -> Option<Box<dyn StreamingDetector>> {
        A::streaming(&self.params, &self.query)
    }
}

/// A parameter map from `(name, value)` pairs: `params(&[("k", 3.into())])`.
pub fn params(entries: &[(&str, Value)]) -> ParamMap {
    entries
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

struct Built<A: Algorithm> {
    params: A::Params,
    query: A::Query,
    index: A::Index,
}

impl<A: Algorithm> Index for Built<A> {
    fn query(&self, overrides: &ParamMap) -> Result<Vec<ScoredPair>> {
        let query_keys = to_map(&self.query);
        if let Some(bad) = overrides.keys().find(|k| !query_keys.contains_key(*k)) {
            return Err(Error::UnknownParam {
                algorithm: A::NAME.to_string(),
                param: bad.clone(),
                known: format!(
                    "(query parameters only) {}",
                    query_keys.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            });
        }
        let query: A::Query = from_map(A::NAME, &query_keys, overrides)?;
        A::validate(&self.params, &query)?;
        A::query(&self.params, &self.index, &query)
    }
    fn connecting_query(&self) -> Result<Vec<ScoredPair>> {
        A::connecting_query(&self.params, &self.index, &self.query)
    }
    fn score(&self, a: usize, b: usize) -> Option<f64> {
        A::score(&self.params, &self.index, &self.query, a, b)
    }
    fn compare(&self, a: usize, b: usize) -> Option<(f64, bool)> {
        A::compare(&self.params, &self.index, &self.query, a, b)
    }
    fn heap_bytes(&self) -> usize {
        A::index_bytes(&self.index)
    }
    fn stats(&self) -> ParamMap {
        A::stats(&self.index)
    }
    fn warnings(&self) -> Vec<String> {
        A::warnings(&self.index)
    }
}
