//! `neardup site`: the committed pages rebuilt byte for byte.

use super::*;

/// `neardup site` on the committed reports writes their pages back byte for byte (the pages
/// follow the Markdown), and the index names the regeneration the reports carry, not the
/// revision of the binary that rebuilds the site.
#[test]
fn site_rebuilds_the_committed_pages_byte_for_byte() {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &target);
            } else {
                std::fs::copy(e.path(), target).unwrap();
            }
        }
    }
    let committed = repo().join("reports");
    let copied = tmp("site-reports");
    copy(&committed, &copied);
    ok(&["site", copied.to_str().unwrap()]);
    // The index's "committed on" days come from git history, which the copy has not: the
    // index is checked for the regeneration it names, each report's page byte for byte.
    let index = std::fs::read_to_string(copied.join("README.md")).unwrap();
    let report: serde_json::Value = serde_json::from_slice(
        &std::fs::read(committed.join("edit-robustness/report.json")).unwrap(),
    )
    .unwrap();
    let regeneration = format!(
        "This regeneration: revision `{}`",
        report["run"]["revision"].as_str().unwrap()
    );
    assert!(
        index.contains(&regeneration),
        "{regeneration} not in\n{index}"
    );
    // Every page of every report: its answer (index.html) and its other parts.
    let mut pages = Vec::new();
    for e in std::fs::read_dir(&committed).unwrap() {
        let e = e.unwrap();
        if !e.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(e.path()).unwrap() {
            let f = f.unwrap().file_name();
            if f.to_string_lossy().ends_with(".html") {
                pages.push(Path::new(&e.file_name()).join(f));
            }
        }
    }
    for page in &pages {
        assert!(
            std::fs::read(committed.join(page)).unwrap()
                == std::fs::read(copied.join(page)).unwrap(),
            "{} differs after `neardup site`",
            page.display()
        );
    }
    assert!(pages.len() > 10, "{pages:?}");
    let not_reports = tmp("not-reports");
    std::fs::create_dir_all(&not_reports).unwrap();
    assert!(err(&["site", not_reports.to_str().unwrap()]).contains("not a reports folder"));
}
