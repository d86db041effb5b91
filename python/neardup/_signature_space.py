"""Where a MinHash signature's values come from, and how they are laid out for the index.

Values from different hash functions cannot be compared: a neardup text signature, a
datasketch ``MinHash`` of another scheme or seed and a bare array agree on a band only by
accident, so an index that mixes them returns wrong candidates without any error.
:class:`Space` names the origin of a signature; ``MinHashLSH`` takes the space of its first
signature and refuses any other.

In the index a value is one or more 32-bit words (``value_words``): datasketch's ``affine64``
and ``legacy`` values are ``uint64`` (2 words), a ``WeightedMinHash`` value is two ``int64``
(4 words). Banding the words in bands of ``r × value_words`` words is banding the values.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Tuple

import numpy as np


class Space(NamedTuple):
    """The origin of a signature's values: two signatures are comparable only when equal."""

    origin: str  # "neardup text", "datasketch MinHash", "datasketch WeightedMinHash", "array"
    detail: Tuple[Tuple[str, Any], ...]  # the sketch parameters, scheme and seed, ...
    dtype: str  # little-endian numpy dtype of one value element: "<u4", "<u8", "<i8"
    value_shape: Tuple[int, ...]  # () or (2,) for a WeightedMinHash value

    @property
    def value_words(self) -> int:
        """32-bit words per value."""
        elements = int(np.prod(self.value_shape)) if self.value_shape else 1
        return elements * np.dtype(self.dtype).itemsize // 4

    def describe(self) -> str:
        detail = ", ".join(f"{k}={v!r}" for k, v in self.detail)
        return f"{self.origin} signatures ({detail})" if detail else f"{self.origin} signatures"

    def band_bytes(self, words: np.ndarray, start: int, end: int) -> np.ndarray:
        """datasketch's bucket key ``bytes(hashvalues[start:end].byteswap().data)`` of
        values ``start:end`` of each row of ``words`` (n × num_perm·value_words, uint32), as
        the rows of an n × key-length uint8 array."""
        n = len(words)
        values = np.ascontiguousarray(words).view(self.dtype)
        values = values.reshape(n, -1, *self.value_shape)[:, start:end]
        big = np.ascontiguousarray(values, dtype=np.dtype(self.dtype).newbyteorder(">"))
        return big.reshape(n, big[0].size if n else 0).view(np.uint8)


def text_space(sketch: dict) -> Space:
    """The space of signatures neardup computes from texts with ``sketch`` parameters."""
    return Space("neardup text", tuple(sorted(sketch.items())), "<u4", ())


def signature_of(x: Any, num_perm: int) -> Tuple[Space, np.ndarray]:
    """(space, words) of a datasketch ``MinHash`` / ``LeanMinHash`` / ``WeightedMinHash`` or
    an array of ``num_perm`` integer values. Wrong lengths and values are ``ValueError``."""
    values = getattr(x, "hashvalues", None)
    if values is not None:
        if len(x) != num_perm:
            raise ValueError("Expecting minhash with length %d, got %d" % (num_perm, len(x)))
        values = np.asarray(values)
        kind = "datasketch WeightedMinHash" if values.ndim == 2 else "datasketch MinHash"
        detail = (("scheme", getattr(x, "scheme", None)), ("seed", getattr(x, "seed", None)))
        return _words(values, kind, detail)
    values = np.asarray(x)
    if values.ndim != 1 or len(values) != num_perm:
        raise ValueError(
            f"signature has shape {values.shape}; this index takes num_perm = {num_perm}"
        )
    if values.dtype.kind not in "ui":
        raise ValueError(f"signature values must be integers, not {values.dtype}")
    if values.dtype.itemsize < 8 or values.dtype.kind == "i":
        # Python ints, int64 or narrower: 32-bit values as neardup.minhash returns them.
        if len(values) and (values.min() < 0 or values.max() > np.iinfo(np.uint32).max):
            raise ValueError("signature values must fit in 32 bits (or be a uint64 array)")
        values = values.astype(np.uint32)
    return _words(values, "array", ())


def _words(values: np.ndarray, origin: str, detail: tuple) -> Tuple[Space, np.ndarray]:
    dtype = values.dtype.newbyteorder("<")
    if dtype.kind not in "ui" or dtype.itemsize not in (4, 8):
        raise ValueError(f"MinHash values must be 32- or 64-bit integers, not {values.dtype}")
    space = Space(origin, detail, dtype.str, tuple(values.shape[1:]))
    words = np.ascontiguousarray(values, dtype=dtype).view(np.uint32).reshape(-1)
    return space, words
