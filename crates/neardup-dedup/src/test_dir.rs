//! Fresh temporary directories for this crate's tests.

use std::path::{Path, PathBuf};

/// An empty directory `neardup-NAME-PID` under the system's temporary folder, removed when
/// dropped (also when the test fails): what an earlier run of the same test left there is
/// removed first, and two test binaries running at once (different pids) never share one.
pub(crate) struct TestDir(PathBuf);

impl TestDir {
    pub(crate) fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("neardup-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the test directory");
        TestDir(dir)
    }
}

impl std::ops::Deref for TestDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::TestDir;

    #[test]
    fn starts_empty_and_is_gone_when_dropped() {
        let path = {
            let dir = TestDir::new("test-dir");
            std::fs::write(dir.join("left-over"), b"x").unwrap();
            dir.to_path_buf()
        };
        assert!(!path.exists(), "removed on drop");
        std::fs::create_dir_all(&path).unwrap();
        std::fs::write(path.join("left-over"), b"x").unwrap();
        let dir = TestDir::new("test-dir");
        assert_eq!(
            std::fs::read_dir(&*dir).unwrap().count(),
            0,
            "emptied first"
        );
    }
}
