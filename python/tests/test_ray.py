"""neardup.ray.dedup on a local Ray (2 CPUs) equals `neardup dedup` on one machine: the same
clusters row for row and the same deduplicated lines, on a corpus split over three files so
that clusters span files."""

import json
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import require_ray

ray = require_ray()
pytestmark = pytest.mark.usefixtures("local_ray")

import neardup.ray as nray  # noqa: E402


@pytest.fixture()
def split_corpus(tmp_path, texts):
    """The corpus over three JSONL files (a copy's source is often in another file), ids on
    two of them only, plus a blank line that `neardup dedup` skips."""
    paths = []
    for f in range(3):
        path = tmp_path / f"part{f}.jsonl"
        with open(path, "w", encoding="utf-8") as out:
            for i in range(f, len(texts), 3):
                record = {"text": texts[i], "n": i}
                if f != 1:
                    record["id"] = f"d{i:04d}"
                out.write(json.dumps(record) + "\n")
                if i == 10:
                    out.write("\n")
        paths.append(path)
    return paths


def canonical(table):
    return table.select(["id", "cluster", "cluster_size", "kept", "representative",
                         "similarity_to_representative"]).cast(pa.schema([
        ("id", pa.string()), ("cluster", pa.uint32()), ("cluster_size", pa.uint32()),
        ("kept", pa.bool_()), ("representative", pa.string()),
        ("similarity_to_representative", pa.float64()),
    ]))


def cli_dedup(cli, inputs, out, *params):
    args = [cli, "dedup", *map(str, inputs), "--output", str(out)]
    for p in params:
        args += ["--param", p]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return pq.read_table(out / "clusters.parquet")


@pytest.mark.parametrize("partitions,broadcast", [(1, nray.BROADCAST_DOCUMENTS), (3, 0)])
def test_ray_equals_one_machine(cli, split_corpus, tmp_path, monkeypatch, partitions,
                                broadcast):
    """With candidate documents broadcast (only their signatures shuffled) and without
    (every signature shuffled)."""
    monkeypatch.setattr(nray, "BROADCAST_DOCUMENTS", broadcast)
    expected = cli_dedup(cli, split_corpus, tmp_path / "cli", "threshold=0.7")
    summary = nray.dedup(split_corpus, output=str(tmp_path / "ray"), threshold=0.7,
                         partitions=partitions)
    got = nray.read_clusters(str(tmp_path / "ray"))
    assert canonical(got).equals(canonical(expected))
    # Clusters that span files exist, so the test means something.
    n = len(expected)
    files = [f for f in range(3) for _ in range(f, n, 3)]
    spans = {}
    for row, c in enumerate(expected.column("cluster").to_pylist()):
        spans.setdefault(c, set()).add(files[row])
    assert any(len(s) > 1 for s in spans.values())
    assert summary["documents"] == len(expected)
    assert summary["removed"] == expected.column("kept").to_pylist().count(False)
    # What ran, as the CLI records it: the threshold and the banding it tuned.
    cli_summary = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert summary["params"] == cli_summary["params"]
    assert summary["params"]["threshold"] == 0.7 and summary["params"]["bands"] > 0
    # The deduplicated files hold the same lines as the CLI's.
    cli_files = sorted((tmp_path / "cli" / "deduplicated").iterdir())
    ray_files = sorted(str(tmp_path / "ray" / n) for n in summary["deduplicated"])
    assert len(cli_files) == len(ray_files) == 3
    for a, b in zip(cli_files, ray_files):
        assert a.read_bytes() == open(b, "rb").read(), (a, b)


def test_ray_keep_longest_equals_one_machine(cli, split_corpus, tmp_path):
    """keep="longest" keeps the CLI's members, files and blocks alike, and differs from
    keep="first" on this corpus (so the choice is exercised, not the root by default)."""
    args = [cli, "dedup", *map(str, split_corpus), "--output", str(tmp_path / "cli"),
            "--param", "threshold=0.7", "--keep", "longest"]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = pq.read_table(tmp_path / "cli" / "clusters.parquet")
    first = cli_dedup(cli, split_corpus, tmp_path / "cli-first", "threshold=0.7")
    assert expected.column("kept").to_pylist() != first.column("kept").to_pylist()
    nray.dedup(split_corpus, output=str(tmp_path / "ray"), threshold=0.7, keep="longest",
               partitions=3)
    assert canonical(nray.read_clusters(str(tmp_path / "ray"))).equals(canonical(expected))
    # The same through a Dataset of the same rows (lengths from the Arrow column).
    rows = [json.loads(line) for p in split_corpus for line in open(p, encoding="utf-8")
            if line.strip()]
    ds = ray.data.from_arrow([pa.table({"text": [r["text"] for r in rows]})])
    nray.dedup(ds, output=str(tmp_path / "ray-ds"), threshold=0.7, keep="longest")
    got = nray.read_clusters(str(tmp_path / "ray-ds"))
    assert got.column("kept").to_pylist() == expected.column("kept").to_pylist()


def test_ray_with_an_input_without_records(cli, split_corpus, tmp_path):
    """An input file with no records (it has no group in the outputs shuffles) still gets
    its empty shards, and numbering continues past it as in `neardup dedup`."""
    empty = split_corpus[0].parent / "part1b.jsonl"
    empty.write_text("\n")
    inputs = [split_corpus[0], split_corpus[1], empty, split_corpus[2]]
    expected = cli_dedup(cli, inputs, tmp_path / "cli", "threshold=0.7")
    summary = nray.dedup([str(p) for p in inputs], output=str(tmp_path / "ray"), threshold=0.7)
    assert canonical(nray.read_clusters(str(tmp_path / "ray"))).equals(canonical(expected))
    assert len(summary["deduplicated"]) == 4
    assert (tmp_path / "ray" / summary["deduplicated"][2]).read_bytes() == b""


def test_ray_exact_and_a_parquet_input(cli, texts, tmp_path):
    path = tmp_path / "corpus.parquet"
    pq.write_table(pa.table({"id": [f"p{i}" for i in range(len(texts))], "text": texts}), path)
    expected = cli_dedup(cli, [path], tmp_path / "cli")
    nray.dedup(str(path), output=str(tmp_path / "ray"))
    assert canonical(nray.read_clusters(str(tmp_path / "ray"))).equals(canonical(expected))
    subprocess.run([cli, "dedup", str(path), "-o", str(tmp_path / "cli-exact"),                     "--algorithm", "exact"], check=True, capture_output=True)
    expected = pq.read_table(tmp_path / "cli-exact" / "clusters.parquet")
    nray.dedup(str(path), output=str(tmp_path / "ray-exact"), algorithm="exact")
    assert canonical(nray.read_clusters(str(tmp_path / "ray-exact"))).equals(canonical(expected))


def test_ray_simhash_equals_one_machine(cli, split_corpus, tmp_path):
    """SimHash with tf weights streams: its join keys (the permuted tables' prefixes) give
    the CLI's clusters."""
    args = [cli, "dedup", *map(str, split_corpus), "--output", str(tmp_path / "cli"),
            "--algorithm", "simhash", "--param", "weighting=tf"]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = pq.read_table(tmp_path / "cli" / "clusters.parquet")
    assert expected.column("kept").to_pylist().count(False) > 0
    nray.dedup(split_corpus, output=str(tmp_path / "ray"), algorithm="simhash", weighting="tf",
               partitions=3)
    assert canonical(nray.read_clusters(str(tmp_path / "ray"))).equals(canonical(expected))


def test_ray_data_dataset_equals_one_machine(cli, texts, tmp_path):
    """A Ray Data Dataset of three blocks (clusters span blocks) gives the CLI's clusters on
    the same rows in one file, and the kept rows as Parquet."""
    ids = [f"d{i:04d}" for i in range(len(texts))]
    path = tmp_path / "corpus.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        for i, t in zip(ids, texts):
            out.write(json.dumps({"id": i, "text": t}) + "\n")
    expected = cli_dedup(cli, [path], tmp_path / "cli", "threshold=0.7")
    third = len(texts) // 3 + 1
    blocks = [pa.table({"id": ids[s:s + third], "text": texts[s:s + third]})
              for s in range(0, len(texts), third)]
    ds = ray.data.from_arrow(blocks)
    assert ds.num_blocks() == 3
    summary = nray.dedup(ds, output=str(tmp_path / "ray"), threshold=0.7)
    got = nray.read_clusters(str(tmp_path / "ray"))
    assert canonical(got).equals(canonical(expected))
    block_of = [r // third for r in range(len(texts))]
    spans = {}
    for row, c in enumerate(expected.column("cluster").to_pylist()):
        spans.setdefault(c, set()).add(block_of[row])
    assert any(len(s) > 1 for s in spans.values())
    kept = pa.concat_tables([pq.read_table(tmp_path / "ray" / p)
                             for p in sorted(summary["deduplicated"])])
    want = [i for i, k in zip(ids, expected.column("kept").to_pylist()) if k]
    assert kept.column("id").to_pylist() == want
    assert summary["inputs"] == ["block 0", "block 1", "block 2"]
    with pytest.raises(ValueError, match="no column 'body'"):
        nray.dedup(ds, output=str(tmp_path / "ray2"), text_column="body")


def test_ray_bad_input(tmp_path):
    with pytest.raises(ValueError, match="no streamable signature"):
        nray.dedup(str(tmp_path), output=str(tmp_path / "o"), algorithm="spotsigs")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine words here"}\n{"text": \n')
    good = tmp_path / "a-good.jsonl"
    good.write_text('{"text": "fine words here"}\n')
    # The error of the second input, raised as the ValueError `neardup dedup` reports (not
    # Ray Data's wrapper), with nothing written.
    with pytest.raises(ValueError, match=r"bad\.jsonl:2: malformed JSON"):
        nray.dedup([str(good), str(bad)], output=str(tmp_path / "out"))
    assert not (tmp_path / "out" / "summary.json").exists()
    assert not (tmp_path / "out" / "clusters.parquet").exists()
    with pytest.raises(ValueError, match="keep must be 'first' or 'longest'"):
        nray.dedup(str(bad), output=str(tmp_path / "out"), keep="last")
    with pytest.raises(ValueError, match="clusters must be 'verified' or 'connected'"):
        nray.dedup(str(bad), output=str(tmp_path / "out"), clusters="transitive")


def test_ray_cluster_modes_equal_one_machine(cli, tmp_path):
    """Chains of accumulating edits spread over three files (so components span files and
    partitions): verified and connected clusters both equal the CLI's, and differ from each
    other (the chains are cut)."""
    import random

    rng = random.Random(20261124)
    print("chain corpus seed 20261124")
    files = [tmp_path / f"part-{f}.jsonl" for f in range(3)]
    handles = [open(p, "w", encoding="utf-8") for p in files]
    n = 0
    for chain in range(6):
        words = [f"w{rng.randrange(20000)}" for _ in range(60)]
        for step in range(14):
            for _ in range(2):
                words[rng.randrange(60)] = f"w{rng.randrange(20000)}"
            handles[n % 3].write(json.dumps({"id": f"c{chain}-{step}", "text": " ".join(words)})
                                 + "\n")
            n += 1
    for h in handles:
        h.close()
    got = {}
    for mode in ("verified", "connected"):
        out = tmp_path / f"cli-{mode}"
        done = subprocess.run([cli, "dedup", *map(str, files), "-o", str(out), "--param",
                               "threshold=0.5", "--clusters", mode],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        expected = pq.read_table(out / "clusters.parquet")
        summary = nray.dedup([str(p) for p in files], output=str(tmp_path / f"ray-{mode}"),
                             threshold=0.5, clusters=mode, partitions=3)
        ray_table = nray.read_clusters(str(tmp_path / f"ray-{mode}"))
        assert canonical(ray_table).equals(canonical(expected)), mode
        assert summary["cluster_mode"] == mode
        got[mode] = expected
    # The chains are cut: verified clusters differ from connected ones, and components span
    # the three files.
    assert not canonical(got["verified"]).equals(canonical(got["connected"]))
    sizes = got["connected"].column("cluster_size").to_pylist()
    assert max(sizes) >= 6


def test_ray_heavy_clusters_are_joined_in_linear_pairs(cli, texts, tmp_path):
    """300 exact copies of one page and 300 near copies (0.3 % of words replaced) of another
    over three files: each run of a band's key holds ~300 documents, whose every pair
    (≈ 45,000 per run) the join would emit; a heavy run gives each member paired with its
    first documents only (`neardup::heavy`, as `neardup dedup` does when its signatures are
    spilled), and the clusters are `neardup dedup`'s. (Near copies this close are all within
    the threshold of the document kept: where a heavy cluster's members are cut away from it,
    the pairs left among them are not the in-memory join's and may group them otherwise, as
    with `neardup dedup --memory`.)"""
    import random

    rng = random.Random(20261129)
    page_a = " ".join(f"w{rng.randrange(5000)}" for _ in range(300))
    page_b = page_a.replace("w", "v")
    corpus = [t for t in texts if t]
    for _ in range(300):
        corpus.append(page_a)
        corpus.append(" ".join(w if rng.random() > 0.003 else f"x{rng.randrange(999)}"
                               for w in page_b.split()))
    paths = []
    for f in range(3):
        path = tmp_path / f"heavy{f}.jsonl"
        path.write_text("".join(json.dumps({"id": f"d{i}", "text": corpus[i]}) + "\n"
                                for i in range(f, len(corpus), 3)))
        paths.append(path)
    expected = cli_dedup(cli, paths, tmp_path / "cli", "threshold=0.7")
    summary = nray.dedup(paths, output=str(tmp_path / "ray"), threshold=0.7)
    assert canonical(nray.read_clusters(str(tmp_path / "ray"))).equals(canonical(expected))
    sizes = sorted(expected.column("cluster_size").to_pylist())
    assert sizes[-1] >= 300  # the heavy clusters are there
    candidates = next(s["rows"] for s in summary["stages"] if s["stage"] == "candidates")
    assert candidates < 20 * len(corpus), f"{candidates} candidate pairs: quadratic"
