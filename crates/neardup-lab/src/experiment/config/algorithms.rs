//! `[[algorithms]]`: each algorithm's build and query grids, expanded into parameter points
//! and checked against the registry before any work, and what a paper published for it.

use neardup::detector::ParamMap;
use serde::Deserialize;
use toml::Spanned;

use super::datasets::DatasetSpec;
use crate::error::{LabError, Result};
use crate::experiment::clustering;

/// One `[[algorithms]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AlgorithmFileSpec {
    name: Spanned<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    build: Option<Spanned<toml::Value>>,
    #[serde(default)]
    query: Option<Spanned<toml::Value>>,
    #[serde(default)]
    published: Option<Spanned<Published>>,
    #[serde(default)]
    datasets: Option<Spanned<Vec<String>>>,
}

/// What a paper or tool published for one configuration, shown beside neardup's own figures
/// (`reports/published/`). Never an input to any computation: neardup's column always comes
/// from its own cells.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// Who published it, and where (paper and section, or tool and file).
    pub source: String,
    /// Published pair-level precision, when the source gives one.
    #[serde(default)]
    pub precision: Option<f64>,
    /// Published pair-level recall, when the source gives one.
    #[serde(default)]
    pub recall: Option<f64>,
    /// The label of another configuration when the source gives recall only relative to it
    /// (Henzinger: the combined algorithm keeps 79 % of B's recall); ours is then divided the
    /// same way.
    #[serde(default)]
    pub recall_relative_to: Option<String>,
    /// On what data the figures were measured, and whether ours can be compared with them.
    pub comparable: String,
}

/// One algorithm with its expanded grids.
#[derive(Debug, Clone)]
pub struct AlgorithmGrid {
    /// Registered name.
    pub name: String,
    /// Label in tables and charts (default: the name).
    pub label: String,
    /// Build parameter points (given keys only).
    pub builds: Vec<ParamMap>,
    /// Query parameter points (given keys only; one empty map = defaults).
    pub queries: Vec<ParamMap>,
    /// Published figures for this configuration, if it reproduces a published one.
    pub published: Option<Published>,
    /// The labels of the datasets it runs on (`None`: every dataset).
    pub datasets: Option<Vec<String>>,
}

impl AlgorithmGrid {
    /// Whether it runs on the dataset labelled `label`.
    pub fn runs_on(&self, label: &str) -> bool {
        self.datasets
            .as_ref()
            .is_none_or(|only| only.iter().any(|l| l == label))
    }
}

/// `[[algorithms]]`: one grid each; a published `recall_relative_to` names one above it.
pub(super) fn algorithm_grids(
    specs: Spanned<Vec<AlgorithmFileSpec>>,
    datasets: &[DatasetSpec],
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<AlgorithmGrid>> {
    if specs.get_ref().is_empty() {
        return Err(at(
            specs.span().start,
            "`algorithms` is empty: name at least one algorithm".into(),
        ));
    }
    let mut algorithms = Vec::new();
    for a in specs.into_inner() {
        let start = a.name.span().start;
        if let Some(only) = &a.datasets
            && let Some(unknown) = only
                .get_ref()
                .iter()
                .find(|l| !datasets.iter().any(|d| &d.label == *l))
        {
            return Err(at(
                only.span().start,
                format!(
                    "`datasets` names `{unknown}`, which is no dataset's label; the labels are: {}",
                    datasets
                        .iter()
                        .map(|d| d.label.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        let grid = algorithm_grid(a, at)?;
        if let Some(base) = grid
            .published
            .as_ref()
            .and_then(|p| p.recall_relative_to.as_ref())
            && !algorithms.iter().any(|g: &AlgorithmGrid| &g.label == base)
        {
            return Err(at(
                start,
                format!(
                    "published recall_relative_to = `{base}` names no configuration above this one"
                ),
            ));
        }
        algorithms.push(grid);
    }
    Ok(algorithms)
}

/// A TOML value as a JSON parameter value.
fn to_json(v: &toml::Value) -> std::result::Result<serde_json::Value, String> {
    Ok(match v {
        toml::Value::String(s) => s.clone().into(),
        toml::Value::Integer(i) => (*i).into(),
        toml::Value::Float(f) => (*f).into(),
        toml::Value::Boolean(b) => (*b).into(),
        toml::Value::Array(a) => serde_json::Value::Array(
            a.iter()
                .map(to_json)
                .collect::<std::result::Result<_, _>>()?,
        ),
        other => return Err(format!("unsupported parameter value {other}")),
    })
}

/// Expands a grid: a table `key = value | [values]` is the cartesian product (keys in sorted
/// order); an array of such tables is the concatenation of their products.
fn expand(
    spec: Option<&Spanned<toml::Value>>,
    what: &str,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<ParamMap>> {
    let Some(spec) = spec else {
        return Ok(vec![ParamMap::new()]);
    };
    let pos = spec.span().start;
    match spec.get_ref() {
        toml::Value::Table(t) => expand_table(t, pos, what, at),
        toml::Value::Array(points) if points.is_empty() => {
            Err(at(pos, format!("`{what}` is an empty list of points")))
        }
        toml::Value::Array(points) => {
            let mut out = Vec::new();
            for p in points {
                let toml::Value::Table(t) = p else {
                    return Err(at(
                        pos,
                        format!("`{what}` must be a table or an array of tables"),
                    ));
                };
                out.extend(expand_table(t, pos, what, at)?);
            }
            Ok(out)
        }
        _ => Err(at(
            pos,
            format!("`{what}` must be a table or an array of tables"),
        )),
    }
}

fn expand_table(
    table: &toml::Table,
    pos: usize,
    what: &str,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<ParamMap>> {
    let mut points = vec![ParamMap::new()];
    for (key, value) in table {
        let axis: Vec<serde_json::Value> = match value {
            toml::Value::Array(a) if a.is_empty() => {
                return Err(at(pos, format!("`{what}.{key}` is an empty grid")));
            }
            toml::Value::Array(a) => a.iter().map(to_json).collect::<std::result::Result<_, _>>(),
            v => to_json(v).map(|x| vec![x]),
        }
        .map_err(|m| at(pos, format!("`{what}.{key}`: {m}")))?;
        points = points
            .into_iter()
            .flat_map(|p| {
                axis.iter().map(move |v| {
                    let mut q = p.clone();
                    q.insert(key.clone(), v.clone());
                    q
                })
            })
            .collect();
    }
    Ok(points)
}

/// The keys named in a grid spec, with the position of the spec.
fn grid_keys(spec: Option<&Spanned<toml::Value>>) -> Vec<(String, usize)> {
    let Some(spec) = spec else { return Vec::new() };
    let pos = spec.span().start;
    let tables: Vec<&toml::Table> = match spec.get_ref() {
        toml::Value::Table(t) => vec![t],
        toml::Value::Array(a) => a.iter().filter_map(|v| v.as_table()).collect(),
        _ => Vec::new(),
    };
    tables
        .iter()
        .flat_map(|t| t.keys().map(move |k| (k.clone(), pos)))
        .collect()
}

/// Validates every build × query point now, so that a bad one fails before any work:
/// the algorithm must accept it, and a clustering mode must suit it.
fn check_points(
    info: &neardup::registry::AlgorithmInfo,
    builds: &[ParamMap],
    queries: &[ParamMap],
    a: &AlgorithmFileSpec,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<()> {
    let query_at = a
        .query
        .as_ref()
        .map_or(a.name.span().start, |q| q.span().start);
    for b in builds {
        for q in queries {
            let (algorithm_query, _) = clustering::split(q).map_err(|e| at(query_at, e))?;
            let mut all = b.clone();
            all.extend(algorithm_query);
            let detector = info
                .detector(&all)
                .map_err(|e| at(a.name.span().start, e.to_string()))?;
            clustering::check(detector.as_ref(), q).map_err(|e| at(query_at, e))?;
        }
    }
    Ok(())
}

fn algorithm_grid(
    a: AlgorithmFileSpec,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<AlgorithmGrid> {
    let name = a.name.get_ref().clone();
    let info =
        neardup::registry::find(&name).map_err(|e| at(a.name.span().start, e.to_string()))?;
    for (spec, defaults, other, what) in [
        (
            a.build.as_ref(),
            &info.build_defaults,
            &info.query_defaults,
            "build",
        ),
        (
            a.query.as_ref(),
            &info.query_defaults,
            &info.build_defaults,
            "query",
        ),
    ] {
        for (key, pos) in grid_keys(spec) {
            let key = &key;
            let lab_key = what == "query" && key == clustering::CLUSTERS_KEY;
            if !defaults.contains_key(key) && !lab_key {
                let hint = if other.contains_key(key) {
                    format!(
                        "`{key}` is a {} parameter of `{name}`; move it to `{}`",
                        if what == "build" { "query" } else { "build" },
                        if what == "build" { "query" } else { "build" }
                    )
                } else {
                    format!(
                        "`{name}` has no {what} parameter `{key}`; its {what} parameters are: {}",
                        defaults.keys().cloned().collect::<Vec<_>>().join(", ")
                    )
                };
                return Err(at(pos, hint));
            }
        }
    }
    let builds = expand(a.build.as_ref(), "build", at)?;
    let queries = expand(a.query.as_ref(), "query", at)?;
    check_points(&info, &builds, &queries, &a, at)?;
    if let Some(p) = &a.published {
        for (what, v) in [
            ("precision", p.get_ref().precision),
            ("recall", p.get_ref().recall),
        ] {
            if v.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
                return Err(at(
                    p.span().start,
                    format!(
                        "published {what} = {} is outside [0, 1]",
                        v.unwrap_or_default()
                    ),
                ));
            }
        }
    }
    Ok(AlgorithmGrid {
        label: a.label.unwrap_or_else(|| name.clone()),
        name,
        builds,
        queries,
        published: a.published.map(Spanned::into_inner),
        datasets: a.datasets.map(Spanned::into_inner),
    })
}
