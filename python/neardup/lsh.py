"""``MinHashLSH``: datasketch's interface over neardup's incremental LSH index.

Side by side with datasketch::

    # datasketch                                 # neardup
    from datasketch import MinHash, MinHashLSH   from neardup import MinHashLSH
    lsh = MinHashLSH(threshold=0.8,              lsh = MinHashLSH(threshold=0.8,
                     num_perm=128)                                num_perm=128)
    m = MinHash(num_perm=128)                    lsh.insert("doc1", text)      # a str is
    for w in shingles(text):                     # sketched with neardup.minhash
        m.update(w.encode())                     lsh.insert("doc2", signature) # or a uint32
    lsh.insert("doc1", m)                        # array, or a datasketch MinHash
    lsh.query(m)        # candidate keys         lsh.query(text)
    lsh.remove("doc1")                           lsh.remove("doc1")
    "doc1" in lsh                                "doc1" in lsh

(b, r) come from the same weighted false-positive / false-negative areas as datasketch's
``_optimal_param`` (``weights``), or are given with ``params=(b, r)``. Queries return
candidates as datasketch does; ``query(x, verify=True)`` keeps only those whose signature
estimate reaches the threshold. The object is safe to share between threads.
"""

from __future__ import annotations

import threading
from typing import Any, Hashable, List, Optional, Tuple

import numpy as np

from . import _native


class MinHashLSH:
    """An incremental MinHash LSH index keyed by any hashable keys.

    >>> lsh = MinHashLSH(threshold=0.5, num_perm=64, k=2)
    >>> lsh.insert("a", "the cat sat on the mat today")
    >>> lsh.insert("b", "the cat sat on the mat tonight")
    >>> lsh.insert("c", "completely different words here now")
    >>> sorted(lsh.query("the cat sat on the mat today"))
    ['a', 'b']
    >>> lsh.remove("b"); "b" in lsh, len(lsh)
    (False, 2)
    """

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: Tuple[float, float] = (0.5, 0.5),
        params: Optional[Tuple[int, int]] = None,
        **sketch: Any,
    ) -> None:
        """``threshold`` and ``num_perm`` as in datasketch; ``weights`` = (false positive,
        false negative) weights of the tuner; ``params`` = (bands, rows) to skip tuning;
        ``sketch``: ``neardup.minhash`` parameters used when ``insert``/``query`` get text
        (``k``, ``shingle``, ``seed``, ``tokenizer``, …)."""
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], not {threshold}")
        if params is None:
            fp, fn = weights
            if fp < 0 or fn < 0 or fp + fn <= 0:
                raise ValueError(f"weights must be non-negative and not both 0, not {weights}")
            from . import lsh_tune

            tuned = lsh_tune(threshold, num_perm, fp / (fp + fn))
            params = (tuned["bands"], tuned["rows"])
        self.threshold = threshold
        self.num_perm = num_perm
        self.b, self.r = params
        self._sketch = dict(sketch)
        self._index = _native.MinHashIndex(num_perm, self.b, self.r)
        self._lock = threading.Lock()
        self._ids: dict = {}
        self._keys: dict = {}
        self._next = 0

    def _signature(self, x: Any) -> np.ndarray:
        if isinstance(x, str):
            from . import minhash

            return minhash([x], num_perm=self.num_perm, **self._sketch)[0]
        values = getattr(x, "hashvalues", x)  # a datasketch MinHash, or an array
        sig = np.asarray(values)
        if sig.shape != (self.num_perm,):
            raise ValueError(
                f"signature has shape {sig.shape}; this index takes num_perm = {self.num_perm}"
            )
        if sig.dtype != np.uint32:
            if np.any(sig > np.iinfo(np.uint32).max) or np.any(sig < 0):
                raise ValueError("signature values must fit in 32 bits")
            sig = sig.astype(np.uint32)
        return sig

    def insert(self, key: Hashable, x: Any, check_duplication: bool = True) -> None:
        """Indexes ``x`` (text, uint32 signature or datasketch ``MinHash``) under ``key``.
        A key already present is a ``ValueError`` (as in datasketch)."""
        sig = self._signature(x)
        with self._lock:
            if key in self._ids:
                if check_duplication:
                    raise ValueError(f"the key {key!r} already exists")
                self._remove(key)
            doc = self._next
            if doc >= 1 << 32:
                raise OverflowError("MinHashLSH has used its 2^32 internal ids; build a new index")
            self._index.insert(doc, sig)
            self._next += 1
            self._ids[key] = doc
            self._keys[doc] = key

    def query(self, x: Any, verify: bool = False) -> List[Hashable]:
        """Keys of indexed documents sharing a band with ``x`` (candidates, in insertion
        order); with ``verify``, only those whose signatures agree on at least
        ``threshold`` of their values."""
        sig = self._signature(x)
        with self._lock:
            ids = self._index.query(sig, self.threshold if verify else None)
            return [self._keys[i] for i in ids]

    def remove(self, key: Hashable) -> None:
        """Removes ``key``; a missing key is a ``ValueError`` (as in datasketch)."""
        with self._lock:
            if key not in self._ids:
                raise ValueError(f"the key {key!r} does not exist")
            self._remove(key)

    def _remove(self, key: Hashable) -> None:
        doc = self._ids.pop(key)
        del self._keys[doc]
        self._index.remove(doc)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._ids

    def __len__(self) -> int:
        return len(self._index)

    def is_empty(self) -> bool:
        """Whether nothing is indexed."""
        return len(self) == 0

    def keys(self) -> List[Hashable]:
        """Indexed keys in insertion order."""
        with self._lock:
            return [self._keys[i] for i in sorted(self._keys)]
