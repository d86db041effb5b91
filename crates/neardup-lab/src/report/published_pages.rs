//! `reports/published/`'s SpotSigs section: the paper's claim about news pages (Theobald,
//! Siddharth, Paepcke, SIGIR 2008: "> 24 % better combined precision/recall than shingling and
//! I-Match" on its gold set of news articles) beside the same comparison on the page benchmark
//! (`reports/web-pages/results.csv`), read as HTML and by main content.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use crate::error::{LabError, Result};

/// The page benchmark's experiment.
const PAGES_EXPERIMENT: &str = "web-pages";
/// Its English page set's label (`label = "pages"` in experiments/web-pages.toml).
const ENGLISH_LABEL: &str = "pages";

/// The columns of `results.csv` this section reads.
#[derive(Debug, Deserialize)]
struct Row {
    dataset: String,
    edit_spec: String,
    label: String,
    f1: Option<f64>,
}

/// The mean over edit models of the best F1 of each (dataset, label).
fn best_f1(rows: &[Row]) -> BTreeMap<(&str, &str), f64> {
    let mut best: BTreeMap<(&str, &str, &str), f64> = BTreeMap::new();
    for r in rows {
        if let Some(f) = r.f1 {
            let e = best
                .entry((&r.dataset, &r.label, &r.edit_spec))
                .or_insert(f);
            *e = e.max(f);
        }
    }
    let mut sums: BTreeMap<(&str, &str), (f64, usize)> = BTreeMap::new();
    for ((d, l, _), f) in best {
        let e = sums.entry((d, l)).or_default();
        e.0 += f;
        e.1 += 1;
    }
    sums.into_iter()
        .map(|(k, (s, n))| (k, s / n as f64))
        .collect()
}

/// The section (a note saying where it comes from when the page benchmark has not run).
pub fn section(out: &Path) -> Result<String> {
    let path = out.join(PAGES_EXPERIMENT).join("results.csv");
    let mut s = String::from(
        "# SpotSigs on news pages\n\nPublished (Theobald et al., SIGIR 2008): SpotSigs is more than 24 % better \
         in combined precision and recall than shingling and I-Match on the authors' gold set of news articles \
         (near-duplicate pairs judged by hand; not available to us). Ours: the page benchmark \
         ([web-pages](../web-pages/README.md)): real news and blog pages with their gold articles, each \
         article also put into two other sites' templates and edited there (truth exact, by construction, \
         not judged), F1 at each algorithm's best setting, mean over edit models. What differs: their pairs are \
         natural re-publications judged by people, ours generated; their shingling baseline is LSH over \
         shingles (k = 6, l = 32), ours minhash-lsh and Broder's supershingles.\n\n",
    );
    if !path.is_file() {
        let _ = writeln!(
            s,
            "The page benchmark has not run (it needs ../shared/datasets/web): no figures.\n"
        );
        return Ok(s);
    }
    let mut reader =
        csv::Reader::from_path(&path).map_err(|e| LabError::file(&path, e.to_string()))?;
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize::<Row>().enumerate() {
        rows.push(row.map_err(|e| LabError::line(&path, i + 2, e.to_string()))?);
    }
    let f1 = best_f1(&rows);
    s.push_str("| read as | SpotSigs F1 | best of shingling and I-Match | its F1 | SpotSigs better by | published |\n|---|---:|---|---:|---:|---|\n");
    for reading in ["html", "visible", "main"] {
        let dataset = format!("{ENGLISH_LABEL} ({reading})");
        let Some(&spot) = f1.get(&(dataset.as_str(), "spotsigs")) else {
            continue;
        };
        let Some((other, f)) = ["minhash-lsh", "supershingles", "imatch"]
            .iter()
            .filter_map(|l| f1.get(&(dataset.as_str(), *l)).map(|f| (*l, *f)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            continue;
        };
        // A ratio over a baseline that finds almost nothing says nothing.
        let gain = if f >= 0.05 {
            format!("{:+.0} %", (spot / f - 1.0) * 100.0)
        } else {
            "baseline finds almost nothing".into()
        };
        let _ = writeln!(
            s,
            "| {reading} | {spot:.3} | {other} | {f:.3} | {gain} | > +24 % |"
        );
    }
    s.push('\n');
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Best F1 per edit model, then the mean; the gain is SpotSigs over the best other one.
    #[test]
    fn compares_spotsigs_with_the_best_baseline_per_reading() {
        let dir =
            std::env::temp_dir().join(format!("neardup-published-pages-{}", std::process::id()));
        let exp = dir.join(PAGES_EXPERIMENT);
        std::fs::create_dir_all(&exp).unwrap();
        let csv = "dataset,edit_spec,label,f1\n\
                   pages (main),none,spotsigs,0.4\n\
                   pages (main),none,spotsigs,0.6\n\
                   pages (main),truncate=0.3,spotsigs,0.4\n\
                   pages (main),none,minhash-lsh,0.4\n\
                   pages (main),truncate=0.3,minhash-lsh,0.4\n\
                   pages (main),none,imatch,0.1\n\
                   pages (main),truncate=0.3,imatch,\n";
        std::fs::write(exp.join("results.csv"), csv).unwrap();
        let s = section(&dir).unwrap();
        // SpotSigs: mean(0.6, 0.4) = 0.5 against minhash-lsh 0.4: +25 %.
        assert!(
            s.contains("| main | 0.500 | minhash-lsh | 0.400 | +25 % | > +24 % |"),
            "{s}"
        );
        assert!(!s.contains("| html |"), "no rows, no line");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(section(&dir).unwrap().contains("has not run"));
    }
}
