//! Reports: `reports/<experiment>/README.md` (the question, its answer in tables and charts,
//! corpora and their checksums, the configuration, machine and revision), a `TIMING.md` beside
//! it for everything that depends on the clock, and an index (`reports/README.md`,
//! `reports/index.html`) over all experiments.
//!
//! Each experiment also leaves a `report.json` with the same content, from which the index is
//! built, so the index never reruns anything.

pub mod answer;
pub mod cluster_modes;
pub mod examples;
pub mod index;
pub mod published_pages;
pub mod published_report;
pub mod site;
pub mod tables;
pub mod web_pages;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::charts::ChartFile;
use crate::error::Result;
use crate::experiment::config::{Answer, Experiment};
use crate::experiment::corpora::Unavailable;
use crate::experiment::runner::RunOutcome;
use neardup_dedup::fsutil::write_bytes;
pub use tables::Table;

/// Where and on what a report was produced.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunInfo {
    /// Git revision the binary was built from (with `+dirty` for uncommitted changes).
    pub revision: String,
    /// CPU model, cores and memory.
    pub machine: String,
    /// neardup version.
    pub version: String,
}

impl RunInfo {
    /// The revision this binary was built from and the machine it runs on.
    pub fn current() -> RunInfo {
        RunInfo {
            revision: crate::REVISION.to_string(),
            machine: machine(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// "AMD EPYC (2 cores), 23.4 GiB, linux x86_64" from /proc where available.
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal"))
                .map(str::to_string)
        })
        .and_then(|l| {
            l.split_whitespace()
                .nth(1)
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| format!(", {:.1} GiB", kb / 1024.0 / 1024.0))
        .unwrap_or_default();
    format!(
        "{model} ({cores} cores){mem}, {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// One corpus of the experiment.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CorpusLine {
    /// Dataset name.
    pub dataset: String,
    /// Edit model.
    pub edit: String,
    /// Seed.
    pub seed: u64,
    /// Documents.
    pub docs: usize,
    /// Positive pairs.
    pub true_pairs: usize,
    /// Checksum.
    pub sha256: String,
}

/// Everything a report shows; also stored as `report.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExperimentReport {
    /// Experiment name (folder).
    pub name: String,
    /// Title.
    pub title: String,
    /// The question.
    pub question: String,
    /// This run's answer in one line (`answer::answer_line`): none without ground truth, or
    /// when the charts or the timing answer.
    #[serde(default)]
    pub summary: Option<String>,
    /// Notes.
    pub description: Option<String>,
    /// The experiment file's text.
    pub config: String,
    /// The experiment file's path as given.
    pub config_path: String,
    /// Quality tables.
    pub tables: Vec<Table>,
    /// Timing tables (TIMING.md only: not stored in report.json, which stays identical
    /// between reruns).
    #[serde(skip)]
    pub timing_tables: Vec<Table>,
    /// Charts.
    pub charts: Vec<ChartFile>,
    /// Corpora.
    pub corpora: Vec<CorpusLine>,
    /// Datasets that were not available.
    pub unavailable: Vec<Unavailable>,
    /// Cells whose algorithm failed.
    pub failed: Vec<String>,
    /// The indexes' warnings, with the number of cells that gave each.
    #[serde(default)]
    pub warnings: Vec<(String, usize)>,
    /// Number of result rows.
    pub rows: usize,
    /// What answers the question (the site shows it first).
    #[serde(default)]
    pub answer: crate::experiment::config::Answer,
    /// Whether EXAMPLES.md (example pairs) sits beside the README.
    #[serde(default)]
    pub examples: bool,
    /// The page benchmark's claims and extraction table (experiments with page datasets).
    #[serde(default)]
    pub pages: Option<web_pages::PagesSection>,
    /// Revision and machine.
    pub run: RunInfo,
}

/// Every chart of a report, beside its README.
pub const CHARTS_FILE: &str = "CHARTS.md";
/// The corpora, result files and configuration of a report, beside its README.
pub const CONFIGURATION_FILE: &str = "CONFIGURATION.md";

impl ExperimentReport {
    /// Assembles the report of a finished run.
    pub fn new(
        exp: &Experiment,
        outcome: &RunOutcome,
        results: &crate::experiment::results::Results,
        charts: Vec<ChartFile>,
        run: RunInfo,
    ) -> Self {
        let mut corpora: BTreeMap<(String, String, u64), CorpusLine> = BTreeMap::new();
        for c in &outcome.cells {
            let t = &outcome.truths[&c.corpus_sha256];
            corpora
                .entry((c.dataset.clone(), c.edit_spec.clone(), c.seed))
                .or_insert_with(|| CorpusLine {
                    dataset: c.dataset.clone(),
                    edit: c.edit_spec.clone(),
                    seed: c.seed,
                    docs: t.docs,
                    true_pairs: crate::truth::positive_pairs(&t.labels).len(),
                    sha256: t.sha256.clone(),
                });
        }
        ExperimentReport {
            name: exp.name.clone(),
            title: exp.title.clone(),
            question: exp.question.clone(),
            summary: match exp.answer {
                Answer::Quality => answer::answer_line(exp, &results.rows),
                Answer::Charts | Answer::Timing => None,
            },
            description: exp.description.clone(),
            config: exp.source.clone(),
            config_path: exp.path.display().to_string(),
            // An experiment that sweeps clustering modes asks about clusters, not pairs: the
            // pairs, and so the best-F1 table, are the same under every mode.
            tables: match cluster_modes::cluster_modes_table(exp, &results.rows) {
                Some(table) => vec![table],
                None if exp.answer == Answer::Charts => Vec::new(),
                None => tables::quality_tables(exp, &results.rows),
            },
            timing_tables: tables::timing_tables(&results.rows)
                .into_iter()
                .chain(cluster_modes::cluster_modes_timing(exp, &results.rows))
                .collect(),
            charts,
            corpora: corpora.into_values().collect(),
            unavailable: outcome.unavailable.clone(),
            failed: outcome.failed.clone(),
            warnings: outcome.warnings.clone(),
            rows: results.rows.len(),
            answer: exp.answer,
            examples: exp.examples,
            pages: web_pages::section(exp, &outcome.readings, &results.rows),
            run,
        }
    }

    /// Writes README.md (the answer), CHARTS.md (every chart, when there are more than the
    /// README shows), CONFIGURATION.md, TIMING.md and report.json into `dir`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        write_bytes(&dir.join("README.md"), self.markdown().as_bytes())?;
        let charts = dir.join(CHARTS_FILE);
        match self.charts_markdown() {
            Some(md) => write_bytes(&charts, md.as_bytes())?,
            // An earlier regeneration's, which this one would leave stale.
            None => neardup_dedup::fsutil::remove_if_present(&charts)?,
        }
        write_bytes(
            &dir.join(CONFIGURATION_FILE),
            self.configuration_markdown().as_bytes(),
        )?;
        write_bytes(&dir.join("TIMING.md"), self.timing_markdown().as_bytes())?;
        let json = serde_json::to_vec_pretty(self).expect("report serializes");
        write_bytes(&dir.join("report.json"), &json)
    }

    /// The README.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# {}\n\n**Question.** {}\n", self.title, self.question);
        if let Some(summary) = &self.summary {
            let _ = writeln!(s, "**This run's answer.** {}\n", capitalized(summary));
        }
        // The page benchmark answers its question first, with this run's figures.
        if let Some(pages) = &self.pages {
            s.push_str(&pages.markdown());
        }
        if self.answer == Answer::Timing {
            let _ = writeln!(
                s,
                "**The answer is in [TIMING.md](TIMING.md)**: seconds, documents per second and memory \
                 of every algorithm on this machine (they change from run to run, so they live apart). \
                 Below: what that speed buys in quality.\n"
            );
        }
        for u in &self.unavailable {
            let _ = writeln!(
                s,
                "> Dataset `{}` was not available ({}); its cells were skipped.\n",
                u.dataset, u.reason
            );
        }

        // The first chart answers at a glance, the tables behind it follow (the site folds
        // the long ones); every other chart, the examples, the corpora and the configuration
        // are a link away.
        if let Some(c) = self.quality_charts().first() {
            let _ = writeln!(s, "## {}\n\n{}", c.title, c.markdown());
        }
        // How the corpora and runs were set up: after the answer and its chart, which a
        // long setup pushed below the first screen (real-corpora: 15 lines).
        if let Some(d) = &self.description {
            let _ = writeln!(s, "## How it was measured\n\n{}\n", d.trim());
        }
        for t in &self.tables {
            s.push_str(&t.markdown());
        }
        self.problems_markdown(&mut s);
        self.more_markdown(&mut s);
        let _ = writeln!(
            s,
            "## Reproduce\n\n```sh\ncargo run --release -p neardup-lab -- run {}\n```\n\nRevision `{}`, neardup {}, on {}.",
            self.config_path, self.run.revision, self.run.version, self.run.machine
        );
        s
    }

    fn quality_charts(&self) -> Vec<&ChartFile> {
        self.charts.iter().filter(|c| !c.timing).collect()
    }

    /// The list of the report's other pages.
    fn more_markdown(&self, s: &mut String) {
        s.push_str("## More\n\n");
        let charts = self.quality_charts();
        if charts.len() > 1 {
            let titles: Vec<&str> = charts[1..].iter().map(|c| c.title.as_str()).collect();
            let _ = writeln!(
                s,
                "- [{CHARTS_FILE}]({CHARTS_FILE}): every chart — {}.",
                titles.join("; ")
            );
        }
        if self.examples {
            let _ = writeln!(
                s,
                "- [{}]({}): for each algorithm and corpus, the true pairs just above and just \
                 below its cut and the false pairs it reports, side by side with the differing \
                 words marked.",
                examples::FILE,
                examples::FILE
            );
        }
        let _ = writeln!(
            s,
            "- [TIMING.md](TIMING.md): seconds, throughput and memory of every configuration.\n\
             - [{CONFIGURATION_FILE}]({CONFIGURATION_FILE}): the corpora (documents, true pairs, \
             checksums), the result files and the experiment's TOML.\n"
        );
    }

    /// CHARTS.md: every quality chart, when there is more than the one the README shows.
    pub fn charts_markdown(&self) -> Option<String> {
        let charts = self.quality_charts();
        if charts.len() < 2 {
            return None;
        }
        let mut s = format!(
            "# {}: charts\n\n**Question.** {}\n\n",
            self.title, self.question
        );
        let mut i = 0;
        while i < charts.len() {
            let Some(family) = &charts[i].family else {
                let _ = writeln!(s, "## {}\n\n{}", charts[i].title, charts[i].markdown());
                i += 1;
                continue;
            };
            let members = charts[i..]
                .iter()
                .take_while(|c| c.family.as_ref() == Some(family))
                .count();
            family_markdown(&mut s, &charts[i..i + members]);
            i += members;
        }
        Some(s)
    }

    /// CONFIGURATION.md: the corpora, the result files and the experiment's TOML.
    pub fn configuration_markdown(&self) -> String {
        let mut s = format!("# {}: corpora and configuration\n\n", self.title);
        s.push_str("## Corpora\n\n| dataset | edits | seed | docs | true pairs | sha256 |\n|---|---|---:|---:|---:|---|\n");
        for c in &self.corpora {
            let _ = writeln!(
                s,
                "| {} | `{}` | {} | {} | {} | `{}` |",
                c.dataset, c.edit, c.seed, c.docs, c.true_pairs, c.sha256
            );
        }
        let _ = writeln!(
            s,
            "\n## Files\n\n- `results.csv`, `results.parquet`: every configuration's metrics ({} rows; columns documented in \
             ARCHITECTURE.md).\n- `timing.csv`, [TIMING.md](TIMING.md): seconds, throughput and memory, kept apart because \
             they change from run to run.\n",
            self.rows
        );
        let _ = writeln!(
            s,
            "## Configuration\n\n`{}`:\n\n```toml\n{}\n```\n",
            self.config_path,
            self.config.trim()
        );
        s
    }

    /// The failed cells and the indexes' warnings, where there are any.
    fn problems_markdown(&self, s: &mut String) {
        if !self.failed.is_empty() {
            s.push_str("## Failed cells\n\nStored as failures: a later run reports them again, and retries them when the limits they failed under (`--max-pairs`, `--max-memory`), their parameters or the code change.\n\n");
            for f in &self.failed {
                let _ = writeln!(s, "- {f}");
            }
            s.push('\n');
        }
        if !self.warnings.is_empty() {
            s.push_str("## Warnings\n\n");
            for (w, n) in &self.warnings {
                let _ = writeln!(s, "- {w} ({n} cell{})", if *n == 1 { "" } else { "s" });
            }
            s.push('\n');
        }
    }

    /// TIMING.md.
    pub fn timing_markdown(&self) -> String {
        let mut s = format!(
            "# {}: timing\n\nWall-clock on {} (revision `{}`). These figures change from run to run.\n\n",
            self.title, self.run.machine, self.run.revision
        );
        for t in self
            .timing_tables
            .iter()
            .chain(self.pages.as_ref().and_then(|p| p.speed.as_ref()))
        {
            s.push_str(&t.markdown());
        }
        for c in self.charts.iter().filter(|c| c.timing) {
            let _ = writeln!(s, "## {}\n\n{}", c.title, c.markdown());
        }
        s
    }
}

/// `text` with its first letter upper-case (an answer line starts lower-case, to be quoted).
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
/// A family of charts (one per algorithm) as one section of the charts page: the first chart
/// shown, the others folded under their titles. Eight trade-off charts one under another made
/// the charts pages 8–10 screens long (#53 item 13).
fn family_markdown(s: &mut String, family: &[&ChartFile]) {
    // What the titles say after the algorithm, as far as they agree ("precision, recall
    // and F1 against …": each chart sweeps its algorithm's own parameter).
    let what = |c: &ChartFile| -> Vec<String> {
        let t = c
            .title
            .split_once(": ")
            .map_or(c.title.as_str(), |(_, w)| w);
        t.split(' ').map(str::to_string).collect()
    };
    let first = what(family[0]);
    let shared = family[1..].iter().fold(first.len(), |n, c| {
        first
            .iter()
            .zip(what(c))
            .take(n)
            .take_while(|(a, b)| *a == b)
            .count()
    });
    let heading = match shared {
        n if n == first.len() => first.join(" "),
        0 => "one chart each".to_string(),
        n => format!("{} …", first[..n].join(" ")),
    };
    let _ = writeln!(
        s,
        "## Per algorithm: {heading}\n\n### {}\n\n{}",
        family[0].title,
        family[0].markdown()
    );
    for c in &family[1..] {
        let _ = writeln!(
            s,
            "<details><summary><b>{}</b></summary>\n\n{}\n</details>\n",
            crate::inspect::html::esc(&c.title),
            c.markdown()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(title: &str, family: Option<&str>) -> ChartFile {
        ChartFile {
            title: title.into(),
            svg: format!("charts/{title}.svg"),
            png: format!("charts/{title}.png"),
            caption: format!("caption of {title}"),
            timing: false,
            family: family.map(str::to_string),
        }
    }

    /// A family is one section: the first chart shown under the titles' shared words, the
    /// others folded; charts outside it keep their own sections.
    #[test]
    fn a_family_of_charts_is_one_section_with_the_rest_folded() {
        let charts = [
            chart("simhash: recall against k", Some("tradeoff")),
            chart("spotsigs: recall against threshold", Some("tradeoff")),
            chart("exact: recall against nothing", Some("tradeoff")),
        ];
        let refs: Vec<&ChartFile> = charts.iter().collect();
        let mut s = String::new();
        family_markdown(&mut s, &refs);
        assert!(
            s.starts_with("## Per algorithm: recall against …\n\n### simhash: recall against k\n"),
            "{s}"
        );
        assert_eq!(s.matches("<details>").count(), 2, "{s}");
        assert!(
            s.contains(
                "<summary><b>spotsigs: recall against threshold</b></summary>\n\n![spotsigs"
            ),
            "{s}"
        );
        assert_eq!(s.matches("## ").count(), 2, "{s}");
    }
}
