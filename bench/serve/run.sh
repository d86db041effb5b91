#!/usr/bin/env bash
# The lookup service's benchmark, in one run on this machine, loopback only:
#   bash bench/serve/run.sh [DOCS]        (default 200000; writes reports/serve/)
# 1. neardup serve and datasketch 2.0 MinHashLSH + Redis on the same corpus, same protocol
#    (bench/serve/protocol.py), same Redis run: insert and query rates, recall, memory.
# 2. neardup serve under load (the serve_load example): durable batched and single adds,
#    checks with 32 clients, p50/p99, on an index of DOCS documents.
# 3. Restart after kill -9 with the adds in the log, and after a clean stop (folded).
# Needs: a release build (cargo build --release -p neardup-lab -p neardup-serve --examples),
# redis-server, python3. datasketch and redis-py go into a virtualenv
# ($NEARDUP_SERVE_VENV, default ~/.cache/neardup-serve-bench/venv).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
docs="${1:-200000}"
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release/neardup"
load="$target/release/examples/serve_load"
out="reports/serve"
work="$(mktemp -d)"
venv="${NEARDUP_SERVE_VENV:-$HOME/.cache/neardup-serve-bench/venv}"
results="$work/results.jsonl"
trap 'kill $(jobs -p) 2>/dev/null || true; redis-cli -p "$rport" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_health() { until curl -sf "http://$1/health" >/dev/null; do sleep 0.02; done; }
emit() { echo "$1" >> "$results"; echo "$1"; }

[ -x "$venv/bin/python" ] || { python3 -m venv "$venv"; "$venv/bin/pip" install -q datasketch==2.0.0 redis; }
python3 bench/peers/make_corpus.py --docs "$docs" --edit-rate 0.02 --seed 42 --out "$work/corpus.jsonl" >&2
corpus="$work/corpus.jsonl"; truth="$work/corpus.truth.csv"
index_docs=20000; query_docs=2000

# 1. Side by side, same protocol.
rport="$(free_port)"
redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --logfile "$work/redis.log"
sleep 0.3
emit "$("$venv/bin/python" bench/serve/datasketch_redis.py --corpus "$corpus" --truth "$truth" --port "$rport" --index-docs $index_docs --query-docs $query_docs)"
port="$(free_port)"; addr="127.0.0.1:$port"
"$bin" serve "$work/protocol-index" --listen "$addr" 2>"$work/serve-protocol.log" &
pid=$!; wait_health "$addr"
emit "$(python3 bench/serve/serve_neardup.py --address "$addr" --corpus "$corpus" --truth "$truth" --index-docs $index_docs --query-docs $query_docs)"
kill -TERM $pid; wait $pid

# 2. Under load, on an index of the whole corpus.
head -n 20000 "$corpus" | tail -n 10000 > "$work/probe.jsonl"
python3 - "$corpus" "$work/fresh.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    for i, line in enumerate(f):
        if i == 50000:
            break
        d = json.loads(line)
        o.write(json.dumps({"id": "new-" + d["id"], "text": d["text"] + f" fresh{i}"}) + "\n")
PY
"$bin" serve "$work/index" --listen "$addr" --fold-after 10000000 2>"$work/serve.log" &
pid=$!; wait_health "$addr"
emit "$("$load" --address "$addr" --corpus "$corpus" --route batch-add --batch 1000 --clients 4 --seconds 300)"
rss_recent="$(ps -o rss= -p $pid)"
emit "$("$load" --address "$addr" --corpus "$work/probe.jsonl" --route check --clients 32 --seconds 10)"
emit "$("$load" --address "$addr" --corpus "$work/probe.jsonl" --route batch-check --batch 100 --clients 4 --seconds 10)"
emit "$("$load" --address "$addr" --corpus "$work/fresh.jsonl" --route add --clients 32 --seconds 10)"
stats="$(curl -s "http://$addr/v1/stats")"

# 3. kill -9 with every add in the log, then a clean stop (the log folded).
kill -9 $pid; wait $pid 2>/dev/null || true
log_bytes="$(stat -c %s "$work/index/live.log")"
t0=$(date +%s.%N); "$bin" serve "$work/index" --listen "$addr" 2>"$work/serve-replay.log" &
pid=$!; wait_health "$addr"; t1=$(date +%s.%N)
kill -TERM $pid; wait $pid
t2=$(date +%s.%N); "$bin" serve "$work/index" --listen "$addr" 2>"$work/serve-folded.log" &
pid=$!; wait_health "$addr"; t3=$(date +%s.%N)
rss_folded="$(ps -o rss= -p $pid)"
emit "$("$load" --address "$addr" --corpus "$work/probe.jsonl" --route check --clients 32 --seconds 10 | python3 -c 'import json,sys; d=json.load(sys.stdin); d["route"]="check-folded"; print(json.dumps(d))')"
folded_stats="$(curl -s "http://$addr/v1/stats")"
kill -TERM $pid; wait $pid
emit "$(python3 - "$stats" "$folded_stats" "$log_bytes" "$t0" "$t1" "$t2" "$t3" "$rss_recent" "$rss_folded" "$(du -sb "$work/index/segments" | cut -f1)" <<'PY'
import json, sys
s, f = json.loads(sys.argv[1]), json.loads(sys.argv[2])
t0, t1, t2, t3 = map(float, sys.argv[4:8])
print(json.dumps({"route": "restart", "documents": s["documents"], "log_bytes": int(sys.argv[3]),
    "answering_after_kill9_s": t1 - t0, "answering_after_clean_stop_s": t3 - t2,
    "rss_recent_kb": int(sys.argv[8]), "rss_folded_kb": int(sys.argv[9]),
    "heap_recent_bytes": s["memory_bytes"], "heap_folded_bytes": f["memory_bytes"],
    "segment_bytes": int(sys.argv[10])}))
PY
)"
mkdir -p "$out"
cp "$results" "$out/results.jsonl"
python3 bench/serve/render.py "$out/results.jsonl" "$docs" "$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- crates || echo +dirty)" > "$out/README.md.tmp"
mv "$out/README.md.tmp" "$out/README.md"
echo "wrote $out/README.md" >&2
