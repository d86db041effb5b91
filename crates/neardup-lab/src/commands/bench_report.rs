//! `neardup bench-report RESULTS.jsonl [--peers-header FILE] [--out DIR]`: the side-by-side
//! performance report (`reports/performance/README.md`) from the JSON lines that
//! `scripts/bench-peers.sh` collects — the peers' (datasketch, rensa) and neardup's, measured on
//! the same corpus in the same run.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use neardup_dedup::fsutil::write_bytes;
use serde_json::Value;

use super::invocation::{Invocation, Run};

/// One measured line.
#[derive(Debug, Clone)]
struct Line {
    tool: String,
    task: String,
    docs: f64,
    seconds: f64,
    docs_per_s: f64,
    mb_per_s: f64,
    extra: serde_json::Map<String, Value>,
}

fn parse(path: &Path) -> Result<Vec<Line>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for (n, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let v: Value = serde_json::from_str(l)
            .with_context(|| format!("{}:{}: not JSON", path.display(), n + 1))?;
        let f = |k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let (Some(tool), Some(task)) = (s("tool"), s("task")) else {
            bail!(
                "{}:{}: a line needs `tool` and `task`",
                path.display(),
                n + 1
            );
        };
        let mut extra = v.as_object().cloned().unwrap_or_default();
        for k in [
            "tool",
            "task",
            "docs",
            "seconds",
            "docs_per_s",
            "mb_per_s",
            "mb",
            "cpu_s",
        ] {
            extra.remove(k);
        }
        out.push(Line {
            tool,
            task,
            docs: f("docs"),
            seconds: f("seconds"),
            docs_per_s: f("docs_per_s"),
            mb_per_s: f("mb_per_s"),
            extra,
        });
    }
    Ok(out)
}

/// Writes `out/README.md`.
pub fn run(results: &Path, peers_header: Option<&Path>, out: &Path) -> Result<()> {
    let lines = parse(results)?;
    let header = peers_header.map(read_header).transpose()?.flatten();
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut s = introduction(header.as_ref(), &peers(&lines));
    at_a_glance(&mut s, &lines, out)?;
    measurements_table(&mut s, &lines);
    ratios_table(&mut s, &lines);
    targets_table(&mut s, &lines);
    commands(&mut s, header.as_ref(), out);
    // The measurements the page is made from, beside it: the report can be redrawn, and
    // read by a script, without measuring again.
    let measured =
        std::fs::read(results).with_context(|| format!("reading {}", results.display()))?;
    write_bytes(&out.join("results.jsonl"), &measured)?;
    write_bytes(&out.join("README.md"), s.as_bytes())?;
    Ok(())
}

/// How to measure it again: the script's line and the commands it runs, with this run's
/// corpus size, the peers' repeats and the report folder.
fn commands(s: &mut String, header: Option<&Value>, out: &Path) {
    let docs = header.and_then(|h| h["docs"].as_u64()).unwrap_or(20_000);
    let repeat = peers_repeat(header);
    let just = match (docs, repeat) {
        (20_000, 3) => "just bench-peers            # = bash scripts/bench-peers.sh 20000".into(),
        (_, 3) => format!("just bench-peers {docs}     # = bash scripts/bench-peers.sh {docs}"),
        _ => format!("NEARDUP_PEERS_REPEAT={repeat} just bench-peers {docs}"),
    };
    let _ = write!(
        s,
        "\n## Commands\n\n```sh\n{just}\n# which runs:\n\
         python3 bench/peers/make_corpus.py --docs {docs} --edit-rate 0.02 --seed 42 --out corpus.jsonl\n\
         bench/peers/run.sh --corpus corpus.jsonl --truth corpus.truth.csv --repeat {repeat}\n\
         neardup bench --corpus corpus.jsonl --truth corpus.truth.csv --task TASK   # each neardup task\n\
         neardup bench --task hamming_all_pairs --fingerprints 1000000\n\
         neardup bench-report results.jsonl --peers-header peers.header --out {}\n```\n",
        out.display()
    );
}

/// Of how many runs each peer figure is the best (the kit's `--repeat`, 3 by default).
fn peers_repeat(header: Option<&Value>) -> u64 {
    header.and_then(|h| h["repeat"].as_u64()).unwrap_or(3)
}

/// The tasks drawn as bar charts: (task, what it measures).
const CHARTED_TASKS: [(&str, &str); 5] = [
    (
        "minhash_lsh_end_to_end",
        "Text → verified pairs (MinHash LSH end to end)",
    ),
    (
        "minhash128_end_to_end",
        "Text → MinHash signatures (128 permutations)",
    ),
    (
        "minhash128_sketch",
        "Shingle sets → MinHash signatures (the kernel alone)",
    ),
    (
        "lsh_insert_query",
        "Signatures → candidate pairs (LSH insert and query)",
    ),
    ("shingle_word5", "Text → word 5-shingle sets"),
];

/// One bar chart per task that neardup and at least one peer measured: documents per
/// second, one bar per tool.
fn at_a_glance(s: &mut String, lines: &[Line], out: &Path) -> Result<()> {
    let mut drawn = Vec::new();
    for (task, title) in CHARTED_TASKS {
        let measured: Vec<&Line> = lines
            .iter()
            .filter(|l| l.task == task && l.docs_per_s > 0.0)
            .collect();
        if measured.len() < 2 || !measured.iter().any(|l| l.tool == "neardup") {
            continue;
        }
        let mut bars: Vec<crate::charts::bars::Bar> = measured
            .iter()
            .map(|l| crate::charts::bars::Bar {
                label: l.tool.clone(),
                value: l.docs_per_s,
                ours: l.tool == "neardup",
            })
            .collect();
        bars.sort_by(|a, b| b.value.total_cmp(&a.value));
        let caption = format!(
            "`{task}`, documents per second on the same corpus in the same run (longer is faster); \
             neardup in blue."
        );
        let stem = format!("bars-{task}");
        if let Some(chart) =
            crate::charts::bars::draw(out, &stem, title, "documents per second", &caption, &bars)?
        {
            drawn.push(chart);
        }
    }
    if !drawn.is_empty() {
        s.push_str("## At a glance\n\n");
        for c in drawn {
            let _ = writeln!(s, "### {}\n\n{}", c.title, c.markdown());
        }
    }
    Ok(())
}

/// The peer kit's `# {...}` header line (corpus, versions), if its stderr has one.
fn read_header(path: &Path) -> Result<Option<Value>> {
    let t = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(t.lines().find_map(|l| {
        l.strip_prefix("# ")
            .and_then(|j| serde_json::from_str(j).ok())
    }))
}

/// The line of `tool` for `task`.
fn find<'l>(lines: &'l [Line], tool: &str, task: &str) -> Option<&'l Line> {
    lines.iter().find(|l| l.tool == tool && l.task == task)
}

/// The peers measured in the run, in the order of their first line.
fn peers(lines: &[Line]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for l in lines.iter().filter(|l| l.tool != "neardup") {
        if !seen.contains(&l.tool.as_str()) {
            seen.push(&l.tool);
        }
    }
    seen
}

/// Title, how it was measured, the corpus, the versions and the machine.
fn introduction(header: Option<&Value>, peers: &[&str]) -> String {
    // The corpus size in the title: two reports of different sizes had the same one.
    let docs = header.and_then(|h| h["docs"].as_u64()).unwrap_or(20_000);
    let mut s = format!(
        "# Performance at {} documents: neardup against {}\n\n",
        crate::charts::style::whole(&(docs as f64)),
        peers.join(", ")
    );
    let _ = writeln!(
        s,
        "Every figure below was measured in one run of `just bench-peers` (scripts/bench-peers.sh): the peer kit \
         (bench/peers) and `neardup bench` on the same corpus file, one after the other; each of neardup's figures \
         is the best of 3 runs, each of the peers' the best of {}. Ratios from one run are steadier than absolute \
         figures (the kit's README saw absolute figures move by up to 17 % between runs).\n",
        peers_repeat(header)
    );
    if let Some(h) = header {
        let versions: Vec<String> = peers
            .iter()
            .chain(&["numpy"])
            .map(|tool| format!("{tool} {}", h[*tool].as_str().unwrap_or("not installed")))
            .collect();
        let _ = writeln!(
            s,
            "Corpus `{}`: {} documents, {} MB, sha256 `{}`, {} planted pairs. Python {}, {}; {} CPUs.\n",
            h["corpus"].as_str().unwrap_or("?"),
            h["docs"],
            h["mb"],
            h["sha256"].as_str().unwrap_or("?"),
            h["planted_pairs"],
            h["python"].as_str().unwrap_or("?"),
            versions.join(", "),
            h["cpus"]
        );
    }
    let _ = writeln!(
        s,
        "Machine: {} — neardup {}, revision `{}`.\n",
        crate::report::machine(),
        env!("CARGO_PKG_VERSION"),
        crate::report::RunInfo::current().revision
    );
    s
}

/// Every line of the run.
fn measurements_table(s: &mut String, lines: &[Line]) {
    s.push_str("## All measurements\n\n| tool | task | docs | seconds | docs/s | MB/s | notes |\n|---|---|---:|---:|---:|---:|---|\n");
    for l in lines {
        let notes: Vec<String> = [
            "bands",
            "rows",
            "recall",
            "precision",
            "pairs_found",
            "threads",
            "tables",
            "blocks",
            "api",
            "weighting",
            "error",
        ]
        .iter()
        .filter_map(|k| {
            l.extra.get(*k).map(|v| {
                format!(
                    "{k}={}",
                    v.as_str().map_or_else(|| v.to_string(), str::to_string)
                )
            })
        })
        .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.4} | {:.0} | {:.1} | {} |",
            l.tool,
            l.task,
            l.docs,
            l.seconds,
            l.docs_per_s,
            l.mb_per_s,
            notes.join(" ")
        );
    }
}

/// neardup ÷ each peer, per task.
fn ratios_table(s: &mut String, lines: &[Line]) {
    let get = |tool: &str, task: &str| find(lines, tool, task);
    // Ratios per task.
    let mut ratios: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in lines.iter().filter(|l| l.tool == "neardup") {
        for peer in peers(lines) {
            if let Some(p) = get(peer, &l.task).filter(|p| p.docs_per_s > 0.0) {
                ratios
                    .entry(l.task.clone())
                    .or_default()
                    .push(format!("{:.1}× {peer}", l.docs_per_s / p.docs_per_s));
            }
        }
    }
    s.push_str("\n## neardup ÷ peer, same task (docs/s)\n\n| task | ratios |\n|---|---|\n");
    for (task, r) in &ratios {
        let _ = writeln!(s, "| {task} | {} |", r.join(", "));
    }
}

/// One row of the targets table, when the value was measured: `higher` says whether the goal
/// is a minimum (else a maximum).
fn target_row(s: &mut String, name: &str, value: Option<f64>, goal: f64, unit: &str, higher: bool) {
    if let Some(v) = value {
        let met = if higher { v >= goal } else { v <= goal };
        let _ = writeln!(
            s,
            "| {name} (goal {}{goal}{unit}) | {v:.2}{unit} | {} |",
            if higher { "≥ " } else { "≤ " },
            if met { "yes" } else { "**no**" }
        );
    }
}

/// The performance targets, measured and met or not.
fn targets_table(s: &mut String, lines: &[Line]) {
    let get = |tool: &str, task: &str| find(lines, tool, task);
    // The targets of the performance issue.
    s.push_str("\n## Targets\n\n| target | measured | met |\n|---|---|---|\n");
    let target = target_row;
    let e2e = get("neardup", "minhash128_end_to_end").map(|l| l.docs_per_s);
    target(
        s,
        "MinHash-128 end to end ÷ rensa pre-shingled sketch",
        e2e.zip(get("rensa", "minhash128_sketch"))
            .map(|(a, b)| a / b.docs_per_s),
        2.0,
        "×",
        true,
    );
    target(
        s,
        "MinHash-128 end to end ÷ rensa end to end",
        e2e.zip(get("rensa", "minhash128_end_to_end"))
            .map(|(a, b)| a / b.docs_per_s),
        30.0,
        "×",
        true,
    );
    target(
        s,
        "MinHash-128 end to end ÷ datasketch end to end",
        e2e.zip(get("datasketch", "minhash128_end_to_end"))
            .map(|(a, b)| a / b.docs_per_s),
        100.0,
        "×",
        true,
    );
    target(
        s,
        "LSH insert + query ÷ rensa",
        get("neardup", "lsh_insert_query")
            .zip(get("rensa", "lsh_insert_query"))
            .map(|(a, b)| a.docs_per_s / b.docs_per_s),
        2.0,
        "×",
        true,
    );
    let recall = |tool: &str| {
        get(tool, "lsh_insert_query").and_then(|l| l.extra.get("recall").and_then(Value::as_f64))
    };
    let lsh_recall = (recall("neardup"), recall("rensa"));
    target(
        s,
        "SimHash-64 end to end",
        get("neardup", "simhash64_end_to_end").map(|l| l.mb_per_s),
        300.0,
        " MB/s",
        true,
    );
    target(
        s,
        "Hamming all pairs, 1,000,000 fingerprints, k = 3",
        lines
            .iter()
            .find(|l| l.tool == "neardup" && l.task == "hamming_all_pairs" && l.docs >= 1e6)
            .map(|l| l.seconds),
        0.3,
        " s",
        false,
    );
    if let (Some(ours), Some(theirs)) = lsh_recall {
        at_least_row(s, "LSH recall on planted pairs", "rensa", ours, theirs);
    }
    pairs_against_gaoya(s, lines);
}

/// Text → verified pairs against gaoya, at the kit's setting: at least 20× its speed, with
/// recall and precision on the planted pairs at least its own.
fn pairs_against_gaoya(s: &mut String, lines: &[Line]) {
    let task = "minhash_lsh_end_to_end";
    let (Some(ours), Some(gaoya)) = (find(lines, "neardup", task), find(lines, "gaoya", task))
    else {
        return;
    };
    if gaoya.docs_per_s <= 0.0 {
        return;
    }
    target_row(
        s,
        "Text → verified pairs ÷ gaoya",
        Some(ours.docs_per_s / gaoya.docs_per_s),
        20.0,
        "×",
        true,
    );
    for measure in ["recall", "precision"] {
        let get = |l: &Line| l.extra.get(measure).and_then(Value::as_f64);
        if let (Some(a), Some(b)) = (get(ours), get(gaoya)) {
            let name = format!("Text → verified pairs: {measure} on planted pairs");
            at_least_row(s, &name, "gaoya", a, b);
        }
    }
}

/// A targets row whose goal is a peer's own figure: ours at least `theirs`.
fn at_least_row(s: &mut String, name: &str, peer: &str, ours: f64, theirs: f64) {
    let _ = writeln!(
        s,
        "| {name} (goal ≥ {peer}'s {theirs:.4}) | {ours:.4} | {} |",
        if ours >= theirs { "yes" } else { "**no**" }
    );
}

/// Write the side-by-side performance report from `scripts/bench-peers.sh`'s JSON lines.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// JSON lines of the peers and of `neardup bench`.
    pub results: PathBuf,
    /// The peer kit's stderr (its `# {...}` header names the corpus and versions).
    #[arg(long)]
    pub peers_header: Option<PathBuf>,
    /// Report directory.
    #[arg(
        long = "output",
        short = 'o',
        alias = "out",
        default_value = "reports/performance"
    )]
    pub out: PathBuf,
}

impl Run for Args {
    fn run(self, _invocation: &mut Invocation<'_>) -> Result<()> {
        run(&self.results, self.peers_header.as_deref(), &self.out)
    }
}
