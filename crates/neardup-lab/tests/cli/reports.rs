//! What the committed reports cite is in the repository: a reader has no ../shared.

use super::*;

/// No report cites `../shared/PUBLISHED.md` or `../shared/peers` (the published figures are
/// `reports/published/SOURCES.md`, the peers' kit `bench/peers/`), and what they cite instead
/// is there.
#[test]
fn reports_cite_files_of_the_repository() {
    let root = repo();
    for cited in [
        "reports/published/SOURCES.md",
        "bench/peers/run.sh",
        "bench/peers/make_corpus.py",
    ] {
        assert!(root.join(cited).is_file(), "{cited} is cited and missing");
    }
    let mut offending = Vec::new();
    for entry in std::fs::read_dir(root.join("reports")).unwrap() {
        let dir = entry.unwrap().path();
        for name in ["README.md", "index.html"] {
            let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
                continue;
            };
            for bad in ["../shared/PUBLISHED", "../shared/peers"] {
                if text.contains(bad) {
                    offending.push(format!("{}/{name}: {bad}", dir.display()));
                }
            }
        }
    }
    assert!(offending.is_empty(), "{offending:#?}");
}
