//! The join of `neardup dedup` when the signatures do not fit `--memory`: an external hash
//! join over the sketch shards on disk, so memory holds one partition of join keys or one
//! chunk of candidates' signatures at a time, never every signature.
//!
//! * Candidates: one pass over the shards, row group by row group, computes every document's
//!   join keys (`StreamingDetector::keys`: for MinHash-LSH exactly the band keys the in-memory
//!   banding sorts) and appends (key, document) to one spill file per (key position, bucket of
//!   the key). Each file is then read, sorted and turned into the pairs of its runs of equal
//!   keys (`neardup::pairs::run_pairs`, spending the same pair budget as in memory) — the same
//!   pairs as grouping each position's keys at once, since equal keys share a bucket. A run of
//!   more than `neardup::heavy::HEAVY` documents (a heavy cluster: thousands of copies of a
//!   page) gives each member paired with the run's first members only
//!   (`heavy::run_candidates_to_hubs`), since signatures are not at hand to connect it as the
//!   in-memory join does: linear, and those of its members near none of them are left to the
//!   other keys they share.
//!   Buckets per position are chosen so one file's sort fits the budget.
//! * Verification: the candidates, in (a, b) order, are cut into chunks whose distinct
//!   documents' signatures fit the budget; each chunk gathers those rows from the shards
//!   (reading only row groups that hold one) and verifies its pairs as the in-memory join does.
//!
//! Without heavy runs, pairs and scores are therefore those of the in-memory join, bit for bit
//! (tested on the same corpus with and without a small `--memory`).

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use neardup::distinct::DistinctCount;
use neardup::heavy::run_candidates_to_hubs;
use neardup::pairs::Budget;
use neardup::streaming::{SignatureTable, StreamingDetector};
use rayon::prelude::*;

use super::stage_files;
use crate::error::{Error, Result};

/// Bytes a spill file entry takes: the key and the document.
const ENTRY_BYTES: usize = 12;
/// Bytes one entry takes once read for sorting: `(u64, u32)` is padded to 16.
const SORTED_ENTRY_BYTES: u64 = 16;
/// At most this many spill files open at once (each with a write buffer).
const MAX_SPILL_FILES: usize = 1024;
/// Write buffer per spill file (16 KiB: 1,024 of them are 16 MiB of the limit).
const SPILL_BUFFER: usize = 1 << 14;
/// What the spill files' write buffers hold at most, whatever the budget.
pub const SPILL_WRITE_BYTES: u64 = (MAX_SPILL_FILES * SPILL_BUFFER) as u64;

/// The sketch shards of a run, as the join reads them.
#[derive(Debug)]
pub struct ShardFiles {
    /// One shard per input file.
    pub paths: Vec<PathBuf>,
    /// Index of each shard's first document.
    pub offsets: Vec<usize>,
    /// Documents in all.
    pub documents: usize,
    /// Signature width in words.
    pub width: usize,
}

/// What the key pass found: the candidates, or more distinct pairs than memory may hold.
#[derive(Debug)]
pub enum Candidates {
    /// Candidate pairs (packed, sorted, each once).
    Found(Vec<u64>),
    /// More than the cap: at most this many distinct pairs (a HyperLogLog bound, counted
    /// without holding them, so a refusal can name the limit that takes them).
    TooMany(u64),
}

/// Candidate pairs of the documents in `shards`, holding about `budget` bytes of keys at a
/// time and at most `cap` distinct pairs; spill files go to `spill_dir` and are removed.
pub fn candidates(
    stream: &dyn StreamingDetector,
    shards: &ShardFiles,
    budget: u64,
    cap: usize,
    spill_dir: &Path,
) -> Result<Candidates> {
    let positions = stream.keys_per_doc();
    let per_position = shards.documents as u64 * SORTED_ENTRY_BYTES;
    let buckets = (per_position.div_ceil(budget.max(1)) as usize)
        .clamp(1, (MAX_SPILL_FILES / positions.max(1)).max(1));
    let files: Vec<PathBuf> = (0..positions * buckets)
        .map(|p| spill_dir.join(format!("{p:05}.keys")))
        .collect();
    write_spill_files(stream, shards, buckets, &files)?;

    let pair_budget = Budget::new("LSH banding")?;
    let bar = crate::progress::items(files.len() as u64, "candidates: sort keys");
    let mut pairs = CandidateSet::new(budget, cap);
    for path in &files {
        let mut keyed = read_spill_file(path)?;
        keyed.par_sort_unstable();
        run_candidates_to_hubs(&keyed, &pair_budget, &mut pairs.pending)?;
        drop(keyed);
        pairs.compact_if_grown();
        let _ = std::fs::remove_file(path);
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(pairs.into_candidates())
}

/// The candidates found so far: a sorted, distinct prefix and the pairs appended since. The
/// same pair comes from many keys — near copies share most bands, and a heavy run gives its
/// hubs' pairs in every band — so the appended pairs are folded in (sorted, duplicates
/// dropped) whenever they outgrow the prefix or the budget: memory holds about the distinct
/// candidates, not one entry per key they share (200 clusters of 1,000 near copies, 1.5
/// million distinct pairs, held 20 million entries under `--memory 114MB`, 298 MB).
/// Past `cap` distinct pairs it stops holding them and only counts them.
struct CandidateSet {
    pending: Vec<u64>,
    sorted_len: usize,
    /// Pairs appended past a small prefix that trigger a fold: a quarter of the budget.
    fold_at: usize,
    cap: usize,
    /// Set once the cap is passed: every pair is counted here instead.
    counting: Option<DistinctCount>,
}

impl CandidateSet {
    fn new(budget: u64, cap: usize) -> Self {
        CandidateSet {
            pending: Vec::new(),
            sorted_len: 0,
            fold_at: (budget / 8 / 4).max(1 << 16) as usize,
            cap,
            counting: None,
        }
    }

    /// Folds the appended pairs in once they exceed half the prefix and `fold_at`: each fold
    /// sorts at most three times what was appended since the last (linear-logarithmic in
    /// all), and memory holds at most one and a half times the distinct pairs, besides one
    /// spill file's.
    fn compact_if_grown(&mut self) {
        if self.counting.is_some() {
            self.count_pending();
            return;
        }
        let appended = self.pending.len() - self.sorted_len;
        if appended > (self.sorted_len / 2).max(self.fold_at) {
            self.fold();
            if self.sorted_len > self.cap {
                self.count_pending();
            }
        }
    }

    fn fold(&mut self) {
        self.pending.par_sort_unstable();
        self.pending.dedup();
        self.pending.shrink_to_fit();
        self.sorted_len = self.pending.len();
    }

    /// Moves the pairs held into the count (started if need be), freeing them.
    fn count_pending(&mut self) {
        let count = self.counting.get_or_insert_with(DistinctCount::new);
        self.pending.iter().for_each(|&p| count.insert(p));
        self.pending = Vec::new();
        self.sorted_len = 0;
    }

    fn into_candidates(mut self) -> Candidates {
        if self.counting.is_none() {
            self.fold();
            if self.sorted_len <= self.cap {
                return Candidates::Found(self.pending);
            }
        }
        // The distinct pairs still held, if the cap was passed only now: at least that many.
        let held = self.sorted_len as u64;
        self.count_pending();
        let count = self.counting.expect("counted just now");
        Candidates::TooMany(count.upper_bound().max(held))
    }
}

/// The key pass: every non-empty document's keys, appended to the spill file of their
/// (position, bucket).
fn write_spill_files(
    stream: &dyn StreamingDetector,
    shards: &ShardFiles,
    buckets: usize,
    files: &[PathBuf],
) -> Result<()> {
    let positions = stream.keys_per_doc();
    std::fs::create_dir_all(spill_parent(files)).map_err(|e| Error::io(&files[0], e))?;
    let mut writers = files
        .iter()
        .map(|p| {
            crate::fsutil::refuse_non_regular(p)?;
            let f = std::fs::File::create(p).map_err(|e| Error::io(p, e))?;
            Ok(BufWriter::with_capacity(SPILL_BUFFER, f))
        })
        .collect::<Result<Vec<_>>>()?;
    let bar = crate::progress::items(shards.documents as u64, "candidates: join keys");
    for (shard, path) in shards.paths.iter().enumerate() {
        for group in stage_files::sketch_row_groups(path)? {
            let table = stage_files::read_sketch_signatures(path, shards.width, group)?;
            let mut keys = vec![0u64; table.len() * positions];
            keys.par_chunks_mut(positions.max(1))
                .enumerate()
                .filter(|(row, _)| !table.is_empty_doc(*row))
                .for_each(|(row, out)| stream.keys(table.row(row), out));
            let first = shards.offsets[shard] + group.first;
            for row in (0..table.len()).filter(|&r| !table.is_empty_doc(r)) {
                let doc = (first + row) as u32;
                for (position, &key) in keys[row * positions..(row + 1) * positions]
                    .iter()
                    .enumerate()
                {
                    let file = position * buckets + bucket(key, buckets);
                    let mut entry = [0u8; ENTRY_BYTES];
                    entry[..8].copy_from_slice(&key.to_le_bytes());
                    entry[8..].copy_from_slice(&doc.to_le_bytes());
                    writers[file]
                        .write_all(&entry)
                        .map_err(|e| Error::io(&files[file], e))?;
                }
            }
            bar.inc(table.len() as u64);
        }
    }
    for (w, path) in writers.into_iter().zip(files) {
        w.into_inner()
            .map_err(|e| Error::io(path, e.into_error()))?;
    }
    bar.finish_and_clear();
    Ok(())
}

fn spill_parent(files: &[PathBuf]) -> &Path {
    files[0].parent().unwrap_or(Path::new("."))
}

/// A key's bucket among `buckets`: the high bits of a multiplicative hash, so keys that are
/// not uniform themselves still spread.
fn bucket(key: u64, buckets: usize) -> usize {
    let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((mixed as u128 * buckets as u128) >> 64) as usize
}

/// Reads one spill file back as (key, document).
fn read_spill_file(path: &Path) -> Result<Vec<(u64, u32)>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len() as usize;
    if !len.is_multiple_of(ENTRY_BYTES) {
        return Err(Error::file(
            path,
            "spill file is truncated; delete the stage and rerun",
        ));
    }
    let mut keyed = Vec::with_capacity(len / ENTRY_BYTES);
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut entry = [0u8; ENTRY_BYTES];
    for _ in 0..len / ENTRY_BYTES {
        reader
            .read_exact(&mut entry)
            .map_err(|e| Error::io(path, e))?;
        let key = u64::from_le_bytes(entry[..8].try_into().expect("8 bytes"));
        let doc = u32::from_le_bytes(entry[8..].try_into().expect("4 bytes"));
        keyed.push((key, doc));
    }
    Ok(keyed)
}

/// Verifies `candidates` (sorted) chunk by chunk, holding about `budget` bytes of
/// signatures at a time; returns the reported pairs and their scores, in order.
pub fn verify(
    stream: &dyn StreamingDetector,
    shards: &ShardFiles,
    candidates: &[u64],
    budget: u64,
) -> Result<(Vec<u64>, Vec<f64>)> {
    let row_bytes = shards.width as u64 * 4 + 8;
    // Each pair brings at most two documents.
    let chunk = ((budget / row_bytes / 2) as usize).max(1);
    let bar = crate::progress::items(candidates.len() as u64, "verify: candidates");
    let (mut pairs, mut scores) = (Vec::new(), Vec::new());
    for part in candidates.chunks(chunk) {
        let rows = super::signature_checks::candidate_documents(part);
        let table = gather_rows(shards, &rows)?;
        let (p, s) = super::signature_checks::verify_candidates(stream, &table, Some(&rows), part);
        pairs.extend(p);
        scores.extend(s);
        bar.inc(part.len() as u64);
    }
    bar.finish_and_clear();
    Ok((pairs, scores))
}

/// The signatures of documents `rows` (sorted, distinct), in that order, read from the
/// row groups that hold them.
pub fn gather_rows(shards: &ShardFiles, rows: &[u32]) -> Result<SignatureTable> {
    let mut table = SignatureTable::new(shards.width);
    table.reserve_exact(rows.len());
    let mut next = 0;
    for (shard, path) in shards.paths.iter().enumerate() {
        let offset = shards.offsets[shard];
        for group in stage_files::sketch_row_groups(path)? {
            let (first, len) = (group.first, group.rows);
            let (from, to) = ((offset + first) as u32, (offset + first + len) as u32);
            let start = next;
            while next < rows.len() && rows[next] < to {
                next += 1;
            }
            if start == next {
                continue;
            }
            let signatures = stage_files::read_sketch_signatures(path, shards.width, group)?;
            for &d in &rows[start..next] {
                let r = (d - from) as usize;
                table.push(signatures.row(r), signatures.is_empty_doc(r));
            }
        }
    }
    if table.len() != rows.len() {
        return Err(Error::file(
            &shards.paths[0],
            "the sketch shards hold fewer documents than the join expects; rerun the sketch stage",
        ));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::stage_files::{SketchShard, write_sketch};
    use neardup::pairs::unpack;

    /// 3,000 documents (a third near copies of another) sketched by MinHash-LSH, written as
    /// two shards; the in-memory join of the same table is the oracle.
    fn shards(dir: &Path) -> (Box<dyn StreamingDetector>, SignatureTable, ShardFiles) {
        let seed = 7u64;
        println!("seed {seed}");
        let mut x = seed;
        let mut word = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            format!("w{}", (x >> 33) % 5000)
        };
        let mut texts: Vec<String> = Vec::new();
        for i in 0..3000 {
            if i % 3 == 2 {
                let mut w: Vec<String> = texts[i - 1].split(' ').map(String::from).collect();
                w[i % 40] = word();
                texts.push(w.join(" "));
            } else {
                texts.push((0..60).map(|_| word()).collect::<Vec<_>>().join(" "));
            }
        }
        texts[10] = String::new(); // an empty document is never a candidate
        let detector = neardup::registry::detector("minhash-lsh", &Default::default()).unwrap();
        let stream = detector.streaming().unwrap();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let table = SignatureTable::sketch_all(stream.as_ref(), &refs);
        std::fs::create_dir_all(dir).unwrap();
        let width = stream.width();
        let mut paths = Vec::new();
        for (i, range) in [0..1000, 1000..3000].into_iter().enumerate() {
            let mut shard = SketchShard::new(width);
            for d in range {
                shard.lines.push(d as u64 + 1);
                shard.ids.push(None);
                shard.bytes.push(0);
                shard.table.push(table.row(d), table.is_empty_doc(d));
            }
            let path = dir.join(format!("{i}.parquet"));
            write_sketch(&path, &shard).unwrap();
            paths.push(path);
        }
        let files = ShardFiles {
            paths,
            offsets: vec![0, 1000],
            documents: 3000,
            width,
        };
        (stream, table, files)
    }

    #[test]
    fn spilled_candidates_and_verification_equal_the_in_memory_join() {
        let dir = crate::test_dir::TestDir::new("spill");
        let (stream, table, files) = shards(&dir);
        let expected = stream.candidates(&table).unwrap();
        assert!(expected.len() >= 500, "{} candidates", expected.len());
        // 3,000 × 16 bytes of keys per band over 10 kB: 5 files per band.
        let got = candidates(
            stream.as_ref(),
            &files,
            10_000,
            usize::MAX,
            &dir.join("spill"),
        );
        let Candidates::Found(got) = got.unwrap() else {
            panic!("no cap, yet too many")
        };
        assert_eq!(got, expected);
        // With a cap below them, a count that bounds them instead.
        let capped = candidates(stream.as_ref(), &files, 10_000, 100, &dir.join("spill"));
        match capped.unwrap() {
            Candidates::TooMany(bound) => assert!(
                bound >= expected.len() as u64 && bound as f64 <= 1.06 * expected.len() as f64,
                "{bound} for {} candidates",
                expected.len()
            ),
            Candidates::Found(_) => panic!("found more candidates than the cap"),
        }
        assert_eq!(
            std::fs::read_dir(dir.join("spill")).unwrap().count(),
            0,
            "spill files left behind"
        );
        let (pairs, scores): (Vec<u64>, Vec<f64>) = expected
            .iter()
            .filter_map(|&p| {
                let (a, b) = unpack(p);
                stream.verify(&table, a, b).map(|s| (p, s))
            })
            .unzip();
        assert!(
            pairs.len() < expected.len(),
            "verification rejects some candidates"
        );
        // One pair per chunk, then all at once.
        for budget in [1, 1 << 30] {
            let got = verify(stream.as_ref(), &files, &expected, budget).unwrap();
            assert_eq!(got, (pairs.clone(), scores.clone()), "budget {budget}");
        }
    }

    /// Each batch repeats most earlier pairs (as bands of near copies do): the set ends as
    /// every pair once, sorted, and never holds much more than the distinct pairs.
    #[test]
    fn candidate_set_folds_repeated_pairs_as_they_come() {
        let seed = 56u64;
        println!("seed {seed}");
        let mut rng = neardup::hash::SplitMix64::new(seed);
        let mut set = CandidateSet::new(0, usize::MAX);
        set.fold_at = 100;
        let mut all = Vec::new();
        let mut most_held = 0;
        for _ in 0..200 {
            let batch: Vec<u64> = (0..300).map(|_| rng.below(5_000)).collect();
            all.extend_from_slice(&batch);
            set.pending.extend_from_slice(&batch);
            most_held = most_held.max(set.pending.len());
            set.compact_if_grown();
        }
        all.sort_unstable();
        all.dedup();
        assert!(
            most_held <= all.len() * 3 / 2 + 300 + 100,
            "held {most_held} for {} distinct pairs",
            all.len()
        );
        let Candidates::Found(got) = set.into_candidates() else {
            panic!("no cap, yet too many")
        };
        assert_eq!(got, all);

        // Capped below the distinct pairs: they are counted once past it, not held.
        let mut set = CandidateSet::new(0, 1_000);
        set.fold_at = 100;
        let mut rng = neardup::hash::SplitMix64::new(seed);
        let mut most_held = 0;
        for _ in 0..200 {
            set.pending.extend((0..300).map(|_| rng.below(5_000)));
            most_held = most_held.max(set.pending.len());
            set.compact_if_grown();
        }
        assert!(set.counting.is_some(), "never counted");
        assert!(most_held <= 1_000 * 3 / 2 + 300 + 100, "held {most_held}");
        match set.into_candidates() {
            Candidates::TooMany(bound) => assert!(
                bound >= all.len() as u64 && bound as f64 <= 1.06 * all.len() as f64,
                "seed {seed}: bound {bound} for {} pairs",
                all.len()
            ),
            Candidates::Found(_) => panic!("more than the cap held"),
        }
    }

    #[test]
    fn buckets_cover_their_range_and_spread() {
        let mut seen = [0usize; 7];
        for key in 0..70_000u64 {
            seen[bucket(key, 7)] += 1;
        }
        // Consecutive keys (not hashes) still spread within 10 % of even.
        assert!(seen.iter().all(|&n| n.abs_diff(10_000) < 1_000), "{seen:?}");
        assert!((0..1000).all(|k| bucket(k * 0x1234_5678_9abc, 1) == 0));
    }
}
