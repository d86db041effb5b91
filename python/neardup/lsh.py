"""``MinHashLSH``: datasketch's ``MinHashLSH``, public API and results, over neardup's Rust
index. Replace ``from datasketch import MinHashLSH`` with ``from neardup import MinHashLSH``;
the datasketch ``MinHash`` objects you insert and query stay as they are, and neardup can also
sketch texts itself::

    from neardup import MinHashLSH
    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    lsh.insert("doc1", m1)           # a datasketch MinHash / LeanMinHash / WeightedMinHash,
    lsh.insert("doc2", m2)           # a uint32 array, or (in another index) a text
    lsh.query(m1)                    # candidate keys, as datasketch returns them
    pickle.dumps(lsh)                # a versioned format (see below)

Every public member of datasketch 2.0's ``MinHashLSH``, and what neardup does for it
(``python/tests/test_datasketch_compat.py`` runs one script against both and compares):

=============================  =========================================================
datasketch                     neardup
=============================  =========================================================
``MinHashLSH(threshold,        same arguments, same validation, same (b, r) from the same
num_perm, weights, params)``   weighted false-positive/negative areas; extra keyword
                               arguments are ``neardup.minhash`` sketch parameters for texts
``storage_config``             ``None`` or ``{"type": "dict"}``; Redis and Cassandra are
                               ``NotImplementedError`` (the index lives in memory)
``prepickle``, ``hashfunc``    accepted; ``hashfunc`` hashes the bucket keys that ``keys``
                               and ``get_counts`` show, as in datasketch
``insert(key, m,               same; ``check_duplication=False`` on a present key replaces
check_duplication)``           its signature (datasketch adds a second one under the key)
``query(m)``                   same candidates; in insertion order; ``verify=True`` keeps
                               those whose estimated Jaccard reaches the threshold
``remove``, ``in``,            same
``is_empty``
``insertion_session``,         same; buffered inserts and deletions go to the Rust index in
``deletion_session``           batches of ``buffer_size``, and any other call sees them
``merge(other,                 same checks (num_perm, b, r; overlapping keys with
check_overlap)``               ``check_overlap``); a key in both takes ``other``'s signature
``add_to_query_buffer``,       same: the keys every buffered query finds
``collect_query_buffer``
``get_counts``,                same buckets and counts (bucket keys are datasketch's bytes,
``get_subset_counts``          computed from the stored signatures)
``keys``                       a read-only mapping: key → its b bucket keys, in insertion
                               order
``b``, ``r``, ``h``,           same
``hashranges``,
``buffer_size``
``hashtables``                 not provided: the buckets are the Rust index's
pickling                       supported: format ``neardup.MinHashLSH`` version 1 (keys,
                               parameters and signatures); another version is refused
=============================  =========================================================

Where neardup is stricter: values from different hash functions are never mixed in one index.
datasketch refuses a MinHash of another *scheme*; neardup also refuses another *seed*, texts
beside MinHash objects, and arrays beside either (``ValueError`` naming both), because their
values agree on a band only by accident. The object is safe to share between threads.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Callable, Dict, Hashable, Iterator, List, Optional, Tuple

import numpy as np

from . import _native
from ._signature_space import Space, signature_of, text_space

PICKLE_FORMAT = "neardup.MinHashLSH"
PICKLE_VERSION = 1


class MinHashLSH:
    """An incremental MinHash LSH index keyed by any hashable keys, with datasketch's
    interface.

    >>> lsh = MinHashLSH(threshold=0.5, num_perm=64, k=2)
    >>> lsh.insert("a", "the cat sat on the mat today")
    >>> lsh.insert("b", "the cat sat on the mat tonight")
    >>> lsh.insert("c", "completely different words here now")
    >>> sorted(lsh.query("the cat sat on the mat today"))
    ['a', 'b']
    >>> lsh.remove("b"); "b" in lsh, len(lsh), list(lsh.keys)
    (False, 2, ['a', 'c'])
    """

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: Tuple[float, float] = (0.5, 0.5),
        params: Optional[Tuple[int, int]] = None,
        storage_config: Optional[dict] = None,
        prepickle: Optional[bool] = None,
        hashfunc: Optional[Callable[[bytes], Hashable]] = None,
        **sketch: Any,
    ) -> None:
        """``threshold``, ``num_perm``, ``weights`` (false positive, false negative; they sum
        to 1) and ``params`` (b, r) as in datasketch; ``sketch``: ``neardup.minhash``
        parameters used when ``insert``/``query`` get a text (``k``, ``shingle``, ``seed``,
        ``tokenizer``, …)."""
        if storage_config not in (None, {"type": "dict"}):
            raise NotImplementedError(
                f"storage_config {storage_config!r}: neardup.MinHashLSH keeps its index in "
                "memory; use datasketch for Redis or Cassandra storage"
            )
        self.b, self.r = _banding(threshold, num_perm, weights, params)
        self.threshold = threshold
        self.h = num_perm
        self.weights = tuple(weights)
        self.prepickle = bool(prepickle)
        self.hashfunc = hashfunc
        self._sketch = dict(sketch)
        self._buffer_size = 50000
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.RLock()
        self._space: Optional[Space] = None
        self._index: Optional[Any] = None  # _native.MinHashIndex, made for the first space
        self._ids: Dict[Hashable, int] = {}  # key → index id, in insertion order
        self._keys: Dict[int, Hashable] = {}
        self._next = 0
        self._pending_inserts: List[Tuple[int, np.ndarray]] = []
        self._pending_removals: List[int] = []
        self._query_buffer: List[np.ndarray] = []

    # ------------------------------------------------------------------ attributes

    @property
    def num_perm(self) -> int:
        """Signature length (datasketch's ``h``)."""
        return self.h

    @property
    def hashranges(self) -> List[Tuple[int, int]]:
        """The value range of each band: ``[(0, r), (r, 2r), …]``."""
        return [(i * self.r, (i + 1) * self.r) for i in range(self.b)]

    @property
    def buffer_size(self) -> int:
        """Operations a session buffers before sending them to the index as one batch."""
        return self._buffer_size

    @buffer_size.setter
    def buffer_size(self, value: int) -> None:
        if value < 1:
            raise ValueError(f"buffer_size must be at least 1, not {value}")
        self._buffer_size = int(value)

    @property
    def keys(self) -> "KeysView":
        """The indexed keys, in insertion order, as a read-only mapping from each key to its
        b bucket keys (datasketch's ``lsh.keys``)."""
        return KeysView(self)

    # ------------------------------------------------------------------ signatures

    def _words(self, x: Any) -> Tuple[Space, np.ndarray]:
        if isinstance(x, str):
            from . import minhash

            return text_space(self._sketch), minhash([x], num_perm=self.h, **self._sketch)[0]
        return signature_of(x, self.h)

    def _check_space(self, space: Space) -> None:
        """Refuses a signature from another hash function than the index holds."""
        if self._space is not None and space != self._space:
            raise ValueError(
                f"cannot mix {space.describe()} with the {self._space.describe()} this "
                "index holds: values of different hash functions agree on a band only by "
                "accident, so the candidates would be wrong"
            )

    def _adopt(self, space: Space) -> None:
        self._check_space(space)
        if self._index is None:
            self._space = space
            self._index = _native.MinHashIndex(self.h, self.b, self.r, space.value_words)

    # ------------------------------------------------------------------ writes

    def insert(self, key: Hashable, minhash: Any, check_duplication: bool = True) -> None:
        """Indexes ``minhash`` (a datasketch ``MinHash``/``LeanMinHash``/``WeightedMinHash``,
        an integer array of ``num_perm`` values, or a text) under ``key``. A present key is a
        ``ValueError``, or with ``check_duplication=False`` gets the new signature."""
        self._insert(key, minhash, check_duplication, buffered=False)

    def _insert(self, key: Hashable, minhash: Any, check_duplication: bool,
                buffered: bool) -> None:
        space, words = self._words(minhash)
        with self._lock:
            self._adopt(space)
            if key in self._ids:
                if check_duplication:
                    raise ValueError("The given key already exists")
                self._remove(key, buffered=False)
            if self._next >= 1 << 32:
                raise OverflowError("MinHashLSH has used its 2^32 internal ids; build a new index")
            doc, self._next = self._next, self._next + 1
            self._ids[key] = doc
            self._keys[doc] = key
            if buffered:
                self._flush_removals()
                self._pending_inserts.append((doc, words))
                if len(self._pending_inserts) >= self._buffer_size:
                    self._flush()
            else:
                self._flush()
                self._index.insert(doc, words)

    def remove(self, key: Hashable) -> None:
        """Removes ``key``; a missing key is a ``ValueError`` (as in datasketch)."""
        with self._lock:
            self._remove(key, buffered=False)

    def _remove(self, key: Hashable, buffered: bool) -> None:
        if key not in self._ids:
            raise ValueError("The given key does not exist")
        doc = self._ids.pop(key)
        del self._keys[doc]
        if buffered:
            self._flush_inserts()
            self._pending_removals.append(doc)
            if len(self._pending_removals) >= self._buffer_size:
                self._flush()
        else:
            self._flush()
            self._index.remove(doc)

    def _flush_inserts(self) -> None:
        if self._pending_inserts:
            docs = np.fromiter((d for d, _ in self._pending_inserts), np.uint32,
                               len(self._pending_inserts))
            self._index.insert_many(docs, np.stack([w for _, w in self._pending_inserts]))
            self._pending_inserts = []

    def _flush_removals(self) -> None:
        if self._pending_removals:
            self._index.remove_many(np.asarray(self._pending_removals, dtype=np.uint32))
            self._pending_removals = []

    def _flush(self) -> None:
        """Sends a session's buffered operations to the index (at most one kind is buffered
        at a time, so their order is kept)."""
        self._flush_inserts()
        self._flush_removals()

    def insertion_session(self, buffer_size: int = 50000) -> "InsertionSession":
        """A context manager whose ``insert`` buffers signatures and adds them to the index
        ``buffer_size`` at a time (and on exit)."""
        self.buffer_size = buffer_size
        return InsertionSession(self)

    def deletion_session(self, buffer_size: int = 50000) -> "DeletionSession":
        """A context manager whose ``remove`` buffers removals and applies them
        ``buffer_size`` at a time (and on exit)."""
        self.buffer_size = buffer_size
        return DeletionSession(self)

    def merge(self, other: "MinHashLSH", check_overlap: bool = False) -> None:
        """Adds every key of ``other`` (same ``num_perm``, b and r, and signatures of the
        same origin, or a ``ValueError``). With ``check_overlap``, a key in both is a
        ``ValueError`` before anything changes; without, it takes ``other``'s signature."""
        if not isinstance(other, MinHashLSH):
            raise ValueError(f"Cannot merge type MinHashLSH and type {type(other).__name__}.")
        if (self.h, self.b, self.r) != (other.h, other.b, other.r):
            raise ValueError("Cannot merge MinHashLSH with different initialization parameters.")
        space, keys, words = other._snapshot()
        with self._lock:
            self._flush()
            if space is None:
                return
            self._check_space(space)
            if check_overlap and any(k in self._ids for k in keys):
                raise ValueError("The keys are overlapping, duplicate key exists.")
            self._adopt(space)
            for key in keys:
                if key in self._ids:
                    self._remove(key, buffered=False)
            docs = np.arange(self._next, self._next + len(keys), dtype=np.uint64)
            if len(keys) and docs[-1] >= 1 << 32:
                raise OverflowError("MinHashLSH has used its 2^32 internal ids; build a new index")
            self._index.insert_many(docs.astype(np.uint32), words)
            for doc, key in zip(docs.tolist(), keys):
                self._ids[key] = doc
                self._keys[doc] = key
            self._next += len(keys)

    def _snapshot(self) -> Tuple[Optional[Space], List[Hashable], np.ndarray]:
        """(space, keys in insertion order, their signatures' words)."""
        with self._lock:
            self._flush()
            keys = list(self._ids)
            if self._index is None:
                return self._space, keys, np.zeros((0, 0), np.uint32)
            docs = np.fromiter(self._ids.values(), np.uint32, len(keys))
            return self._space, keys, self._index.signatures(docs)

    # ------------------------------------------------------------------ reads

    def query(self, minhash: Any, verify: bool = False) -> List[Hashable]:
        """Keys of indexed signatures sharing a band with ``minhash`` (datasketch's
        candidates), in insertion order; with ``verify``, only those whose values agree on
        at least ``threshold`` of the positions (the MinHash estimate of Jaccard)."""
        space, words = self._words(minhash)
        with self._lock:
            self._check_space(space)
            return self._query(words, verify)

    def _query(self, words: np.ndarray, verify: bool = False) -> List[Hashable]:
        self._flush()
        if self._index is None:
            return []
        ids = self._index.query(words, self.threshold if verify else None)
        return [self._keys[i] for i in ids]

    def add_to_query_buffer(self, minhash: Any) -> None:
        """Buffers a query for :meth:`collect_query_buffer`."""
        space, words = self._words(minhash)
        with self._lock:
            self._check_space(space)
            self._query_buffer.append(words)

    def collect_query_buffer(self) -> List[Hashable]:
        """The keys that every buffered query finds (in insertion order), and empties the
        buffer."""
        with self._lock:
            buffered, self._query_buffer = self._query_buffer, []
            if not buffered:
                return []
            found = set(self._query(buffered[0]))
            for words in buffered[1:]:
                found.intersection_update(self._query(words))
            return [k for k in self._ids if k in found]

    def get_counts(self) -> List[Dict[Hashable, int]]:
        """For each band, the number of keys in each bucket (datasketch's bucket keys)."""
        return self._counts(None)

    def get_subset_counts(self, *keys: Hashable) -> List[Dict[Hashable, int]]:
        """:meth:`get_counts` over ``keys`` only (each key once; keys not indexed are passed
        over, as in datasketch)."""
        return self._counts(list(dict.fromkeys(keys)))

    def _counts(self, keys: Optional[List[Hashable]]) -> List[Dict[Hashable, int]]:
        with self._lock:
            self._flush()
            # datasketch's get_subset_counts passes over keys it does not hold.
            keys = list(self._ids) if keys is None else [k for k in keys if k in self._ids]
            docs = np.asarray([self._ids[k] for k in keys], dtype=np.uint32)
            if self._index is None or not len(docs):
                return [{} for _ in range(self.b)]
            words = self._index.signatures(docs)
        counts = []
        for start, end in self.hashranges:
            buckets, sizes = np.unique(self._space.band_bytes(words, start, end), axis=0,
                                       return_counts=True)
            table: Dict[Hashable, int] = {}
            for bucket, size in zip(buckets, sizes.tolist()):
                h = self._bucket_key(bucket.tobytes())
                table[h] = table.get(h, 0) + size
            counts.append(table)
        return counts

    def _bucket_key(self, raw: bytes) -> Hashable:
        return self.hashfunc(raw) if self.hashfunc else raw

    def _bucket_keys_of(self, key: Hashable) -> List[Hashable]:
        with self._lock:
            self._flush()
            doc = self._ids[key]
            words = self._index.signatures(np.asarray([doc], dtype=np.uint32))
        return [self._bucket_key(self._space.band_bytes(words, s, e)[0].tobytes())
                for s, e in self.hashranges]

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._ids

    def __repr__(self) -> str:
        return (f"MinHashLSH(threshold={self.threshold}, num_perm={self.h}, b={self.b}, "
                f"r={self.r}, keys={len(self)})")

    def __len__(self) -> int:
        with self._lock:
            return len(self._ids)

    def is_empty(self) -> bool:
        """Whether nothing is indexed."""
        return len(self) == 0

    # ------------------------------------------------------------------ pickling

    def __getstate__(self) -> dict:
        space, keys, words = self._snapshot()
        return {
            "format": PICKLE_FORMAT, "version": PICKLE_VERSION,
            "threshold": self.threshold, "num_perm": self.h, "b": self.b, "r": self.r,
            "weights": self.weights, "prepickle": self.prepickle, "hashfunc": self.hashfunc,
            "sketch": self._sketch, "buffer_size": self._buffer_size,
            "space": None if space is None else tuple(space),
            "keys": keys,
            # n × num_perm·value_words little-endian uint32 words, in the order of keys.
            "signatures": np.ascontiguousarray(words, dtype="<u4").tobytes(),
        }

    def __setstate__(self, state: dict) -> None:
        _check_pickle(state)
        self.threshold, self.h, self.b, self.r = (state[k] for k in ("threshold", "num_perm",
                                                                      "b", "r"))
        self.weights, self.prepickle, self.hashfunc = (state["weights"], state["prepickle"],
                                                       state["hashfunc"])
        self._sketch, self._buffer_size = dict(state["sketch"]), state["buffer_size"]
        self._reset()
        if state["space"] is None:
            return
        origin, detail, dtype, shape = state["space"]
        self._adopt(Space(origin, tuple(map(tuple, detail)), dtype, tuple(shape)))
        keys = state["keys"]
        width = self.h * self._space.value_words
        words = np.frombuffer(state["signatures"], dtype="<u4").reshape(len(keys), width)
        self._index.insert_many(np.arange(len(keys), dtype=np.uint32), words)
        self._ids = {key: i for i, key in enumerate(keys)}
        self._keys = dict(enumerate(keys))
        self._next = len(keys)


def _check_pickle(state: Any) -> None:
    if not isinstance(state, dict) or state.get("format") != PICKLE_FORMAT:
        raise ValueError("not a pickled neardup.MinHashLSH")
    if state.get("version") != PICKLE_VERSION:
        raise ValueError(
            f"this MinHashLSH was pickled in {PICKLE_FORMAT} format version "
            f"{state.get('version')!r}; neardup {_native.__version__} reads version "
            f"{PICKLE_VERSION} only: load it with the neardup that saved it, or rebuild it"
        )


def _banding(threshold: float, num_perm: int, weights: Tuple[float, float],
             params: Optional[Tuple[int, int]]) -> Tuple[int, int]:
    """datasketch's checks and its (b, r): the banding minimising the weighted false
    positive and false negative areas (``neardup.lsh_tune``, equal to datasketch's
    ``_optimal_param``)."""
    if threshold > 1.0 or threshold < 0.0:
        raise ValueError("threshold must be in [0.0, 1.0]")
    if num_perm < 2:
        raise ValueError("Too few permutation functions")
    if any(w < 0.0 or w > 1.0 for w in weights):
        raise ValueError("Weight must be in [0.0, 1.0]")
    if abs(sum(weights) - 1.0) > 1e-9:
        raise ValueError("Weights must sum to 1.0")
    if params is not None:
        b, r = params
        if b * r > num_perm:
            raise ValueError(
                f"The product of b and r in params is {b} * {r} = {b * r} -- it must be less "
                f"than num_perm {num_perm}. Did you forget to specify num_perm?"
            )
    else:
        from . import lsh_tune

        tuned = lsh_tune(threshold, num_perm, weights[0], objective="balanced")
        b, r = tuned["bands"], tuned["rows"]
    if b < 2:
        raise ValueError("The number of bands are too small (b < 2)")
    return b, r


class KeysView(Mapping):
    """``lsh.keys``: indexed key → its b bucket keys (read-only, insertion order)."""

    def __init__(self, lsh: MinHashLSH) -> None:
        self._lsh = lsh

    def __getitem__(self, key: Hashable) -> List[Hashable]:
        if key not in self._lsh:
            raise KeyError(key)
        return self._lsh._bucket_keys_of(key)

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The key's bucket keys; for a missing key ``default``, or ``[]`` as datasketch's
        storage returns when no default is given."""
        if key in self._lsh:
            return self[key]
        return [] if default is None else default

    def __iter__(self) -> Iterator[Hashable]:
        with self._lsh._lock:
            return iter(list(self._lsh._ids))

    def __len__(self) -> int:
        return len(self._lsh)

    def __contains__(self, key: object) -> bool:
        return key in self._lsh


class InsertionSession:
    """``with lsh.insertion_session() as session: session.insert(key, m)``."""

    def __init__(self, lsh: MinHashLSH) -> None:
        self.lsh = lsh

    def __enter__(self) -> "InsertionSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def insert(self, key: Hashable, minhash: Any, check_duplication: bool = True) -> None:
        """As :meth:`MinHashLSH.insert`, buffered."""
        self.lsh._insert(key, minhash, check_duplication, buffered=True)

    def close(self) -> None:
        """Sends the buffered inserts to the index."""
        with self.lsh._lock:
            self.lsh._flush()


class DeletionSession:
    """``with lsh.deletion_session() as session: session.remove(key)``."""

    def __init__(self, lsh: MinHashLSH) -> None:
        self.lsh = lsh

    def __enter__(self) -> "DeletionSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def remove(self, key: Hashable) -> None:
        """As :meth:`MinHashLSH.remove`, buffered."""
        with self.lsh._lock:
            self.lsh._remove(key, buffered=True)

    def close(self) -> None:
        """Applies the buffered removals."""
        with self.lsh._lock:
            self.lsh._flush()
