//! A JSONL file read in blocks of whole lines on a reader thread, so that decompression
//! overlaps the caller's parsing, each line numbered as error messages and the deduplicated
//! output name it.

use std::io::BufRead;
use std::path::Path;

use super::files::InputFile;
use super::open::{open_at, read_error};
use super::position::{ReadFrom, ReadPosition};
use crate::error::Result;

/// The UTF-8 byte-order mark (skipped at the start of a file by every reader).
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A block of whole lines of a JSONL file.
#[derive(Debug, Default)]
pub struct LineBlock {
    /// The bytes, ending with a newline (or at the end of the file).
    pub data: Vec<u8>,
    /// The line number of the first line.
    pub first_line: u64,
    /// The offset of the first byte in the file's (inflated) bytes.
    pub first_byte: u64,
    /// Newlines in `data`.
    pub newlines: u64,
}

/// The record held by JSONL line `number` (without its newline): the line without the
/// byte-order mark line 1 may start with, or `None` for a blank line, which holds none.
pub fn line_record(line: &[u8], number: u64) -> Option<&[u8]> {
    let line = match line.strip_prefix(BOM) {
        Some(rest) if number == 1 => rest,
        _ => line,
    };
    (!line.iter().all(u8::is_ascii_whitespace)).then_some(line)
}

impl LineBlock {
    /// Where the block ends, `records` being the records read up to it.
    pub fn end(&self, records: u64) -> ReadPosition {
        ReadPosition {
            records,
            line: self.first_line + self.newlines,
            byte: self.first_byte + self.data.len() as u64,
        }
    }

    /// The records with their line numbers (see [`line_record`]).
    pub fn lines(&self) -> Vec<(u64, &[u8])> {
        let mut out = Vec::with_capacity(self.data.len() / 512 + 1);
        let mut start = 0;
        let mut number = self.first_line;
        for end in memchr::memchr_iter(b'\n', &self.data) {
            out.extend(line_record(&self.data[start..end], number).map(|l| (number, l)));
            number += 1;
            start = end + 1;
        }
        if start < self.data.len() {
            out.extend(line_record(&self.data[start..], number).map(|l| (number, l)));
        }
        out
    }
}

/// Reads `file` in blocks of whole lines on a separate thread (decompression overlaps the
/// caller's parsing) and calls `each` on them in order. Stops at the first error.
///
/// Blocks are read straight into their buffer (`BufReader` passes a read larger than its
/// own buffer through), and a buffer `each` is done with goes back to the reader: fresh
/// 8 MB buffers page-faulted on every page, and the copy out of the `BufReader` was a
/// second pass over the text.
pub fn for_each_line_block(
    file: &InputFile,
    each: impl FnMut(&LineBlock) -> Result<()>,
) -> Result<()> {
    for_each_line_block_from(file, &ReadFrom::start(), each)
}

/// [`for_each_line_block`] as `read` says (from a line start, in blocks of about its bytes).
pub fn for_each_line_block_from(
    file: &InputFile,
    read: &ReadFrom,
    mut each: impl FnMut(&LineBlock) -> Result<()>,
) -> Result<()> {
    let (from, block) = (read.position, read.block.max(1));
    let mut reader = open_at(file, from.byte, read.tap.as_ref())?;
    let path = file.path.clone();
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<LineBlock>>(2);
        let (recycle, recycled) = std::sync::mpsc::channel::<Vec<u8>>();
        scope.spawn(move || {
            let (mut line, mut byte) = (from.line, from.byte);
            let mut carry: Vec<u8> = Vec::new();
            loop {
                let mut data = recycled.try_recv().unwrap_or_default();
                // The buffer keeps its length from its last block: only what lies beyond
                // is zeroed here, not the whole buffer.
                data.resize(block.max(carry.len()) + (1 << 16), 0);
                data[..carry.len()].copy_from_slice(&carry);
                let mut filled = carry.len();
                let mut eof = false;
                while filled < block {
                    match reader.read(&mut data[filled..]) {
                        Ok(0) => {
                            eof = true;
                            break;
                        }
                        Ok(n) => filled += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            let _ = tx.send(Err(read_error(&path, e)));
                            return;
                        }
                    }
                }
                data.truncate(filled);
                carry.clear();
                if !eof {
                    // Keep the partial last line for the next block.
                    match memchr::memrchr(b'\n', &data) {
                        Some(i) => {
                            carry.extend_from_slice(&data[i + 1..]);
                            data.truncate(i + 1);
                        }
                        None => continue_reading_line(&mut reader, &mut data, &path, &tx),
                    }
                }
                let newlines = memchr::memchr_iter(b'\n', &data).count() as u64;
                let block = LineBlock {
                    first_line: line,
                    first_byte: byte,
                    newlines,
                    data,
                };
                line += newlines;
                byte += block.data.len() as u64;
                if block.data.is_empty() && eof {
                    return;
                }
                if tx.send(Ok(block)).is_err() || eof {
                    return;
                }
            }
        });
        for block in rx {
            let block = block?;
            each(&block)?;
            // The reader may be gone (end of file): then the buffer is just dropped.
            let _ = recycle.send(block.data);
        }
        Ok(())
    })
}

/// A line longer than a block: read on to its end.
fn continue_reading_line(
    reader: &mut Box<dyn BufRead + Send>,
    data: &mut Vec<u8>,
    path: &Path,
    tx: &std::sync::mpsc::SyncSender<Result<LineBlock>>,
) {
    if let Err(e) = reader.read_until(b'\n', data) {
        let _ = tx.send(Err(read_error(path, e)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::json_fields::parse_json_line;
    use crate::input::{BLOCK_BYTES, expand};

    #[test]
    fn a_line_longer_than_a_block_is_read_whole() {
        // Short lines around one of 1.5 blocks, then enough short lines for two more blocks
        // (read into recycled buffers): every line whole, numbered, in order.
        let dir = crate::test_dir::TestDir::new("long");
        let path = dir.join("long.jsonl");
        let mut want: Vec<Vec<u8>> = vec![b"{\"text\": \"a\"}".to_vec()];
        want.push(format!("{{\"text\": \"{}\"}}", "b".repeat(BLOCK_BYTES * 3 / 2)).into_bytes());
        for i in 0..(BLOCK_BYTES * 2 / 40) {
            want.push(format!("{{\"text\": \"c {i:>20}\"}}").into_bytes());
        }
        std::fs::write(&path, want.join(&b'\n')).unwrap();
        let file = &expand(std::slice::from_ref(&path)).unwrap()[0];
        let mut seen: Vec<(u64, Vec<u8>)> = Vec::new();
        for_each_line_block(file, |b| {
            seen.extend(b.lines().into_iter().map(|(n, l)| (n, l.to_vec())));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), want.len());
        for (i, ((n, line), w)) in seen.iter().zip(&want).enumerate() {
            assert_eq!(*n, i as u64 + 1);
            assert!(line == w, "line {n} differs");
        }
    }

    #[test]
    fn blocks_keep_line_numbers_across_boundaries() {
        let dir = crate::test_dir::TestDir::new("inputs");
        let path = dir.join("many.jsonl");
        let mut content = Vec::new();
        for i in 0..300_000u64 {
            if i % 1000 == 7 {
                content.extend_from_slice(b"\n");
            }
            content.extend_from_slice(
                format!(
                    "{{\"id\": {i}, \"text\": \"{}\"}}\n",
                    "w ".repeat((i % 50) as usize)
                )
                .as_bytes(),
            );
        }
        std::fs::write(&path, &content).unwrap();
        let file = &expand(std::slice::from_ref(&path)).unwrap()[0];
        let mut seen = Vec::new();
        for_each_line_block(file, |b| {
            for (n, line) in b.lines() {
                let f = parse_json_line(line, "text", "id").unwrap();
                seen.push((n, f.id.unwrap()));
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 300_000);
        let text = String::from_utf8(content).unwrap();
        for (n, id) in seen.iter().step_by(997) {
            let line = text.lines().nth(*n as usize - 1).unwrap();
            assert!(line.contains(&format!("\"id\": {id},")), "line {n}: {line}");
        }
    }
}
