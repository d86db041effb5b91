"""neardup.dedup and neardup.detect on what users hold in memory — a list of str, a list of
dicts, a pandas or polars DataFrame, a pyarrow Table or RecordBatchReader — give the same
clusters as the same records in a JSONL file, and the kept rows come back in the kind of
object given. Strings that are neither texts nor paths are refused saying what is expected."""

from __future__ import annotations

import json
import random

import pyarrow as pa
import pytest

import neardup

SEED = 20261128


def records(n: int = 120):
    """Families of near-copies (one word changed) and unrelated texts, with ids and scores."""
    rng = random.Random(SEED)
    out = []
    for i in range(n):
        family = i % 40
        words = [f"w{family}x{j}" for j in range(30)]
        if i >= 40:
            words[rng.randrange(30)] = f"edit{i}"
        out.append({"id": f"d{i:03d}", "text": " ".join(words), "score": i})
    rng.shuffle(out)
    return out


@pytest.fixture(scope="module")
def from_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("jsonl") / "docs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records()), encoding="utf-8")
    result = neardup.dedup(str(path), threshold=0.7)
    kept = [r["id"] for r, k in zip(records(), result.clusters.column("kept").to_pylist()) if k]
    assert 0 < result.summary["removed"] < 120  # not vacuous
    return result, kept


def kept_ids(result):
    return [i for i, k in zip(result.clusters.column("id").to_pylist(),
                              result.clusters.column("kept").to_pylist()) if k]


def test_list_of_dicts(from_file):
    data = records()
    result = neardup.dedup(data, threshold=0.7)
    assert kept_ids(result) == from_file[1]
    assert [r["id"] for r in result.deduplicated] == from_file[1]
    assert all(any(r is d for d in data) for r in result.deduplicated)  # the user's own dicts
    assert result.summary["inputs"] == ["list of dicts"]


def test_list_of_str_is_texts(from_file):
    texts = [r["text"] for r in records()]
    result = neardup.dedup(texts, threshold=0.7)
    by_text = {r["text"]: r["id"] for r in records()}
    assert [by_text[t] for t in result.deduplicated] == from_file[1]
    assert kept_ids(result)[:3] == [str(i) for i, k in enumerate(
        result.clusters.column("kept").to_pylist()) if k][:3]  # ids are row numbers
    assert result.summary["inputs"] == ["list of str"]


def test_pandas_dataframe_keeps_its_index(from_file):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(records()).set_axis(range(1000, 1120))
    result = neardup.dedup(df, threshold=0.7)
    assert isinstance(result.deduplicated, pd.DataFrame)
    assert list(result.deduplicated["id"]) == from_file[1]
    assert set(result.deduplicated.index) <= set(range(1000, 1120))
    assert neardup.detect(df, "minhash-lsh", threshold=0.7) == neardup.detect(
        list(df["text"]), "minhash-lsh", threshold=0.7)


def test_polars_dataframe(from_file):
    pl = pytest.importorskip("polars")
    df = pl.DataFrame(records())
    result = neardup.dedup(df, threshold=0.7)
    assert isinstance(result.deduplicated, pl.DataFrame)
    assert result.deduplicated["id"].to_list() == from_file[1]


def test_pyarrow_table_and_reader(from_file):
    table = pa.Table.from_pylist(records())
    assert neardup.dedup(table, threshold=0.7).deduplicated.column("id").to_pylist() == from_file[1]
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=7))
    result = neardup.dedup(reader, threshold=0.7)
    assert isinstance(result.deduplicated, pa.RecordBatchReader)
    assert result.deduplicated.read_all().column("id").to_pylist() == from_file[1]
    pairs = neardup.detect(table, threshold=0.7)
    assert pairs == neardup.detect([r["text"] for r in records()], threshold=0.7) and pairs


def test_text_field_is_the_clis_name(from_file):
    data = [{"body": r["text"], "key": r["id"]} for r in records()]
    result = neardup.dedup(data, text_field="body", id_field="key", threshold=0.7)
    assert kept_ids(result) == from_file[1]
    with pytest.raises(ValueError, match="no column 'text'.*body, key"):
        neardup.dedup(data)


def test_strings_that_are_not_paths_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="neither an existing file .* nor a glob.*a list of str"):
        neardup.dedup("the quick brown fox")
    with pytest.raises(FileNotFoundError, match="matches no file"):
        neardup.dedup(str(tmp_path / "*.jsonl"))
    (tmp_path / "a.jsonl").write_text('{"text": "x"}\n')
    with pytest.raises(ValueError, match="some strings name files"):
        neardup.dedup([str(tmp_path / "a.jsonl"), "a text, not a file"])
    with pytest.raises(TypeError, match="not int"):
        neardup.dedup(3)
    with pytest.raises(ValueError, match="empty list"):
        neardup.dedup([])
    with pytest.raises(TypeError, match="a list of int and str"):
        neardup.dedup(["a", 1])


def test_a_list_of_paths_is_still_paths(tmp_path, from_file):
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records()), encoding="utf-8")
    result = neardup.dedup([str(path)], threshold=0.7)
    assert kept_ids(result) == from_file[1] and result.deduplicated is None


def test_progress_names_what_the_user_gave(capfd):
    neardup.dedup([r["text"] for r in records()], progress=True, threshold=0.7)
    err = capfd.readouterr().err
    assert "neardup: reading a list of str of 120 rows" in err
    assert "list-of-str.parquet" in err  # the sketch line names the temporary file by kind


def test_reprs_are_short():
    result = neardup.dedup(records(), threshold=0.7)
    text = repr(result)
    assert text.startswith("DedupResult(documents=120, removed=") and len(text) < 200
    assert "deduplicated=<builtins.list of" in text
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=128)
    assert repr(lsh) == "MinHashLSH(threshold=0.5, num_perm=128, b=25, r=5, keys=0)"
    public = [n for n in dir(neardup) if not n.startswith("_")]
    assert public == sorted(neardup.__all__), public
    assert all(hasattr(neardup, name) for name in neardup.__all__)
