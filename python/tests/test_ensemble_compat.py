"""neardup.MinHashLSHEnsemble as a drop-in for datasketch's: one seeded script runs against
both with the same MinHash objects, and what a user observes must be equal — the banding
table over size ratios (datasketch integrates with scipy's QUADPACK, neardup with adaptive
Simpson in Rust: the chosen (b, r) must still agree), the size partitions, each query's keys
(as sets: datasketch's come from sets), membership, emptiness and which calls raise."""

from __future__ import annotations

import inspect
import random
from collections import Counter

import numpy as np
import pytest

datasketch = pytest.importorskip("datasketch")

import neardup  # noqa: E402

SEED = 20261128


def domains(n=160, vocabulary=3000):
    """Sets of 5 to 400 tokens; each query is a subset of one of them plus some noise."""
    rng = random.Random(SEED)
    sets = []
    for _ in range(n):
        size = int(np.exp(rng.uniform(np.log(5), np.log(400))))
        sets.append(set(rng.sample(range(vocabulary), size)))
    queries = []
    for i in range(0, n, 4):
        base = sorted(sets[i])
        part = set(rng.sample(base, max(1, len(base) // 2)))
        part |= set(rng.sample(range(vocabulary, vocabulary + 100), rng.randrange(0, 3)))
        queries.append(part)
    return sets, queries


def minhash(tokens):
    m = neardup.MinHash(num_perm=128)
    m.update_batch([str(t).encode() for t in tokens])
    return m


def raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 — the class is the result compared
        return type(e).__name__
    return "ok"


def script(Ensemble, sets, queries, threshold, num_part, **options):
    seen = {}
    ms = [minhash(s) for s in sets]
    qs = [minhash(q) for q in queries]
    lsh = Ensemble(threshold=threshold, num_perm=128, num_part=num_part, **options)
    seen["bandings"] = [tuple(int(v) for v in p) for p in lsh.params]
    seen["empty"] = lsh.is_empty()
    lsh.index([(i, m, len(s)) for i, (m, s) in enumerate(zip(ms, sets))])
    seen["partitions"] = [(None if lo is None else int(lo), None if hi is None else int(hi))
                          for lo, hi in zip(lsh.lowers, lsh.uppers)]
    seen["queries"] = [sorted(lsh.query(q, len(query))) for q, query in zip(qs, queries)]
    seen["membership"] = [k in lsh for k in (0, 159, 160)]
    seen["not empty"] = lsh.is_empty()
    seen["errors"] = {
        "index twice": raises(lambda: lsh.index([("x", ms[0], 3)])),
        "threshold": raises(lambda: Ensemble(threshold=1.5)),
        "m": raises(lambda: Ensemble(m=1)),
        "weights": raises(lambda: Ensemble(weights=(0.3, 0.3))),
        "empty entries": raises(lambda: Ensemble(num_part=2).index([])),
        "size 0": raises(lambda: Ensemble(num_part=2).index(iter([("a", ms[0], 0)]))),
        "duplicate key": raises(lambda: Ensemble(num_part=2).index([("a", ms[0], 3),
                                                                     ("a", ms[1], 3)])),
    }
    return seen


@pytest.mark.parametrize("threshold,num_part", [(0.5, 8), (0.8, 4), (0.3, 16), (0.9, 1)])
def test_same_results_as_datasketch(threshold, num_part):
    print(f"seed {SEED}")
    sets, queries = domains()
    theirs = script(datasketch.MinHashLSHEnsemble, sets, queries, threshold, num_part)
    ours = script(neardup.MinHashLSHEnsemble, sets, queries, threshold, num_part,
                  partitioning="datasketch")
    assert ours.keys() == theirs.keys()
    for what in theirs:
        assert ours[what] == theirs[what], what
    # Not vacuous: the query's source set is found (nearly always with several partitions;
    # one partition bands for its largest size and misses small sources), not everything is.
    found = [i * 4 in q for i, q in enumerate(theirs["queries"])]
    assert np.mean(found) > (0.9 if num_part > 1 else 0.25)
    assert np.mean([len(q) for q in theirs["queries"]]) < 40


def expected_false_positives(sets, partitions):
    """Σ over partitions of Σ (upper − x)/upper · n_x: the objective the cut minimizes."""
    sizes = Counter(len(s) for s in sets)
    return sum((hi - x) / hi * n for lo, hi in partitions if hi is not None
               for x, n in sizes.items() if lo <= x <= hi)


@pytest.mark.parametrize("num_part", [2, 4, 8, 16])
def test_the_default_cut_is_never_worse_than_datasketchs(num_part):
    """datasketch 2.0 reads its cut back from the wrong row of its cost table; neardup's
    default cut has at most its expected false positives (here strictly fewer for some
    partition counts) and the same bandings, and its queries still find the sources."""
    sets, queries = domains()
    theirs = script(datasketch.MinHashLSHEnsemble, sets, queries, 0.5, num_part)
    ours = script(neardup.MinHashLSHEnsemble, sets, queries, 0.5, num_part)
    mine, datasketchs = (expected_false_positives(sets, r["partitions"]) for r in (ours, theirs))
    print(f"num_part {num_part}: expected false positives {mine:.2f} (neardup), "
          f"{datasketchs:.2f} (datasketch)")
    assert mine <= datasketchs + 1e-9
    assert ours["bandings"] == theirs["bandings"]
    assert np.mean([i * 4 in q for i, q in enumerate(ours["queries"])]) > 0.9
    if num_part == 8:
        assert mine < datasketchs  # the difference is real on this corpus


def test_every_public_member_of_datasketch_is_there():
    theirs = datasketch.MinHashLSHEnsemble(num_perm=32, m=4)
    ours = neardup.MinHashLSHEnsemble(num_perm=32, m=4)
    members = {m for m in dir(theirs) if not m.startswith("_")}
    assert sorted(m for m in members if not hasattr(ours, m)) == []
    for name in ("index", "query"):
        want = list(inspect.signature(getattr(theirs, name)).parameters)
        assert list(inspect.signature(getattr(ours, name)).parameters)[:len(want)] == want
    assert repr(ours).startswith("MinHashLSHEnsemble(threshold=0.9, num_perm=32")


def test_a_wrong_banding_is_noticed():
    """The comparison fails when a query is banded for another size ratio."""
    sets, queries = domains()
    theirs = script(datasketch.MinHashLSHEnsemble, sets, queries, 0.5, 8)

    class OffByOne(neardup.MinHashLSHEnsemble):
        def _banding_for(self, upper, size):
            return super()._banding_for(upper * 3, size)

    ours = script(OffByOne, sets, queries, 0.5, 8, partitioning="datasketch")
    assert ours["queries"] != theirs["queries"]
