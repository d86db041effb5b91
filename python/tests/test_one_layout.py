"""One output layout: ``neardup dedup``, ``neardup.dedup`` and ``neardup.ray.dedup`` write the
same files under the same names — ``clusters.parquet`` and ``pairs.parquet`` byte for byte,
``removed.txt`` and the deduplicated corpus byte for byte — and a ``summary.json`` that one
reader (``neardup.read_summary``) reads for all three, with the same counts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import neardup
from conftest import require_ray

ray = require_ray()
pytestmark = pytest.mark.usefixtures("local_ray")

import neardup.ray as nray  # noqa: E402

# What the three must agree on (the rest says how and how fast each ran).
SAME = ["text_field", "id_field", "algorithm", "params", "keep", "cluster_mode", "documents",
        "text_bytes", "clusters", "documents_in_clusters", "removed",
        "removed_below_threshold", "kept", "pairs", "cluster_sizes", "largest_clusters",
        "tables", "deduplicated"]


def chains(families: int = 6, steps: int = 5, seed: int = 7) -> list:
    """Families of texts in which each differs from the one before in a new block of three
    words: neighbours are near-duplicates (word 5-shingle Jaccard ≈ 0.75), the ends of a
    chain are not, so connected clusters remove documents below the threshold."""
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(families):
        words = [f"c{rng.randrange(10**6)}" for _ in range(80)]
        for step in range(steps):
            out.append(" ".join(words))
            at = 3 + step * 15
            words[at:at + 3] = [f"c{rng.randrange(10**6)}" for _ in range(3)]
    return out


def corpus_files(tmp_path: Path, texts, files: int):
    """The corpus over ``files`` JSONL files, ids on all but the second (a record without an
    id is named by its number), a blank line in the first."""
    paths = []
    for f in range(files):
        path = tmp_path / f"part{f}.jsonl"
        with open(path, "w", encoding="utf-8") as out:
            for i in range(f, len(texts), files):
                record = {"text": texts[i]} if f == 1 else {"id": f"d{i:04d}", "text": texts[i]}
                out.write(json.dumps(record) + "\n")
                if i == 0:
                    out.write("\n")
        paths.append(path)
    return paths


def published(output: Path) -> list:
    """The files of an output set (the engines' working files under stages/ left out)."""
    return sorted(str(p.relative_to(output)) for p in output.rglob("*")
                  if p.is_file() and p.relative_to(output).parts[0] != "stages")


@pytest.mark.parametrize("files,mode", [(3, "verified"), (1, "connected")])
def test_three_entry_points_write_one_layout(cli, texts, tmp_path, files, mode):
    print("chains seed 7; corpus seed in conftest")
    inputs = corpus_files(tmp_path, list(texts) + chains(), files)
    outs = {who: tmp_path / who for who in ("cli", "python", "ray")}
    done = subprocess.run([cli, "dedup", *map(str, inputs), "--output", str(outs["cli"]),
                           "--clusters", mode, "--param", "threshold=0.7"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    neardup.dedup(inputs, output=outs["python"], clusters=mode, threshold=0.7)
    nray.dedup([str(p) for p in inputs], output=str(outs["ray"]), clusters=mode,
               threshold=0.7)

    summaries = {who: neardup.read_summary(out) for who, out in outs.items()}
    cli_summary = summaries["cli"]
    assert cli_summary["removed"] > 20, "the corpus must plant duplicates"
    if mode == "connected":
        assert cli_summary["removed_below_threshold"] > 0, "chains must be measured"
    files_of = {who: published(out) for who, out in outs.items()}
    assert files_of["python"] == files_of["ray"] == files_of["cli"]
    assert "removed.txt" in files_of["cli"] and "README.md" in files_of["cli"]
    for name in files_of["cli"]:
        if name in ("summary.json", "README.md"):
            continue  # they carry times, threads and the engine
        want = (outs["cli"] / name).read_bytes()
        for who in ("python", "ray"):
            assert (outs[who] / name).read_bytes() == want, (who, name)
    for who in ("python", "ray"):
        for key in SAME:
            assert summaries[who][key] == cli_summary[key], (who, key)
    assert [summaries[w]["engine"]["name"] for w in outs] == ["process", "process", "ray"]
    assert [s["stage"] for s in summaries["ray"]["stages"]] == [
        "sketch", "candidates", "verify", "components", "clusters", "outputs"]


def test_the_reader_refuses_another_schema(tmp_path, corpus_file):
    neardup.dedup(corpus_file, output=tmp_path / "out")
    path = tmp_path / "out" / "summary.json"
    good = json.loads(path.read_text())
    for broken, message in [
        (dict(good, extra=1), "key extra not in the schema"),
        ({k: v for k, v in good.items() if k != "pairs"}, "key pairs missing"),
        (dict(good, removed="3"), "key removed is str, not int"),
        (dict(good, engine=dict(good["engine"], partitions="x")), "key engine.partitions"),
    ]:
        path.write_text(json.dumps(broken))
        with pytest.raises(ValueError, match=message):
            neardup.read_summary(tmp_path / "out")
