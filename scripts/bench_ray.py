"""neardup.ray.dedup against neardup dedup on one machine, same files, same run: CPU seconds
and wall time, for text and for a crawl.

    python scripts/bench_ray.py CORPUS.jsonl NEARDUP_BIN [--files 8] [--cpus 2] [--pairs 3]
        [--data-dir ../shared/datasets] [--copies 12] [--work DIR] [--out DIR]

Text: CORPUS (the peers' make_corpus.py output) split into --files JSONL files of consecutive
lines. Crawl: web-pages.jsonl.gz's 181 ScrapingHub articles (real pages) each written
--copies times under other hosts' URLs, every other copy with 2 % of its words replaced
(scripts/bench_crawl.py's builder), round-robin over --files gzip WARC files.

Each input set is deduplicated by `neardup dedup` (a child process: wall time, CPU seconds from
its rusage, peak RSS) and by `neardup.ray.dedup` in a child process that starts Ray: on a
local Ray with --cpus CPUs, on three simulated one-CPU nodes, and on three nodes with one
killed (text: as candidates start; crawl: one second into extraction). CPU seconds of a Ray run
are those of the child and every process under it (Ray's daemons and workers; a worker that
exited is counted by the process that reaped it), from the end of `ray.init` to the end of
the run; starting Ray is reported apart. The one-process and local-Ray runs alternate --pairs
times and the CPU ratio is the median of the pairs' ratios (this VM's speed drifts). Every Ray
run's clusters are checked equal to the one process's. Writes DIR/README.md (default
reports/ray) and time.svg.
"""

import argparse
import gzip
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bar_chart import write_bars  # noqa: E402
from bench_crawl import edited, record  # noqa: E402

# argv: inputs (JSON), output, CPUs, nodes (0: one local Ray), kill ("" for none, else
# "STAGE" or "STAGE+SECONDS": a worker node killed as the stage starts, or that long after).
RAY_CHILD = r"""
import json, os, sys, threading, time
import ray
import neardup.ray as nray
inputs, output, cpus, nodes, kill = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
TICK = os.sysconf("SC_CLK_TCK")
def tree_cpu():
    # CPU seconds of this process and every descendant (Ray's daemons and workers are its
    # children or theirs): utime + stime of the living, and cutime + cstime, what each
    # already reaped (a worker that exited is counted by the raylet that waited for it).
    parent, cpu = {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(pid)] = int(fields[1])
        cpu[int(pid)] = sum(int(x) for x in fields[11:15]) / TICK
    mine = {os.getpid()}
    changed = True
    while changed:
        changed = False
        for pid, ppid in parent.items():
            if ppid in mine and pid not in mine:
                mine.add(pid)
                changed = True
    return sum(cpu.get(p, 0.0) for p in mine)
c0, t0 = tree_cpu(), time.perf_counter()
cluster = None
if nodes:
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args=dict(num_cpus=1))
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
else:
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
c1, t1 = tree_cpu(), time.perf_counter()
kill_stage, _, delay = kill.partition("+")
stage_cpu = []
def remove_node():
    cluster.remove_node(list(cluster.worker_nodes)[0], allow_graceful=False)
def progress(stage):
    stage_cpu.append((stage, tree_cpu()))
    if stage == kill_stage:
        threading.Timer(float(delay or 0), remove_node).start()
summary = nray.dedup(inputs, output=output, progress=progress)
t2, c2 = time.perf_counter(), tree_cpu()
ends = [c for _, c in stage_cpu[1:]] + [c2]
print(json.dumps({"init_s": t1 - t0, "dedup_s": t2 - t1, "init_cpu_s": c1 - c0,
                  "cpu_s": c2 - c1,
                  "stage_cpu_s": {name: end - start for (name, start), end in zip(stage_cpu, ends)},
                  "summary": summary}))
ray.shutdown()
if cluster:
    cluster.shutdown()
"""

# (row name, simulated nodes of one CPU each (0: one local Ray with --cpus), kill spec).
TEXT_RUNS = [
    ("neardup.ray.dedup (local Ray, CPUS CPUs)", 0, ""),
    ("neardup.ray.dedup (3 simulated nodes, 1 CPU each)", 3, ""),
    ("neardup.ray.dedup (3 nodes, one killed as candidates start)", 3, "candidates"),
]
CRAWL_RUNS = [
    ("neardup.ray.dedup (local Ray, CPUS CPUs)", 0, ""),
    ("neardup.ray.dedup (3 simulated nodes, 1 CPU each)", 3, ""),
    ("neardup.ray.dedup (3 nodes, one killed 1 s into extraction)", 3, "sketch+1"),
]


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def sample_ray(stop, peaks):
    """Peak RSS per Ray process kind: workers (ray::), raylet, gcs."""
    while not stop.is_set():
        total = 0.0
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            cmd = cmdline(pid)
            if "ray::" in cmd or "default_worker.py" in cmd:
                kind = "worker"
            elif "raylet" in cmd:
                kind = "raylet"
            elif "gcs_server" in cmd:
                kind = "gcs"
            else:
                continue
            r = rss_mb(pid)
            total += r
            peaks[kind] = max(peaks.get(kind, 0.0), r)
        peaks["sum"] = max(peaks.get("sum", 0.0), total)
        time.sleep(0.2)


def canonical(table):
    import pyarrow as pa

    return table.select(["id", "cluster", "cluster_size", "kept"]).cast(pa.schema([
        ("id", pa.string()), ("cluster", pa.uint32()), ("cluster_size", pa.uint32()),
        ("kept", pa.bool_())]))


def run_cli(binary, inputs, out):
    """(wall s, CPU s, peak RSS MB, summary) of one `neardup dedup` run."""
    subprocess.run(["rm", "-rf", out], check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([binary, "dedup", *inputs, "-o", out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    with open(os.path.join(out, "summary.json")) as f:
        return wall, cpu, after.ru_maxrss / 1024, json.load(f)


def run_ray(inputs, out, cpus, nodes, kill):
    """The child's report (wall and CPU of the run and of starting Ray, per-stage CPU, the
    summary), the wall time of the whole child and the peak RSS of Ray's processes."""
    subprocess.run(["rm", "-rf", out], check=True)
    stop, peaks = threading.Event(), {}
    sampler = threading.Thread(target=sample_ray, args=(stop, peaks), daemon=True)
    sampler.start()
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RAY_CHILD, json.dumps(inputs), out, str(cpus),
                           str(nodes), kill], check=True, capture_output=True, text=True)
    total = time.perf_counter() - t0
    stop.set()
    sampler.join()
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_s"] = total
    result["rss"] = (f'{peaks.get("worker", 0):,.0f} per worker; {peaks.get("sum", 0):,.0f} '
                     "all Ray processes")
    return result


def text_inputs(corpus, work, files):
    lines = open(corpus, "rb").readlines()
    mb = sum(len(json.loads(line)["text"].encode()) for line in lines) / 1e6
    per = -(-len(lines) // files)
    parts = []
    for f in range(files):
        path = os.path.join(work, f"part{f:02d}.jsonl")
        with open(path, "wb") as out:
            out.writelines(lines[f * per:(f + 1) * per])
        parts.append(path)
    return parts, len(lines), mb


def crawl_inputs(data_dir, work, files, copies, seed=42):
    """The crawl's WARC files (records round-robin) and its size in MB (gzip)."""
    with gzip.open(os.path.join(data_dir, "web", "web-pages.jsonl.gz"), "rt") as f:
        pages = [p for p in map(json.loads, f) if p["set"] == "scrapinghub"]
    rng = random.Random(seed)
    paths = [os.path.join(work, f"crawl-{f:02d}.warc.gz") for f in range(files)]
    outs = [open(p, "wb") for p in paths]
    n = 0
    for i, page in enumerate(pages):
        for c in range(copies):
            url = page["url"] if c == 0 else f"https://mirror{c}.example/{i}/{c}"
            html = edited(page["html"], rng) if c % 2 == 1 else page["html"]
            rid = f"<urn:uuid:{i:08d}-0000-4000-8000-{c:012d}>"
            outs[n % files].write(gzip.compress(record(rid, url, html), compresslevel=6))
            n += 1
    for out in outs:
        out.close()
    return paths, n, sum(os.path.getsize(p) for p in paths) / 1e6


def measure(name, inputs, binary, work, args, ray_runs):
    """Every run of one input set: the alternating one-process / local-Ray pairs, then the
    simulated clusters. Returns the section's rows and numbers."""
    import pyarrow.parquet as pq
    import neardup.ray as nray

    cli_out, ray_out = os.path.join(work, "cli"), os.path.join(work, "ray")
    pairs, cli_runs, local_runs = [], [], []
    for _ in range(args.pairs):
        cli_runs.append(run_cli(binary, inputs, cli_out))
        local_runs.append(run_ray(inputs, ray_out, args.cpus, 0, ""))
        pairs.append(local_runs[-1]["cpu_s"] / cli_runs[-1][1])
    expected = canonical(pq.read_table(os.path.join(cli_out, "clusters.parquet")))
    same = {ray_runs[0][0]: canonical(nray.read_clusters(ray_out)).equals(expected)}
    results = {ray_runs[0][0]: min(local_runs, key=lambda r: r["dedup_s"])}
    for run_name, nodes, kill in ray_runs[1:]:
        results[run_name] = run_ray(inputs, ray_out, args.cpus, nodes, kill)
        same[run_name] = canonical(nray.read_clusters(ray_out)).equals(expected)
    return {"name": name, "cli": min(cli_runs, key=lambda r: r[0]), "results": results,
            "same": same, "ratios": pairs}


def section(m, units, size_mb, args):
    """The markdown of one input set's measurements."""
    wall, cpu, rss, cli_summary = m["cli"]
    local_name = next(iter(m["results"]))
    local = m["results"][local_name]
    ratio = statistics.median(m["ratios"])
    lines = [
        f"| run | s (process) | s (dedup) | {units}/s | CPU s (dedup) | CPU s (starting Ray) "
        "| peak RSS MB | same clusters |",
        "|---|---:|---:|---:|---:|---:|---|---|",
        f"| neardup dedup (one process) | {wall:.1f} | {wall:.1f} | "
        f"{cli_summary['documents'] / wall:,.0f} | {cpu:.1f} | | {rss:,.0f} (process) | |",
    ]
    for key, r in m["results"].items():
        lines.append(
            f"| {key.replace('CPUS', str(args.cpus))} | {r['process_s']:.1f} | "
            f"{r['dedup_s']:.1f} | {cli_summary['documents'] / r['dedup_s']:,.0f} | "
            f"{r['cpu_s']:.1f} | {r['init_cpu_s']:.1f} | {r['rss']} | "
            f"{'**yes**' if m['same'][key] else '**NO**'} |")
    stages = local["summary"]["stages"]
    cli_stages = {s["stage"]: s["seconds"] for s in cli_summary["stages"]}
    lines += [
        "",
        f"**CPU seconds, local Ray ÷ one process: {ratio:.2f}×** (median of {len(m['ratios'])} "
        f"alternating pairs: {', '.join(f'{x:.2f}' for x in m['ratios'])}; "
        f"{cli_summary['documents']:,} {units}, {size_mb:,.0f} MB, {cli_summary['removed']:,} "
        f"removed by both).",
        "",
        "| stage | one process: wall s | local Ray: wall s | local Ray: CPU s |",
        "|---|---:|---:|---:|",
    ]
    for s in stages:
        one = cli_stages.get(s["stage"])
        lines.append(f"| {s['stage']} | {'—' if one is None else f'{one:.2f}'} | "
                     f"{s['seconds']:.2f} | {local['stage_cpu_s'].get(s['stage'], 0):.2f} |")
    return lines, ratio


def chart_label(name, cpus):
    """A Ray run's row name, short enough for the chart's label column."""
    return "Ray: " + name.replace("CPUS", str(cpus)).removeprefix("neardup.ray.dedup (")[:-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("neardup_bin")
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--data-dir", default="../shared/datasets")
    ap.add_argument("--copies", type=int, default=12)
    ap.add_argument("--work", default="target/bench-ray")
    ap.add_argument("--out", default="reports/ray")
    args = ap.parse_args()

    text_work, crawl_work = os.path.join(args.work, "text"), os.path.join(args.work, "crawl")
    os.makedirs(text_work, exist_ok=True)
    os.makedirs(crawl_work, exist_ok=True)
    parts, docs, mb = text_inputs(args.corpus, text_work, args.files)
    warcs, pages, warc_mb = crawl_inputs(args.data_dir, crawl_work, args.files, args.copies)
    text = measure("text", parts, args.neardup_bin, text_work, args, TEXT_RUNS)
    crawl = measure("crawl", warcs, args.neardup_bin, crawl_work, args, CRAWL_RUNS)
    text_lines, text_ratio = section(text, "documents", mb, args)
    crawl_lines, crawl_ratio = section(crawl, "pages", warc_mb, args)
    version = json.load(open(os.path.join(text_work, "cli", "summary.json")))["version"]
    bars = [("neardup dedup (one process)", text["cli"][1], True)] + [
        (chart_label(name, args.cpus), r["cpu_s"], False) for name, r in text["results"].items()]
    os.makedirs(args.out, exist_ok=True)
    write_bars(os.path.join(args.out, "time.svg"),
               f"{docs:,} documents: CPU seconds of deduplication (fewer is cheaper)",
               "CPU seconds", bars)
    per_core_text = docs / (text["results"][TEXT_RUNS[0][0]]["cpu_s"])
    per_core_pages = pages / (crawl["results"][CRAWL_RUNS[0][0]]["cpu_s"])
    lines = [
        "# neardup.ray.dedup against neardup dedup",
        "",
        f"**What a run costs on Ray, per core: {text_ratio:.2f}× the CPU seconds of one "
        f"`neardup dedup` process on 10^6 documents of text, {crawl_ratio:.2f}× on a crawl of "
        f"{pages:,} pages**, with the same clusters; on this {os.cpu_count()}-core machine, "
        f"{per_core_text:,.0f} documents and {per_core_pages:,.0f} pages per CPU second.",
        "",
        "![CPU seconds of deduplication per run](time.svg)",
        "",
        "Regenerate: `just bench-ray` (`bash scripts/bench-ray.sh 1000000`). CPU seconds of a "
        "Ray run count the driver and every process under it (Ray's daemons, its workers) "
        "from the end of `ray.init` to the run's end; starting Ray is reported apart. "
        f"neardup {version}; Ray {__import__('ray').__version__}; local Ray with {args.cpus} "
        "CPUs, or three simulated one-CPU nodes on this machine.",
        "",
        f"## Text: {docs:,} documents",
        "",
        f"The peers' `make_corpus.py --docs {docs} --edit-rate 0.02 --seed 42`, {mb:,.0f} MB of "
        f"text, split into {args.files} JSONL files of consecutive lines; default parameters "
        "(MinHash-LSH, word 5-shingles, threshold 0.8).",
        "",
        *text_lines,
        "",
        f"## A crawl: {pages:,} pages",
        "",
        f"web-pages.jsonl.gz's 181 ScrapingHub articles (real pages), each {args.copies} times "
        "under other hosts' URLs, every other copy with 2 % of its words replaced, round-robin "
        f"over {args.files} gzip WARC files ({warc_mb:,.1f} MB); pages extracted (main content) "
        "in the task that sketches their file.",
        "",
        *crawl_lines,
        "",
        "How to run on a real cluster, memory per worker, and the capacity estimate for a "
        "Common Crawl crawl: [python/README.md](../../python/README.md#deduplication-on-ray).",
    ]
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    same = all(text["same"].values()) and all(crawl["same"].values())
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
