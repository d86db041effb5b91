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

/// Large blocks (line blocks, sort buffers, signature tables) mapped on their own, so that
/// freeing one gives it back at once. glibc serves a block from its arenas once a block of
/// that size has been freed (its threshold rises to the largest freed, up to 32 MB), where
/// it stays after the free, between long-lived small blocks: under `--memory 102MB`, 200,000
/// documents whose stages alone take 35–42 MiB peaked at 104–125 MiB in one process; at 4
/// MiB 93–97 MiB (1 MiB: 89–94, 16 MiB: 124–126). Process-wide and only when a memory limit
/// is given: mapping costs page faults (the run took about 10 % longer).
pub fn map_large_blocks_apart() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's threshold for mapping a block apart.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES);
    }
}

/// See [`map_large_blocks_apart`].
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const LARGE_BLOCK_BYTES: libc::c_int = 4 << 20;
