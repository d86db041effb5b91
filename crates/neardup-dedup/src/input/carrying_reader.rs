//! Sequential reads of a file in large blocks, each block handed out after the unprocessed
//! end of the previous one (a partial line), optionally past the page cache.

use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::Path;

use crate::fsutil::{DIRECT_ALIGN, set_direct};

/// Bytes per read.
const READ_CHUNK: usize = 8 << 20;

/// Reads a file into one reused buffer: [`refill`](CarryingReader::refill) keeps what the
/// caller has not consumed of the data and reads the next block behind it.
///
/// With `direct`, reads bypass the page cache (`O_DIRECT`): for a file that is not in the
/// cache and will not be read again, such as the inflated copy of a compressed input, which
/// the sketch stage wrote past the cache. Read through the cache, the 1.4 GB copy of a
/// 1 M-document `.jsonl.gz` took 3.8 s (2.9 s of it kernel time copying into fresh cache
/// pages); read directly, 2.1 s with 0.1 s of kernel time (`dd`, same disk). Direct reads
/// need an aligned buffer, length and file offset: the kept bytes are moved to end just before
/// an aligned read region, and every read asks for a whole number of blocks. A read the file
/// system refuses (`EINVAL`) is retried through the cache, and so is the rest of the file.
pub struct CarryingReader {
    file: File,
    buf: Vec<u8>,
    /// Where the aligned read region starts in `buf`; the carried bytes end there.
    base: usize,
    /// The current data in `buf`.
    data: Range<usize>,
    direct: bool,
}

impl std::fmt::Debug for CarryingReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CarryingReader")
            .field("data", &self.data.len())
            .field("direct", &self.direct)
            .finish()
    }
}

impl CarryingReader {
    /// Opens `path` for reading, past the page cache if `direct` and the file system allows.
    pub fn open(path: &Path, direct: bool) -> std::io::Result<Self> {
        let file = File::open(path)?;
        let direct = direct && set_direct(&file, true);
        let mut reader = CarryingReader {
            file,
            buf: Vec::new(),
            base: 0,
            data: 0..0,
            direct,
        };
        reader.make_room(0);
        Ok(reader)
    }

    /// The data: the bytes kept from the previous data, then those read by the last refill.
    pub fn data(&self) -> &[u8] {
        &self.buf[self.data.clone()]
    }

    /// Keeps the data from byte `consumed` on, and reads the next block after it. Returns
    /// how many bytes were read: 0 at the end of the file.
    pub fn refill(&mut self, consumed: usize) -> std::io::Result<usize> {
        let kept = self.data.start + consumed..self.data.end;
        let carried = kept.len();
        if carried > self.base {
            let old = std::mem::take(&mut self.buf);
            self.make_room(carried);
            self.buf[self.base - carried..self.base].copy_from_slice(&old[kept]);
        } else {
            self.buf.copy_within(kept, self.base - carried);
        }
        let n = self.read_block()?;
        self.data = self.base - carried..self.base + n;
        Ok(n)
    }

    /// A new buffer whose aligned read region has at least `carry` bytes of room before it.
    fn make_room(&mut self, carry: usize) {
        let prefix = (carry.max(1 << 20)).div_ceil(DIRECT_ALIGN) * DIRECT_ALIGN * 2;
        self.buf = vec![0u8; prefix + READ_CHUNK + DIRECT_ALIGN];
        self.base = self.buf.as_ptr().align_offset(DIRECT_ALIGN) + prefix;
    }

    fn read_block(&mut self) -> std::io::Result<usize> {
        loop {
            let region = &mut self.buf[self.base..self.base + READ_CHUNK];
            match self.file.read(region) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if self.direct && e.raw_os_error() == Some(libc::EINVAL) => {
                    self.direct = !set_direct(&self.file, false);
                    if self.direct {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CarryingReader;

    /// Whatever is consumed, the data is the file's bytes from the first unconsumed one, and
    /// the reads together give the whole file: directly and through the cache, with lines
    /// longer than a read and than the room before the read region.
    #[test]
    fn data_is_the_file_from_the_first_unconsumed_byte() {
        let dir = crate::test_dir::TestDir::new("carry");
        let path = dir.join("lines");
        let mut bytes = Vec::new();
        let mut rng = neardup::hash::SplitMix64::new(7);
        while bytes.len() < 29 << 20 {
            // One line in 16 of 9 MB, longer than a read; the others up to 5000 bytes.
            let len = if rng.below(16) == 0 {
                9 << 20
            } else {
                rng.below(5000) as usize
            };
            bytes.extend(std::iter::repeat_n(b'a' + rng.below(26) as u8, len));
            bytes.push(b'\n');
        }
        assert!(
            bytes
                .split(|&b| b == b'\n')
                .any(|l| l.len() > super::READ_CHUNK)
        );
        std::fs::write(&path, &bytes).unwrap();
        for direct in [true, false] {
            let mut reader = CarryingReader::open(&path, direct).unwrap();
            let mut at = 0; // file offset of data()[0]
            let mut consumed = 0;
            loop {
                let n = reader.refill(consumed).unwrap();
                at += consumed;
                let data = reader.data();
                assert_eq!(
                    data,
                    &bytes[at..at + data.len()],
                    "direct {direct}, at {at}"
                );
                if n == 0 {
                    assert_eq!(at + data.len(), bytes.len());
                    break;
                }
                // Consume up to the last newline, as the line copy does.
                consumed = memchr::memrchr(b'\n', data).map_or(0, |i| i + 1);
            }
        }
    }
}
