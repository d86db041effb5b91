"""The package gives the CLI's results on the same inputs: the signatures `neardup dedup`
stores, its verified pairs, its clusters, the tuners' JSON and the error messages."""

import json
import subprocess

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import neardup


def run_cli(cli, *args, ok=True):
    p = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def cli_dedup(cli, corpus_file, out, *params):
    args = ["dedup", corpus_file, "--output", out]
    for p in params:
        args += ["--param", p]
    run_cli(cli, *args)
    return out


def test_minhash_equals_the_sketch_stage(cli, corpus_file, texts, tmp_path):
    out = cli_dedup(cli, corpus_file, tmp_path / "out", "k=3", "num_perm=64")
    shard = pq.read_table(out / "stages" / "sketch" / "00000-00000.parquet")
    width = 64
    stored = np.frombuffer(b"".join(shard.column("signature").to_pylist()), dtype="<u4")
    stored = stored.reshape(len(texts), width)
    ours = neardup.minhash(texts, num_perm=64, k=3)
    assert ours.dtype == np.uint32 and ours.shape == (len(texts), width)
    np.testing.assert_array_equal(ours, stored)
    assert shard.column("empty").to_pylist() == [t.strip() == "" for t in texts]


def test_detect_equals_the_verified_pairs(cli, corpus_file, texts, tmp_path):
    out = cli_dedup(cli, corpus_file, tmp_path / "out", "threshold=0.7")
    stored = pq.read_table(out / "stages" / "verify" / "pairs.parquet").to_pydict()
    ours = neardup.detect(texts, "minhash-lsh", threshold=0.7)
    assert [(a, b) for a, b, _ in ours] == list(zip(stored["a"], stored["b"]))
    assert [s for _, _, s in ours] == stored["score"]
    assert len(ours) > 20, "the corpus must plant pairs for this test to mean anything"


def test_dedup_equals_the_cli_on_files_and_tables(cli, corpus_file, texts, tmp_path):
    out = cli_dedup(cli, corpus_file, tmp_path / "cli")
    expected = pq.read_table(out / "clusters.parquet")
    from_file = neardup.dedup(corpus_file, output=tmp_path / "py")
    assert from_file.clusters.equals(expected)
    assert from_file.output == str(tmp_path / "py")
    assert (tmp_path / "py" / "deduplicated.jsonl").read_bytes() == (
        out / "deduplicated.jsonl"
    ).read_bytes()
    table = pa.table({"id": [f"d{i:04d}" for i in range(len(texts))], "text": texts})
    from_table = neardup.dedup(table)
    assert from_table.clusters.equals(expected)
    # Only what a user can use: no temporary directory or file named anywhere.
    assert from_table.output is None and from_table.summary["inputs"] == ["pyarrow.Table"]
    kept = expected.column("kept").to_pylist()
    assert from_table.deduplicated.column("id").to_pylist() == [
        i for i, k in zip(table.column("id").to_pylist(), kept) if k]
    # Exact copies share a cluster.
    clusters = dict(zip(expected.column("id").to_pylist(), expected.column("cluster").to_pylist()))
    by_text = {}
    for i, t in enumerate(texts):
        if t:
            by_text.setdefault(t, []).append(clusters[f"d{i:04d}"])
    copies = [c for c in by_text.values() if len(c) > 1]
    assert copies and all(len(set(c)) == 1 for c in copies)


def test_min_words_equals_the_cli(cli, tmp_path):
    """``min_words`` is ``--min-words``: the same clusters and the same count of short
    documents (four copies of "test", two near copies of a three-word headline)."""
    corpus = tmp_path / "short.jsonl"
    texts = ["test", "Test", "test", "test", "breaking news today", "Breaking news today!"]
    texts += [" ".join(f"w{i * 7 + j}" for j in range(40)) for i in range(5)]
    corpus.write_text("".join(json.dumps({"id": f"s{i}", "text": t}) + "\n"
                              for i, t in enumerate(texts)))
    run_cli(cli, "dedup", corpus, "--output", tmp_path / "cli", "--min-words", "5")
    expected = pq.read_table(tmp_path / "cli" / "clusters.parquet")
    got = neardup.dedup(corpus, output=tmp_path / "py", min_words=5)
    assert got.clusters.equals(expected)
    assert got.summary["short_documents"] == 6
    cluster = dict(zip(expected.column("id").to_pylist(), expected.column("cluster").to_pylist()))
    assert len({cluster[f"s{i}"] for i in range(4)}) == 1
    assert cluster["s4"] != cluster["s5"]


def test_keep_by_a_field_equals_the_cli(cli, tmp_path):
    """``keep="max:date"`` is ``--keep max:date``: each cluster keeps its newest member (dates
    with offsets order by their instant; a member without one comes last)."""
    corpus = tmp_path / "dated.jsonl"
    text = " ".join(f"w{j}" for j in range(40))
    dates = ["2024-03-01T23:30:00-02:00", "2024-03-02T01:00:00Z", None, "2024-03-01"]
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": text, "date": d}) + "\n"
                              for i, d in enumerate(dates)))
    run_cli(cli, "dedup", corpus, "--output", tmp_path / "cli", "--keep", "max:date")
    expected = pq.read_table(tmp_path / "cli" / "clusters.parquet")
    got = neardup.dedup(corpus, output=tmp_path / "py", keep="max:date")
    assert got.clusters.equals(expected)
    kept = [i for i, k in zip(expected.column("id").to_pylist(),
                              expected.column("kept").to_pylist()) if k]
    # 23:30 at UTC-2 is 01:30 UTC on the 2nd: later than 01:00Z.
    assert kept == ["d0"], kept
    assert got.summary["keep"] == "max:date" and got.summary["without_keep_value"] == 1
    with pytest.raises(ValueError, match="max:FIELD"):
        neardup.dedup(corpus, output=tmp_path / "bad", keep="newest")


def test_dedup_from_gzip_with_and_without_the_inflated_copy(cli, corpus_file, tmp_path):
    """A .jsonl.gz input gives the CLI's clusters and lines whether its inflated copy is kept
    (the default) or declined (``inflated_copy=False``, not taken for an algorithm
    parameter), and no copy is left behind."""
    import gzip

    gz = tmp_path / "corpus.jsonl.gz"
    gz.write_bytes(gzip.compress(open(corpus_file, "rb").read()))
    out = cli_dedup(cli, gz, tmp_path / "cli")
    expected = pq.read_table(out / "clusters.parquet")
    for flag in (True, False):
        py = tmp_path / f"py-{flag}"
        assert neardup.dedup(gz, output=py, inflated_copy=flag).clusters.equals(expected)
        assert (py / "deduplicated.jsonl").read_bytes() == (out / "deduplicated.jsonl").read_bytes()
        assert not list((py / "stages" / "sketch").glob("*inflated*"))


def test_dedup_with_an_index_equals_the_cli(cli, corpus_file, texts, tmp_path):
    # The first half indexed, then the second half against it: by the CLI and by Python.
    half = len(texts) // 2
    lines = open(corpus_file, encoding="utf-8").read().splitlines(keepends=True)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text("".join(lines[:half]), encoding="utf-8")
    second.write_text("".join(lines[half:]) + "".join(lines[: half // 4]), encoding="utf-8")
    for who in ("cli", "py"):
        index, a, b = tmp_path / f"{who}-index", tmp_path / f"{who}-a", tmp_path / f"{who}-b"
        if who == "cli":
            run_cli(cli, "dedup", first, "--output", a, "--index", index)
            run_cli(cli, "dedup", second, "--output", b, "--index", index)
            cli_b = pq.read_table(b / "clusters.parquet")
        else:
            neardup.dedup(first, output=a, index=index)
            py_b = neardup.dedup(second, output=b, index=index)
    assert py_b.clusters.equals(cli_b)
    summary = json.loads((tmp_path / "py-b" / "summary.json").read_text())
    # The index holds the documents the first batch kept.
    first_run = json.loads((tmp_path / "py-a" / "summary.json").read_text())
    assert summary["indexed_documents"] == first_run["kept"]
    # The copies of indexed lines are duplicates of the index.
    assert summary["duplicates_of_index"] >= half // 8


def test_tuners_equal_the_cli_json(cli):
    lsh = json.loads(run_cli(cli, "lsh", "tune", "--threshold", 0.75, "--num-perm", 200,
                             "--format", "json").stdout)
    assert neardup.lsh_tune(0.75, 200) == lsh
    ham = json.loads(run_cli(cli, "hamming", "tune", "--bits", 64, "--distance", 4,
                             "--fingerprints", 2**30, "--memory", 10**12,
                             "--format", "json").stdout)
    assert neardup.hamming_designs(64, 4, 2**30, memory=10**12) == ham


def cli_error(cli, *args):
    p = run_cli(cli, *args, ok=False)
    assert p.returncode != 0
    prefix = "neardup: error: "
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith(prefix), p.stderr
    return line[len(prefix):]


def test_errors_carry_the_cli_messages(cli, corpus_file, tmp_path):
    message = cli_error(cli, "dedup", corpus_file, "-o", tmp_path / "a", "--param", "num_perm=0")
    with pytest.raises(ValueError) as e:
        neardup.minhash(["some text"], num_perm=0)
    assert str(e.value) == message
    with pytest.raises(ValueError) as e:
        neardup.dedup(corpus_file, output=tmp_path / "b", num_perm=0)
    assert str(e.value) == message

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "fine"}\n{"id": "b", "text": \n')
    message = cli_error(cli, "dedup", bad, "-o", tmp_path / "c")
    assert "bad.jsonl:2" in message
    with pytest.raises(ValueError) as e:
        neardup.dedup(bad, output=tmp_path / "d")
    assert str(e.value) == message.replace(str(tmp_path / "c"), str(tmp_path / "d"))
    assert not (tmp_path / "d" / "clusters.parquet").exists()

    with pytest.raises(OSError) as e:
        neardup.dedup(tmp_path / "missing.jsonl", output=tmp_path / "e")
    assert "missing.jsonl" in str(e.value)


def test_dedup_progress_only_when_asked(corpus_file, tmp_path, capfd):
    neardup.dedup(corpus_file, output=tmp_path / "quiet")
    assert capfd.readouterr().err == ""
    neardup.dedup(corpus_file, output=tmp_path / "shown", progress=True)
    assert "neardup: sketched" in capfd.readouterr().err


def test_max_pairs_is_the_pair_limit_of_one_call(corpus_file, tmp_path):
    """``max_pairs=`` is ``neardup dedup --max-pairs`` for that call only: a limit of 1 stops
    the join with the CLI's message, and the next call has the default again."""
    with pytest.raises(ValueError, match="more than the limit of 1 "):
        neardup.dedup(corpus_file, output=tmp_path / "limited", max_pairs=1)
    with pytest.raises(ValueError, match="max_pairs must be at least 1"):
        neardup.dedup(corpus_file, output=tmp_path / "zero", max_pairs=0)
    assert neardup.dedup(corpus_file, output=tmp_path / "default").summary["removed"] > 0


def test_a_heavy_cluster_runs_at_the_default_limit(tmp_path):
    """3,000 copies of one page (4.5 million pairs, 13 bands of them) run at the default pair
    limit and are one cluster."""
    page = " ".join(f"page{i}" for i in range(60))
    table = pa.table({"id": [f"c{i}" for i in range(3000)], "text": [page] * 3000})
    result = neardup.dedup(table)
    assert result.summary["removed"] == 2999
    assert result.pairs.num_rows < 3000
