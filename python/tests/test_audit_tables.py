"""`neardup dedup`'s audit tables (``clusters.parquet``, ``pairs.parquet``) are read by the
tools people use: pyarrow, pandas and duckdb, with plain ``string`` ids (not Arrow's
``string_view``), and say the same things: every removed document names the kept document
it was removed for, within the threshold, with a pair between them."""

import json
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq


def dedup(cli, corpus_file, out, *extra):
    subprocess.run([cli, "dedup", str(corpus_file), "-o", str(out), "--param", "threshold=0.7",
                    *extra], check=True, capture_output=True)
    return out


def test_tables_read_with_pyarrow_pandas_and_duckdb(cli, corpus_file, tmp_path):
    import duckdb

    out = dedup(cli, corpus_file, tmp_path / "out")
    clusters = pq.read_table(out / "clusters.parquet")
    assert clusters.schema.field("id").type == pa.string()
    assert clusters.schema.field("representative").type == pa.string()
    assert clusters.schema.names == ["id", "cluster", "cluster_size", "kept", "representative",
                                     "similarity_to_representative"]
    pairs = pq.read_table(out / "pairs.parquet")
    assert pairs.schema.names == ["id_a", "id_b", "similarity", "stage"]
    assert pairs.schema.field("id_a").type == pa.string()

    frame = clusters.to_pandas()
    removed = frame[~frame.kept]
    assert len(removed) > 10, "the corpus plants near duplicates"
    assert (removed.similarity_to_representative >= 0.7).all()
    assert (frame[frame.kept].representative == frame[frame.kept].id).all()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cluster_mode"] == "verified"
    assert summary["removed"] == len(removed)
    assert summary["removed_below_threshold"] == 0

    # duckdb: every removed document has a pair with its representative.
    con = duckdb.connect()
    unmatched = con.execute(f"""
        select c.id from read_parquet('{out / "clusters.parquet"}') c
        where not c.kept and not exists (
            select 1 from read_parquet('{out / "pairs.parquet"}') p
            where (p.id_a = c.id and p.id_b = c.representative)
               or (p.id_b = c.id and p.id_a = c.representative))
    """).fetchall()
    assert unmatched == []
    count, = con.execute(
        f"select count(*) from read_parquet('{out / 'pairs.parquet'}') where stage = 'verify'"
    ).fetchone()
    assert count == summary["pairs"]


def test_csv_and_jsonl_tables_hold_the_same_rows(cli, corpus_file, tmp_path):
    import pandas as pd

    parquet = pq.read_table(dedup(cli, corpus_file, tmp_path / "p") / "clusters.parquet")
    csv = pd.read_csv(dedup(cli, corpus_file, tmp_path / "c", "--clusters-format", "csv")
                      / "clusters.csv", dtype={"id": str, "representative": str})
    jsonl = pd.read_json(dedup(cli, corpus_file, tmp_path / "j", "--clusters-format", "jsonl")
                         / "clusters.jsonl", lines=True, dtype={"id": str, "representative": str})
    want = parquet.to_pandas()
    for got in (csv, jsonl):
        assert list(got.id) == list(want.id)
        assert list(got.representative) == list(want.representative)
        assert list(got.kept) == list(want.kept)
        assert list(got.similarity_to_representative.round(9)) == list(
            want.similarity_to_representative.round(9))
