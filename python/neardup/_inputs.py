"""What ``neardup.dedup`` and ``neardup.detect`` accept, and how kept rows go back into the
kind of object the user gave.

In memory: a list of ``str`` (the texts), a list of dicts (records), a pandas or polars
DataFrame, a pyarrow ``Table`` or ``RecordBatchReader``. On disk: a path, a glob or a list of
them. A list of ``str`` is paths when every string names an existing file or directory or is
a glob that matches, texts when none does; a mix is refused, since either reading loses data.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import Any, Callable, List, Optional

import numpy as np

_GLOB = set("*?[")

EXPECTED = ("a path, a glob or a list of them; a list of str (texts) or of dicts (records); a "
            "pandas or polars DataFrame; or a pyarrow Table or RecordBatchReader")


@dataclass
class InMemory:
    """An in-memory input as a pyarrow Table, with how to give back its kept rows."""

    table: Any
    kind: str  # "pyarrow.Table", "pandas.DataFrame", ... : what the user gave
    kept: Callable[[np.ndarray], Any]  # boolean mask (input order) -> the same kind of object

    def describe(self) -> str:
        return f"{self.kind} of {self.table.num_rows:,} rows"

    def require(self, column: str) -> None:
        """Refuses a table without the text column, naming the columns it has."""
        if column not in self.table.column_names:
            raise ValueError(f"{self.kind}: no column {column!r} (text_column; it has "
                             f"{', '.join(self.table.column_names)})")


def _module(x: Any) -> str:
    return type(x).__module__.split(".")[0]


def _matches(s: str) -> bool:
    if os.path.exists(s):
        return True
    return bool(_GLOB & set(s)) and bool(glob.glob(s, recursive=True))


def paths_or_memory(data: Any, text_column: str) -> "List[str] | InMemory":
    """File inputs as paths, or the in-memory input converted; anything else is refused
    (``TypeError`` / ``ValueError`` saying what is expected)."""
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return InMemory(data, "pyarrow.Table", lambda mask: data.filter(pa.array(mask)))
    if isinstance(data, pa.RecordBatchReader):
        table = data.read_all()

        def as_reader(mask: np.ndarray) -> Any:
            kept = table.filter(pa.array(mask))
            return pa.RecordBatchReader.from_batches(kept.schema, kept.to_batches())
        return InMemory(table, "pyarrow.RecordBatchReader", as_reader)
    if _module(data) == "pandas" and hasattr(data, "columns"):
        table = pa.Table.from_pandas(data, preserve_index=False)
        return InMemory(table, "pandas.DataFrame", lambda mask: data[mask])
    if _module(data) == "polars" and hasattr(data, "to_arrow"):
        table = data.to_arrow()
        return InMemory(table, "polars.DataFrame", lambda mask: data.filter(mask.tolist()))
    if isinstance(data, (str, os.PathLike)):
        return [_existing(os.fspath(data))]
    if isinstance(data, (bytes, dict)) or not hasattr(data, "__iter__"):
        raise TypeError(f"neardup takes {EXPECTED}; not {type(data).__name__}")
    items = list(data)
    if not items:
        raise ValueError(f"nothing to read: an empty {type(data).__name__} (neardup takes "
                         f"{EXPECTED})")
    if all(isinstance(x, dict) for x in items):
        return InMemory(pa.Table.from_pylist(items), "list of dicts",
                        lambda mask: [x for x, k in zip(items, mask) if k])
    if all(isinstance(x, os.PathLike) for x in items):
        return [_existing(os.fspath(x)) for x in items]
    if all(isinstance(x, str) for x in items):
        return _paths_or_texts(items, text_column)
    kinds = sorted({type(x).__name__ for x in items})
    raise TypeError(f"a list of {' and '.join(kinds)}: neardup takes {EXPECTED}")


def _existing(path: str) -> str:
    if _matches(path):
        return path
    if _GLOB & set(path):
        raise FileNotFoundError(f"{path}: the glob matches no file")
    shown = path if len(path) <= 80 else path[:77] + "..."
    raise FileNotFoundError(
        f"{shown!r} is neither an existing file or directory nor a glob; neardup takes "
        f"{EXPECTED} (texts go in a list: dedup([text, ...]))")


def _paths_or_texts(items: List[str], text_column: str) -> "List[str] | InMemory":
    import pyarrow as pa

    found = [_matches(s) if len(s) < 4096 and "\n" not in s else False for s in items]
    if all(found):
        return items
    if any(found):
        first_file = items[found.index(True)]
        first_text = items[found.index(False)]
        raise ValueError(
            f"some strings name files ({first_file!r}) and some do not ({first_text[:60]!r}): "
            "give files as paths (or pathlib.Path) and texts as a list of texts, not both")
    table = pa.table({text_column: pa.array(items, type=pa.string())})
    return InMemory(table, "list of str", lambda mask: [x for x, k in zip(items, mask) if k])


def texts_of(data: Any, text_column: str) -> Any:
    """The texts of ``detect``'s input: a sequence of ``str`` or an Arrow string array as it
    is, or the ``text_column`` of a table-like input (pyarrow, pandas, polars, list of
    dicts)."""
    import pyarrow as pa

    if isinstance(data, (pa.Array, pa.ChunkedArray)):
        return data
    if isinstance(data, (str, bytes)):
        raise TypeError("texts must be a sequence of str (or a table-like input), not one str")
    table_like = (isinstance(data, (pa.Table, pa.RecordBatchReader))
                  or (_module(data) in ("pandas", "polars") and hasattr(data, "columns"))
                  or (isinstance(data, list) and bool(data)
                      and all(isinstance(x, dict) for x in data)))
    if not table_like:
        return data  # a sequence of str: the native layer reads it, or says what it is not
    converted = paths_or_memory(data, text_column)
    assert isinstance(converted, InMemory)
    converted.require(text_column)
    return converted.table.column(text_column)


def cli_alias(column: str, field: Optional[str]) -> str:
    """``text_field`` / ``id_field`` (the CLI's names) stand for ``text_column`` /
    ``id_column`` when given."""
    return column if field is None else field
