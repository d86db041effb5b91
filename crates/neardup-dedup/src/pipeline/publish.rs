//! A run's outputs are committed as one set. The outputs stage writes the audit tables
//! (`clusters.*`, `pairs.*`), `removed.txt` and the deduplicated corpus into its own directory (`stages/outputs/`); then
//! [`publish`] puts the set in place:
//!
//! 1. `README.md` says the set is incomplete and `summary.json` is removed: from here until
//!    step 4 a reader (or a kill) finds a directory that says what it is;
//! 2. outputs of earlier runs that this set does not hold are removed (a `deduplicated/`
//!    folder beside a new `deduplicated.jsonl`, or the reverse);
//! 3. each staged file is hard-linked into place under a temporary name and renamed over its
//!    target (no copy; where the file system has no hard links, it is moved, and a rerun
//!    writes the stage again);
//! 4. `README.md`, then `summary.json` — the manifest: written last, so its presence means the
//!    set beside it is complete and from one run.
//!
//! A run killed before step 1 leaves the previous set whole; one killed during steps 1–4
//! leaves a set without `summary.json` whose README says so. Every target was checked before
//! any work (`Run::open`): none is a symbolic link or anything but a regular file, none is an
//! input.

use std::path::{Path, PathBuf};

use super::options::TableFormat;
use super::stage_files::stage_dir;
use crate::error::{Error, Result};
use crate::fsutil;

/// The audit tables of `format`: the clusters, then the pairs.
pub(super) fn table_names(format: TableFormat) -> [String; 2] {
    ["clusters", "pairs"].map(|t| format!("{t}.{}", format.name()))
}

/// Every name an audit table or `removed.txt` may have (what an earlier set may have left).
fn every_table_name() -> Vec<String> {
    TableFormat::ALL
        .iter()
        .flat_map(|&f| table_names(f))
        .chain(["removed.txt".to_string()])
        .collect()
}

/// The folder of the deduplicated corpus when there are several inputs.
const DEDUPLICATED_DIR: &str = "deduplicated";

/// What `README.md` says while a set is being published.
const INCOMPLETE: &str = "# Incomplete output set\n\nA `neardup dedup` run was stopped while it \
    put its outputs in place: the files here may mix two runs. Rerun the same command to \
    complete the set; `summary.json` appears when it is whole.\n";

/// Where the outputs stage writes the set before it is published.
pub(super) fn staged_dir(output: &Path) -> PathBuf {
    stage_dir(output, "outputs")
}

/// Empties the staging directory before the outputs stage writes a new set into it: a staged
/// file of an earlier set would hold its disk (and could be published with the new one).
pub(super) fn clear_staged(output: &Path) -> Result<()> {
    let dir = staged_dir(output);
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&dir, e)),
        _ => Ok(()),
    }
}

/// The files the outputs stage stages (`deduplicated`: this run's corpus files, relative to
/// the output directory).
pub(super) fn staged_names(format: TableFormat, deduplicated: &[String]) -> Vec<String> {
    table_names(format)
        .into_iter()
        .chain(["removed.txt".to_string()])
        .chain(deduplicated.iter().cloned())
        .collect()
}

/// Every output name a run may check before it writes: the staged files, then the two
/// published last.
pub(super) fn names(format: TableFormat, deduplicated: &[String]) -> Vec<String> {
    let mut names = staged_names(format, deduplicated);
    names.extend(["summary.json".to_string(), "README.md".to_string()]);
    names
}

/// Publishes the staged files `staged` (names relative to the output directory), then
/// `readme` and `summary` (see the module's steps).
pub(super) fn publish(
    output: &Path,
    staged: &[String],
    readme: &str,
    summary: &[u8],
) -> Result<()> {
    fsutil::write_bytes(&output.join("README.md"), INCOMPLETE.as_bytes())?;
    fsutil::remove_if_present(&output.join("summary.json"))?;
    remove_stale(output, staged)?;
    let from = staged_dir(output);
    for name in staged {
        put_in_place(&from.join(name), &output.join(name))?;
        crate::fault_injection::reached(crate::fault_injection::KillPoint::Published);
    }
    fsutil::write_bytes(&output.join("README.md"), readme.as_bytes())?;
    fsutil::write_bytes(&output.join("summary.json"), summary)
}

/// Removes the outputs of earlier runs that `staged` does not hold: regular files only, under
/// the names a run writes.
fn remove_stale(output: &Path, staged: &[String]) -> Result<()> {
    // A set: with a crawl's 10^5 inputs, a scan of `staged` per entry was quadratic.
    let staged: std::collections::HashSet<&str> = staged.iter().map(String::as_str).collect();
    let holds = |name: &str| staged.contains(name);
    let single = ["jsonl", "csv", "parquet"].map(|e| format!("{DEDUPLICATED_DIR}.{e}"));
    for name in every_table_name().into_iter().chain(single) {
        let path = output.join(&name);
        if !holds(&name) && is_regular_file(&path) {
            fsutil::remove_if_present(&path)?;
        }
    }
    let folder = output.join(DEDUPLICATED_DIR);
    if !std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
        return Ok(());
    }
    for entry in std::fs::read_dir(&folder).map_err(|e| Error::io(&folder, e))? {
        let entry = entry.map_err(|e| Error::io(&folder, e))?;
        let name = format!("{DEDUPLICATED_DIR}/{}", entry.file_name().to_string_lossy());
        if !holds(&name) && is_regular_file(&entry.path()) && is_corpus_copy_name(&name) {
            fsutil::remove_if_present(&entry.path())?;
        }
    }
    // Gone when it held only earlier outputs (an error here means it holds something else).
    let _ = std::fs::remove_dir(&folder);
    Ok(())
}

/// `deduplicated/NNNNN-…`: the name the outputs give a corpus copy in the folder.
fn is_corpus_copy_name(name: &str) -> bool {
    let file = name
        .trim_start_matches(DEDUPLICATED_DIR)
        .trim_start_matches('/');
    file.len() > 6 && file.as_bytes()[..5].iter().all(u8::is_ascii_digit) && &file[5..6] == "-"
}

fn is_regular_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Puts the staged file `from` at `to`: a hard link under a temporary name renamed over `to`
/// (moved where hard links are refused). Nothing to do when `to` is `from` already.
fn put_in_place(from: &Path, to: &Path) -> Result<()> {
    fsutil::refuse_non_regular(to)?;
    if fsutil::same_file(from, to) {
        return Ok(());
    }
    let dir = to.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let tmp = crate::temp_files::temporary_path(to);
    fsutil::remove_if_present(&tmp)?;
    crate::temp_files::register(&tmp);
    let linked = std::fs::hard_link(from, &tmp).is_ok();
    let result = match linked {
        true => std::fs::rename(&tmp, to),
        false => std::fs::rename(from, to),
    };
    let result = result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(to, e)
    });
    crate::temp_files::unregister(&tmp);
    result
}
