//! `neardup site`: the committed pages rebuilt byte for byte.

use super::*;

/// `neardup site` on the committed reports writes their pages back byte for byte (the pages
/// follow the Markdown), and the index keeps the regeneration the committed one names, not the
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
    // index is checked for the regeneration the committed one names (the last `reproduce`;
    // an experiment re-run on its own since then carries a later revision and must not take
    // its place), each report's page byte for byte.
    let named = |index: &str| {
        index
            .split("This regeneration: revision `")
            .nth(1)
            .and_then(|rest| rest.split('`').next())
            .map(str::to_string)
    };
    let committed_index = std::fs::read_to_string(committed.join("README.md")).unwrap();
    let index = std::fs::read_to_string(copied.join("README.md")).unwrap();
    let regeneration = named(&committed_index).expect("the committed index names its regeneration");
    assert_eq!(
        named(&index).as_deref(),
        Some(regeneration.as_str()),
        "{index}"
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
