"""``MinHashLSHEnsemble``: datasketch's containment index (Zhu, Nargesian, Pu and Miller, "LSH
Ensemble: Internet-Scale Domain Search", VLDB 2016), public API and results.

Containment of a query Q in an indexed set X, |Q ∩ X| / |Q|, is searched with MinHash by
(§4) splitting the indexed sets into ``num_part`` partitions by size — the cut that minimizes
the expected false positives, by dynamic programming over the distinct sizes — and (§5.1)
banding each partition for the query at hand: for the partition's largest size ``u`` and the
query's size ``q``, the (b, r) of least weighted false-positive and false-negative area over
containment at the size ratio ``u / q`` (taken from a table over ten ratios e^-5 … e^5, as
datasketch does). Both optimizations run in Rust (``neardup::minhash::containment``, adaptive
Simpson quadrature where datasketch calls scipy's QUADPACK; the tests check that both choose
the same (b, r)).

Where neardup differs on purpose: datasketch 2.0's partitioning reconstructs its cut from the
wrong row of its cost table (the prefix is charged one partition too many), so its partitions
are not the optimum of its own objective — on 160 sets of 5–400 tokens they carry 8–22 % more
expected false positives (``python/tests/test_ensemble_compat.py``). neardup cuts at the optimum
by default (checked against every possible cut in ``containment.rs``); ``partitioning=
"datasketch"`` reproduces datasketch's cut, and then every query's keys equal datasketch's.

Each partition keeps, for every ``r`` the table uses, ``num_perm // r`` bands of ``r`` values,
bucketed by the bytes of the values; a query looks up its first ``b`` bands in the partition's
``r``-index. Results are those of datasketch (``query`` yields the same keys; in another order
within a partition, as datasketch's come from a set).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Dict, Hashable, Iterable, Iterator, List, Optional, Tuple

import numpy as np

from . import _native

__all__ = ["MinHashLSHEnsemble"]


class _Bands:
    """``num_perm // r`` bands of ``r`` values, each a dict: the values' bytes → keys."""

    def __init__(self, num_perm: int, r: int) -> None:
        self.h, self.r = num_perm, r
        self.tables: List[Dict[bytes, List[Hashable]]] = [{} for _ in range(num_perm // r)]
        self.keys: Dict[Hashable, None] = {}

    def _band_bytes(self, minhash: Any, b: int) -> List[bytes]:
        if len(minhash) != self.h:
            raise ValueError("Expecting minhash with length %d, got %d" % (self.h, len(minhash)))
        raw = np.ascontiguousarray(minhash.hashvalues).tobytes()
        width = len(raw) // self.h * self.r
        return [raw[i * width:(i + 1) * width] for i in range(b)]

    def insert(self, key: Hashable, minhash: Any) -> None:
        if key in self.keys:
            raise ValueError("The given key already exists")
        for table, band in zip(self.tables, self._band_bytes(minhash, len(self.tables))):
            table.setdefault(band, []).append(key)
        self.keys[key] = None

    def query(self, minhash: Any, b: int) -> Dict[Hashable, None]:
        if b > len(self.tables):
            raise ValueError("b must be less or equal to the number of hash tables")
        found: Dict[Hashable, None] = {}
        for table, band in zip(self.tables, self._band_bytes(minhash, b)):
            for key in table.get(band, ()):
                found[key] = None
        return found


class MinHashLSHEnsemble:
    """datasketch's ``MinHashLSHEnsemble(threshold=0.9, num_perm=128, num_part=16, m=8,
    weights=(0.5, 0.5))``: ``index(entries)`` once with ``(key, minhash, size)`` entries, then
    ``query(minhash, size)`` yields the keys whose sets may contain at least ``threshold`` of
    the query's. ``storage_config`` other than in-memory is ``NotImplementedError``.
    ``partitioning``: ``"optimal"`` (the default: the least expected false positives) or
    ``"datasketch"`` (datasketch 2.0's cut, for identical results)."""

    def __init__(self, threshold: float = 0.9, num_perm: int = 128, num_part: int = 16,
                 m: int = 8, weights: Tuple[float, float] = (0.5, 0.5),
                 storage_config: Optional[dict] = None, prepickle: Optional[bool] = None,
                 partitioning: str = "optimal") -> None:
        if threshold > 1.0 or threshold < 0.0:
            raise ValueError("threshold must be in [0.0, 1.0]")
        if num_perm < 2:
            raise ValueError("Too few permutation functions")
        if num_part < 1:
            raise ValueError("num_part must be at least 1")
        if m < 2 or m > num_perm:
            raise ValueError("m must be in the range of [2, num_perm]")
        if any(w < 0.0 or w > 1.0 for w in weights):
            raise ValueError("Weight must be in [0.0, 1.0]")
        if sum(weights) != 1.0:
            raise ValueError("Weights must sum to 1.0")
        if partitioning not in ("optimal", "datasketch"):
            raise ValueError("partitioning must be 'optimal' or 'datasketch', not %r"
                             % (partitioning,))
        self._partitioning = partitioning
        if storage_config and storage_config.get("type", "dict") != "dict":
            raise NotImplementedError("neardup's MinHashLSHEnsemble keeps its index in memory")
        self.threshold = threshold
        self.h = num_perm
        self.m = m
        self.xqs = np.exp(np.linspace(-5, 5, 10))
        bandings = _native.containment_bandings(float(threshold), int(num_perm), int(m),
                                                [float(x) for x in self.xqs],
                                                (float(weights[0]), float(weights[1])))
        self.params = np.array(bandings, dtype=int)
        rs = sorted({r for _, r in bandings})
        self.indexes = [{r: _Bands(num_perm, r) for r in rs} for _ in range(num_part)]
        self.lowers: List[Optional[int]] = [None for _ in self.indexes]
        self.uppers: List[Optional[int]] = [None for _ in self.indexes]

    def __repr__(self) -> str:
        keys = sum(len(next(iter(p.values())).keys) for p in self.indexes if p)
        return (f"MinHashLSHEnsemble(threshold={self.threshold}, num_perm={self.h}, "
                f"num_part={len(self.indexes)}, m={self.m}, keys={keys})")

    def _banding_for(self, upper: int, size: int) -> Tuple[int, int]:
        i = int(np.searchsorted(self.xqs, float(upper) / float(size), side="left"))
        return tuple(self.params[min(i, len(self.params) - 1)])  # type: ignore[return-value]

    def index(self, entries: Iterable[Tuple[Hashable, Any, int]]) -> None:
        """Indexes ``(key, minhash, size)`` entries, once: the partitions are cut for their
        sizes."""
        if not self.is_empty():
            raise ValueError("Cannot call index again on a non-empty index")
        if not isinstance(entries, list):
            checked = []
            for key, minhash, size in entries:
                if size <= 0:
                    raise ValueError("Set size must be positive")
                checked.append((key, minhash, size))
            entries = checked
        if len(entries) == 0:
            raise ValueError("entries is empty")
        counted = sorted(Counter(e[2] for e in entries).items())
        sizes = [int(s) for s, _ in counted]
        counts = [int(c) for _, c in counted]
        if self._partitioning == "datasketch":
            partitions = _datasketch_partitions(sizes, counts, len(self.indexes))
        else:
            partitions = _native.containment_partitions(sizes, counts, len(self.indexes))
        for i, (lower, upper) in enumerate(partitions):
            self.lowers[i], self.uppers[i] = lower, upper
        part = 0
        for key, minhash, size in sorted(entries, key=lambda e: e[2]):
            if size > self.uppers[part]:
                part += 1
            for bands in self.indexes[part].values():
                bands.insert(key, minhash)

    def query(self, minhash: Any, size: int) -> Iterator[Hashable]:
        """Yields the keys of indexed sets that may contain ``threshold`` of the query."""
        for upper, index in zip(self.uppers, self.indexes):
            if upper is None:
                continue
            b, r = self._banding_for(upper, size)
            yield from index[r].query(minhash, b)

    def __contains__(self, key: Hashable) -> bool:
        return any(key in bands.keys for index in self.indexes for bands in index.values())

    def is_empty(self) -> bool:
        """Whether nothing is indexed."""
        return all(not bands.keys for index in self.indexes for bands in index.values())


def _datasketch_partitions(sizes: List[int], counts: List[int], parts: int) -> List[Tuple[int, int]]:
    """datasketch 2.0's size partitions (``lshensemble_partition.optimal_partitions``), its
    arithmetic included (NumPy sums, a zero-initialized cost table) so that ties and its
    reconstruction fall the same way: the same forward recurrence as the optimum, then a cut
    read back from the cost of one partition more than the prefix holds."""
    n = len(sizes)
    if parts < 2:
        return [(sizes[0], sizes[-1])]
    if parts >= n:
        return [(x, x) for x in sizes]
    x = np.array(sizes)
    c = np.array(counts)
    nfp = np.zeros((n, n))
    for lo in range(n):
        for hi in range(lo, n):
            nfp[lo, hi] = np.sum((float(x[hi]) - x[lo:hi + 1]) / float(x[hi]) * c[lo:hi + 1])
    # cost[u, p - 2]: p partitions of sizes 0..u (entries never computed stay 0.0).
    cost = np.zeros((n, max(parts - 2, 0)))
    for p in range(2, parts):
        for u in range(p - 1, n):
            if p == 2:
                cost[u, 0] = min(nfp[0, u1] + nfp[u1 + 1, u] for u1 in range(u))
            else:
                cost[u, p - 2] = min(cost[u1, p - 3] + nfp[u1 + 1, u] for u1 in range(p - 2, u))
    if parts == 2:
        _, u = min((nfp[0, u1] + nfp[u1 + 1, n - 1], u1) for u1 in range(n - 1))
        return [(sizes[0], sizes[u]), (sizes[u + 1], sizes[-1])]
    _, u = min((cost[u1, parts - 3] + nfp[u1 + 1, n - 1], u1) for u1 in range(parts - 2, n - 1))
    bounds = [(sizes[u + 1], sizes[-1])]
    p = parts - 1
    while p > 1:
        _, best = min((cost[u1, p - 2] + nfp[u1 + 1, u], u1) for u1 in range(p - 2, u))
        bounds.insert(0, (sizes[best + 1], sizes[u]))
        u = best
        p -= 1
    bounds.insert(0, (sizes[0], sizes[u]))
    return bounds
