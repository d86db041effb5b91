//! Embeds the project's dataset manifests (`datasets/*.toml`) and standard experiments
//! (`experiments/*.toml`) into the binary, so that `neardup datasets …` and
//! `neardup reproduce` know them from any working directory. Adding a dataset or a standard
//! experiment is one TOML file; nothing here changes.

use std::fmt::Write;
use std::path::Path;

fn embed(folder: &str, constant: &str, out_name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(folder);
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

fn main() {
    embed("datasets", "MANIFESTS", "manifests.rs");
    embed("experiments", "STANDARD_EXPERIMENTS", "experiments.rs");
}
