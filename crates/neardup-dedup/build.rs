//! Stamps the git revision into `NEARDUP_REVISION`, so every output that records what wrote it
//! (`summary.json`, the CLI's `--version`, the Python package's `__version__`) names the code.

use std::path::Path;

/// Stamps the git revision of the checkout (with `+dirty` for uncommitted changes to tracked
/// files) into `NEARDUP_REVISION`, so a binary names the code it was built from wherever it
/// runs; `unknown` outside a checkout (a crate tarball, `cargo install` from a copy).
fn revision() {
    let root = Path::new(&manifest_dir()).join("../..");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let revision = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(rev) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{rev}+dirty") } else { rev }
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=NEARDUP_REVISION={revision}");
    // Rebuild the stamp when HEAD moves or the index (staged and committed changes) changes.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        for f in ["HEAD", "index"] {
            println!("cargo:rerun-if-changed={dir}/{f}");
        }
        if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{head}");
        }
    }
}

fn main() {
    revision();
}

/// The package's directory, as cargo tells the build script when it runs (not `env!`, which
/// would bake in where the script was first compiled: a target directory shared by two
/// checkouts then reads the other one's files).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for build scripts")
}
