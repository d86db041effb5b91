//! Temporary files never outlive the run that made them.
//!
//! Every output is written as `.NAME.PID.tmp` beside its target and renamed over it when
//! complete (`fsutil::PendingFile`). Such a file is registered here while it exists, so that
//! an error (the `PendingFile` is dropped), SIGINT, SIGTERM or SIGHUP
//! ([`install_signal_cleanup`]) removes it. Only SIGKILL and a crash leave one behind, and
//! those [`sweep`] removes at the start of the next run: files of that pattern whose process
//! is gone (a kill -9 left 56 MB, 352 MB and a 788 MB partial inflated copy in one output
//! directory, forever).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::error::{Error, Result};

static LIVE: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// The temporary name of `target`'s pending content, for this process:
/// `.NAME.PID-PLACE.tmp`, where PLACE says which machine and PID namespace the PID belongs to.
pub fn temporary_path(target: &Path) -> PathBuf {
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let dir = target.parent().unwrap_or(Path::new(""));
    dir.join(format!(".{name}.{}-{}.tmp", std::process::id(), place()))
}

/// A tag of the PID namespace this process runs in: its machine (`/etc/machine-id`, the host
/// name) and the namespace's inode. A PID means something only there: two shards in two
/// containers, or on two machines sharing the output folder, each found the other's live
/// temporary file under a PID that was "not running" where it looked, and deleted it.
fn place() -> &'static str {
    static PLACE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PLACE.get_or_init(|| {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let namespace = std::fs::read_link("/proc/self/ns/pid")
            .map(|l| l.to_string_lossy().into_owned())
            .unwrap_or_default();
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| read("/etc/hostname"));
        let tag = format!(
            "{}\n{}\n{namespace}",
            read("/etc/machine-id").trim(),
            host.trim()
        );
        format!("{:08x}", xxhash_rust::xxh3::xxh3_64(tag.as_bytes()) as u32)
    })
}

/// Notes that `path` is a temporary file of this process.
pub fn register(path: &Path) {
    let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    live.get_or_insert_with(HashSet::new)
        .insert(path.to_path_buf());
}

/// Notes that `path` was renamed into place or removed.
pub fn unregister(path: &Path) {
    let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(set) = live.as_mut() {
        set.remove(path);
    }
}

/// Removes every temporary file of this process (at a signal that ends it).
fn remove_live() {
    let live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    for path in live.iter().flatten() {
        let _ = std::fs::remove_file(path);
    }
}

/// What a long-running command (`neardup serve`) does at the first stop signal instead of
/// ending: it stops gracefully itself. A second signal ends the process as without it.
static ON_STOP: std::sync::OnceLock<Box<dyn Fn() + Send + Sync>> = std::sync::OnceLock::new();

/// Registers `stop`, called (on the signal thread) at the first SIGINT, SIGTERM or SIGHUP
/// instead of ending the process; returns false when one was registered already.
pub fn on_stop_signal(stop: impl Fn() + Send + Sync + 'static) -> bool {
    ON_STOP.set(Box::new(stop)).is_ok()
}

/// Makes SIGINT, SIGTERM and SIGHUP remove this process's temporary files before it ends (with
/// the signal, as without this). Call it first in `main`, before any thread starts: the
/// signals are blocked in every thread and taken by one thread of their own, which is not in
/// a signal handler and may lock and remove files.
#[cfg(unix)]
pub fn install_signal_cleanup() {
    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];
    // SAFETY: plain libc calls on a signal set this function owns; no handler is installed.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in SIGNALS {
            libc::sigaddset(&mut set, signal);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        std::thread::spawn(move || {
            let mut signal: libc::c_int = 0;
            while libc::sigwait(&set, &mut signal) != 0 {}
            if let Some(stop) = ON_STOP.get() {
                stop();
                while libc::sigwait(&set, &mut signal) != 0 {}
            }
            remove_live();
            // End as the signal would have: its default action, unblocked in this thread.
            libc::signal(signal, libc::SIG_DFL);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::raise(signal);
            std::process::exit(128 + signal);
        });
    }
}

#[cfg(not(unix))]
pub fn install_signal_cleanup() {}

/// Whether `name` is a temporary file of `target` (`.TARGET.PID-PLACE.tmp`), as a run killed
/// while it wrote `target` leaves it.
pub fn is_temporary_of(name: &str, target: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_prefix(target))
        .is_some_and(|rest| rest.starts_with('.'))
        && owner(name).is_some()
}

/// The process id and place in a temporary file name `.NAME.PID-PLACE.tmp`.
fn owner(name: &str) -> Option<(u32, &str)> {
    let stem = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, owner) = stem.rsplit_once('.')?;
    let (pid, place) = owner.split_once('-')?;
    Some((pid.parse().ok()?, place))
}

/// Whether process `pid` is running (an unrelated process that reused the id counts: its
/// files are left alone).
#[cfg(unix)]
fn running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    alive || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn running(_pid: u32) -> bool {
    true
}

/// Removes the temporary files of processes that are gone in `dir` and the directories below
/// it, to `depth` levels; the files and bytes removed. Only files of this place's processes
/// are judged: another machine's or container's are left alone, whatever their PID.
/// (Neither are names without a place, from neardup before 0.x: their PID may be anyone's.)
pub fn sweep(dir: &Path, depth: usize) -> Result<(usize, u64)> {
    let (mut files, mut bytes) = (0, 0);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok((0, 0));
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth > 0 {
            let (f, b) = sweep(&path, depth - 1)?;
            (files, bytes) = (files + f, bytes + b);
        } else if kind.is_file()
            && let Some((pid, place)) = owner(&entry.file_name().to_string_lossy())
            && place == self::place()
            && pid != std::process::id()
            && !running(pid)
        {
            let size = entry.metadata().map_or(0, |m| m.len());
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::io(&path, e));
                }
                _ => {}
            }
            (files, bytes) = (files + 1, bytes + size);
        }
    }
    Ok((files, bytes))
}

/// [`sweep`], saying on stderr what it removed.
pub fn sweep_and_say(dir: &Path, depth: usize) -> Result<()> {
    let (files, bytes) = sweep(dir, depth)?;
    if files > 0 {
        eprintln!(
            "neardup: removed {files} temporary file{} ({}) that killed runs left in {}",
            if files == 1 { "" } else { "s" },
            neardup::resources::human_bytes(bytes),
            dir.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_file_is_known_by_its_target() {
        let mark = ".neardup-stages";
        assert!(is_temporary_of("..neardup-stages.30714-8d938248.tmp", mark));
        assert!(!is_temporary_of(".neardup-stages", mark));
        assert!(!is_temporary_of(
            "..neardup-stages-old.30714-8d938248.tmp",
            mark
        ));
        assert!(!is_temporary_of("..neardup-stages.notes.tmp", mark));
        assert!(!is_temporary_of(".sketch.30714-8d938248.tmp", mark));
    }

    #[test]
    fn only_temporary_files_of_processes_that_are_gone_are_swept() {
        let dir = crate::test_dir::TestDir::new("sweep");
        std::fs::create_dir_all(dir.join("stages/sketch")).unwrap();
        // A pid above the kernel's limit (2^22) is never a running process.
        let here = place();
        let gone = dir.join(format!(
            "stages/sketch/.00000-00000.parquet.99999999-{here}.tmp"
        ));
        let mine = temporary_path(&dir.join("removed.txt"));
        let not_ours = dir.join(".hidden.99999999.txt");
        // A shard in another container or on another machine: its PID means nothing here.
        let elsewhere = dir.join(".removed.txt.99999999-0badf00d.tmp");
        let unplaced = dir.join(".removed.txt.99999999.tmp");
        let output = dir.join("removed.txt");
        for f in [&gone, &mine, &not_ours, &output, &elsewhere, &unplaced] {
            std::fs::write(f, b"12345").unwrap();
        }
        assert_eq!(owner(".a.b.parquet.123-abc.tmp"), Some((123, "abc")));
        assert_eq!(owner(".a.tmp"), None);
        assert_eq!(
            sweep(&dir, 0).unwrap(),
            (0, 0),
            "depth 0 stays in the directory"
        );
        assert_eq!(sweep(&dir, 2).unwrap(), (1, 5));
        assert!(!gone.exists() && mine.exists() && not_ours.exists() && output.exists());
        assert!(elsewhere.exists() && unplaced.exists());
    }
}
