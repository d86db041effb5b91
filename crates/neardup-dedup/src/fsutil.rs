//! Writing outputs safely.
//!
//! * **Atomic**: content goes to a temporary file in the target's directory, which is renamed
//!   over the target only when complete, so a killed run never leaves a half-written file.
//! * **Never over something that is not a regular file**: a rename would replace a symlink
//!   (leaving its target untouched), turn a FIFO or a device node into a regular file, or fail
//!   on a directory. Such targets are refused with a clear error, and so is an output that is
//!   one of the command's inputs.
//! * **Checked before the work**: [`check_output`] tells a user that an output cannot be
//!   written before minutes of computing, not after.

use std::borrow::BorrowMut;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// What kind of thing is at `path`, if it is not a regular file (`None`: a regular file or
/// nothing at all).
fn not_a_regular_file(path: &Path) -> Option<&'static str> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    Some(if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return Some("a FIFO");
            }
            if t.is_socket() {
                return Some("a socket");
            }
            if t.is_block_device() || t.is_char_device() {
                return Some("a device");
            }
        }
        "not a regular file"
    })
}

/// The error for an output path that holds something other than a regular file.
pub fn refuse_non_regular(path: &Path) -> Result<()> {
    match not_a_regular_file(path) {
        Some(kind) => Err(Error::file(
            path,
            format!("refusing to write here: it is {kind}; outputs only replace regular files"),
        )),
        None => Ok(()),
    }
}

/// Whether `a` and `b` name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    matches!((identity(a), identity(b)), (Some(x), Some(y)) if x == y)
}

/// What makes an existing file the same file under any name: its device and inode (its
/// canonical path where there are none).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum FileIdentity {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg_attr(unix, allow(dead_code))]
    Canonical(PathBuf),
}

fn identity(path: &Path) -> Option<FileIdentity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = std::fs::metadata(path) {
            return Some(FileIdentity::Inode(m.dev(), m.ino()));
        }
    }
    path.canonicalize().ok().map(FileIdentity::Canonical)
}

/// The directory a file at `path` goes into.
fn parent_dir(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Checks, before any work, that `path` can be written as an output: it is a regular file or
/// missing, it is not one of `inputs`, and its directory exists (or can be made) and accepts
/// new files.
pub fn check_output(path: &Path, inputs: &[impl AsRef<Path>]) -> Result<()> {
    check_outputs([path], inputs)
}

/// [`check_output`] for every path of `outputs`, in time linear in the outputs plus the
/// inputs: the inputs' identities are read once, and each directory is checked once. (One
/// `same_file` per output and input took 167 s for 4,000 inputs, hours for a crawl's 10^5.)
pub fn check_outputs<'p>(
    outputs: impl IntoIterator<Item = &'p Path>,
    inputs: &[impl AsRef<Path>],
) -> Result<()> {
    let inputs: std::collections::HashMap<FileIdentity, &Path> = inputs
        .iter()
        .filter_map(|i| Some((identity(i.as_ref())?, i.as_ref())))
        .collect();
    let mut dirs_checked = std::collections::HashSet::new();
    for path in outputs {
        refuse_non_regular(path)?;
        if let Some(input) = identity(path).and_then(|id| inputs.get(&id)) {
            return Err(Error::file(
                path,
                format!(
                    "refusing to write the output over the input {}",
                    input.display()
                ),
            ));
        }
        let dir = parent_dir(path);
        if !dirs_checked.contains(&dir) {
            check_dir(&dir)?;
            dirs_checked.insert(dir);
        }
    }
    Ok(())
}

/// Checks that `dir` is (or can be made) a directory that accepts new files.
pub fn check_dir(dir: &Path) -> Result<()> {
    // (A symbolic link to a directory is a directory here.)
    if dir.exists() && !dir.is_dir() {
        return Err(Error::file(
            dir,
            "cannot write into it: it is a file, not a directory",
        ));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::file(dir, format!("cannot create the output directory: {e}")))?;
    let probe = crate::temp_files::temporary_path(&dir.join("neardup-probe"));
    File::create(&probe)
        .map_err(|e| Error::file(dir, format!("cannot write into the output directory: {e}")))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes `path` atomically through `fill`, refusing a target that is not a regular file.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    write_atomic_file(path, |file| {
        let mut w = BufWriter::new(file);
        fill(&mut w)?;
        w.flush()
    })
}

/// [`write_atomic`] handing `fill` the temporary file itself, unbuffered: for a writer that
/// copies ranges of another file in the kernel (`std::io::copy` between files uses
/// `copy_file_range` on Linux).
pub fn write_atomic_file(
    path: &Path,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> Result<()> {
    let mut pending = PendingFile::create(path)?;
    fill(pending.file()).map_err(|e| Error::io(path, e))?;
    pending.commit()
}

/// A sequential writer for large outputs (a deduplicated corpus, an inflated copy of a
/// compressed input) that bypasses the page cache with `O_DIRECT` where the file system takes
/// it, and writes through the cache where it does not.
///
/// Why: copying into freshly allocated page-cache pages is what costs on the virtual
/// machines this runs on. Measured on the 2-core benchmark machine, 6.3 GB with `dd bs=4M`:
/// 12.3 s through the page cache (all of it kernel time), 2.2 s with `oflag=direct`; the
/// outputs stage of a 5M-document `neardup dedup` spent 42 % of its samples in
/// `copy_folio_from_iter_atomic`. An output bigger than memory also stops evicting the
/// corpus being read.
///
/// Bytes are gathered in an aligned buffer and written in whole aligned blocks; the tail is
/// written through the cache by [`finish`](DirectWriter::finish) (or `flush`). Any write the
/// file system refuses with `EINVAL` (no `O_DIRECT` support, an unexpected alignment) is
/// retried through the cache, and the rest of the file goes that way. Data reaches the disk
/// when the caller syncs the file, as with any other writer. Like a `BufWriter` it must be
/// finished or flushed; unlike one, dropping it does not write what it gathered.
pub struct DirectWriter<F: BorrowMut<File>> {
    file: F,
    buf: Vec<u8>,
    /// Where the aligned region starts in `buf`.
    start: usize,
    /// Bytes gathered in the region.
    len: usize,
    direct: bool,
}

impl<F: BorrowMut<File>> std::fmt::Debug for DirectWriter<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectWriter")
            .field("gathered", &self.len)
            .field("direct", &self.direct)
            .finish()
    }
}

/// Alignment of the buffer, of every direct write's length and of its file offset: the
/// logical block size of every common disk divides it.
pub(crate) const DIRECT_ALIGN: usize = 4096;
/// Bytes per direct write.
const DIRECT_CHUNK: usize = 8 << 20;

impl<F: BorrowMut<File>> DirectWriter<F> {
    /// A writer appending to `file` (a `File` or `&mut File`), which must be empty (offset 0:
    /// direct writes need aligned offsets).
    pub fn new(file: F) -> Self {
        Self::with_direct(file, true)
    }

    /// A writer with the same large buffer that goes through the page cache when `direct` is
    /// false: for a file read back soon.
    pub fn with_direct(file: F, direct: bool) -> Self {
        let buf = vec![0u8; DIRECT_CHUNK + DIRECT_ALIGN];
        let start = buf.as_ptr().align_offset(DIRECT_ALIGN);
        let direct = direct && set_direct(file.borrow(), true);
        DirectWriter {
            file,
            buf,
            start,
            len: 0,
            direct,
        }
    }

    /// Whether writes currently bypass the page cache.
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    /// Writes everything gathered: its whole aligned blocks directly, an unaligned tail
    /// through the page cache (later writes are then not direct).
    fn drain(&mut self) -> std::io::Result<()> {
        let whole = self.len / DIRECT_ALIGN * DIRECT_ALIGN;
        let mut done = 0;
        while done < self.len {
            let end = if done < whole { whole } else { self.len };
            if end > whole && self.direct {
                // The tail: a direct write's length must be aligned.
                self.direct = !set_direct(self.file.borrow(), false);
            }
            let chunk = &self.buf[self.start + done..self.start + end];
            match self.file.borrow_mut().write(chunk) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if self.direct && e.raw_os_error() == Some(libc::EINVAL) => {
                    // Refused (or a short write left an unaligned offset): the cache from here.
                    self.direct = !set_direct(self.file.borrow(), false);
                    if self.direct {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        self.len = 0;
        Ok(())
    }

    /// Writes everything gathered; the file is then complete (and no longer direct).
    pub fn finish(mut self) -> std::io::Result<F> {
        self.drain()?;
        Ok(self.file)
    }
}

impl<F: BorrowMut<File>> Write for DirectWriter<F> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let room = DIRECT_CHUNK - self.len;
        let n = bytes.len().min(room);
        let at = self.start + self.len;
        self.buf[at..at + n].copy_from_slice(&bytes[..n]);
        self.len += n;
        if self.len == DIRECT_CHUNK {
            self.drain()?;
        }
        Ok(n)
    }

    /// Writes everything gathered (the tail through the page cache: later writes are not
    /// direct).
    fn flush(&mut self) -> std::io::Result<()> {
        self.drain()
    }
}

/// Turns `O_DIRECT` on or off for `file`; whether it succeeded.
#[cfg(target_os = "linux")]
pub(crate) fn set_direct(file: &File, on: bool) -> bool {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this process owns, reading and setting status flags only.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return false;
        }
        let flags = if on {
            flags | libc::O_DIRECT
        } else {
            flags & !libc::O_DIRECT
        };
        libc::fcntl(fd, libc::F_SETFL, flags) == 0
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn set_direct(_file: &File, on: bool) -> bool {
    !on
}

/// Removes `path` if it is there.
pub fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

/// A file written in pieces over a long computation and put in place only by [`commit`]
/// (synced, then renamed over the target); dropped uncommitted, its temporary file is removed.
/// For an output whose writes interleave with other work, where [`write_atomic`]'s single
/// closure does not fit.
///
/// [`commit`]: PendingFile::commit
#[derive(Debug)]
pub struct PendingFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
}

impl PendingFile {
    /// Starts writing `path` (refused if it is something other than a regular file).
    pub fn create(path: &Path) -> Result<Self> {
        refuse_non_regular(path)?;
        let dir = parent_dir(path);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let tmp =
            crate::temp_files::temporary_path(&dir.join(path.file_name().unwrap_or_default()));
        let file = File::create(&tmp).map_err(|e| Error::io(path, e))?;
        crate::temp_files::register(&tmp);
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
            file: Some(file),
        })
    }

    /// A [`DirectWriter`] of its own onto the temporary file (`direct`: past the page
    /// cache), for a writer that must own what it writes to; finish it before [`commit`].
    ///
    /// [`commit`]: PendingFile::commit
    pub fn writer(&mut self, direct: bool) -> Result<DirectWriter<File>> {
        let clone = self.file().try_clone();
        let clone = clone.map_err(|e| Error::io(&self.path, e))?;
        Ok(DirectWriter::with_direct(clone, direct))
    }

    /// The temporary file, to write into.
    pub fn file(&mut self) -> &mut File {
        self.file
            .as_mut()
            .expect("a pending file is open until committed")
    }

    /// Syncs the file and renames it over its target.
    pub fn commit(mut self) -> Result<()> {
        let file = self.file.take().expect("committed once");
        let result = file.sync_all().and_then(|()| {
            if let Some(kind) = not_a_regular_file(&self.path) {
                return Err(std::io::Error::other(format!(
                    "refusing to replace it: it became {kind} while the output was written"
                )));
            }
            std::fs::rename(&self.tmp, &self.path)
        });
        let result = result.map_err(|e| {
            let _ = std::fs::remove_file(&self.tmp);
            Error::io(&self.path, e)
        });
        crate::temp_files::unregister(&self.tmp);
        result
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
            crate::temp_files::unregister(&self.tmp);
        }
    }
}

/// Writes bytes atomically.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic(path, |w| w.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("neardup-fsutil-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Bytes that differ at every offset, so a lost, repeated or shifted block shows.
    fn pattern(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i % 251) as u8 ^ (i >> 12) as u8)
            .collect()
    }

    fn write_in_pieces(w: &mut impl Write, bytes: &[u8]) {
        // Irregular pieces: some smaller than a block, some larger than the buffer.
        let mut at = 0;
        for n in [1, 4095, 7, DIRECT_CHUNK + 3, 100_000].iter().cycle() {
            if at == bytes.len() {
                break;
            }
            let end = bytes.len().min(at + n);
            w.write_all(&bytes[at..end]).unwrap();
            at = end;
        }
    }

    #[test]
    fn direct_writer_writes_every_byte_in_order() {
        let d = dir("direct");
        for len in [
            0,
            1,
            DIRECT_ALIGN - 1,
            DIRECT_ALIGN,
            DIRECT_CHUNK - 1,
            DIRECT_CHUNK,
            DIRECT_CHUNK + 5,
            2 * DIRECT_CHUNK + DIRECT_ALIGN + 1,
        ] {
            let bytes = pattern(len);
            let p = d.join(format!("direct-{len}"));
            let mut w = DirectWriter::new(File::create(&p).unwrap());
            write_in_pieces(&mut w, &bytes);
            w.finish().unwrap();
            assert!(std::fs::read(&p).unwrap() == bytes, "{len} bytes direct");
            // Through the page cache, and ended by `flush` rather than `finish`.
            let mut w = DirectWriter::with_direct(File::create(&p).unwrap(), false);
            assert!(!w.is_direct());
            write_in_pieces(&mut w, &bytes);
            w.flush().unwrap();
            assert!(std::fs::read(&p).unwrap() == bytes, "{len} bytes cached");
        }
    }

    #[test]
    fn direct_writer_falls_back_to_the_cache_when_a_direct_write_is_refused() {
        // A file not at an aligned offset: Linux refuses its direct writes with EINVAL.
        let d = dir("fallback");
        let p = d.join("out");
        let mut file = File::create(&p).unwrap();
        file.write_all(b"x").unwrap();
        let bytes = pattern(DIRECT_CHUNK * 2 + 10);
        let mut w = DirectWriter::new(&mut file);
        write_in_pieces(&mut w, &bytes);
        assert!(
            !w.is_direct(),
            "the refused direct write switched the cache on"
        );
        w.finish().unwrap();
        let written = std::fs::read(&p).unwrap();
        assert!(written[0] == b'x' && written[1..] == bytes[..]);
    }

    #[test]
    fn regular_files_are_replaced_atomically() {
        let d = dir("regular");
        let p = d.join("out.txt");
        write_bytes(&p, b"one").unwrap();
        write_bytes(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        check_output(&p, &[d.join("input.txt")]).unwrap();
        let leftovers: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_fifos_directories_and_inputs_are_refused() {
        let d = dir("refused");
        let target = d.join("target.txt");
        std::fs::write(&target, b"keep").unwrap();
        let link = d.join("link.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write_bytes(&link, b"x").unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert!(check_output(&link, &[] as &[&Path]).is_err());

        let fifo = d.join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let e = write_bytes(&fifo, b"x").unwrap_err().to_string();
        assert!(e.contains("FIFO"), "{e}");
        assert!(
            check_output(&fifo, &[] as &[&Path])
                .unwrap_err()
                .to_string()
                .contains("FIFO")
        );

        let e = write_bytes(&d, b"x").unwrap_err().to_string();
        assert!(e.contains("directory"), "{e}");

        let e = check_output(&target, &[&target]).unwrap_err().to_string();
        assert!(e.contains("over the input"), "{e}");
        // The same file under another name is still the input.
        let e = check_output(&d.join(".").join("target.txt"), &[&target])
            .unwrap_err()
            .to_string();
        assert!(e.contains("over the input"), "{e}");

        let dev_null = Path::new("/dev/null");
        assert!(
            check_output(dev_null, &[] as &[&Path])
                .unwrap_err()
                .to_string()
                .contains("device")
        );
    }

    #[cfg(unix)]
    #[test]
    fn unwritable_directories_fail_before_work() {
        let file = dir("notdir").join("plain");
        std::fs::write(&file, b"").unwrap();
        let e = check_output(&file.join("out.csv"), &[] as &[&Path])
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a directory") || e.contains("cannot"), "{e}");
    }
}
