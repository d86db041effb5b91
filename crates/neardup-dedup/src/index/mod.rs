//! The persistent index of `neardup dedup --index DIR`: every indexed document's id, signature
//! and join keys, so a new batch is deduplicated against everything indexed before without
//! reading an old text again.
//!
//! ```text
//! DIR/index.json          manifest: format version, algorithm and signature key, generation,
//!                         the segments with their document counts, checksums and sources
//! DIR/segments/NNNNNNNN.seg   one immutable segment per `dedup` run that added documents
//! DIR/lock                held (flock) by the one process that may read or change DIR
//! ```
//!
//! A segment holds ids, signatures and, per key position, the sorted (key, document) table —
//! LSH's band tables for minhash-lsh (Broder 1997; Indyk & Motwani 1998), the one hash of
//! exact hashing — so a new document's candidates are found by binary search, and the cost of
//! a batch grows with the batch, not with the index. Tables built for other join parameters
//! (a new threshold changes the banding) are rebuilt in memory from the stored signatures.
//!
//! Crash safety: a segment is written atomically under a fresh name, then the manifest is
//! replaced atomically; until that rename the index is the old one, and an unreferenced
//! segment left by a killed writer is deleted by the next writer. Each segment ends in the
//! XXH3-64 of its bytes, which the manifest repeats, so a truncated, corrupted or swapped file
//! is an error naming it, never silently different candidates.
//!
//! Each segment records its `source`, the key of the inputs it came from. A `dedup` run joins
//! against every segment except its own source's, so rerunning a batch that was already added
//! (after a kill between adding and writing the summary, or with a new threshold) gives the
//! same outputs and adds nothing.

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};

use neardup::streaming::StreamingDetector;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::fsutil;
use segment::{Contents, Segment, encode_segment, key_tables, read_segment, without};

pub mod segment;

pub use segment::FORMAT_VERSION;
const FORMAT_NAME: &str = "neardup-index";
const MANIFEST: &str = "index.json";
const SEGMENTS: &str = "segments";

/// A new document whose id the index holds already: see [`IncrementalIndex::indexed_under_ids`].
#[derive(Debug, Clone)]
pub struct IndexedUnderId {
    /// The new document.
    pub doc: usize,
    /// The segment file that holds the id.
    pub segment: String,
    /// The indexed document's signature row, and whether it has no feature.
    pub row: Vec<u32>,
    pub empty: bool,
}

/// `DIR/index.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// Always `neardup-index`.
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub version: u32,
    /// The algorithm whose signatures are stored.
    pub algorithm: String,
    /// Everything the signatures depend on (`StreamingDetector::sketch_key`).
    pub sketch_key: String,
    /// 32-bit words per signature.
    pub width: usize,
    /// Incremented by every change.
    pub generation: u64,
    /// The segments, in document order.
    pub segments: Vec<SegmentEntry>,
}

/// One segment in the manifest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SegmentEntry {
    /// File name under `segments/`.
    pub file: String,
    /// Documents it holds.
    pub documents: u64,
    /// XXH3-64 of the file's bytes before its trailer, hex.
    pub checksum: String,
    /// Key of the `dedup` inputs it came from.
    pub source: String,
}

/// An index directory, locked by this process while the value lives.
#[derive(Debug)]
pub struct IncrementalIndex {
    dir: PathBuf,
    manifest: Manifest,
    _lock: File,
}

impl IncrementalIndex {
    /// Opens the index at `dir` for `stream`'s signatures, creating it when `dir` has none;
    /// refuses an index of other signatures.
    pub fn open_for(dir: &Path, stream: &dyn StreamingDetector) -> Result<Self> {
        Self::open_for_sketch(dir, stream, 0)
    }

    /// [`Self::open_for`] for signatures sketched with `--min-words min_words`: a short
    /// document's signature is then its exact fingerprint, so an index holds one N's (a batch
    /// run with another N would match short documents differently, unseen). 0 keeps the key
    /// every index had before the option.
    pub fn open_for_sketch(
        dir: &Path,
        stream: &dyn StreamingDetector,
        min_words: usize,
    ) -> Result<Self> {
        fsutil::check_dir(dir)?;
        let index = Self::lock(dir)?;
        let mut sketch_key = format!("{}:{}", stream.name(), stream.sketch_key());
        if min_words > 0 {
            sketch_key.push_str(&format!(" min_words={min_words}"));
        }
        let mut index = match index {
            (lock, Some(manifest)) => IncrementalIndex {
                dir: dir.to_path_buf(),
                manifest,
                _lock: lock,
            },
            (lock, None) => {
                let mut index = IncrementalIndex {
                    dir: dir.to_path_buf(),
                    manifest: Manifest {
                        format: FORMAT_NAME.into(),
                        version: FORMAT_VERSION,
                        algorithm: stream.name().into(),
                        sketch_key: sketch_key.clone(),
                        width: stream.width(),
                        generation: 0,
                        segments: Vec::new(),
                    },
                    _lock: lock,
                };
                // The manifest comes first, so that from here on a missing manifest means a
                // lost one, never a first writer killed before it committed.
                index.commit(index.manifest.clone())?;
                index
            }
        };
        let m = &index.manifest;
        if m.sketch_key != sketch_key || m.width != stream.width() {
            return Err(Error::file(
                &index.manifest_path(),
                format!(
                    "the index holds {} signatures made with other parameters ({}) than this run's ({}): \
                     run with the index's algorithm and sketch parameters (shingles, num_perm, seed, \
                     normalization, --min-words), or use a new index directory",
                    m.algorithm, m.sketch_key, sketch_key
                ),
            ));
        }
        index.delete_unreferenced()?;
        Ok(index)
    }

    /// Opens an existing index whatever its signatures (`neardup index` commands); it
    /// deletes nothing (`index show` only reads).
    pub fn open_existing(dir: &Path) -> Result<Self> {
        if !dir.join(MANIFEST).is_file() {
            return Err(Error::file(
                dir,
                format!("no index here (no {MANIFEST}); `neardup dedup --index` creates one"),
            ));
        }
        match Self::lock(dir)? {
            (lock, Some(manifest)) => {
                let index = IncrementalIndex {
                    dir: dir.to_path_buf(),
                    manifest,
                    _lock: lock,
                };
                Ok(index)
            }
            (_, None) => unreachable!("the manifest exists"),
        }
    }

    /// Takes `DIR/lock` and reads the manifest if there is one.
    fn lock(dir: &Path) -> Result<(File, Option<Manifest>)> {
        let lock_path = dir.join("lock");
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| Error::io(&lock_path, e))?;
        if lock.try_lock().is_err() {
            return Err(Error::file(dir, in_use_message(dir)));
        }
        let segments = dir.join(SEGMENTS);
        if std::fs::symlink_metadata(&segments).is_ok_and(|m| !m.is_dir()) {
            return Err(Error::file(
                &segments,
                "not a folder (a symbolic link or a file): an index keeps its segments in a \
                 folder of its own, and neardup neither follows nor replaces what is there",
            ));
        }
        let path = dir.join(MANIFEST);
        if !path.exists() {
            if segments.exists() {
                return Err(Error::file(
                    &path,
                    format!(
                        "missing, but {} exists: this index lost its manifest, and starting a \
                         new index here would delete its segments. Restore {MANIFEST} from a \
                         copy, or give --index a new folder",
                        segments.display()
                    ),
                ));
            }
            return Ok((lock, None));
        }
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let manifest: Manifest = serde_json::from_slice(&bytes)
            .map_err(|e| Error::file(&path, format!("not an index manifest: {e}")))?;
        if manifest.format != FORMAT_NAME || manifest.version != FORMAT_VERSION {
            return Err(Error::file(
                &path,
                format!(
                    "index format {} version {}; this neardup reads {FORMAT_NAME} version {FORMAT_VERSION}",
                    manifest.format, manifest.version
                ),
            ));
        }
        Ok((lock, Some(manifest)))
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn manifest_path(&self) -> PathBuf {
        self.dir.join(MANIFEST)
    }

    fn segment_path(&self, file: &str) -> PathBuf {
        self.dir.join(SEGMENTS).join(file)
    }

    /// Documents indexed.
    pub fn documents(&self) -> u64 {
        self.manifest.segments.iter().map(|s| s.documents).sum()
    }

    /// Documents in the segments not from `source`.
    pub fn documents_excluding(&self, source: &str) -> u64 {
        self.manifest
            .segments
            .iter()
            .filter(|s| s.source != source)
            .map(|s| s.documents)
            .sum()
    }

    /// Whether a segment came from `source`.
    pub fn contains_source(&self, source: &str) -> bool {
        self.manifest.segments.iter().any(|s| s.source == source)
    }

    /// A key of the segments not from `source` (their files and checksums): what a join
    /// against them depends on.
    pub fn fingerprint_excluding(&self, source: &str) -> String {
        let parts: Vec<(&str, &str)> = self
            .manifest
            .segments
            .iter()
            .filter(|s| s.source != source)
            .map(|s| (s.file.as_str(), s.checksum.as_str()))
            .collect();
        crate::pipeline::stage_files::key(&(&self.manifest.sketch_key, parts))
    }

    /// Reads the key tables of the segments not from `source` (`Contents::KeysOnly`),
    /// checked against their checksums; tables built for other join parameters than
    /// `stream`'s are rebuilt from the signatures.
    pub fn load_excluding(
        &self,
        source: &str,
        stream: &dyn StreamingDetector,
        tables_key: &str,
    ) -> Result<Vec<Segment>> {
        self.manifest
            .segments
            .par_iter()
            .filter(|s| s.source != source)
            .map(|entry| {
                let mut segment = self.read_segment(entry, Contents::KeysOnly)?;
                if segment.tables_key != tables_key {
                    let full = self.read_segment(entry, Contents::Everything)?;
                    segment.tables = key_tables(stream, &full.table);
                    segment.tables_key = tables_key.to_string();
                }
                Ok(segment)
            })
            .collect()
    }

    /// The index's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Reads one segment of the manifest, checked against its checksum and document count.
    pub fn read_entry(&self, entry: &SegmentEntry, contents: Contents) -> Result<Segment> {
        self.read_segment(entry, contents)
    }

    fn read_segment(&self, entry: &SegmentEntry, contents: Contents) -> Result<Segment> {
        let path = self.segment_path(&entry.file);
        let segment = read_segment(&path, &entry.checksum, self.manifest.width, contents)?;
        if segment.len() as u64 != entry.documents {
            return Err(Error::file(
                &path,
                format!(
                    "holds {} documents, the manifest says {}",
                    segment.len(),
                    entry.documents
                ),
            ));
        }
        Ok(segment)
    }

    /// The documents of a new batch (`ids`: id → document number) whose id a segment not from
    /// `source` holds already, in document order, each with that segment's file and the
    /// indexed document's signature: an id names one document across every batch of an index
    /// (`index remove --ids` removed two). Ids are streamed, one segment at a time, and not
    /// kept; only a segment that holds one of them is read whole, for its signatures.
    pub fn indexed_under_ids(
        &self,
        source: &str,
        ids: &std::collections::HashMap<&str, usize>,
    ) -> Result<Vec<IndexedUnderId>> {
        let mut found = Vec::new();
        for entry in self.manifest.segments.iter().filter(|s| s.source != source) {
            let path = self.segment_path(&entry.file);
            let mut at = Vec::new();
            let mut position = 0usize;
            segment::for_each_id(&path, &entry.checksum, self.manifest.width, |id| {
                if let Some(&doc) = ids.get(id) {
                    at.push((doc, position));
                }
                position += 1;
            })?;
            if at.is_empty() {
                continue;
            }
            let segment = self.read_segment(entry, Contents::Everything)?;
            found.extend(at.into_iter().map(|(doc, i)| IndexedUnderId {
                doc,
                segment: entry.file.clone(),
                row: segment.table.row(i).to_vec(),
                empty: segment.table.is_empty_doc(i),
            }));
        }
        found.sort_by_key(|f| f.doc);
        Ok(found)
    }

    /// Adds a segment from `source` (nothing when one from `source` is there already);
    /// returns whether it was added.
    pub fn add(&mut self, source: &str, segment: &Segment) -> Result<bool> {
        if self.contains_source(source) {
            return Ok(false);
        }
        let mut manifest = self.manifest.clone();
        manifest.generation += 1;
        let file = format!("{:08}.seg", manifest.generation);
        let checksum = self.write_segment(&file, segment)?;
        manifest.segments.push(SegmentEntry {
            file,
            documents: segment.len() as u64,
            checksum,
            source: source.to_string(),
        });
        self.commit(manifest)?;
        Ok(true)
    }

    /// Removes the documents whose id is in `ids` (rewriting the segments that hold one);
    /// returns (documents removed, ids found).
    pub fn remove_ids(&mut self, ids: &HashSet<String>) -> Result<(u64, HashSet<String>)> {
        let mut manifest = self.manifest.clone();
        manifest.generation += 1;
        let mut removed = 0u64;
        let mut found = HashSet::new();
        let mut replaced = Vec::new();
        for (n, entry) in manifest.segments.iter_mut().enumerate() {
            let segment = self.read_segment(entry, Contents::Everything)?;
            let drop: Vec<bool> = segment.ids.iter().map(|id| ids.contains(id)).collect();
            if !drop.contains(&true) {
                continue;
            }
            for (id, _) in segment.ids.iter().zip(&drop).filter(|(_, d)| **d) {
                found.insert(id.clone());
                removed += 1;
            }
            let kept = without(&segment, &drop);
            let file = format!("{:08}-{n:04}.seg", manifest.generation);
            entry.checksum = self.write_segment(&file, &kept)?;
            entry.documents = kept.len() as u64;
            replaced.push(std::mem::replace(&mut entry.file, file));
        }
        if removed > 0 {
            self.commit(manifest)?;
            for old in replaced {
                let _ = std::fs::remove_file(self.segment_path(&old));
            }
        }
        Ok((removed, found))
    }

    fn write_segment(&self, file: &str, segment: &Segment) -> Result<String> {
        let path = self.segment_path(file);
        let mut checksum = 0;
        fsutil::write_atomic(&path, |w| {
            checksum = encode_segment(segment, w)?;
            Ok(())
        })?;
        Ok(format!("{checksum:016x}"))
    }

    fn commit(&mut self, manifest: Manifest) -> Result<()> {
        let json = serde_json::to_vec_pretty(&manifest).expect("manifests serialize");
        fsutil::write_bytes(&self.manifest_path(), &json)?;
        self.manifest = manifest;
        Ok(())
    }

    /// Deletes the segment files a writer killed before its commit left: regular files (a
    /// link is never followed) named as a later generation than the manifest's would be.
    /// Nothing else under `segments/` is touched, not even an unreferenced older segment: a
    /// manifest restored from a copy may not name segments that are still wanted.
    fn delete_unreferenced(&mut self) -> Result<()> {
        let folder = self.dir.join(SEGMENTS);
        let Ok(entries) = std::fs::read_dir(&folder) else {
            return Ok(());
        };
        let named: HashSet<&str> = self
            .manifest
            .segments
            .iter()
            .map(|s| s.file.as_str())
            .collect();
        for e in entries {
            let e = e.map_err(|err| Error::io(&folder, err))?;
            let name = e.file_name().to_string_lossy().to_string();
            let uncommitted =
                segment_generation(&name).is_some_and(|g| g > self.manifest.generation);
            if uncommitted
                && !named.contains(name.as_str())
                && e.file_type().is_ok_and(|t| t.is_file())
            {
                crate::fsutil::remove_if_present(&e.path())?;
            }
        }
        Ok(())
    }
}

/// The file `neardup serve` writes into an index folder it holds: its address and process.
pub const SERVING_FILE: &str = "serving.json";

/// Why an index folder cannot be opened: another process holds its lock — a server, named by
/// its `serving.json`, or a batch run.
fn in_use_message(dir: &Path) -> String {
    let serving = std::fs::read(dir.join(SERVING_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
    match serving {
        Some(s) => format!(
            "the index is held by `neardup serve` at {} (process {}): a batch writer would race \
             it, so add through the service (POST {}/v1/batch/add, or `neardup check` to query \
             without adding through it) or stop it first (it folds its log on SIGTERM)",
            s["address"].as_str().unwrap_or("?"),
            s["pid"],
            s["address"].as_str().unwrap_or("http://ADDRESS"),
        ),
        None => "the index is in use by another neardup process (its lock is held); wait for it \
                 to finish"
            .to_string(),
    }
}

/// The generation in a segment file's name (`NNNNNNNN.seg` from `add`, `NNNNNNNN-MMMM.seg`
/// from `remove_ids`); `None` for any other name.
fn segment_generation(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(".seg")?;
    let (generation, rest) = stem.split_at_checked(8)?;
    let rest_ok = rest.is_empty()
        || rest
            .strip_prefix('-')
            .is_some_and(|n| n.len() == 4 && n.bytes().all(|b| b.is_ascii_digit()));
    (rest_ok && generation.bytes().all(|b| b.is_ascii_digit()))
        .then(|| generation.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::segment::tests::stream;
    use super::*;
    use neardup::detector::ParamMap;
    use neardup::streaming::SignatureTable;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir()
            .join(format!("neardup-incremental-{}", std::process::id()))
            .join(name);
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn one_process_at_a_time_and_only_matching_signatures() {
        let s = stream();
        let d = dir("lock");
        let first = IncrementalIndex::open_for(&d, s.as_ref()).unwrap();
        let e = IncrementalIndex::open_for(&d, s.as_ref())
            .unwrap_err()
            .to_string();
        assert!(e.contains("in use"), "{e}");
        drop(first);
        let mut index = IncrementalIndex::open_for(&d, s.as_ref()).unwrap();
        let seg = one_document_segment();
        assert!(index.add("src", &seg).unwrap());
        assert!(!index.add("src", &seg).unwrap(), "a source is added once");
        drop(index);
        let mut p = ParamMap::new();
        p.insert("num_perm".into(), serde_json::json!(64));
        let other = neardup::registry::detector("minhash-lsh", &p)
            .unwrap()
            .streaming()
            .unwrap();
        let e = IncrementalIndex::open_for(&d, other.as_ref())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("index.json") && e.contains("other parameters"),
            "{e}"
        );
        // A segment left by a killed writer is deleted by the next one.
        std::fs::write(d.join("segments/99999999.seg"), b"partial").unwrap();
        let index = IncrementalIndex::open_for(&d, s.as_ref()).unwrap();
        assert!(!d.join("segments/99999999.seg").exists());
        let loaded = index.load_excluding("", s.as_ref(), "k").unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].tables, seg.tables);
        assert_eq!(loaded[0].table.empty_flags(), seg.table.empty_flags());
    }

    /// A segment of one document, `x`, under [`stream`]'s signatures.
    fn one_document_segment() -> Segment {
        let s = stream();
        let table = SignatureTable::sketch_all(s.as_ref(), &["a b c d e f"]);
        Segment {
            ids: vec!["x".into()],
            tables: key_tables(s.as_ref(), &table),
            table,
            tables_key: "k".into(),
            stored_rows: None,
        }
    }

    fn one_segment_index(d: &Path) -> IncrementalIndex {
        let mut index = IncrementalIndex::open_for(d, stream().as_ref()).unwrap();
        assert!(index.add("src", &one_document_segment()).unwrap());
        index
    }

    #[test]
    fn a_lost_manifest_never_deletes_the_segments() {
        let d = dir("lost-manifest");
        drop(one_segment_index(&d));
        std::fs::remove_file(d.join(MANIFEST)).unwrap();
        let e = IncrementalIndex::open_for(&d, stream().as_ref())
            .unwrap_err()
            .to_string();
        assert!(e.contains("lost its manifest"), "{e}");
        assert!(d.join("segments/00000001.seg").is_file());
        // A folder that merely has a `segments/` of someone else's is refused the same way.
        let other = dir("someone-elses");
        std::fs::create_dir_all(other.join("segments")).unwrap();
        std::fs::write(other.join("segments/photo.jpg"), b"mine").unwrap();
        assert!(IncrementalIndex::open_for(&other, stream().as_ref()).is_err());
        assert_eq!(
            std::fs::read(other.join("segments/photo.jpg")).unwrap(),
            b"mine"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_segments_link_is_refused_and_its_target_untouched() {
        let d = dir("linked");
        drop(one_segment_index(&d));
        let target = dir("link-target");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("00000007.seg"), b"not the index's").unwrap();
        std::fs::rename(d.join("segments"), d.join("moved")).unwrap();
        std::os::unix::fs::symlink(&target, d.join("segments")).unwrap();
        for e in [
            IncrementalIndex::open_existing(&d).unwrap_err(),
            IncrementalIndex::open_for(&d, stream().as_ref()).unwrap_err(),
        ] {
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        assert!(target.join("00000007.seg").is_file());
    }

    #[test]
    fn only_a_killed_writers_segment_is_swept_and_only_by_a_writer() {
        let d = dir("sweep-own");
        drop(one_segment_index(&d));
        let seg = d.join("segments");
        let keep = ["notes.txt", "00000000.seg", "00000001-0000.seg.bak"];
        for name in keep.iter().chain(&["00000002.seg", "00000002-0003.seg"]) {
            std::fs::write(seg.join(name), b"x").unwrap();
        }
        drop(IncrementalIndex::open_existing(&d).unwrap());
        assert!(
            seg.join("00000002.seg").is_file(),
            "index show deletes nothing"
        );
        drop(IncrementalIndex::open_for(&d, stream().as_ref()).unwrap());
        assert!(!seg.join("00000002.seg").exists() && !seg.join("00000002-0003.seg").exists());
        for name in keep.iter().chain(&["00000001.seg"]) {
            assert!(seg.join(name).is_file(), "{name} was deleted");
        }
        assert_eq!(segment_generation("00000012-0001.seg"), Some(12));
        assert_eq!(segment_generation("0000001.seg"), None);
    }
}
