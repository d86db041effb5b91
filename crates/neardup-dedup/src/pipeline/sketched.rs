//! What earlier runs left of the sketch stage, checked against what the input files hold now.
//!
//! A file's sketch is reused, or resumed inside the file, only when the hash of the file's
//! bytes (`input::content`) is the one its marker recorded: a finished sketch records the
//! whole file's hash, each piece of an unfinished one the hash of a prefix that covers what
//! the piece read. Markers carry the key of the sketch's parameters; the file's *sketch key*,
//! what every later stage and the index's batches are keyed by, is that key with the hash.
//!
//! Checking costs one read of each file that has a marker (none on a first run, where the
//! hash is taken while the sketch reads).

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::stage_files::{Marker, finished, intact, key};
use crate::error::Result;
use crate::input::InputFile;
use crate::input::content::{self, ContentHash};

/// What an earlier run left of one file's sketch, checked.
#[derive(Debug)]
pub(super) enum Earlier {
    /// Finished, for the file as it is: its marker (with the whole file's hash).
    Finished(Marker),
    /// Pieces finished from the start, for the file as it is (their markers, in order), and
    /// the whole file's hash.
    Resumable(Vec<Marker>, ContentHash),
    /// Nothing usable.
    Nothing,
}

/// The marker of input `file`'s finished sketch (its pieces' rows).
pub(super) fn marker_path(dir: &Path, file: usize) -> PathBuf {
    dir.join(format!("{file:05}.json"))
}

/// The marker of a piece written before its file was finished: where the next piece starts.
pub(super) fn piece_marker_path(dir: &Path, file: usize, piece: usize) -> PathBuf {
    dir.join(format!("{file:05}-{piece:05}.json"))
}

/// The sketch key of a file: the key of the sketch's parameters and the file's hash.
pub(super) fn sketch_key(params_key: &str, content: &ContentHash) -> String {
    key(&(params_key, &content.xxh3, content.bytes))
}

/// Checks what earlier runs left for input files `which` (in parallel; one read of each file
/// with a marker), against `params_keys` (one per input file).
pub(super) fn check_earlier(
    dir: &Path,
    files: &[InputFile],
    params_keys: &[String],
    which: &[usize],
) -> Result<Vec<(usize, Earlier)>> {
    which
        .par_iter()
        .map(|&i| match files[i].stream {
            // A stream cannot be read twice: it is sketched whenever it is given.
            true => Ok((i, Earlier::Nothing)),
            false => Ok((i, earlier(dir, i, &params_keys[i], &files[i].path)?)),
        })
        .collect()
}

fn earlier(dir: &Path, i: usize, params_key: &str, path: &Path) -> Result<Earlier> {
    if let Some(m) = finished(&marker_path(dir, i), params_key).filter(|m| shards_intact(dir, m))
        && let Some(recorded) = &m.content
    {
        let (now, _) = content::hash_file(path, None)?;
        if now == *recorded {
            return Ok(Earlier::Finished(m));
        }
    }
    let pieces = finished_pieces(dir, i, params_key);
    if let Some(recorded) = pieces.last().and_then(|m| m.content.as_ref()) {
        let (whole, prefix) = content::hash_file(path, Some(recorded.bytes))?;
        if prefix.as_ref() == Some(recorded) {
            return Ok(Earlier::Resumable(pieces, whole));
        }
    }
    Ok(Earlier::Nothing)
}

/// The markers of input `file`'s pieces that an interrupted sketch with this `key` finished,
/// in order (a run of consecutive pieces from the first).
fn finished_pieces(dir: &Path, file: usize, key: &str) -> Vec<Marker> {
    let mut done: Vec<Marker> = Vec::new();
    while let Some(m) = finished(&piece_marker_path(dir, file, done.len()), key) {
        if m.position.is_none() || !shards_intact(dir, &m) {
            break;
        }
        done.push(m);
    }
    done
}

/// Whether a sketch marker's shard files are intact (a damaged one is said, and its input
/// sketched again).
fn shards_intact(dir: &Path, marker: &Marker) -> bool {
    intact(dir, marker, "the sketch", "sketching its input again")
}
