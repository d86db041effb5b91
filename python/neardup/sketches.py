"""``MinHash`` and ``LeanMinHash``: datasketch 2.0's classes, public API and hash values bit
for bit, with the hashing and permuting in Rust (the GIL released). Replace
``from datasketch import MinHash, LeanMinHash`` with ``from neardup import MinHash,
LeanMinHash``; the objects can be inserted into either library's ``MinHashLSH`` and mixed with
datasketch's own in one index, because their values are the same numbers::

    from neardup import MinHash, MinHashLSH
    m = MinHash(num_perm=128)                       # seed=1, scheme="affine32" as datasketch
    m.update_batch([w.encode() for w in text.split()])
    ms = neardup.bulk(texts, num_perm=128)          # one MinHash per text, in parallel

How the values are made (datasketch's ``minhash.py``; ``neardup::minhash::datasketch`` in
Rust): a token's hash is the first 4 (8 for ``affine64``) bytes of its SHA-1, little-endian;
the permutations ``a, b`` are drawn by NumPy's ``RandomState(seed)`` exactly as datasketch
draws them; permutation ``j`` maps a hash ``h`` to ``a_j·fmix(h) + b_j`` modulo 2^32
(``affine32``, the default) or 2^64 (``affine64``), or for ``legacy`` (datasketch before 2.0)
to ``((a_j·h + b_j) mod 2^64 mod (2^61−1)) & (2^32−1)``.

Beyond datasketch: tokens may also be ``str`` (hashed as their UTF-8 bytes; datasketch
raises ``TypeError``); ``gpu_mode`` is accepted and computes on the CPU (``"always"`` raises,
as datasketch does without CUDA). A user's ``hashfunc`` is called in Python per token, as in
datasketch, and only the permutations run in Rust. ``python/tests/test_minhash_compat.py``
runs one script against both libraries and compares every result.
"""

from __future__ import annotations

import struct
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from . import _native

__all__ = ["LeanMinHash", "MinHash", "bulk", "sha1_hash32", "sha1_hash64"]

_SCHEMES = ("affine32", "affine64", "legacy")
_DTYPES = {"affine32": np.uint32, "affine64": np.uint64, "legacy": np.uint64}
_EMPTY = {"affine32": (1 << 32) - 1, "affine64": (1 << 64) - 1, "legacy": (1 << 32) - 1}
_MERSENNE_61 = (1 << 61) - 1
# LeanMinHash's byte layout (datasketch's `serialize`): seed (q), ±num_perm (i; negative
# for the 2.0 schemes, followed by a scheme code B), then the values.
_CODES = {"affine32": 1, "affine64": 2}
_SCHEME_OF_CODE = {code: scheme for scheme, code in _CODES.items()}
_VALUE_FORMAT = {"legacy": "I", "affine32": "I", "affine64": "Q"}


def sha1_hash32(data: bytes) -> int:
    """datasketch's default hash: the first 4 bytes of SHA-1, little-endian (Rust)."""
    return _native.sha1_hash32(data)


def sha1_hash64(data: bytes) -> int:
    """datasketch's 64-bit hash (``affine64``): the first 8 bytes of SHA-1, little-endian."""
    return _native.sha1_hash64(data)


_OWN_SHA1 = {"affine32": sha1_hash32, "affine64": sha1_hash64, "legacy": sha1_hash32}


def _is_default_hash(hashfunc: Callable, scheme: str) -> bool:
    """Whether ``hashfunc`` is the SHA-1 hash the scheme defaults to (neardup's or
    datasketch's own function), which Rust computes itself."""
    if hashfunc is _OWN_SHA1[scheme]:
        return True
    want = "sha1_hash64" if scheme == "affine64" else "sha1_hash32"
    return (getattr(hashfunc, "__module__", None) == "datasketch.hashfunc"
            and getattr(hashfunc, "__name__", None) == want)


_PERMUTATIONS: Dict[Tuple[int, int, str], np.ndarray] = {}


def _permutations(seed: int, num_perm: int, scheme: str) -> np.ndarray:
    """datasketch's permutations for (seed, num_perm, scheme): a 2 × num_perm array ``[a, b]``
    drawn by ``RandomState(seed)`` in datasketch's order; drawn once per process and shared
    read-only (datasketch draws them for every ``MinHash``)."""
    key = (seed, num_perm, scheme)
    found = _PERMUTATIONS.get(key)
    if found is not None:
        return found
    gen = np.random.RandomState(seed)
    if scheme == "legacy":
        pairs = [(gen.randint(1, _MERSENNE_61, dtype=np.uint64),
                  gen.randint(0, _MERSENNE_61, dtype=np.uint64)) for _ in range(num_perm)]
        drawn = np.array(pairs, dtype=np.uint64).T.copy()
    else:
        width = 32 if scheme == "affine32" else 64
        dtype = _DTYPES[scheme]
        a = gen.randint(0, 1 << (width - 1), num_perm, dtype=dtype) * dtype(2) + dtype(1)
        b = gen.randint(0, 1 << width, num_perm, dtype=dtype)
        drawn = np.array([a, b])
    drawn.flags.writeable = False
    if len(_PERMUTATIONS) < 64:
        _PERMUTATIONS[key] = drawn
    return drawn


def _values(values: Any, scheme: str, what: str) -> np.ndarray:
    """``values`` as the scheme's dtype, refusing what does not fit (as datasketch does)."""
    dtype = _DTYPES[scheme]
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and values.size:
        if int(values.max()) > _EMPTY[scheme] or int(values.min()) < 0:
            raise ValueError("%s out of range for scheme %r" % (what, scheme))
        return values.astype(dtype)
    try:
        return np.array(values, dtype=dtype)
    except OverflowError as err:
        raise ValueError("%s out of range for scheme %r: %s" % (what, scheme, err)) from err


def _check_scheme(scheme: str) -> None:
    if scheme not in _SCHEMES:
        raise ValueError("scheme must be one of %s, got %r" % (", ".join(_SCHEMES), scheme))


class MinHash:
    """datasketch's ``MinHash`` (same arguments, attributes, methods and values).

    ``num_perm`` permutations (ignored when ``hashvalues`` is given), ``seed``, ``hashfunc``
    (``None``: SHA-1, computed in Rust), ``hashvalues`` / ``permutations`` of another MinHash
    (then ``scheme`` must be given), ``scheme``: ``"affine32"`` (default), ``"affine64"`` or
    ``"legacy"``. ``gpu_mode`` is accepted; the work is done on the CPU.
    """

    def __init__(self, num_perm: int = 128, seed: int = 1, gpu_mode: str = "disable",
                 hashfunc: Optional[Callable] = None, hashobj: Optional[object] = None,
                 hashvalues: Optional[Any] = None, permutations: Optional[Any] = None,
                 scheme: Optional[str] = None) -> None:
        if scheme is None:
            if hashvalues is not None or permutations is not None:
                raise ValueError(
                    "scheme must be specified explicitly when initializing from existing hash "
                    "values or permutations: pass the scheme of the MinHash they came from, or "
                    "scheme='legacy' for values created by datasketch before 2.0.0.")
            scheme = "affine32"
        _check_scheme(scheme)
        if hashvalues is not None:
            num_perm = len(hashvalues)
        if num_perm < 1:
            raise ValueError("num_perm must be positive")
        if num_perm > 1 << 32:
            raise ValueError("Cannot have more than %d number of permutation functions" % (1 << 32))
        if hashfunc is None:
            hashfunc = sha1_hash64 if scheme == "affine64" else sha1_hash32
        if not callable(hashfunc):
            raise ValueError("The hashfunc must be a callable.")
        if gpu_mode not in ("disable", "detect", "always"):
            raise ValueError("gpu_mode must be 'disable', 'detect' or 'always', got %r" % (gpu_mode,))
        self.scheme = scheme
        self.seed = seed
        self.num_perm = num_perm
        self.hashfunc = hashfunc
        if hashvalues is not None and scheme == "legacy":
            self.hashvalues = np.array(hashvalues, dtype=np.uint64)
        elif hashvalues is not None:
            self.hashvalues = _values(hashvalues, scheme, "hash values")
        else:
            self.hashvalues = np.full(num_perm, _EMPTY[scheme], dtype=_DTYPES[scheme])
        if permutations is not None:
            self.permutations = self._parse_permutations(permutations)
        else:
            self.permutations = _permutations(seed, num_perm, scheme)
        if len(self) != len(self.permutations[0]):
            raise ValueError("Numbers of hash values and permutations mismatch")
        self._gpu_mode = gpu_mode

    def _parse_permutations(self, permutations: Any) -> np.ndarray:
        if self.scheme == "legacy":  # taken as they are, as datasketch does
            return np.array([np.asarray(permutations[0], dtype=np.uint64),
                             np.asarray(permutations[1], dtype=np.uint64)])
        a = _values(permutations[0], self.scheme, "permutation parameters")
        b = _values(permutations[1], self.scheme, "permutation parameters")
        if self.scheme != "legacy" and np.any(a & 1 == 0):
            raise ValueError("all `a` permutation parameters must be odd for scheme %r" % self.scheme)
        return np.array([a, b])

    @classmethod
    def _of(cls, seed: int, scheme: str, hashvalues: np.ndarray, permutations: np.ndarray,
            hashfunc: Callable, gpu_mode: str) -> "MinHash":
        """A MinHash of known-good parts, without ``__init__``'s checks (bulk creation)."""
        m = object.__new__(cls)
        m.__dict__.update(scheme=scheme, seed=seed, num_perm=len(hashvalues), hashfunc=hashfunc,
                          hashvalues=hashvalues, permutations=permutations, _gpu_mode=gpu_mode)
        return m

    def _check_gpu(self) -> None:
        if self._gpu_mode == "always":
            raise RuntimeError("GPU mode 'always' requested but CuPy/CUDA device is unavailable.")

    def update(self, b: Any) -> None:
        """Adds one token (``bytes``; ``str`` is hashed as UTF-8)."""
        self._add((b,))

    def update_batch(self, b: Iterable) -> None:
        """Adds the tokens of ``b``: hashed and permuted in Rust (with the GIL released from
        4,096 tokens). (``gpu_mode="always"`` raises here, as datasketch does without CUDA.)"""
        if self._gpu_mode == "always":
            self._check_gpu()
        if self.hashfunc is _OWN_SHA1[self.scheme]:
            # The common call in a loop over documents, kept to one native call (each Python
            # call here cost ~2 % of a 200-word post).
            self.hashvalues = _native.datasketch_update(self.scheme, self.hashvalues,
                                                        self.permutations, b)
            return
        self._add(b)

    def _add(self, b: Iterable) -> None:
        if _is_default_hash(self.hashfunc, self.scheme):
            self.hashvalues = _native.datasketch_update(self.scheme, self.hashvalues,
                                                        self.permutations, b)
            return
        hashes = [self.hashfunc(x) for x in b]
        if not hashes:
            return
        if self.scheme == "legacy":
            checked = np.array(hashes, dtype=np.uint64)
        else:
            checked = self._hash_input_array(hashes).astype(np.uint64)
        self.hashvalues = _native.datasketch_apply_hashes(self.scheme, self.hashvalues,
                                                          self.permutations, checked)

    def _hash_input_array(self, hashes: List[int]) -> np.ndarray:
        try:
            return np.array(hashes, dtype=_DTYPES[self.scheme])
        except OverflowError as err:
            raise ValueError(
                "hashfunc returned a value out of range for scheme %r: %s. Use a hash function "
                "matching the scheme width, or scheme='affine64' for 64-bit hash values."
                % (self.scheme, err)) from err

    def _check_comparable(self, other: Any, action: str) -> None:
        if getattr(other, "scheme", None) != self.scheme:
            raise ValueError("Cannot %s MinHash with different permutation schemes" % action)
        if other.seed != self.seed:
            raise ValueError("Cannot %s MinHash with different seeds" % action)
        if len(self) != len(other):
            raise ValueError(
                "Cannot %s MinHash with different numbers of permutation functions" % action)

    def jaccard(self, other: Any) -> float:
        """The estimated Jaccard similarity: the share of equal values."""
        self._check_comparable(other, "compute Jaccard given")
        return float(np.count_nonzero(self.hashvalues == other.hashvalues)) / float(len(self))

    def count(self) -> float:
        """The estimated number of distinct tokens (datasketch's estimator)."""
        return float(len(self)) / np.sum(self.hashvalues / float(_EMPTY[self.scheme])) - 1.0

    def merge(self, other: Any) -> None:
        """Makes this the MinHash of the union of both token sets."""
        self._check_comparable(other, "merge")
        self.hashvalues = np.minimum(other.hashvalues, self.hashvalues)

    def digest(self) -> np.ndarray:
        """A copy of the hash values."""
        return self.hashvalues.copy()

    def is_empty(self) -> bool:
        """Whether no token was added."""
        return not np.any(self.hashvalues != _EMPTY[self.scheme])

    def clear(self) -> None:
        """Forgets every token."""
        self.hashvalues = np.full(len(self), _EMPTY[self.scheme], dtype=_DTYPES[self.scheme])

    def copy(self) -> "MinHash":
        """An independent copy (the permutations are shared, read-only)."""
        return MinHash._of(self.seed, self.scheme, self.digest(), self.permutations,
                           self.hashfunc, self._gpu_mode)

    def __len__(self) -> int:
        return len(self.hashvalues)

    def __eq__(self, other: Any) -> bool:
        return (type(self) is type(other) and self.scheme == other.scheme
                and self.seed == other.seed and np.array_equal(self.hashvalues, other.hashvalues))

    __hash__ = None  # type: ignore[assignment]  # mutable, as datasketch's

    def __repr__(self) -> str:
        state = "empty" if self.is_empty() else "%d values" % len(self)
        return "MinHash(num_perm=%d, seed=%d, scheme=%r, %s)" % (len(self), self.seed,
                                                                 self.scheme, state)

    def __setstate__(self, state: dict) -> None:
        state.setdefault("scheme", "legacy")
        self.__dict__.update(state)

    @classmethod
    def union(cls, *mhs: "MinHash") -> "MinHash":
        """The MinHash of the union of the token sets of two or more MinHash."""
        if len(mhs) < 2:
            raise ValueError("Cannot union less than 2 MinHash")
        first = mhs[0]
        if any(m.seed != first.seed or len(m) != len(first) or m.scheme != first.scheme
               for m in mhs):
            raise ValueError("The unioning MinHash must have the same seed, number of "
                             "permutation functions and scheme")
        values = np.minimum.reduce([m.hashvalues for m in mhs])
        return cls(seed=first.seed, hashfunc=first.hashfunc, hashvalues=values,
                   permutations=first.permutations, gpu_mode=first._gpu_mode, scheme=first.scheme)

    @classmethod
    def bulk(cls, b: Iterable, **minhash_kwargs: Any) -> List["MinHash"]:
        """One MinHash per list of tokens in ``b``, computed in parallel in Rust."""
        return list(cls.generator(b, **minhash_kwargs))

    @classmethod
    def generator(cls, b: Iterable, **minhash_kwargs: Any) -> Iterator["MinHash"]:
        """Yields one MinHash per list of tokens in ``b`` (computed 4,096 lists at a time)."""
        template = cls(**minhash_kwargs)
        chunk: List[Any] = []
        for tokens in b:
            chunk.append(tokens)
            if len(chunk) == 4096:
                yield from template._bulk(chunk, None)
                chunk = []
        if chunk:
            yield from template._bulk(chunk, None)

    def _bulk(self, documents: Sequence[Any], ngram: Optional[int]) -> List["MinHash"]:
        """MinHash of ``documents`` started from this one's values, with its parameters."""
        if not _is_default_hash(self.hashfunc, self.scheme):
            out = []
            for tokens in documents:
                m = self.copy()
                m.update_batch(tokens)
                out.append(m)
            return out
        self._check_gpu()
        rows = _native.datasketch_bulk(self.scheme, np.ascontiguousarray(self.hashvalues,
                                       dtype=_DTYPES[self.scheme]), self.permutations, documents,
                                       ngram)
        of, perms, seed, scheme = MinHash._of, self.permutations, self.seed, self.scheme
        return [of(seed, scheme, row, perms, self.hashfunc, self._gpu_mode) for row in rows]


class LeanMinHash(MinHash):
    """datasketch's ``LeanMinHash``: a MinHash without permutations (it cannot be updated),
    smaller, hashable, and serialized in datasketch's byte layout (``serialize`` /
    ``deserialize``; the same bytes for the same values)."""

    __slots__ = ("hashvalues", "scheme", "seed")

    def _initialize_slots(self, seed: int, hashvalues: Any, scheme: str = "legacy") -> None:
        _check_scheme(scheme)
        self.seed = seed
        self.scheme = scheme
        if scheme == "legacy":
            self.hashvalues = np.array(hashvalues, dtype=np.uint64)
        else:
            self.hashvalues = _values(hashvalues, scheme, "hash values")
            if len(self.hashvalues) == 0:
                raise ValueError("hashvalues must not be empty")

    def __init__(self, minhash: Optional[Any] = None, seed: Optional[int] = None,
                 hashvalues: Optional[Iterable] = None, scheme: Optional[str] = None) -> None:
        if minhash is not None:
            if scheme is not None and scheme != minhash.scheme:
                raise ValueError("scheme %r conflicts with the scheme %r of the given MinHash"
                                 % (scheme, minhash.scheme))
            self._initialize_slots(minhash.seed, minhash.hashvalues, minhash.scheme)
        elif hashvalues is not None and seed is not None:
            if scheme is None:
                raise ValueError(
                    "scheme must be specified explicitly when initializing from existing hash "
                    "values: pass the scheme of the MinHash they came from, or "
                    "scheme='legacy' for hash values created by datasketch before 2.0.0.")
            self._initialize_slots(seed, hashvalues, scheme)
        else:
            raise ValueError("Init parameters cannot be None: make sure to set either minhash "
                             "or both of hash values and seed")

    def update(self, b: Any) -> None:
        raise TypeError("Cannot update a LeanMinHash")

    def update_batch(self, b: Iterable) -> None:
        raise TypeError("Cannot update a LeanMinHash")

    def copy(self) -> "LeanMinHash":
        lean = object.__new__(LeanMinHash)
        lean._initialize_slots(self.seed, self.hashvalues, self.scheme)
        return lean

    def _layout(self, byteorder: str) -> str:
        if self.scheme == "legacy":
            return "%sqi%dI" % (byteorder, len(self))
        return "%sqiB%d%s" % (byteorder, len(self), _VALUE_FORMAT[self.scheme])

    def _header(self) -> tuple:
        if self.scheme == "legacy":
            return (self.seed, len(self))
        return (self.seed, -len(self), _CODES[self.scheme])

    def bytesize(self, byteorder: str = "@") -> int:
        """Bytes ``serialize`` writes."""
        return struct.calcsize(self._layout(byteorder))

    def serialize(self, buf: Any, byteorder: str = "@") -> None:
        """Writes this LeanMinHash into ``buf`` (datasketch's layout)."""
        if len(buf) < self.bytesize(byteorder):
            raise ValueError("The buffer does not have enough space for holding this MinHash.")
        struct.pack_into(self._layout(byteorder), buf, 0, *self._header(), *self.hashvalues)

    @classmethod
    def deserialize(cls, buf: Any, byteorder: str = "@") -> "LeanMinHash":
        """Reads a LeanMinHash that ``serialize`` (neardup's or datasketch's) wrote."""
        seed, scheme, values = _read_lean(buf, byteorder)
        lean = object.__new__(LeanMinHash)
        lean._initialize_slots(seed, values, scheme)
        return lean

    def __getstate__(self) -> bytearray:
        buf = bytearray(self.bytesize(""))
        self.serialize(buf, "")
        return buf

    def __setstate__(self, buf: Any) -> None:
        seed, scheme, values = _read_lean(buf, "")
        self._initialize_slots(seed, values, scheme)

    def __hash__(self) -> int:
        return hash((self.scheme, self.seed, tuple(self.hashvalues)))

    def __repr__(self) -> str:
        return "LeanMinHash(num_perm=%d, seed=%d, scheme=%r)" % (len(self), self.seed, self.scheme)

    @classmethod
    def union(cls, *lmhs: "LeanMinHash") -> "LeanMinHash":
        if len(lmhs) < 2:
            raise ValueError("Cannot union less than 2 MinHash")
        first = lmhs[0]
        if any(m.seed != first.seed or len(m) != len(first) or m.scheme != first.scheme
               for m in lmhs):
            raise ValueError("The unioning MinHash must have the same seed, number of "
                             "permutation functions and scheme.")
        lean = object.__new__(LeanMinHash)
        lean._initialize_slots(first.seed, np.minimum.reduce([m.hashvalues for m in lmhs]),
                               first.scheme)
        return lean


def _read_lean(buf: Any, byteorder: str) -> Tuple[int, str, tuple]:
    head = "%sqi" % byteorder
    try:
        seed, num_perm = struct.unpack_from(head, buf, 0)
    except TypeError:
        buf = memoryview(buf)
        seed, num_perm = struct.unpack_from(head, buf, 0)
    if num_perm >= 0:
        scheme, offset = "legacy", struct.calcsize(head)
    else:
        num_perm = -num_perm
        (code,) = struct.unpack_from(byteorder + "B", buf, struct.calcsize(head))
        if code not in _SCHEME_OF_CODE:
            raise ValueError("Unknown permutation scheme code: %d" % code)
        scheme = _SCHEME_OF_CODE[code]
        offset = struct.calcsize("%sqiB0%s" % (byteorder, _VALUE_FORMAT[scheme]))
    values = struct.unpack_from("%s%d%s" % (byteorder, num_perm, _VALUE_FORMAT[scheme]), buf, offset)
    return seed, scheme, values


def bulk(texts: Any, num_perm: int = 128, seed: int = 1, scheme: Optional[str] = None,
         ngram: int = 1) -> List[MinHash]:
    """One datasketch-compatible :class:`MinHash` per text, computed in parallel in Rust.

    A text's tokens are its words as ``str.split()`` gives them, UTF-8 encoded — or, with
    ``ngram=n``, its word n-grams joined by one space — so ``bulk(texts)[i]`` equals the
    datasketch ``MinHash`` after ``m.update_batch([w.encode() for w in texts[i].split()])``.
    ``texts``: a sequence of ``str`` or a pyarrow string array. For lists of tokens you made
    yourself, use ``MinHash.bulk(lists, num_perm=…)``.
    """
    if isinstance(texts, str):
        raise TypeError("bulk takes a sequence of texts, not one str")
    if int(ngram) < 1:
        raise ValueError("ngram must be at least 1, got %r" % (ngram,))
    return MinHash(num_perm=num_perm, seed=seed, scheme=scheme)._bulk(texts, int(ngram))
