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

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{LabError, Result};

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
        Some(kind) => Err(LabError::file(
            path,
            format!("refusing to write here: it is {kind}; outputs only replace regular files"),
        )),
        None => Ok(()),
    }
}

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
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
    refuse_non_regular(path)?;
    if let Some(input) = inputs.iter().find(|i| same_file(path, i.as_ref())) {
        return Err(LabError::file(
            path,
            format!(
                "refusing to write the output over the input {}",
                input.as_ref().display()
            ),
        ));
    }
    check_dir(&parent_dir(path))
}

/// Checks that `dir` is (or can be made) a directory that accepts new files.
pub fn check_dir(dir: &Path) -> Result<()> {
    // (A symbolic link to a directory is a directory here.)
    if dir.exists() && !dir.is_dir() {
        return Err(LabError::file(
            dir,
            "cannot write into it: it is a file, not a directory",
        ));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| LabError::file(dir, format!("cannot create the output directory: {e}")))?;
    let probe = dir.join(format!(".neardup-probe.{}.tmp", std::process::id()));
    File::create(&probe)
        .map_err(|e| LabError::file(dir, format!("cannot write into the output directory: {e}")))?;
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
    fill(pending.file()).map_err(|e| LabError::io(path, e))?;
    pending.commit()
}

/// Removes `path` if it is there.
pub fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(LabError::io(path, e)),
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
        std::fs::create_dir_all(&dir).map_err(|e| LabError::io(&dir, e))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let file = File::create(&tmp).map_err(|e| LabError::io(path, e))?;
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
            file: Some(file),
        })
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
        result.map_err(|e| {
            let _ = std::fs::remove_file(&self.tmp);
            LabError::io(&self.path, e)
        })
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
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
