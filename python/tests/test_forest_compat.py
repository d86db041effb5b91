"""neardup.MinHashLSHForest as a drop-in for datasketch's: one seeded script runs against both
with the same MinHash objects (datasketch's and neardup's, every scheme), and every result a
user can observe must be equal — the top-k candidates of each query (as sets: datasketch
returns ``list(set)``), stored values, membership, emptiness, and which calls raise."""

from __future__ import annotations

import inspect
import random

import numpy as np
import pytest

datasketch = pytest.importorskip("datasketch")

import neardup  # noqa: E402

SEED = 20261128


def signatures(scheme, n=240, num_perm=64):
    """Families of near-copies with decreasing overlap, so that top-k answers reach into
    shorter prefixes."""
    rng = random.Random(SEED)
    sets = []
    for f in range(n // 8):
        base = [f"f{f}w{j}" for j in range(60)]
        for c in range(8):
            sets.append([t if rng.random() > 0.06 * c else f"x{rng.randrange(10**6)}" for t in base])
    return neardup.MinHash.bulk([[t.encode() for t in s] for s in sets], num_perm=num_perm,
                                scheme=scheme)


def raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 — the class is the result compared
        return type(e).__name__
    return "ok"


def script(Forest, ms, scheme):
    seen = {}
    forest = Forest(num_perm=64, l=8)
    seen["params"] = (forest.l, forest.k, forest.hashranges)
    seen["empty at start"] = forest.is_empty()
    for i, m in enumerate(ms[:200]):
        forest.add(i, m)
    seen["empty before index"] = forest.is_empty()
    forest.index()
    seen["empty after index"] = forest.is_empty()
    for k in (1, 3, 10, 50):
        seen[f"top {k}"] = [sorted(forest.query(ms[i], k)) for i in range(0, 240, 3)]
    for i in range(200, 240):  # added after the snapshot: found only through old buckets
        forest.add(i, ms[i])
    seen["after late adds"] = [sorted(forest.query(ms[i], 10)) for i in range(190, 240)]
    forest.index()
    seen["after reindex"] = [sorted(forest.query(ms[i], 10)) for i in range(190, 240)]
    seen["values"] = [forest.get_minhash_hashvalues(i).tolist() for i in (0, 17, 239)]
    seen["values dtype"] = str(forest.get_minhash_hashvalues(5).dtype)
    seen["membership"] = [k in forest for k in (0, 239, 240, "x")]
    other = "legacy" if scheme != "legacy" else "affine32"
    seen["errors"] = {
        "k 0": raises(lambda: forest.query(ms[0], 0)),
        "duplicate key": raises(lambda: forest.add(3, ms[3])),
        "short minhash": raises(lambda: forest.add("s", neardup.MinHash(num_perm=32, scheme=scheme))),
        "other scheme": raises(lambda: forest.add("o", neardup.MinHash(num_perm=64, scheme=other))),
        "l > num_perm": raises(lambda: Forest(num_perm=4, l=8)),
        "l 0": raises(lambda: Forest(num_perm=4, l=0)),
        "missing key": raises(lambda: forest.get_minhash_hashvalues("nope")),
    }
    return seen


@pytest.mark.parametrize("scheme", ["affine32", "affine64", "legacy"])
def test_same_results_as_datasketch(scheme):
    print(f"seed {SEED}")
    ms = signatures(scheme)
    theirs = script(datasketch.MinHashLSHForest, ms, scheme)
    ours = script(neardup.MinHashLSHForest, ms, scheme)
    assert ours.keys() == theirs.keys()
    for what in theirs:
        assert ours[what] == theirs[what], what
    # Not vacuous: top-3 chooses 3 of a family of 8, and top-10 gathers whole families,
    # whose most edited members share only short prefixes with the query.
    assert np.mean([len(x) == 3 for x in theirs["top 3"]]) > 0.7
    assert max(len(x) for x in theirs["top 10"]) >= 8
    assert theirs["after late adds"] != theirs["after reindex"]


def test_datasketch_minhash_objects_too():
    rng = random.Random(SEED)
    sets = [[f"w{rng.randrange(500)}".encode() for _ in range(40)] for _ in range(100)]
    theirs = datasketch.MinHash.bulk(sets, num_perm=64)
    results = []
    for Forest in (datasketch.MinHashLSHForest, neardup.MinHashLSHForest):
        forest = Forest(num_perm=64)
        for i, m in enumerate(theirs):
            forest.add(i, m)
        forest.index()
        results.append([sorted(forest.query(m, 5)) for m in theirs])
    assert results[0] == results[1]


def test_a_wrong_prefix_search_is_noticed():
    """The comparison fails when the search is off by one value of prefix."""
    ms = signatures("affine32")
    theirs = script(datasketch.MinHashLSHForest, ms, "affine32")

    class ShortPrefix(neardup.MinHashLSHForest):
        def _prefix_matches(self, minhash, r):
            return super()._prefix_matches(minhash, max(r - 1, 1))

    ours = script(ShortPrefix, ms, "affine32")
    assert any(ours[k] != theirs[k] for k in theirs)


def test_every_public_member_of_datasketch_is_there():
    theirs = datasketch.MinHashLSHForest(num_perm=64)
    ours = neardup.MinHashLSHForest(num_perm=64)
    members = {m for m in dir(theirs) if not m.startswith("_")}
    assert sorted(m for m in members if not hasattr(ours, m)) == []
    for name in members:
        if callable(getattr(theirs, name)):
            want = list(inspect.signature(getattr(theirs, name)).parameters)
            assert list(inspect.signature(getattr(ours, name)).parameters)[:len(want)] == want
    assert repr(ours) == "MinHashLSHForest(num_perm=64, l=8, keys=0)"
