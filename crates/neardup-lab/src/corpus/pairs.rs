//! Labelled pairs: a CSV `id_a,id_b,label` naming documents of a corpus.
//!
//! `label` is 0 / `false` (not a duplicate) or a positive integer / `true` (a duplicate, the
//! integer being a grade); `skip` (a pair a person passed over) is left out. Without a
//! `label` column every listed pair is a duplicate (the shape of `bench/peers`'
//! `corpus.truth.csv`). An optional `weight` column says how many pairs of the corpus each
//! stands for (the inverse of its chance to be sampled, as `neardup label` writes it); 1
//! without it.

use std::collections::HashMap;
use std::path::Path;

use super::model::Corpus;
use crate::error::{LabError, Result};
use neardup_dedup::input::checksummed::Input;

/// One labelled pair, normalized so that `a < b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LabelledPair {
    /// Smaller document index.
    pub a: u32,
    /// Larger document index.
    pub b: u32,
    /// 0 = not a duplicate; > 0 = duplicate grade.
    pub grade: u32,
}

impl LabelledPair {
    /// Whether the pair is a duplicate.
    pub fn positive(&self) -> bool {
        self.grade > 0
    }
}

/// Loads labelled pairs for `corpus`, sorted by (a, b).
pub fn load(path: &Path, corpus: &Corpus) -> Result<Vec<LabelledPair>> {
    Ok(load_weighted(path, corpus)?
        .into_iter()
        .map(|(p, _)| p)
        .collect())
}

/// Loads labelled pairs with their weights, sorted by pair.
pub fn load_weighted(path: &Path, corpus: &Corpus) -> Result<Vec<(LabelledPair, f64)>> {
    let input = Input::open(path)?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(input.reader);
    let headers = rdr
        .headers()
        .map_err(|e| LabError::line(path, 1, format!("cannot read the header: {e}")))?
        .clone();
    let col = |n: &str| headers.iter().position(|h| h.trim() == n);
    let (Some(ca), Some(cb)) = (col("id_a"), col("id_b")) else {
        return Err(LabError::line(
            path,
            1,
            format!(
                "expected a header with id_a,id_b[,label], got {}",
                headers.iter().collect::<Vec<_>>().join(",")
            ),
        ));
    };
    let cl = col("label");
    let cw = col("weight");
    let index = corpus.id_index();
    let mut seen: HashMap<(u32, u32), usize> = HashMap::new();
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            LabError::line(
                path,
                e.position().map_or(0, |p| p.line() as usize),
                format!("malformed CSV: {e}"),
            )
        })?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let id = |c: usize| -> Result<u32> {
            let v = rec.get(c).unwrap_or_default().trim();
            index.get(v).copied().ok_or_else(|| {
                LabError::line(
                    path,
                    line,
                    format!("id `{v}` is not in corpus {}", corpus.name),
                )
            })
        };
        let (x, y) = (id(ca)?, id(cb)?);
        if x == y {
            return Err(LabError::line(
                path,
                line,
                "a pair of a document with itself",
            ));
        }
        let Some(grade) = grade(cl.map(|c| rec.get(c).unwrap_or_default()), path, line)? else {
            continue;
        };
        let weight = weight(cw.map(|c| rec.get(c).unwrap_or_default()), path, line)?;
        let (a, b) = (x.min(y), x.max(y));
        if let Some(first) = seen.insert((a, b), line) {
            return Err(LabError::line(
                path,
                line,
                format!("pair listed twice (first at line {first})"),
            ));
        }
        out.push((LabelledPair { a, b, grade }, weight));
    }
    out.sort_unstable_by_key(|p| p.0);
    Ok(out)
}

/// A `label` cell's grade: 1 without the column, `None` for `skip`.
fn grade(cell: Option<&str>, path: &Path, line: usize) -> Result<Option<u32>> {
    let Some(l) = cell.map(|c| c.trim().to_ascii_lowercase()) else {
        return Ok(Some(1));
    };
    match l.as_str() {
        "skip" => Ok(None),
        "true" => Ok(Some(1)),
        "false" => Ok(Some(0)),
        n => n.parse::<u32>().map(Some).map_err(|_| {
            LabError::line(
                path,
                line,
                format!("label `{n}` is not 0, a positive integer, true, false or skip"),
            )
        }),
    }
}

/// A `weight` cell: 1 without the column or when empty, else a positive number.
fn weight(cell: Option<&str>, path: &Path, line: usize) -> Result<f64> {
    match cell.map(str::trim) {
        None | Some("") => Ok(1.0),
        Some(w) => w
            .parse::<f64>()
            .ok()
            .filter(|w| w.is_finite() && *w > 0.0)
            .ok_or_else(|| {
                LabError::line(path, line, format!("weight `{w}` is not a positive number"))
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{LoadOptions, jsonl};

    #[test]
    fn labels_and_errors() {
        let d = std::env::temp_dir().join(format!("neardup-pairs-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let cp = d.join("c.jsonl");
        std::fs::write(&cp, "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"y\"}\n{\"id\":\"c\",\"text\":\"z\"}\n").unwrap();
        let corpus = jsonl::load(&cp, &LoadOptions::default()).unwrap();
        let pp = d.join("p.csv");
        std::fs::write(&pp, "id_a,id_b,label\nb,a,2\na,c,false\nb,c,true\n").unwrap();
        let pairs = load(&pp, &corpus).unwrap();
        assert_eq!(
            pairs,
            [
                LabelledPair {
                    a: 0,
                    b: 1,
                    grade: 2
                },
                LabelledPair {
                    a: 0,
                    b: 2,
                    grade: 0
                },
                LabelledPair {
                    a: 1,
                    b: 2,
                    grade: 1
                },
            ]
        );
        std::fs::write(&pp, "id_a,id_b\na,b\n").unwrap();
        assert_eq!(load(&pp, &corpus).unwrap()[0].grade, 1);
        for (content, expected) in [
            ("id_a,id_b\na,zz\n", "p.csv:2: id `zz` is not in corpus c"),
            ("id_a,id_b,label\na,b,maybe\n", "p.csv:2: label `maybe`"),
            (
                "id_a,id_b\na,b\nb,a\n",
                "p.csv:3: pair listed twice (first at line 2)",
            ),
            ("x,y\na,b\n", "p.csv:1: expected a header"),
            (
                "id_a,id_b\na,a\n",
                "p.csv:2: a pair of a document with itself",
            ),
        ] {
            std::fs::write(&pp, content).unwrap();
            let e = load(&pp, &corpus).unwrap_err().to_string();
            assert!(e.contains(expected), "{e}");
        }
    }
}
