//! What the machine and this process have, read from Linux's `/proc`: physical memory, and the
//! process' peak resident memory (the figure `summary.json` reports).

/// The machine's physical memory in bytes (Linux: /proc/meminfo), if known.
pub fn physical_bytes() -> Option<u64> {
    proc_kb("/proc/meminfo", "MemTotal:")
}

/// Peak resident memory of this process in bytes (Linux: `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    proc_kb("/proc/self/status", "VmHWM:")
}

/// Resident memory of this process now in bytes (Linux: `VmRSS`), if known.
pub fn rss_bytes() -> Option<u64> {
    proc_kb("/proc/self/status", "VmRSS:")
}

/// A `Key:   N kB` line of a /proc file, in bytes.
fn proc_kb(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let kb: u64 = text
        .lines()
        .find(|l| l.starts_with(key))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Gives the memory freed so far back to the system (glibc keeps freed blocks in its arenas,
/// one per thread that allocated: after the sketch stage dropped the documents it kept for a
/// join that then spilled, the spilled join's allocations came on top of them, and
/// `--memory 128MiB` peaked above the run without a limit). Called between stages.
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator's own arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}
