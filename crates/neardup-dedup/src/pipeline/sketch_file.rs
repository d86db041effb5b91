//! Sketching one input file: its records read block by block, each block sketched in
//! parallel, the documents handed on in parts with the checkpoints where a sketch may stop
//! and resume. The sketch stage writes the parts into its shard's pieces; the Python
//! package's Ray pipeline calls [`sketch_file`] per file.

use neardup::streaming::{SignatureTable, SketchScratch, StreamingDetector};
use rayon::prelude::*;

use super::short_texts;
use super::stage_files::{SKETCH_ROWS_PER_GROUP, SketchShard};
use crate::error::Result;
use crate::input::{self, Fields, InputFile, ReadFrom, ReadPosition, Record};

/// Sketches one input file: its documents' places, ids, lengths and signatures, and the text
/// bytes read. (Also what the Python package's Ray pipeline runs per file.)
pub fn sketch_file(
    file: &InputFile,
    stream: Option<&dyn StreamingDetector>,
    fields: &Fields,
) -> Result<(SketchShard, u64)> {
    let mut shard = SketchShard::new(stream.map_or(0, |s| s.width()));
    let text_bytes = sketch_file_parts(
        file,
        stream,
        fields,
        (ReadFrom::start(), u64::MAX, None),
        |_| {},
        |part, _| {
            shard.append(part);
            Ok(())
        },
    )?;
    Ok((shard, text_bytes))
}

/// The longest text a sketch takes under `--memory` (sketching holds several times a
/// document's bytes at once: see `MemoryPlan::document_limit`), and what a longer one needs.
#[derive(Debug, Clone)]
pub struct DocumentLimit {
    /// The most text bytes a document may have.
    pub max_text_bytes: u64,
    /// What to tell the user about a document of these many text bytes.
    pub advice: fn(&DocumentLimit, u64) -> String,
    /// The run's memory (`--memory`), the least memory it needs besides its documents'
    /// sketches, memory a sketch holds per text byte, and the threads that sketch at once.
    pub limit: u64,
    pub base: u64,
    pub per_text_byte: u64,
    pub threads: u64,
}

/// Where a sketch may stop and resume: the sketch parts before it are written.
#[derive(Debug, Clone, Copy)]
pub struct Checkpoint {
    /// Where reading resumes.
    pub position: ReadPosition,
    /// Text bytes read up to it (from where this sketch started).
    pub text_bytes: u64,
}

/// Sketches one input file from `from`, handing its documents to `sink` in order, in parts of
/// at least [`SKETCH_ROWS_PER_GROUP`] documents (or fewer: the last, and a part that ends
/// where at least `every` text bytes were read since the last checkpoint, which comes with
/// its [`Checkpoint`]), so a caller that writes them need not hold the file's signatures, and
/// a JSONL file's bytes as read to `bytes`; returns the text bytes read. A document longer
/// than `limit` allows stops the sketch with an error naming its line, before it is sketched.
///
/// Each block is sketched in parallel while the block before it is appended to the part and
/// the part, when full, goes to `sink`: run one after the other, that serial tail (and the
/// shard write in it) left a core idle for a tenth of the stage.
pub fn sketch_file_parts(
    file: &InputFile,
    stream: Option<&dyn StreamingDetector>,
    fields: &Fields,
    (mut from, every, limit): (ReadFrom, u64, Option<&DocumentLimit>),
    bytes: impl FnMut(&[u8]),
    mut sink: impl FnMut(SketchShard, Option<Checkpoint>) -> Result<()>,
) -> Result<u64> {
    let width = stream.map_or(0, |s| s.width());
    let mut part = SketchShard::new(width);
    let mut text_bytes = 0u64;
    let mut last_checkpoint = 0u64;
    // A sketched block, the position after it and the text bytes read through it.
    type Sketched = (SketchShard, ReadPosition, u64);
    let mut tail = |part: &mut SketchShard, block: Option<Sketched>| -> Result<()> {
        let mut checkpoint = None;
        if let Some((block, position, through)) = block {
            part.append(block);
            if through - last_checkpoint >= every {
                last_checkpoint = through;
                checkpoint = Some(Checkpoint {
                    position,
                    text_bytes: through,
                });
            }
        }
        if checkpoint.is_some() || part.len() >= SKETCH_ROWS_PER_GROUP {
            sink(std::mem::replace(part, SketchShard::new(width)), checkpoint)?;
        }
        Ok(())
    };
    let mut previous: Option<Sketched> = None;
    // Records of one file are parsed in order, so the skipped count's growth between two
    // blocks is the block's own.
    let mut skipped_before = fields.skipped.of(&file.path);
    let read = |block: Vec<Record<'_>>, after: ReadPosition| {
        let skipped_now = fields.skipped.of(&file.path);
        let skipped = skipped_now - skipped_before;
        skipped_before = skipped_now;
        if let Some(limit) = limit {
            check_lengths(&file.path, &block, limit)?;
        }
        text_bytes += block.iter().map(|r| r.text.len() as u64).sum::<u64>();
        let through = text_bytes;
        let mut sketched = None;
        let appended = rayon::in_place_scope(|scope| {
            scope.spawn(|_| {
                let mut shard = sketch_block(stream, width, block, fields);
                shard.invalid = skipped;
                sketched = Some(shard);
            });
            tail(&mut part, previous.take())
        });
        appended?;
        previous = sketched.map(|s| (s, after, through));
        Ok(())
    };
    // Blocks no larger than the checkpoint interval, so that checkpoints can be that close.
    from.block = from.block.min(every.try_into().unwrap_or(usize::MAX));
    input::for_each_record_block_and_bytes(file, &from, fields, bytes, read)?;
    tail(&mut part, previous.take())?;
    if !part.is_empty() || part.invalid > 0 {
        sink(part, None)?;
    }
    Ok(text_bytes)
}

/// Refuses the first record of `block` with more text than `limit` allows.
fn check_lengths(
    path: &std::path::Path,
    block: &[Record<'_>],
    limit: &DocumentLimit,
) -> Result<()> {
    match block
        .iter()
        .find(|r| r.text.len() as u64 > limit.max_text_bytes)
    {
        Some(r) => Err(crate::error::Error::line(
            path,
            r.line as usize,
            (limit.advice)(limit, r.text.len() as u64),
        )),
        None => Ok(()),
    }
}

/// Sketches one block of records in parallel, in order; a text of fewer than `min_words`
/// words gets its exact fingerprint instead of its sketch (`short_texts`).
fn sketch_block(
    stream: Option<&dyn StreamingDetector>,
    width: usize,
    block: Vec<Record<'_>>,
    fields: &Fields,
) -> SketchShard {
    let min_words = fields.min_words;
    let mut words = vec![0u32; block.len() * width.max(1)];
    let (empty, short): (Vec<bool>, Vec<bool>) = words
        .par_chunks_mut(width.max(1))
        .zip(block.par_iter())
        .map_init(SketchScratch::default, |s, (row, r)| match stream {
            Some(st) => short_texts::sketch_document(st, &r.text, min_words, s, &mut row[..width]),
            None => (r.text.trim().is_empty(), false),
        })
        .unzip();
    if width == 0 {
        words.clear();
    }
    let mut shard = SketchShard::with_keep(width, fields.keep.is_some());
    shard.short = short.iter().filter(|&&s| s).count() as u64;
    shard.table = SignatureTable::from_parts(width, words, empty);
    for r in block {
        shard.lines.push(r.line);
        shard.ids.push(r.id);
        shard.bytes.push(r.text.len().min(u32::MAX as usize) as u32);
        if let Some(keep) = &mut shard.keep {
            keep.push(r.keep);
        }
    }
    shard
}
