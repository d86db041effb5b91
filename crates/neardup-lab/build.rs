//! Embeds the project's dataset manifests (`datasets/*.toml`) and standard experiments
//! (`experiments/*.toml`) into the binary, so that `neardup datasets …` and
//! `neardup reproduce` know them from any working directory. Adding a dataset or a standard
//! experiment is one TOML file; nothing here changes.

use std::fmt::Write;
use std::path::Path;

fn embed(folder: &str, constant: &str, out_name: &str) {
    let dir = Path::new(&manifest_dir()).join("../..").join(folder);
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    let mut code = format!(
        "/// (file name, TOML text) of every embedded `{folder}/*.toml`.\npub const {constant}: &[(&str, &str)] = &[\n"
    );
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f.file_name().unwrap().to_string_lossy();
        writeln!(
            code,
            "    ({name:?}, include_str!({:?})),",
            f.canonicalize().unwrap().display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join(out_name);
    std::fs::write(out, code).unwrap();
}

/// FNV-1a over the files that decide what a cached cell contains — the algorithm crate and the
/// lab code that runs cells — so that changing them invalidates the result cache.
fn code_fingerprint() {
    let root = Path::new(&manifest_dir()).join("../..");
    let mut files = Vec::new();
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    walk(&root.join("crates/neardup/src"), &mut files);
    for f in [
        "truth.rs",
        "eval.rs",
        "harness.rs",
        "experiment/corpora.rs",
        "experiment/cells.rs",
        "experiment/runner.rs",
    ] {
        files.push(root.join("crates/neardup-lab/src").join(f));
    }
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        for b in std::fs::read(f).unwrap_or_default() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("code_fingerprint.rs");
    std::fs::write(out, format!("/// Fingerprint of the code that computes cells (see build.rs).\npub const CODE_FINGERPRINT: u64 = {h:#x};\n")).unwrap();
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
}

/// The doc comments of the algorithms' parameters, from their source: every field of a
/// `pub struct …Params`, `…Query` or `Normalization` of the algorithm crate with its `///` lines, as
/// `PARAM_DOCS: &[(struct, field, doc)]` (`neardup algorithms NAME` prints them). Written
/// once, in the code that reads the parameter, they cannot drift from it; a flattened field
/// (a struct of parameters itself) is left out, its own fields are listed.
fn param_docs() {
    let root = Path::new(&manifest_dir()).join("../../crates/neardup/src");
    let mut code = String::from(
        "/// (struct, field, doc comment) of every algorithm parameter (see build.rs).\n\
         pub const PARAM_DOCS: &[(&str, &str, &str)] = &[\n",
    );
    for file in rust_files(&root) {
        println!("cargo:rerun-if-changed={}", file.display());
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let mut within: Option<String> = None;
        let mut doc: Vec<String> = Vec::new();
        for line in text.lines() {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix("pub struct ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let params =
                    name.ends_with("Params") || name.ends_with("Query") || name == "Normalization";
                within = (params && t.ends_with('{')).then_some(name);
                doc.clear();
                continue;
            }
            let Some(name) = &within else { continue };
            if t == "}" {
                within = None;
            } else if let Some(d) = t.strip_prefix("///") {
                doc.push(d.trim().to_string());
            } else if t.starts_with("#[") {
                if t.contains("flatten") {
                    doc.push("\u{0}flatten".into());
                }
            } else if let Some(rest) = t.strip_prefix("pub ") {
                let field: String = rest.chars().take_while(|c| *c != ':').collect();
                if !doc.iter().any(|d| d == "\u{0}flatten") && !doc.is_empty() {
                    writeln!(code, "    ({name:?}, {field:?}, {:?}),", doc.join(" ")).unwrap();
                }
                doc.clear();
            } else if !t.is_empty() && !t.starts_with("//") {
                doc.clear();
            }
        }
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("param_docs.rs");
    std::fs::write(out, code).unwrap();
}

fn main() {
    embed("datasets", "MANIFESTS", "manifests.rs");
    embed("experiments", "STANDARD_EXPERIMENTS", "experiments.rs");
    code_fingerprint();
    param_docs();
}

/// The package's directory, as cargo tells the build script when it runs (not `env!`, which
/// would bake in where the script was first compiled: a target directory shared by two
/// checkouts then reads the other one's files).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for build scripts")
}
