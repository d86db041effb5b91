"""neardup.MinHashLSH as a drop-in for datasketch's: one seeded script runs against
``datasketch.MinHashLSH`` and against ``neardup.MinHashLSH`` with the same datasketch ``MinHash``
objects, and every public result must be equal — candidates of each query, bucket counts,
membership, the keys mapping, after sessions, removal, merging, the query buffer and
pickling, and which calls raise ``ValueError``."""

from __future__ import annotations

import inspect
import pickle
import random

import numpy as np
import pytest

datasketch = pytest.importorskip("datasketch")

import neardup  # noqa: E402
from neardup.lsh import MinHashLSH as NeardupLSH  # noqa: E402

SEED = 20261125
NUM_PERM = 128


def corpus(seed: int = SEED, families: int = 60, size: int = 5):
    """Token sets in families of near-copies (about 30 % of tokens swapped), so that
    candidates are neither empty nor everything."""
    rng = random.Random(seed)
    sets = []
    for f in range(families):
        base = [f"w{rng.randrange(4000)}" for _ in range(40)]
        for _ in range(size):
            copy = [t if rng.random() > 0.3 else f"w{rng.randrange(4000)}" for t in base]
            sets.append(copy)
    return sets


def minhashes(sets, **kwargs):
    out = []
    for tokens in sets:
        m = datasketch.MinHash(num_perm=NUM_PERM, **kwargs)
        m.update_batch([t.encode() for t in tokens])
        out.append(m)
    return out


def raises(fn) -> str:
    """The exception class a call raises, or "ok"."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 — the class is the result compared
        return type(e).__name__
    return "ok"


def queries(lsh, ms, keys):
    return {k: sorted(lsh.query(ms[k])) for k in keys}


def script(MinHashLSH, ms):
    """Every public operation of datasketch's MinHashLSH; returns what a user can observe."""
    seen = {}
    lsh = MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    seen["params"] = (lsh.b, lsh.r, lsh.h, list(lsh.hashranges))
    seen["empty at start"] = lsh.is_empty()
    with lsh.insertion_session(buffer_size=64) as session:
        for i in range(200):
            session.insert(i, ms[i])
    for i in range(200, 260):
        lsh.insert(i, ms[i])
    seen["after inserts"] = queries(lsh, ms, range(0, 300, 7))
    seen["counts"] = lsh.get_counts()
    seen["subset counts"] = lsh.get_subset_counts(0, 1, 2, 5, 999)
    seen["keys"] = sorted(lsh.keys)
    seen["bucket keys of 3"] = list(lsh.keys[3])
    seen["membership"] = [k in lsh for k in (0, 199, 259, 260, "x")]
    seen["duplicate insert"] = raises(lambda: lsh.insert(5, ms[5]))
    seen["remove missing"] = raises(lambda: lsh.remove(1000))
    seen["wrong length"] = raises(lambda: lsh.insert(
        "short", datasketch.MinHash(num_perm=NUM_PERM // 2)))
    for i in range(0, 60, 3):
        lsh.remove(i)
    with lsh.deletion_session(buffer_size=8) as session:
        for i in range(100, 140):
            session.remove(i)
    seen["after removals"] = queries(lsh, ms, range(0, 300, 5))
    seen["counts after removals"] = lsh.get_counts()
    seen["not empty"] = lsh.is_empty()

    # Two queries that find each other's keys, then one of them with an unrelated query.
    k = next(k for k in range(200, 260) if len(lsh.query(ms[k])) >= 2)
    j = next(j for j in sorted(lsh.query(ms[k])) if j != k)
    lsh.add_to_query_buffer(ms[k])
    lsh.add_to_query_buffer(ms[j])
    seen["query buffer"] = sorted(lsh.collect_query_buffer())
    seen["query buffer emptied"] = sorted(lsh.collect_query_buffer())
    lsh.add_to_query_buffer(ms[k])
    lsh.add_to_query_buffer(ms[(k + 100) % 300])
    seen["query buffer, unrelated queries"] = sorted(lsh.collect_query_buffer())

    restored = pickle.loads(pickle.dumps(lsh))
    seen["pickled"] = queries(restored, ms, range(0, 300, 5))
    seen["pickled counts"] = restored.get_counts()
    seen["pickled params"] = (restored.b, restored.r, restored.h, sorted(restored.keys))

    other = MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    for i in range(260, 300):
        other.insert(i, ms[i])
    other.insert(0, ms[0])  # removed from lsh above, so no overlap
    lsh.merge(other)
    seen["merged"] = queries(lsh, ms, range(0, 300, 5))
    seen["merged counts"] = lsh.get_counts()
    seen["merge overlap checked"] = raises(lambda: lsh.merge(other, check_overlap=True))
    seen["merge other banding"] = raises(
        lambda: lsh.merge(MinHashLSH(threshold=0.9, num_perm=NUM_PERM)))
    seen["merge other num_perm"] = raises(
        lambda: lsh.merge(MinHashLSH(threshold=0.5, num_perm=64)))
    seen["bad threshold"] = raises(lambda: MinHashLSH(threshold=1.5))
    seen["bad weights"] = raises(lambda: MinHashLSH(weights=(0.5, 0.6)))
    seen["bad params"] = raises(lambda: MinHashLSH(num_perm=16, params=(5, 5)))
    seen["one band"] = raises(lambda: MinHashLSH(num_perm=16, params=(1, 16)))
    return seen


def test_same_results_as_datasketch():
    print(f"seed {SEED}")
    ms = minhashes(corpus())
    theirs = script(datasketch.MinHashLSH, ms)
    ours = script(neardup.MinHashLSH, ms)
    assert ours.keys() == theirs.keys()
    for what in theirs:
        assert ours[what] == theirs[what], what
    # The script is not vacuous: queries find near-copies beyond themselves, not everything.
    sizes = [len(v) for v in theirs["after inserts"].values()]
    assert 1 < np.mean(sizes) < 20
    assert len(theirs["query buffer"]) >= 2 and theirs["query buffer emptied"] == []
    assert theirs["duplicate insert"] == "ValueError" and theirs["merge other banding"] == "ValueError"


@pytest.mark.parametrize("scheme", ["affine64", "legacy"])
def test_same_results_for_64_bit_schemes(scheme):
    """uint64 values are banded as pairs of words: the candidates and bucket keys are still
    datasketch's."""
    ms = minhashes(corpus(families=20), scheme=scheme)
    results = []
    for MinHashLSH in (datasketch.MinHashLSH, neardup.MinHashLSH):
        lsh = MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
        for i, m in enumerate(ms):
            lsh.insert(i, m)
        results.append((queries(lsh, ms, range(len(ms))), lsh.get_counts(), list(lsh.keys[7])))
    assert results[0] == results[1]


def test_weighted_minhash_same_results():
    rng = np.random.default_rng(SEED)
    gen = datasketch.WeightedMinHashGenerator(50, sample_size=NUM_PERM, seed=1)
    base = rng.random((20, 50))
    vectors = np.concatenate([base, base + rng.random((20, 50)) * 0.1])
    wms = [gen.minhash(v) for v in vectors]
    results = []
    for MinHashLSH in (datasketch.MinHashLSH, neardup.MinHashLSH):
        lsh = MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
        for i, m in enumerate(wms):
            lsh.insert(i, m)
        results.append((queries(lsh, wms, range(len(wms))), lsh.get_counts()))
    assert results[0] == results[1]
    assert any(len(v) > 1 for v in results[0][0].values())


def test_every_public_member_of_datasketch_is_there():
    """The drop-in keeps datasketch's public surface (``hashtables``, its internal storage,
    is the documented exception) and the docstring's table names every member."""
    probe = datasketch.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    members = {m for m in dir(probe) if not m.startswith("_")} - {"hashtables"}
    ours = neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    assert sorted(m for m in members if not hasattr(ours, m)) == []
    table = inspect.getmodule(NeardupLSH).__doc__
    assert sorted(m for m in members | {"hashtables"} if f"``{m}" not in table) == []
    for name in ("insert", "query", "merge", "insertion_session", "get_subset_counts"):
        theirs = list(inspect.signature(getattr(probe, name)).parameters)
        assert list(inspect.signature(getattr(ours, name)).parameters)[:len(theirs)] == theirs


def test_mixed_signature_spaces_are_refused():
    ms = minhashes(corpus(families=2))
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    lsh.insert("m", ms[0])
    with pytest.raises(ValueError, match="cannot mix neardup text signatures"):
        lsh.insert("t", "a text sketched by neardup")
    with pytest.raises(ValueError, match="cannot mix array signatures"):
        lsh.query(np.asarray(ms[0].hashvalues))
    other_seed = minhashes(corpus(families=1), seed=2)[0]
    with pytest.raises(ValueError, match="seed"):
        lsh.query(other_seed)
    other_scheme = minhashes(corpus(families=1), scheme="legacy")[0]
    with pytest.raises(ValueError, match="legacy"):
        lsh.insert("legacy", other_scheme)
    texts = neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM, k=3)
    texts.insert("t", "a text sketched by neardup")
    with pytest.raises(ValueError, match="k"):
        texts.merge(_with_text(neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM, k=4)))
    assert lsh.query(ms[0]) == ["m"] and len(lsh) == 1


def _with_text(lsh):
    lsh.insert("u", "another text sketched by neardup")
    return lsh


def test_pickle_is_versioned():
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM, k=3)
    lsh.insert("a", "the cat sat on the mat")
    state = lsh.__getstate__()
    assert (state["format"], state["version"]) == ("neardup.MinHashLSH", 1)
    restored = pickle.loads(pickle.dumps(lsh))
    assert restored.query("the cat sat on the mat") == ["a"]
    restored.insert("b", "the cat sat on the mat")  # a restored index keeps growing
    assert restored.query("the cat sat on the mat") == ["a", "b"]
    with pytest.raises(ValueError, match="format version 2; neardup .* reads version 1"):
        neardup.MinHashLSH.__new__(neardup.MinHashLSH).__setstate__(dict(state, version=2))
    with pytest.raises(ValueError, match="not a pickled neardup.MinHashLSH"):
        neardup.MinHashLSH.__new__(neardup.MinHashLSH).__setstate__({"b": 1})


def test_storage_other_than_memory_is_refused():
    with pytest.raises(NotImplementedError, match="in memory"):
        neardup.MinHashLSH(storage_config={"type": "redis", "redis": {}})
