//! The index over all reports: `reports/README.md` (every report's question, and where each
//! report comes from) and the static site over them (`site.rs`).

use std::fmt::Write as _;
use std::path::Path;

use super::ExperimentReport;
use super::site::{Page, parts_of, write_site};
use crate::error::{LabError, Result};
use neardup_dedup::fsutil::write_bytes;

/// The revision most of `reports` carry: that of the last `reproduce` (ties: the greatest, so
/// the answer does not depend on the folders' order).
fn last_regeneration(reports: &[ExperimentReport]) -> Option<String> {
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    for r in reports {
        *counts.entry(&r.run.revision).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)))
        .map(|(revision, _)| revision.to_string())
}

/// The regeneration the index on disk names ("This regeneration: revision `…`"), which the
/// `reproduce` that wrote it knew: a site rebuilt from the reports keeps it. Counting the
/// reports' revisions instead tied after a `reproduce` without the data directory (five
/// reports regenerated, five left from the run with data) and named the older one.
fn recorded_regeneration(dir: &Path) -> Option<String> {
    let index = std::fs::read_to_string(dir.join("README.md")).ok()?;
    let rest = index.split("This regeneration: revision `").nth(1)?;
    let revision = rest.split('`').next()?;
    (!revision.is_empty()).then(|| revision.to_string())
}

/// Reads every `<dir>/*/report.json`, sorted by folder name.
pub fn load_reports(dir: &Path) -> Result<Vec<ExperimentReport>> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(out);
    };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path().join("report.json")))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    for p in paths {
        let bytes = std::fs::read(&p).map_err(|e| LabError::io(&p, e))?;
        let r: ExperimentReport = serde_json::from_slice(&bytes)
            .map_err(|e| LabError::file(&p, format!("not a report: {e}")))?;
        out.push(r);
    }
    Ok(out)
}

/// Writes `dir/README.md`, `dir/index.html` and every report's page over the reports found
/// in `dir`; `regeneration` is the revision of the `reproduce` that wrote the experiments'
/// reports (the reports it did not write are marked as earlier): `None` when rebuilding the
/// site from reports on disk, which then names the revision most of them carry (this
/// binary's when none has one).
pub fn write_index(dir: &Path, order: &[String], regeneration: Option<&str>) -> Result<()> {
    let mut reports = load_reports(dir)?;
    let regeneration = match regeneration {
        Some(revision) => revision.to_string(),
        None => recorded_regeneration(dir)
            .or_else(|| last_regeneration(&reports))
            .unwrap_or_else(|| crate::REVISION.to_string()),
    };
    // Experiments in the given order first (the standard set), then the rest by name.
    reports.sort_by_key(|r| {
        (
            order
                .iter()
                .position(|n| *n == r.name)
                .unwrap_or(usize::MAX),
            r.name.clone(),
        )
    });
    let others = other_reports(dir, &reports);
    let mut index = markdown(dir, &reports, &others);
    provenance(dir, &reports, &others, &regeneration, &mut index);
    write_bytes(&dir.join("README.md"), index.as_bytes())?;
    let mut pages = vec![Page {
        folder: "",
        title: "neardup reports".into(),
        parts: vec![(String::new(), index)],
    }];
    for name in reports.iter().map(|r| &r.name).chain(&others) {
        let mut parts = parts_of(dir, name)?;
        // Where the timing is the answer, it comes first.
        let timing_first = reports
            .iter()
            .any(|r| &r.name == name && r.answer == crate::experiment::config::Answer::Timing);
        if timing_first {
            parts.sort_by_key(|(anchor, _)| anchor != "timing");
        }
        pages.push(Page {
            folder: name,
            title: title_of(&dir.join(name).join("README.md")).unwrap_or_else(|| name.clone()),
            parts,
        });
    }
    write_site(dir, &pages)
}

/// The revisions a report names: report.json's for an experiment, else every 12-digit
/// revision stamp in its README (the benchmarks stamp each row with its build).
fn revisions_of(dir: &Path, name: &str, report: Option<&ExperimentReport>) -> Vec<String> {
    if let Some(r) = report {
        return vec![r.run.revision.clone()];
    }
    let text = std::fs::read_to_string(dir.join(name).join("README.md")).unwrap_or_default();
    let mut found: Vec<String> = Vec::new();
    let bytes = text.as_bytes();
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    let mut i = 0;
    while i + 12 <= bytes.len() {
        let starts = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if starts
            && bytes[i..i + 12].iter().all(|&b| hex(b))
            && bytes[i..i + 12].iter().any(|b| b.is_ascii_digit())
            && bytes.get(i + 12).is_none_or(|b| !b.is_ascii_alphanumeric())
        {
            let dirty = text[i + 12..].starts_with("+dirty");
            let rev = format!("{}{}", &text[i..i + 12], if dirty { "+dirty" } else { "" });
            if !found.contains(&rev) {
                found.push(rev);
            }
            i += 12;
        } else {
            i += 1;
        }
    }
    found
}

/// The day the folder's report (its README.md: the site's pages are rewritten by every
/// regeneration) was last committed (`git log`), when git knows it.
fn committed_on(dir: &Path, name: &str) -> Option<String> {
    let readme = format!("{name}/README.md");
    let out = std::process::Command::new("git")
        .args(["log", "-1", "--format=%cs", "--", &readme])
        .current_dir(dir)
        .output()
        .ok()?;
    let day = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !day.is_empty()).then_some(day)
}

/// Where a reader with a question starts: (folder, what it answers), shown when the folder
/// holds a report.
const START_HERE: [(&str, &str); 4] = [
    (
        "choosing-parameters",
        "which bands and rows, shingle size, SimHash distance and tables for your threshold",
    ),
    (
        "dedup",
        "`neardup dedup` against datatrove and text-dedup on one corpus: time, memory, recall",
    ),
    (
        "real-corpora",
        "which algorithm finds which real near-duplicates (translations, license variants)",
    ),
    (
        "web-pages",
        "pages read as HTML, visible text or main content: what each algorithm then finds",
    ),
];

/// The "Start here" list: the reports that answer the questions most readers come with, and
/// the path for their own corpus.
fn start_here(dir: &Path, s: &mut String) {
    s.push_str("**Start here:**\n\n");
    for (folder, answers) in START_HERE {
        let readme = dir.join(folder).join("README.md");
        if let Some(title) = readme.is_file().then(|| title_of(&readme)).flatten() {
            let _ = writeln!(s, "- [{title}]({folder}/README.md): {answers}.");
        }
    }
    s.push_str(
        "- Your own corpus: `neardup dedup`, then `neardup inspect`, `neardup label` and \
         `neardup calibrate` (each prints the next step): the parameters your labels choose.\n\n",
    );
}

/// "Where each report comes from": the reports this regeneration wrote (one revision), and
/// each other one with the builds that made it and the day it was committed.
fn provenance(
    dir: &Path,
    reports: &[ExperimentReport],
    others: &[String],
    current: &str,
    s: &mut String,
) {
    let _ = writeln!(
        s,
        "\n## Where each report comes from\n\nThis regeneration: revision `{current}`. A report \
         marked *earlier* was not rewritten by it: a benchmark or an extra experiment, run on \
         its own (its page says by which command), at the revisions and on the day shown.\n\n\
         | report | revision | state |\n|---|---|---|"
    );
    for name in reports.iter().map(|r| &r.name).chain(others) {
        let report = reports.iter().find(|r| &r.name == name);
        let revisions = revisions_of(dir, name, report);
        let fresh = !revisions.is_empty() && revisions.iter().all(|r| r == current);
        let state = if fresh {
            "this regeneration".to_string()
        } else if revisions.iter().any(|r| r == current) {
            // Written now, showing rows an earlier build measured (the guide's 10^6 rows).
            "this regeneration, with rows of the earlier revisions it names".to_string()
        } else {
            match committed_on(dir, name) {
                Some(day) => format!("*earlier*, committed {day}"),
                None => "*earlier*".to_string(),
            }
        };
        let shown: Vec<String> = revisions.iter().map(|r| format!("`{r}`")).collect();
        let shown = if shown.is_empty() {
            "—".to_string()
        } else {
            shown.join(", ")
        };
        let _ = writeln!(s, "| [{name}]({name}/README.md) | {shown} | {state} |");
    }
}

fn markdown(dir: &Path, reports: &[ExperimentReport], others: &[String]) -> String {
    let mut s = String::from(
        "# neardup reports\n\nGenerated by `neardup reproduce` from the experiments in `experiments/`; open \
         [index.html](index.html) for the same in a browser.\n\n",
    );
    start_here(dir, &mut s);
    s.push_str("| experiment | question | this run's answer | corpora |\n|---|---|---|---|\n");
    for r in reports {
        let corpora: Vec<String> = {
            let mut d: Vec<String> = r.corpora.iter().map(|c| c.dataset.clone()).collect();
            d.dedup();
            d
        };
        let _ = writeln!(
            s,
            "| [{}]({}/README.md) | {} | {} | {} |",
            r.title,
            r.name,
            r.question,
            r.summary.as_deref().unwrap_or("in the charts and tables"),
            corpora.join(", ")
        );
    }
    if !others.is_empty() {
        s.push_str("\n| other reports | |\n|---|---|\n");
        for name in others {
            let title = title_of(&dir.join(name).join("README.md")).unwrap_or_else(|| name.clone());
            let _ = writeln!(s, "| [{title}]({name}/README.md) | `{name}/` |");
        }
    }
    let missing: Vec<String> = reports
        .iter()
        .flat_map(|r| {
            r.unavailable.iter().map(move |u| {
                format!(
                    "- {}: dataset `{}` not available ({})",
                    r.name, u.dataset, u.reason
                )
            })
        })
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(
            s,
            "\n## Not available in this run\n\n{}",
            missing.join("\n")
        );
    }
    if let Some(r) = reports.first() {
        let _ = writeln!(
            s,
            "\nRevision `{}`, neardup {}, on {}.",
            r.run.revision, r.run.version, r.run.machine
        );
    }
    s
}

/// Folders of `dir` with a README.md but no report.json (published figures, the parameter
/// guide, performance): reports written by other commands, listed after the experiments.
fn other_reports(dir: &Path, reports: &[ExperimentReport]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("README.md").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| !reports.iter().any(|r| &r.name == n))
        .collect();
    names.sort();
    names
}

/// The first heading of a markdown file, for the index.
fn title_of(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index keeps the regeneration `reproduce` recorded; without one, none is read.
    #[test]
    fn the_recorded_regeneration_is_read_back() {
        let dir = std::env::temp_dir().join(format!("neardup-index-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(recorded_regeneration(&dir), None);
        std::fs::write(
            dir.join("README.md"),
            "# neardup reports\n\n## Where each report comes from\n\nThis regeneration: revision \
             `3d9b03b70076`. A report …\n",
        )
        .unwrap();
        assert_eq!(recorded_regeneration(&dir).as_deref(), Some("3d9b03b70076"));
        std::fs::write(dir.join("README.md"), "This regeneration: revision ``\n").unwrap();
        assert_eq!(recorded_regeneration(&dir), None);
    }
}
