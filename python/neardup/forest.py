"""``MinHashLSHForest``: datasketch's top-k index (Bawa, Condie and Ganesan, "LSH Forest:
self-tuning indexes for similarity search", WWW 2005), public API and results.

``l`` prefix trees over ``k = num_perm // l`` values each. A tree is kept, as in datasketch,
as the sorted list of its distinct keys — the big-endian bytes of a signature's ``k`` values,
so that byte order is the order of the values — snapshotted by :meth:`index`, beside the live
buckets (key bytes → the keys added with them, in order). ``query(m, k)`` looks for keys
sharing the longest prefix first: for ``r = k, k−1, …, 1`` and every tree in order, the
sorted keys starting with ``m``'s first ``r`` values, their buckets' keys in order, until
``k`` distinct keys are found. The search is ``bisect`` (C) where datasketch runs a binary
search in Python; the candidates are the same, so neardup returns the same set (datasketch
returns ``list(set)``, an arbitrary order; neardup returns them in the order found).

Like datasketch, keys added after the last :meth:`index` are found only through buckets that
existed at that snapshot, and signatures of different schemes are refused (``ValueError``).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Any, Dict, Hashable, List, Optional, Tuple

import numpy as np

__all__ = ["MinHashLSHForest"]


def _big_endian_bytes(hashvalues: Any) -> bytes:
    values = np.asarray(hashvalues)
    return values.astype(values.dtype.newbyteorder(">"), copy=False).tobytes()


def _value_bytes(minhash: Any, values: int) -> Tuple[bytes, int]:
    """The big-endian bytes of the first ``values`` hash values, and the bytes of one value."""
    full = _big_endian_bytes(minhash.hashvalues[:values])
    return full, len(full) // values


class MinHashLSHForest:
    """datasketch's ``MinHashLSHForest(num_perm=128, l=8)``: ``add``, ``index``,
    ``query(minhash, k)``, ``get_minhash_hashvalues``, ``is_empty``, ``in``."""

    def __init__(self, num_perm: int = 128, l: int = 8) -> None:  # noqa: E741 — datasketch's name
        if l <= 0 or num_perm <= 0:
            raise ValueError("num_perm and l must be positive")
        if l > num_perm:
            raise ValueError("l cannot be greater than num_perm")
        self.l = l
        self.k = int(num_perm / l)
        self.hashtables: List[Dict[bytes, List[Hashable]]] = [defaultdict(list) for _ in range(l)]
        self.hashranges = [(i * self.k, (i + 1) * self.k) for i in range(l)]
        self.keys: Dict[Hashable, List[bytes]] = {}
        self.sorted_hashtables: List[List[bytes]] = [[] for _ in range(l)]
        self._scheme: Optional[str] = None

    def __repr__(self) -> str:
        return f"MinHashLSHForest(num_perm={self.k * self.l}, l={self.l}, keys={len(self.keys)})"

    def _check(self, minhash: Any, remember: bool) -> None:
        if len(minhash) < self.k * self.l:
            raise ValueError("The num_perm of MinHash out of range")
        scheme = getattr(minhash, "scheme", None)
        if scheme is None:
            return
        if self._scheme is not None and scheme != self._scheme:
            raise ValueError("MinHash scheme %r does not match scheme %r of the MinHash "
                             "previously given to this index" % (scheme, self._scheme))
        if remember:
            self._scheme = scheme

    def add(self, key: Hashable, minhash: Any) -> None:
        """Adds ``minhash`` under ``key``; searchable after the next :meth:`index`."""
        self._check(minhash, remember=False)
        if key in self.keys:
            raise ValueError("The given key has already been added")
        self._check(minhash, remember=True)
        full, width = _value_bytes(minhash, self.k * self.l)
        segments = [full[s * width:e * width] for s, e in self.hashranges]
        self.keys[key] = segments
        for segment, table in zip(segments, self.hashtables):
            table[segment].append(key)

    def index(self) -> None:
        """Takes the snapshot queries search: each tree's distinct keys, sorted."""
        self.sorted_hashtables = [sorted(table) for table in self.hashtables]

    def _prefix_matches(self, minhash: Any, r: int):
        full, width = _value_bytes(minhash, self.k * self.l)
        for (start, _), keys, table in zip(self.hashranges, self.sorted_hashtables,
                                           self.hashtables):
            prefix = full[start * width:(start + r) * width]
            j = bisect.bisect_left(keys, prefix)
            while j < len(keys) and keys[j].startswith(prefix):
                yield from table[keys[j]]
                j += 1

    def query(self, minhash: Any, k: int) -> List[Hashable]:
        """Up to ``k`` keys whose signatures share the longest prefixes with ``minhash``'s."""
        if k <= 0:
            raise ValueError("k must be positive")
        self._check(minhash, remember=False)
        found: Dict[Hashable, None] = {}
        for r in range(self.k, 0, -1):
            for key in self._prefix_matches(minhash, r):
                found[key] = None
                if len(found) >= k:
                    return list(found)
        return list(found)

    def get_minhash_hashvalues(self, key: Hashable) -> np.ndarray:
        """The stored hash values of ``key`` (its first ``k × l`` values)."""
        segments = self.keys.get(key)
        if segments is None:
            raise KeyError(f"The provided key does not exist in the LSHForest: {key}")
        size = len(segments[0])
        per_value, remainder = divmod(size, self.k)
        if remainder or per_value not in (4, 8) or any(len(s) != size for s in segments):
            raise ValueError("Stored hash segments of %d bytes are not %d values of 4 or 8 "
                             "bytes" % (size, self.k))
        dtype = np.dtype(">u4" if per_value == 4 else ">u8")
        values = np.frombuffer(b"".join(segments), dtype=dtype)
        return values.astype(np.uint32 if per_value == 4 else np.uint64)

    def is_empty(self) -> bool:
        """Whether some tree's snapshot is empty (datasketch's definition)."""
        return any(len(t) == 0 for t in self.sorted_hashtables)

    def __contains__(self, key: Hashable) -> bool:
        return key in self.keys
