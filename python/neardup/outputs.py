"""One output layout for ``neardup dedup``, ``neardup.dedup`` and ``neardup.ray.dedup``, and
one reader for it.

An output directory holds, whichever of the three wrote it:

* ``clusters.parquet`` — one row per document in input order: ``id``, ``cluster``,
  ``cluster_size``, ``kept``, ``representative``, ``similarity_to_representative``
  (byte-identical across the three for the same input and parameters);
* ``pairs.parquet`` — the verified pairs (``stage`` = ``verify``) and the comparisons with a
  kept document that removed a document without one (``stage`` = ``clusters``);
* ``removed.txt`` — the removed documents' ids, one per line, in input order;
* the deduplicated corpus: ``deduplicated.<ext>`` for one input, else
  ``deduplicated/NNNNN-<name>`` per input (a WARC as ``.warc.gz``); ``kept-text.jsonl``
  with ``write_text`` (``neardup.ray.dedup`` with several inputs: ``kept-text/NNNNN-<name>.jsonl``
  per input, which concatenated in order are that file);
* ``README.md`` and ``summary.json`` (written last: its presence means the set is whole);
* ``stages/`` — the engine's working files (resumable stages in one process, shards on Ray).

:func:`read_summary` checks ``summary.json`` against :data:`SUMMARY_SCHEMA` (and
:data:`SUMMARY_OPTIONAL`, the keys of runs over web pages or keeping by a field);
:func:`read_output` reads the tables beside it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

#: Every key of ``summary.json`` and the JSON types its value may have.
SUMMARY_SCHEMA: Dict[str, Tuple[type, ...]] = {
    "version": (str,), "inputs": (list,), "text_field": (str,), "id_field": (str,),
    "algorithm": (str,), "params": (dict,), "streamed": (bool,), "spilled": (bool,),
    "keep": (str,), "cluster_mode": (str,), "documents": (int,),
    "indexed_documents": (int,), "duplicates_of_index": (int,), "text_bytes": (int,),
    "min_words": (int,), "short_documents": (int,), "invalid_records": (int,),
    "clusters": (int,), "documents_in_clusters": (int,), "removed": (int,),
    "removed_below_threshold": (int, type(None)), "kept": (int,), "pairs": (int,),
    "cluster_sizes": (list,), "largest_clusters": (list,), "stages": (list,),
    "seconds": (float, int), "peak_rss_bytes": (int, type(None)), "threads": (int,),
    "tables": (list,), "deduplicated": (list,), "engine": (dict,),
}
#: Keys present only when the inputs held web pages (WARC, HTML files, an HTML column), or
#: when the run kept by a field.
SUMMARY_OPTIONAL: Dict[str, Tuple[type, ...]] = {
    "html_field": (str,), "extract": (str,), "pages": (dict,),
    # Runs with keep="max:FIELD" / "min:FIELD" only.
    "without_keep_value": (int,),
}
_ENGINE_SCHEMA = {"name": (str,), "partitions": (int, type(None)),
                  "component_rounds": (int, type(None)),
                  "broadcast_candidate_documents": (int, type(None))}
_STAGE_SCHEMA = {"stage": (str,), "seconds": (float, int), "reused": (bool,), "rows": (int,)}


def read_summary(output: "os.PathLike[str] | str") -> Dict[str, Any]:
    """``OUTPUT/summary.json``, checked against :data:`SUMMARY_SCHEMA` (a missing or extra key,
    or a value of another type, is a ``ValueError`` naming the file and the key). A missing
    file is ``FileNotFoundError``: the set is incomplete or was never written."""
    path = os.path.join(os.fspath(output), "summary.json")
    with open(path, encoding="utf-8") as f:
        summary = json.load(f)
    _check(path, "", summary, SUMMARY_SCHEMA, SUMMARY_OPTIONAL)
    _check(path, "engine.", summary["engine"], _ENGINE_SCHEMA)
    for i, stage in enumerate(summary["stages"]):
        _check(path, f"stages[{i}].", stage, _STAGE_SCHEMA)
    return summary


def _check(path: str, prefix: str, value: Any, schema: Dict[str, Tuple[type, ...]],
           optional: Optional[Dict[str, Tuple[type, ...]]] = None) -> None:
    if not isinstance(value, dict):
        raise ValueError(f"{path}: {prefix or 'the summary'} is not an object")
    optional = optional or {}
    for key in sorted((set(schema) ^ set(value)) - set(optional)):
        what = "missing" if key in schema else "not in the schema"
        raise ValueError(f"{path}: key {prefix}{key} {what}")
    present = {k: t for k, t in optional.items() if k in value}
    for key, types in {**schema, **present}.items():
        v = value[key]
        # JSON has no bool/int distinction in Python's eyes: True is an int, never a count.
        if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
            raise ValueError(f"{path}: key {prefix}{key} is {type(v).__name__}, not "
                             f"{' or '.join(t.__name__ for t in types)}")


@dataclass
class DedupResult:
    """What ``neardup.dedup`` gives back."""

    #: ``clusters.parquet``: one row per document, in input order.
    clusters: Any
    #: ``pairs.parquet``: the pairs that put documents in clusters.
    pairs: Any
    #: ``summary.json`` (counts, parameters as they ran, time per stage).
    summary: Dict[str, Any]
    #: The output directory, or ``None`` when it was a temporary one (now removed).
    output: Optional[str]
    #: For an in-memory input: its kept rows, in order, in the kind of object given (else
    #: ``None``: the kept records are in ``output``'s deduplicated files).
    deduplicated: Any = None

    def __repr__(self) -> str:
        s = self.summary
        kept = "" if self.deduplicated is None else f", deduplicated={_kind(self.deduplicated)}"
        return (f"DedupResult(documents={s.get('documents')}, removed={s.get('removed')}, "
                f"clusters={s.get('clusters')}, pairs={s.get('pairs')}, "
                f"output={self.output!r}{kept})")


def _kind(x: Any) -> str:
    """A short description of a result object: its type and size."""
    rows = getattr(x, "num_rows", None)
    if rows is None and hasattr(x, "shape"):
        rows = x.shape[0]
    if rows is None and hasattr(x, "__len__"):
        rows = len(x)
    name = f"{type(x).__module__.split('.')[0]}.{type(x).__name__}"
    return f"<{name} of {rows} rows>" if rows is not None else f"<{name}>"


def read_output(output: "os.PathLike[str] | str") -> DedupResult:
    """The tables and summary of an output directory written by any of the three."""
    import pyarrow.parquet as pq

    output = os.fspath(output)
    summary = read_summary(output)
    clusters, pairs = (pq.read_table(os.path.join(output, name), memory_map=False)
                       for name in summary["tables"])
    return DedupResult(clusters=clusters, pairs=pairs, summary=summary, output=output)
