//! `[edits]`: the edit models of the grid — each kind alone at each rate, and composite
//! models — or a dataset's own model.

use serde::Deserialize;
use toml::Spanned;

use crate::edits::EditModel;
use crate::error::{LabError, Result};

/// `[edits]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EditsFileSpec {
    #[serde(default)]
    kinds: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    rates: Option<Spanned<Vec<f64>>>,
    #[serde(default)]
    models: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    unedited: bool,
}

/// One edit model of the grid.
#[derive(Debug, Clone)]
pub struct EditSpec {
    /// `none`, an edit kind, or `composite`.
    pub kind: String,
    /// The rate (0 for `none`, the largest step rate for composites).
    pub rate: f64,
    /// The model, `None` = the dataset as it is.
    pub model: Option<EditModel>,
}

impl PartialEq for EditSpec {
    fn eq(&self, other: &Self) -> bool {
        (&self.kind, self.rate, self.spec()) == (&other.kind, other.rate, other.spec())
    }
}

impl EditSpec {
    /// A dataset's own model (`kind=rate[,kind=rate…]`), named by its kind when it has one
    /// step and `composite` otherwise.
    pub(super) fn parse(spec: &str) -> std::result::Result<EditSpec, String> {
        let model = EditModel::parse(spec)?;
        Ok(EditSpec {
            kind: model.only_kind().unwrap_or("composite").to_string(),
            rate: model.max_rate(),
            model: Some(model),
        })
    }

    /// The canonical spec string (`none` when unedited).
    pub fn spec(&self) -> String {
        self.model
            .as_ref()
            .map_or_else(|| "none".into(), EditModel::spec)
    }
}

/// The edit models the datasets run: `[edits]` expanded, or the data as it is without one.
pub(super) fn edit_grid(
    edits: Option<Spanned<EditsFileSpec>>,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<EditSpec>> {
    let Some(edits) = edits else {
        return Ok(vec![EditSpec {
            kind: "none".into(),
            rate: 0.0,
            model: None,
        }]);
    };
    let start = edits.span().start;
    let e = edits.into_inner();
    let mut out = Vec::new();
    if e.unedited {
        out.push(EditSpec {
            kind: "none".into(),
            rate: 0.0,
            model: None,
        });
    }
    out.extend(kinds_by_rates(&e, at)?);
    out.extend(composite_models(&e, at)?);
    if out.is_empty() {
        return Err(at(
            start,
            "[edits] defines no edit model: give kinds and rates, models, or unedited = true"
                .into(),
        ));
    }
    Ok(out)
}

/// `kinds` × `rates`: one single-kind model per pair.
fn kinds_by_rates(
    e: &EditsFileSpec,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<EditSpec>> {
    let mut out = Vec::new();
    match (&e.kinds, &e.rates) {
        (Some(k), Some(r)) => {
            if k.get_ref().is_empty() {
                return Err(at(k.span().start, "`edits.kinds` is an empty list".into()));
            }
            if r.get_ref().is_empty() {
                return Err(at(r.span().start, "`edits.rates` is an empty list".into()));
            }
            for kind in k.get_ref() {
                for &rate in r.get_ref() {
                    let model = EditModel::single(kind, rate).map_err(|m| at(k.span().start, m))?;
                    out.push(EditSpec {
                        kind: kind.clone(),
                        rate,
                        model: Some(model),
                    });
                }
            }
        }
        (Some(k), None) => {
            return Err(at(
                k.span().start,
                "`edits.kinds` needs `edits.rates`".into(),
            ));
        }
        (None, Some(r)) => {
            return Err(at(
                r.span().start,
                "`edits.rates` needs `edits.kinds`".into(),
            ));
        }
        (None, None) => {}
    }
    Ok(out)
}

/// `models`: composite models, each named by its highest rate.
fn composite_models(
    e: &EditsFileSpec,
    at: &dyn Fn(usize, String) -> LabError,
) -> Result<Vec<EditSpec>> {
    let mut out = Vec::new();
    if let Some(models) = &e.models {
        if models.get_ref().is_empty() {
            return Err(at(
                models.span().start,
                "`edits.models` is an empty list".into(),
            ));
        }
        for m in models.get_ref() {
            let model = EditModel::parse(m).map_err(|msg| at(models.span().start, msg))?;
            out.push(EditSpec {
                kind: "composite".into(),
                rate: model.max_rate(),
                model: Some(model),
            });
        }
    }
    Ok(out)
}
