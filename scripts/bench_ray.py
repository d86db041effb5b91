"""neardup.ray.dedup against neardup dedup on one machine, same files, same run.

    python scripts/bench_ray.py CORPUS.jsonl NEARDUP_BIN [--files 8] [--cpus 2] [--out DIR]

Splits CORPUS (the peers' make_corpus.py output) into --files JSONL files of consecutive
lines, runs `neardup dedup` on them (a child process: wall time, peak RSS), then
`neardup.ray.dedup` on a fresh local Ray with --cpus CPUs (a child process; a sampler reads
/proc every 0.2 s for the peak RSS of every Ray worker and of the raylet/object store), checks
that both give the same clusters, and writes DIR/README.md (default reports/ray).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bar_chart import write_bars  # noqa: E402

# argv: inputs (JSON), output, CPUs, nodes (0: one local Ray), stage at which a worker node
# is killed ("" for none).
RAY_CHILD = r"""
import json, os, sys, time
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
    mine, total, driver = {os.getpid()}, 0.0, cpu.get(os.getpid(), 0.0)
    changed = True
    while changed:
        changed = False
        for pid, ppid in parent.items():
            if ppid in mine and pid not in mine:
                mine.add(pid)
                changed = True
    return sum(cpu.get(p, 0.0) for p in mine), driver
stage_cpu = []
c0 = tree_cpu()
t0 = time.perf_counter()
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
t1 = time.perf_counter()
c1 = tree_cpu()
def progress(stage):
    stage_cpu.append((stage, tree_cpu()[0]))
    if stage == kill:
        cluster.remove_node(list(cluster.worker_nodes)[0], allow_graceful=False)
summary = nray.dedup(inputs, output=output, progress=progress)
t2 = time.perf_counter()
c2 = tree_cpu()
ends = [c for _, c in stage_cpu[1:]] + [c2[0]]
print(json.dumps({"init_s": t1 - t0, "dedup_s": t2 - t1, "init_cpu_s": c1[0] - c0[0],
                  "cpu_s": c2[0] - c1[0], "driver_cpu_s": c2[1] - c1[1],
                  "stage_cpu_s": {name: round(end - start, 2)
                                  for (name, start), end in zip(stage_cpu, ends)},
                  "summary": summary}))
ray.shutdown()
if cluster:
    cluster.shutdown()
"""


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
    """Peak RSS per Ray process kind: workers (ray::), raylet, gcs, driver-side others."""
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


# (row name, simulated nodes of one CPU each (0: one local Ray with --cpus), stage at whose
# start a worker node is killed).
RAY_RUNS = [
    ("neardup.ray.dedup (local Ray, CPUS CPUs)", 0, ""),
    ("neardup.ray.dedup (3 simulated nodes, 1 CPU each)", 3, ""),
    ("neardup.ray.dedup (3 nodes, one killed as candidates start)", 3, "candidates"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("neardup_bin")
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--work", default="target/bench-ray")
    ap.add_argument("--out", default="reports/ray")
    args = ap.parse_args()
    import pyarrow.parquet as pq
    import neardup.ray as nray

    os.makedirs(args.work, exist_ok=True)
    lines = open(args.corpus, "rb").readlines()
    docs = len(lines)
    mb = sum(len(json.loads(l)["text"].encode()) for l in lines) / 1e6
    per = -(-docs // args.files)
    parts = []
    for f in range(args.files):
        path = os.path.join(args.work, f"part{f:02d}.jsonl")
        with open(path, "wb") as out:
            out.writelines(lines[f * per:(f + 1) * per])
        parts.append(path)
    del lines

    cli_out = os.path.join(args.work, "cli")
    subprocess.run(["rm", "-rf", cli_out, os.path.join(args.work, "ray")], check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([args.neardup_bin, "dedup", *parts, "-o", cli_out], check=True,
                   stdout=subprocess.DEVNULL)
    cli_s = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cli_rss = after.ru_maxrss / 1024
    cli_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    cli_summary = json.load(open(os.path.join(cli_out, "summary.json")))
    expected = canonical(pq.read_table(os.path.join(cli_out, "clusters.parquet")))
    rows = [("neardup dedup (one process)", cli_s, cli_s, f"{cli_rss:,.0f} (process)", cli_cpu)]
    checks, results = [], []
    for name, nodes, kill in RAY_RUNS:
        name = name.replace("CPUS", str(args.cpus))
        out = os.path.join(args.work, "ray")
        subprocess.run(["rm", "-rf", out], check=True)
        stop, peaks = threading.Event(), {}
        sampler = threading.Thread(target=sample_ray, args=(stop, peaks), daemon=True)
        sampler.start()
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", RAY_CHILD, json.dumps(parts), out,
                               str(args.cpus), str(nodes), kill],
                              check=True, capture_output=True, text=True)
        total = time.perf_counter() - t0
        stop.set()
        sampler.join()
        result = json.loads(done.stdout.strip().splitlines()[-1])
        got = canonical(nray.read_clusters(out))
        checks.append((name, got.equals(expected), result["summary"]))
        results.append((name, result))
        rows.append((name, total, result["dedup_s"],
                     f'{peaks.get("worker", 0):,.0f} per worker; {peaks.get("sum", 0):,.0f} '
                     "all Ray processes", result["cpu_s"]))
    result = results[0][1]
    summary = result["summary"]
    engine = summary["engine"]
    equal = all(ok for _, ok, _ in checks)
    stages = ", ".join(f"{s['stage']} {s['seconds']:.1f} s" for s in summary["stages"])
    os.makedirs(args.out, exist_ok=True)
    write_bars(os.path.join(args.out, "time.svg"),
               f"{docs:,} documents: seconds of deduplication (shorter is faster)", "seconds",
               [(name, work, name.startswith("neardup dedup")) for name, _, work, _, _ in rows])
    lines = [
        "# neardup.ray.dedup against neardup dedup",
        "",
        "![Seconds of deduplication per run](time.svg)",
        "",
        "Regenerate: `just bench-ray` (`bash scripts/bench-ray.sh 1000000`). Corpus: the peers'",
        f"`make_corpus.py --docs {docs} --edit-rate 0.02 --seed 42`, {mb:,.0f} MB of text, split",
        f"into {args.files} JSONL files of consecutive lines; default parameters (MinHash-LSH,",
        f"word 5-shingles, threshold 0.8). Local Ray with {args.cpus} CPUs on this machine "
        f"({os.cpu_count()} cores); neardup {summary['version']}.",
        "",
        "| run | s (process) | s (dedup) | MB/s | peak RSS MB | cpu s |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for name, total, work, rss, cpu in rows:
        cpu_s = "" if cpu != cpu else f"{cpu:.1f}"
        lines.append(f"| {name} | {total:.1f} | {work:.1f} | {mb / work:.1f} | {rss} | {cpu_s} |")
    lines += [
        "",
        "Same clusters as `neardup dedup`: "
        + "; ".join(f"{name}: **{'yes' if ok else 'NO'}**"
                    for name, ok, _ in checks) + " "
        f"({cli_summary['documents']:,} documents, {cli_summary['pairs']:,} verified pairs, "
        f"{cli_summary['removed']:,} removed; Ray: {summary['pairs']:,} pairs, "
        f"{summary['removed']:,} removed). Ray overhead: "
        + ", ".join(f"{r['dedup_s'] / cli_s:.1f}× ({name})"
                    for name, r in results)
        + f" of the one-process time (starting Ray not counted). Ray stages, local Ray: {stages}; "
        f"{engine['component_rounds']} star rounds, {engine['partitions']} partitions; "
        "signatures shuffled for verification: "
        + ("every live document's" if engine["broadcast_candidate_documents"] is None
           else f"{engine['broadcast_candidate_documents']:,} candidate documents'") + ".",
        "Every stage is a Ray Data operator (`map_batches`, `groupby(...).map_groups` with the "
        "sort-based shuffle); where the time goes: python/README.md#deduplication-on-ray.",
        "",
        "How to run on a real cluster, memory per worker, and the capacity estimate for 10^9",
        "documents: [python/README.md](../../python/README.md#deduplication-on-ray).",
    ]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
