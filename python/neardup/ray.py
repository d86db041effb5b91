"""``neardup.ray``: ``neardup dedup``'s stages on a Ray cluster, for corpora one machine
cannot hold.

>>> import ray, neardup.ray                                   # doctest: +SKIP
>>> ray.init(address="auto")                                  # doctest: +SKIP
>>> neardup.ray.dedup("s3-mounted/shards/*.parquet", output="/shared/dedup", threshold=0.8)

Same stages, same answer and same output layout as ``neardup dedup`` on one machine: the
``clusters.parquet`` and ``pairs.parquet`` written here are its files byte for byte, in either
``clusters`` mode (the tests check it on a corpus whose clusters span input files). Every
stage is Ray tasks over blocks of Arrow rows (``neardup._ray_blocks``: a map, or a hash
shuffle — a task per block splits it by partition, a task per partition calls the group
function), calling the Rust kernels (``_native.StreamKernel``); Ray schedules, retries and
spills them. The driver holds object references and a few numbers per input file, never
texts, signatures, pairs or labels (the publish step streams the shards through it a chunk of
rows at a time). Each task's Rust code uses as many threads as the task has CPUs.

1. **sketch** — one task per input file: the file read exactly as ``neardup dedup`` reads it
   (any supported format, WARC and HTML extracted as it extracts them, the same errors naming
   file and line) into one row per document: its number, signature, text length, line number
   and id; in the same task, the signatures' join keys (LSH band keys for MinHash), each
   tagged with a hash partition of (band, key) and split by it.
2. **candidates** — one task per partition takes its keys from every input and emits every
   pair inside a run of equal (band, key) (``_native.candidate_pairs``) — what ``neardup
   dedup``'s join does per band.
3. **verify** — two shuffles of the pairs by input file: the first attaches the first
   document's signature, read from its file's sketched block where it lies, the second
   verifies the pairs against the second document's, read the same way, with the algorithm's
   own ``verify`` (MinHash: estimated Jaccard ≥ threshold). Signatures are not shuffled.
4. **components** — large-star / small-star rounds (Kiveris et al., "Connected Components in
   MapReduce and Beyond", SoCC 2014), each a ``groupby`` of the edges by vertex, until a
   pair of rounds leaves the edge set unchanged (O(log² n) rounds); the edges are then one
   star per component centred on its smallest document.
5. **clusters** — two ``groupby`` rounds: by document, each member of a component (it has a
   verified pair) learns its root from the stars and takes its signature and text length to
   the root's partition, with the verified pairs; by root, the Rust kernel anchors each
   component on the document kept for it (``StreamKernel.anchor``, ``neardup dedup``'s own
   code: cut until every member is within the threshold of it with ``"verified"``, only
   measured with ``"connected"``), and each member leaves as a row naming its final cluster's
   smallest document as root, with its similarity to the kept document.
6. **outputs** — three ``groupby`` rounds: by input file, each document learns its root and
   the file's roots are ranked; by the root's file, clusters are numbered as ``neardup
   dedup`` numbers them (by first member, from per-file counts of roots, so no global array
   is gathered) and the kept member chosen — the root (``keep="first"``) or the longest text,
   the first among equals (``keep="longest"``); by file again, each input's clusters shard
   and its kept records, copied by ``neardup dedup``'s own outputs code
   (``_native.write_deduplicated``: JSONL lines byte for byte, CSV records, Parquet rows)
   under the name ``neardup dedup`` gives them. Two more rounds give each input its shard of the pairs
   table: verified pairs meet their second document's id at its file, then their first's,
   with the comparisons that removed a document without a verified pair.
7. **publish** — ``neardup dedup``'s own writers (``_native.publish_external``) stream the
   shards, one chunk at a time, into ``OUTPUT/clusters.parquet`` and ``pairs.parquet`` (the
   same bytes as ``neardup dedup`` writes), ``removed.txt``, ``README.md`` and
   ``summary.json`` (its schema: ``neardup.outputs``), and put the set in place as one,
   ``summary.json`` last. The layout is ``neardup dedup``'s (``neardup.outputs``); the
   shards stay under ``OUTPUT/stages/ray/``.

Documents are numbered (file index << 40) | record index during the run: the order of
``neardup dedup``'s global numbering, without knowing file sizes in advance.

A ``ray.data.Dataset`` is accepted in place of paths (the output of a Ray Data pipeline:
``ray.data.read_parquet(...).filter(...)``): its blocks, taken in order with
``Dataset.to_arrow_refs()``, are the inputs, each sketched from its Arrow text column without a
copy, and the same stages follow.
"""

from __future__ import annotations

import json
import logging
import os
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence, Union

import numpy as np

from . import _native
from . import _ray_blocks as _blocks
from . import _ray_store as _store

if TYPE_CHECKING:  # for the annotation only: Ray is an optional dependency
    import ray.data

FILE_SHIFT = np.uint64(40)
KEPT_TEXT = "kept-text.jsonl"
#: The text of web pages compared (``neardup dedup --extract``).
EXTRACT_MODES = ("main", "visible", "none")
ROW_MASK = np.uint64((1 << 40) - 1)
_MIX = np.uint64(0x9E3779B97F4A7C15)
# At most this many candidate documents are broadcast (8 bytes each: 128 MB) so that only
# their signatures are shuffled for verification; beyond, every signature is.
BROADCAST_DOCUMENTS = 16 << 20
# Tally rows of a components round carry its checksum instead of an edge (see _star_group).
_TALLY_COUNT_XOR, _TALLY_SUM = -1, -2


# ----------------------------------------------------------------------------- numpy helpers

def _partition_of(values: np.ndarray, partitions: int) -> np.ndarray:
    """A hash partition of uint64 values (a multiplicative mix, so sequential document
    numbers spread evenly)."""
    with np.errstate(over="ignore"):
        mixed = values.astype(np.uint64) * _MIX
    return ((mixed >> np.uint64(33)) % np.uint64(partitions)).astype(np.int64)


def _file_of(doc: np.ndarray) -> np.ndarray:
    return (doc >> FILE_SHIFT).astype(np.int64)


def _row_of(doc: np.ndarray) -> np.ndarray:
    return (doc & ROW_MASK).astype(np.int64)


def _distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (a sort, where ``np.unique`` hashes first: 8× slower here)."""
    ordered = np.sort(values)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered


def _unique_pairs(a: np.ndarray, b: np.ndarray) -> tuple:
    if len(a) == 0:
        return a, b
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    keep = np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])]
    return a[keep], b[keep]


def _edge_checksum(u: np.ndarray, v: np.ndarray) -> tuple:
    """(count, xor, sum mod 2^64) of a hash of the directed edges u → v with u < v: an
    order-independent checksum of a set of edges, combinable across groups."""
    own = u < v
    with np.errstate(over="ignore"):
        h = (u[own] * _MIX) ^ (v[own] + np.uint64(0x632BE59BD9B4E019))
        h ^= h >> np.uint64(29)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        if len(h) == 0:
            return 0, 0, 0
        return int(own.sum()), int(np.bitwise_xor.reduce(h)), int(h.sum(dtype=np.uint64))


def _star_round(kind: str, u: np.ndarray, v: np.ndarray) -> tuple:
    """One large-star or small-star round over directed edges u → v (all edges of the nodes
    u, in both directions, deduplicated here). Returns the new undirected edges (x, y) and
    the checksum of this round's input."""
    u, v = _unique_pairs(u, v)
    checksum = _edge_checksum(u, v)
    if len(u) == 0:
        return u, v, checksum
    starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
    nodes = u[starts]
    if kind == "small":
        # Only neighbours not larger than the node take part.
        small = v <= u
        min_all = np.minimum.reduceat(np.where(small, v, u), starts)
    else:
        min_all = np.minimum.reduceat(v, starts)
    m = np.minimum(nodes, min_all)
    m_of_edge = np.repeat(m, np.diff(np.r_[starts, len(u)]))
    if kind == "large":
        # Every larger neighbour is linked to the smallest of the neighbourhood.
        sel = v > u
        x, y = v[sel], m_of_edge[sel]
    else:
        # The smaller neighbours and the node itself are linked to the smallest of them.
        sel = v <= u
        x = np.concatenate([v[sel], nodes])
        y = np.concatenate([m_of_edge[sel], m])
    return x, y, checksum


def _both_directions(x: np.ndarray, y: np.ndarray, partitions: int,
                     similarity: Optional[np.ndarray] = None) -> Dict[str, np.ndarray]:
    """Edges x – y (self-loops dropped) as directed rows u → v in both directions, each
    tagged with the partition of u (and with the edge's ``similarity``, when given)."""
    keep = x != y
    x, y = x[keep].astype(np.uint64), y[keep].astype(np.uint64)
    u = np.concatenate([x, y])
    v = np.concatenate([y, x])
    rows = {"part": _partition_of(u, partitions), "u": u, "v": v}
    if similarity is not None:
        rows["sim"] = np.tile(np.asarray(similarity, np.float64)[keep], 2)
    return rows


# ------------------------------------------------------------------- Arrow signature columns

def _binary_rows(rows: np.ndarray):
    """The rows of a 2-D uint32 array as one ``large_binary`` value each, sharing its
    memory (Arrow's offsets plus the array's bytes as the data buffer)."""
    import pyarrow as pa

    rows = np.ascontiguousarray(rows, dtype=np.uint32)
    n = rows.shape[0]
    width = rows.shape[1] if rows.ndim == 2 else 0
    offsets = np.arange(n + 1, dtype=np.int64) * (4 * width)
    return pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(rows)])


def _no_payload(n: int):
    """``n`` empty ``large_binary`` values (rows that carry no signature)."""
    import pyarrow as pa

    offsets = np.zeros(n + 1, dtype=np.int64)
    return pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(b"")])


def _payload_rows(column, width: int) -> tuple:
    """(which rows carry a signature, those signatures as a k × width uint32 array in row
    order) of a ``large_binary`` column whose values are empty or ``width`` words. In each
    chunk the non-empty values lie back to back in the data buffer, so one chunk gives a
    view; several are concatenated by NumPy (a copy of the words only)."""
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    parts = [_chunk_payload(c, width) for c in chunks if len(c)]
    if not parts:
        return np.zeros(0, dtype=bool), np.zeros((0, width), np.uint32)
    if len(parts) == 1:
        return parts[0]
    return (np.concatenate([h for h, _ in parts]),
            np.concatenate([w for _, w in parts]))


def _chunk_payload(arr, width: int) -> tuple:
    n = len(arr)
    buffers = arr.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64, count=n + 1, offset=arr.offset * 8)
    lengths = np.diff(offsets)
    has = lengths > 0
    if not np.all((lengths == 0) | (lengths == 4 * width)):
        raise ValueError(f"signature column holds values other than {width} words")
    start, end = int(offsets[0]), int(offsets[-1])
    if end == start:
        return has, np.zeros((0, width), np.uint32)
    words = np.frombuffer(buffers[2], dtype=np.uint8, count=end - start, offset=start)
    return has, words.view(np.uint32).reshape(-1, width)


def _column(table, name: str) -> np.ndarray:
    return table.column(name).to_numpy()


def _table(columns: Dict[str, np.ndarray]):
    """A stage's output rows as an Arrow table, each column converted as a whole (letting
    Arrow infer a dict of NumPy arrays element by element took 1.2 s of a 1.5 s task)."""
    import pyarrow as pa

    return pa.table({name: pa.array(values) for name, values in columns.items()})


# ------------------------------------------------------------------------- stage functions

def _sketch_and_keys(f, sources, dataset, algorithm, params, reading, partitions):
    """Stages 1 and 2's first half, one task per input: the input's documents as rows (doc,
    file, live, bytes, line, id, sig), its inventory (documents, text bytes, the error that
    stopped its reading, if any; for web pages, the counts of what happened to them) and its
    join keys already split into the ``partitions`` of
    the candidates shuffle. An input that cannot be read gives no rows and its error: the
    driver re-raises it as it was (``_raise_input_error``), where a task's exception would
    reach it wrapped in Ray's."""
    import pyarrow as pa

    _blocks.task_threads()
    try:
        table, pages = _sketch_one(f, sources, dataset, algorithm, params, reading)
    except (ValueError, OSError) as e:
        inventory = {"documents": 0, "bytes": 0, "error": f"{type(e).__name__}: {e}",
                     "pages": None}
        return (pa.table({}), inventory) + (pa.table({}),) * partitions
    inventory = {"documents": table.num_rows,
                 "bytes": int(_column(table, "bytes").sum()), "error": None, "pages": pages}
    return (table, inventory) + tuple(_band_keys(table, algorithm, params, partitions))


def _sketch_one(f, sources, dataset, algorithm, params, reading):
    """(Input ``f``'s documents as rows; for web pages, the counts of what happened to them,
    else ``None``)."""
    kernel = _native.StreamKernel(algorithm, params)
    text_column, id_column = reading["text_column"], reading["id_column"]
    pages = None
    if dataset:
        import ray
        import pyarrow.compute as pc

        table = ray.get(sources[f])
        if text_column not in table.column_names:
            raise ValueError(f"block {f}: no column {text_column!r} "
                             f"(columns: {', '.join(table.column_names)})")
        texts = table.column(text_column)
        sigs, empty = kernel.sketch(texts)
        # Text lengths in UTF-8 bytes, as `neardup dedup` counts them (keep="longest").
        nbytes = pc.fill_null(pc.binary_length(texts), 0).to_numpy(zero_copy_only=False)
        nbytes = np.minimum(nbytes.astype(np.int64), 2**32 - 1)
        if id_column in table.column_names:
            ids = [None if i is None else str(i) for i in table.column(id_column).to_pylist()]
        else:
            ids = [None] * table.num_rows
        lines = np.arange(1, table.num_rows + 1, dtype=np.int64)
    else:
        with _store.local_copy(sources[f], reading["filesystem"]) as local:
            try:
                sigs, empty, ids, nbytes, lines, pages = kernel.sketch_file(
                    local, text_column, id_column, reading["extract"],
                    reading["html_column"])
            except (ValueError, OSError) as e:
                if local == sources[f]:
                    raise
                # The error names the input as the user gave it, not the node's copy.
                raise type(e)(str(e).replace(local, sources[f])) from None
        # An HTML file is one page known by its path: a remote one by its URI, as given.
        ids = [sources[f] if i == local != sources[f] else i for i in ids]
    n = len(empty)
    if n >= 1 << 40:
        raise ValueError(f"{'block ' + str(f) if dataset else sources[f]}: more than 2^40 "
                         "records in one input")
    docs = (np.uint64(f) << FILE_SHIFT) | np.arange(n, dtype=np.uint64)
    return _document_table(f, docs, np.asarray(empty, bool), nbytes, lines, ids, sigs), pages


def _document_table(f, docs, empty, nbytes, lines, ids, sigs):
    import pyarrow as pa

    n = len(empty)
    return pa.table({
        "doc": docs.astype(np.uint64),
        "file": np.full(n, f, dtype=np.int64),
        "live": ~empty,
        "bytes": np.asarray(nbytes, dtype=np.int64),
        "line": np.asarray(lines, dtype=np.int64),
        "id": pa.array(ids, type=pa.large_string()),
        "sig": _binary_rows(sigs),
    })


def _raise_input_error(message: str):
    """An input's error, re-raised with its own type (``ValueError: path:line: …``)."""
    import builtins

    name, _, text = message.partition(": ")
    kind = getattr(builtins, name, None)
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind = RuntimeError
    raise kind(text)


def _band_keys(table, algorithm, params, partitions) -> list:
    """Stage 2's first half (in the sketch task): the join keys of the live documents, one
    row per (band, key, document), in one table per hash partition of (band, key) (put in
    partition order by NumPy: an Arrow ``take`` of these rows cost twice as much)."""
    kernel = _native.StreamKernel(algorithm, params)
    live = _column(table, "live")
    _, sigs = _payload_rows(table.column("sig"), kernel.width)
    docs = _column(table, "doc")[live]
    k = kernel.keys_per_doc
    if len(docs):
        keys = kernel.keys(np.ascontiguousarray(sigs[live]))
    else:
        keys = np.zeros((0, k), np.uint64)
    # Narrow columns: these rows are the largest object the run stores (16 per document).
    position = np.tile(np.arange(k, dtype=np.uint16 if k < 1 << 16 else np.uint32), len(docs))
    key = keys.ravel().astype(np.uint64)
    part = _partition_of(key ^ (position.astype(np.uint64) * _MIX), partitions)
    order = _by_partition(part)
    part, position, key = part[order], position[order], key[order]
    doc = np.repeat(docs, k)[order]
    bounds = np.searchsorted(part, np.arange(partitions + 1))
    return [_table({"part": part[a:b].astype(np.int32), "position": position[a:b],
                    "key": key[a:b], "doc": doc[a:b]})
            for a, b in zip(bounds[:-1], bounds[1:])]


def _candidates(batch):
    """Stage 2 (a group by key partition): every pair in a run of equal (band,
    key), once (``_native.candidate_pairs``: a sort of packed rows in Rust)."""
    a, b = _native.candidate_pairs(np.ascontiguousarray(batch["position"], np.uint64),
                                   np.ascontiguousarray(batch["key"], np.uint64),
                                   np.ascontiguousarray(batch["doc"], np.uint64))
    return _table({"a": a, "b": b})


def _routed(part, doc, other, sig, is_sig):
    """Rows of the verify shuffles: a document, the pair's other document (or none), a
    signature (or none) and whether the row is the document's own signature."""
    import pyarrow as pa

    return pa.table({"part": part, "doc": doc.astype(np.uint64),
                     "other": other.astype(np.uint64), "sig": sig,
                     "is_sig": np.asarray(is_sig, dtype=bool)})


def _among(docs: np.ndarray, wanted) -> np.ndarray:
    """Which of ``docs`` are in ``wanted`` (a sorted array of documents, or an object
    reference to one; ``None``: all of them)."""
    if wanted is None:
        return np.ones(len(docs), dtype=bool)
    import ray

    if isinstance(wanted, ray.ObjectRef):
        wanted = ray.get(wanted)
    if not len(wanted):
        return np.zeros(len(docs), dtype=bool)
    at = np.minimum(np.searchsorted(wanted, docs), len(wanted) - 1)
    return wanted[at] == docs


def _by_partition(part: np.ndarray) -> np.ndarray:
    """The order that puts rows in partition order (stable): wide rows are sorted with NumPy
    before they become Arrow, so the shuffle slices them instead of copying."""
    small = len(part) == 0 or part.max() < 1 << 15
    return np.argsort(part.astype(np.int16 if small else np.int64), kind="stable")  # radix


def _signature_rows(table, partitions, wanted, width):
    """The signatures of live documents in ``wanted`` (a sorted array of documents, or an
    object reference to one; ``None``: every live document), each routed to its document's
    partition (in partition order)."""
    docs = _column(table, "doc")
    has, sigs = _payload_rows(table.column("sig"), width)
    if not has.all():
        raise RuntimeError("a sketched document has no signature row")
    chosen = np.flatnonzero(_column(table, "live") & _among(docs, wanted))
    part = _partition_of(docs[chosen], partitions)
    order = _by_partition(part)
    rows = chosen[order]
    return _routed(part[order], docs[rows], np.zeros(len(rows), np.uint64),
                   _binary_rows(sigs[rows]), np.ones(len(rows), dtype=bool))


def _pairs_by_first_file(batch, partitions):
    """Verify, round 1 input: candidate pairs at the partition of their first document's
    input file."""
    a, b = batch["a"], batch["b"]
    return _table({"part": _file_of(a) % partitions, "a": a, "b": b})


def _block_signatures(blocks, docs: np.ndarray, width: int) -> np.ndarray:
    """The signatures of ``docs``, read from their inputs' sketched blocks where they are
    (``blocks``: object references, one per input; on the block's node, no copy is made of
    the block), a row per document."""
    import ray

    out = np.empty((len(docs), width), np.uint32)
    files = _file_of(docs)
    for f in np.unique(files):
        has, sigs = _payload_rows(ray.get(blocks[int(f)]).column("sig"), width)
        if not has.all():
            raise RuntimeError(f"input {f}: a sketched document has no signature row")
        rows = files == f
        out[rows] = sigs[_row_of(docs[rows])]
    return out


def _lookup(docs: np.ndarray, sigs: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Rows of ``sigs`` (one per sorted ``docs``) for the documents ``wanted``."""
    idx = np.searchsorted(docs, wanted)
    if len(wanted) and (idx.max() >= len(docs) or np.any(docs[idx] != wanted)):
        raise RuntimeError("a candidate pair names a document with no signature")
    return sigs[idx]


def _attach_first(table, blocks, width, partitions):
    """Verify, round 1 (a group by partition of input files): pairs (a, b) get a's
    signature, read from a's sketched block, and go on to the partition of b's file."""
    import pyarrow as pa

    a, b = _unique_pairs(_column(table, "a"), _column(table, "b"))
    sig_a = _block_signatures(blocks, a, width)
    part = _file_of(b) % partitions
    by = _by_partition(part)
    return pa.table({"part": part[by], "a": a[by], "b": b[by], "sig": _binary_rows(sig_a[by])})


def _verify_second(table, blocks, algorithm, params, partitions):
    """Verify, round 2 (a group by partition of input files): pairs (a, b, a's signature)
    are verified against b's signature, read from b's sketched block; the accepted ones
    become edges in both directions, at their documents' partitions."""
    kernel = _native.StreamKernel(algorithm, params)
    has, sig_a = _payload_rows(table.column("sig"), kernel.width)
    if not has.all():
        raise RuntimeError("a pair reached verification without its first signature")
    a, b = _column(table, "a"), _column(table, "b")
    sig_b = _block_signatures(blocks, b, kernel.width)
    scores = kernel.verify(np.ascontiguousarray(sig_a), sig_b)
    ok = ~np.isnan(scores)
    return _table(_both_directions(a[ok], b[ok], partitions, scores[ok]))


def _star_group(batch, kind, partitions):
    """Components (a group by the partition of u): one star round over the edges
    of this partition's nodes. Besides the new edges it emits two tally rows (negative
    ``part``) with the checksum of its input, so the driver can see when rounds stop
    changing the edge set."""
    x, y, (count, xor, total) = _star_round(kind, batch["u"], batch["v"])
    out = _both_directions(x, y, partitions)
    return _table({
        "part": np.r_[out["part"], _TALLY_COUNT_XOR, _TALLY_SUM].astype(np.int64),
        "u": np.r_[out["u"], np.uint64(count), np.uint64(total)].astype(np.uint64),
        "v": np.r_[out["v"], np.uint64(xor), np.uint64(0)].astype(np.uint64),
    })


def _edges_only(batch):
    keep = batch["part"] >= 0
    return _table({k: v[keep] for k, v in batch.items()})


def _tallies_only(batch):
    keep = batch["part"] < 0
    return _table({k: v[keep] for k, v in batch.items()})


def _outputs_rows(file, doc, root, nbytes, line, ids, similarity=None, within=None):
    import pyarrow as pa

    if similarity is None:
        similarity = np.ones(len(doc))
    if within is None:
        within = np.ones(len(doc), dtype=bool)
    return pa.table({"file": np.asarray(file, dtype=np.int64), "doc": doc.astype(np.uint64),
                     "root": root.astype(np.uint64), "bytes": np.asarray(nbytes, np.int64),
                     "line": np.asarray(line, np.int64),
                     "id": ids if isinstance(ids, (pa.Array, pa.ChunkedArray))
                     else pa.array(ids, type=pa.large_string()),
                     "similarity": np.asarray(similarity, dtype=np.float64),
                     "within": np.asarray(within, dtype=bool)})


def _document_rows(table):
    """Every document, its own root for now."""
    doc = _column(table, "doc")
    return _outputs_rows(_column(table, "file"), doc, doc, _column(table, "bytes"),
                         _column(table, "line"), table.column("id"))


# Row kinds of the anchoring shuffles.
_INFO, _SIG, _EDGE, _STAR = 0, 1, 2, 3


def _anchor_routed(part, doc, other, nbytes, sig, kind):
    """Rows of the anchoring shuffles: a document (or a pair's first), the pair's other
    document, a text length, a signature (or none) and what the row is."""
    import pyarrow as pa

    n = len(doc)
    return pa.table({"part": np.asarray(part, np.int64), "doc": np.asarray(doc, np.uint64),
                     "other": np.asarray(other, np.uint64),
                     "bytes": np.asarray(nbytes, np.int64), "sig": sig,
                     "kind": np.full(n, kind, np.int8)})


def _anchor_info_rows(table, partitions):
    """Anchoring, round 1 input: every document's text length, at its partition."""
    doc = _column(table, "doc")
    return _anchor_routed(_partition_of(doc, partitions), doc, np.zeros(len(doc)),
                          _column(table, "bytes"), _no_payload(len(doc)), _INFO)


def _anchor_signature_rows(table, partitions, wanted, width):
    """Anchoring, round 1 input: the candidate documents' signatures, at their partition."""
    t = _signature_rows(table, partitions, wanted, width)
    n = t.num_rows
    return _anchor_routed(_column(t, "part"), _column(t, "doc"), np.zeros(n), np.zeros(n),
                          t.column("sig"), _SIG)


def _anchor_edge_rows(batch, kind):
    """Anchoring, round 1 input: directed edges u → v at u's partition (verified pairs, or
    the star edges that name each component's root)."""
    u = batch["u"]
    return _anchor_routed(batch["part"], u, batch["v"], np.zeros(len(u)), _no_payload(len(u)),
                          kind)


def _attach_roots(table, width, partitions):
    """Anchoring, round 1 (a group by document partition): each document in a
    component (it has a verified edge) learns its root (the smallest of itself and its star
    neighbours: the components' stars are centred on their smallest document) and goes with
    its text length and signature to its root's partition; each verified pair (a < b) goes
    there too."""
    import pyarrow as pa

    kind, doc, other = _column(table, "kind"), _column(table, "doc"), _column(table, "other")
    edge = (kind == _EDGE) & (doc < other)
    members = _distinct(doc[kind == _EDGE])
    # Root: the smallest of the member and its star neighbours.
    root = members.copy()
    star = kind == _STAR
    at = np.searchsorted(members, doc[star])
    inside = at < len(members)
    inside[inside] = members[at[inside]] == doc[star][inside]
    np.minimum.at(root, at[inside], other[star][inside])
    info = kind == _INFO
    i_order = np.argsort(doc[info], kind="stable")
    nbytes = _lookup(doc[info][i_order], _column(table, "bytes")[info][i_order], members)
    is_sig = kind == _SIG
    _, sigs = _payload_rows(table.column("sig"), width)
    g_order = np.argsort(doc[is_sig], kind="stable")
    sig = _lookup(doc[is_sig][g_order], sigs[g_order], members)
    a, b = doc[edge], other[edge]
    edge_root = root[np.searchsorted(members, a)]
    part = _partition_of(root, partitions)
    by = _by_partition(part)
    return pa.concat_tables([
        _anchor_routed(part[by], members[by], root[by], nbytes[by], _binary_rows(sig[by]),
                       _INFO),
        _anchor_routed(_partition_of(edge_root, partitions), a, b, np.zeros(len(a)),
                       _no_payload(len(a)), _EDGE),
    ])


def _anchor_group(table, algorithm, params, keep, cut):
    """Anchoring, round 2 (a group by root partition): the components of this
    partition anchored by the Rust kernel (``neardup dedup``'s own code); each member comes
    out as a row naming the smallest document of its final cluster as its root, with its
    similarity to the document kept for it."""
    kernel = _native.StreamKernel(algorithm, params)
    kind = _column(table, "kind")
    member, edge = kind == _INFO, kind == _EDGE
    _, sigs = _payload_rows(table.column("sig"), kernel.width)  # member rows only
    doc, root = _column(table, "doc")[member], _column(table, "other")[member]
    rep, sim, within = kernel.anchor(
        np.ascontiguousarray(doc, np.uint64), np.ascontiguousarray(root, np.uint64),
        np.ascontiguousarray(sigs), np.ascontiguousarray(_column(table, "bytes")[member],
                                                          np.int64),
        np.ascontiguousarray(_column(table, "doc")[edge], np.uint64),
        np.ascontiguousarray(_column(table, "other")[edge], np.uint64), keep, cut)
    # The final cluster's root: the smallest document sharing the representative.
    order = np.lexsort((doc, rep))
    rep_s = rep[order]
    starts = np.flatnonzero(np.r_[True, rep_s[1:] != rep_s[:-1]]) if len(rep_s) else []
    final = np.empty_like(doc)
    if len(rep_s):
        final[order] = np.repeat(np.minimum.reduceat(doc[order], starts),
                                 np.diff(np.r_[starts, len(order)]))
    n = len(doc)
    return _outputs_rows(_file_of(doc), doc, final, np.full(n, -1), np.full(n, -1), [None] * n,
                         sim, within)


def _roots_of_file(table):
    """Outputs, round 1 (a group by file): each document of the file with its root
    (the smallest of itself and the roots members were given) and, for roots, their rank
    among the file's roots."""
    import pyarrow as pa

    doc, root = _column(table, "doc"), _column(table, "root")
    own = _column(table, "bytes") >= 0  # the document's own row; member rows have -1
    order = np.lexsort((root, doc))
    doc_s, root_s = doc[order], root[order]
    starts = np.flatnonzero(np.r_[True, doc_s[1:] != doc_s[:-1]])
    min_root = np.minimum.reduceat(root_s, starts)
    # The document's own row (one per document) holds its fields.
    own_rows = order[own[order]]
    if len(own_rows) != len(starts):
        raise RuntimeError("a member row names a document that was not sketched")
    is_root = min_root == doc_s[starts]
    rank = np.where(is_root, np.cumsum(is_root) - 1, -1)
    picked = table.take(pa.array(own_rows))
    # A document's own row says 1; its anchored row (at most one) its similarity to the
    # document kept for it.
    similarity = np.minimum.reduceat(_column(table, "similarity")[order], starts)
    within = np.logical_and.reduceat(_column(table, "within")[order], starts)
    out = _outputs_rows(_column(picked, "file"), doc_s[starts], min_root,
                        _column(picked, "bytes"), _column(picked, "line"), picked.column("id"),
                        similarity, within)
    return out.append_column("root_rank", pa.array(rank.astype(np.int64))).append_column(
        "root_file", pa.array(_file_of(min_root)))


def _roots_per_file(batch):
    """Partial counts of roots per file in one batch (summed by the driver)."""
    files, counts = np.unique(batch["file"][batch["root_rank"] >= 0], return_counts=True)
    return _table({"file": files.astype(np.int64), "roots": counts.astype(np.int64)})


def _clusters_of_roots(table, roots_before, keep):
    """Outputs, round 2 (a group by the root's file): cluster number (the roots
    before this one in document order), size and the kept member of every cluster."""
    import pyarrow as pa

    doc, root = _column(table, "doc"), _column(table, "root")
    nbytes, rank = _column(table, "bytes"), _column(table, "root_rank")
    order = np.lexsort((doc, root))
    root_s = root[order]
    starts = np.flatnonzero(np.r_[True, root_s[1:] != root_s[:-1]])
    sizes = np.diff(np.r_[starts, len(order)])
    # The root is its cluster's smallest document: first in the cluster's run.
    root_rows = order[starts]
    labels = np.asarray(roots_before)[_file_of(root_s[starts])] + rank[root_rows]
    cluster_of_row = np.repeat(np.arange(len(starts)), sizes)
    kept = np.zeros(len(order), dtype=bool)
    if keep == "longest":
        # Longest text first, then the first document (runs are sorted by doc already).
        best = np.lexsort((doc[order], -nbytes[order], cluster_of_row))
        first = np.r_[True, cluster_of_row[best][1:] != cluster_of_row[best][:-1]]
        kept[best[first]] = True
    else:
        kept[starts] = True
    picked = table.take(pa.array(order))
    # The kept member represents its cluster: its number and id on every member's row.
    kept_rows = np.flatnonzero(kept)
    rep_doc = doc[order][kept_rows][cluster_of_row]
    rep_id = picked.column("id").take(pa.array(kept_rows[cluster_of_row]))
    return pa.table({
        "file": picked.column("file"), "doc": picked.column("doc"),
        "line": picked.column("line"), "id": picked.column("id"),
        "cluster": pa.array(labels[cluster_of_row].astype(np.int64)),
        "cluster_size": pa.array(sizes[cluster_of_row].astype(np.int64)),
        "kept": pa.array(kept),
        "rep_doc": pa.array(rep_doc.astype(np.uint64)), "rep_id": rep_id,
        "similarity": picked.column("similarity"), "within": picked.column("within"),
    })


def _write_file(table, sources, dataset, out_dir, doc_offsets, names, reading):
    """Outputs, round 3 (a group by file): the file's clusters shard, kept records and, with
    ``write_text``, their text."""
    return _write_outputs_of(int(_column(table, "file")[0]), table, sources, dataset, out_dir,
                             doc_offsets, names, reading)


def _ids_of(doc: np.ndarray, ids: list, doc_offsets) -> list:
    """Document ids, a missing one replaced by the document's number in the whole run (as
    ``neardup dedup`` names a record without an id)."""
    return [i if i is not None else str(int(doc_offsets[f]) + int(r))
            for f, r, i in zip(_file_of(doc), _row_of(doc), ids)]


def _id_column(doc: np.ndarray, ids, doc_offsets):
    """:func:`_ids_of` as an Arrow string column: the ids as they are when none is missing
    (no Python string per document)."""
    import pyarrow as pa

    if ids.null_count == 0:
        return ids.cast(pa.string())
    return pa.array(_ids_of(doc, ids.to_pylist(), doc_offsets), pa.string())


def _write_outputs_of(f, table, sources, dataset, out_dir, doc_offsets, names, reading):
    """Input ``f``'s clusters shard (the clusters table's columns and ``within``) and kept
    records (under their staged name) from its rows of the last outputs round (none for an
    input without records)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = table.sort_by("doc")
    n = table.num_rows
    doc = _column(table, "doc").astype(np.uint64)
    if not np.array_equal(_row_of(doc), np.arange(n)):
        raise RuntimeError(f"input {f}: documents missing from the outputs round")
    rep_doc = _column(table, "rep_doc").astype(np.uint64)
    kept = _column(table, "kept")
    clusters = pa.table({
        "id": _id_column(doc, table.column("id"), doc_offsets),
        "cluster": table.column("cluster").cast(pa.uint32()),
        "cluster_size": table.column("cluster_size").cast(pa.uint32()),
        "kept": table.column("kept"),
        "representative": _id_column(rep_doc, table.column("rep_id"), doc_offsets),
        "similarity_to_representative": table.column("similarity").cast(pa.float64()),
        "within": table.column("within"),
    })
    fs = reading["filesystem"]
    _write_output(_shard_path(out_dir, "clusters", f), lambda tmp: _write_shard(clusters, tmp),
                  fs)
    lines = _column(table, "line")
    if dataset:
        import ray

        _write_output(_corpus_target(out_dir, names[f]),
                      lambda tmp: _write_atomic(tmp, lambda t: pq.write_table(
                          ray.get(sources[f]).filter(kept), t)), fs)
        return pa.table({"file": [f], "documents": [n], "removed": [int((~kept).sum())]})
    with _store.local_copy(sources[f], fs) as source:
        if names[f] is not None:  # an HTML file (one page) has no deduplicated copy
            removed = np.sort(lines[~kept].astype(np.uint64))
            _write_output(_corpus_target(out_dir, names[f]),
                          lambda tmp: _native.write_deduplicated(source, tmp, removed), fs)
        if reading["kept_text"]:
            def kept_text(tmp):
                _native.write_kept_text(source, tmp, np.sort(lines[kept].astype(np.uint64)),
                                        reading["text_column"], reading["id_column"],
                                        reading["extract"], reading["html_column"])
                if names[f] is None and source != sources[f]:
                    _page_known_by(tmp, source, sources[f])

            _write_output(_corpus_target(out_dir, reading["kept_text"][f]), kept_text, fs)
    return pa.table({"file": [f], "documents": [n], "removed": [int((~kept).sum())]})


def _page_known_by(kept_text: str, local: str, uri: str) -> None:
    """The kept text of a remote HTML file (one page, its id the file's path) names the page
    by its URI, as ``neardup dedup`` names a local file by its path, not by the node's copy."""
    with open(kept_text, "rb") as f:
        record = f.read()
    was = b'"id":' + json.dumps(local, ensure_ascii=False).encode()
    now = b'"id":' + json.dumps(uri, ensure_ascii=False).encode()
    with open(kept_text, "wb") as f:
        f.write(record.replace(was, now, 1))


def _corpus_target(out_dir: str, name: str) -> str:
    """Where a deduplicated or kept-text file is written: staged, for the publish step to put
    in place, on a local disk; at its place on an object store (the set is whole when
    ``summary.json`` is back, uploaded last)."""
    if _store.is_remote(out_dir):
        return _store.join(out_dir, name)
    return os.path.join(_staged_dir(out_dir), name)


def _write_output(path: str, write, filesystem=None) -> None:
    """``write(local path)``, then the file at ``path``: put in place atomically on a local
    disk, uploaded to an object store."""
    if _store.is_remote(path):
        with _store.written(path, filesystem) as local:
            write(local)
    else:
        _write_atomic(path, write)


def _staged_dir(out_dir: str) -> str:
    """Where the outputs are staged before they are published as one set (``neardup
    dedup``'s own staging directory)."""
    return os.path.join(out_dir, "stages", "outputs")


def _shard_path(out_dir: str, table: str, f: int) -> str:
    """Input ``f``'s shard of the clusters or pairs table."""
    return f"{out_dir.rstrip('/')}/stages/ray/{table}/{f:05d}.parquet"


def _no_rows():
    """The last outputs round's columns, no rows."""
    import pyarrow as pa

    return pa.table({"file": pa.array([], pa.int64()), "doc": pa.array([], pa.uint64()),
                     "line": pa.array([], pa.int64()), "id": pa.array([], pa.large_string()),
                     "cluster": pa.array([], pa.int64()),
                     "cluster_size": pa.array([], pa.int64()), "kept": pa.array([], pa.bool_()),
                     "rep_doc": pa.array([], pa.uint64()), "rep_id": pa.array([], pa.large_string()),
                     "similarity": pa.array([], pa.float64()),
                     "within": pa.array([], pa.bool_())})


# Row kinds of the pairs rounds: a document's id, a verified pair, a comparison with the kept
# document that removed a document without a verified pair between them.
_ID, _PAIR, _KEPT_FOR = 0, 1, 2


def _pair_rows(part, kind, a, b, sim, id_a, id_b):
    import pyarrow as pa

    n = len(a)
    strings = lambda x: x if isinstance(x, pa.Array) else pa.array(  # noqa: E731
        [None] * n if x is None else x, type=pa.large_string())
    return pa.table({"part": np.asarray(part, np.int64), "kind": np.full(n, kind, np.int8),
                     "a": np.asarray(a, np.uint64), "b": np.asarray(b, np.uint64),
                     "sim": np.asarray(sim, np.float64), "id_a": strings(id_a),
                     "id_b": strings(id_b)})


def _id_rows(table, doc_offsets, wanted):
    """Pairs rounds input: the id of every document in ``wanted`` (the candidate documents,
    or ``None``: every document), at its file."""
    import pyarrow as pa

    doc = _column(table, "doc").astype(np.uint64)
    chosen = _among(doc, wanted)
    doc = doc[chosen]
    ids = _ids_of(doc, table.column("id").filter(pa.array(chosen)).to_pylist(), doc_offsets)
    return _pair_rows(_file_of(doc), _ID, doc, np.zeros(len(doc)), np.zeros(len(doc)), ids,
                      None)


def _verified_rows(batch):
    """Pairs rounds input: each verified pair (a < b) once, at b's file."""
    own = batch["u"] < batch["v"]
    a, b = batch["u"][own], batch["v"][own]
    return _pair_rows(_file_of(b), _PAIR, a, b, batch["sim"][own], None, None)


def _kept_for_rows(table, doc_offsets):
    """Pairs rounds input: each removed document with the one kept in its place, at the
    file of the smaller of the two (dropped later where a verified pair says it already)."""
    import pyarrow as pa

    doc = _column(table, "doc").astype(np.uint64)
    rep = _column(table, "rep_doc").astype(np.uint64)
    moved = rep != doc
    d, r = doc[moved], rep[moved]

    def ids_of(docs, column):
        # Only the moved rows' ids leave Arrow.
        chosen = table.column(column).filter(pa.array(moved)).to_pylist()
        return np.asarray(_ids_of(docs, chosen, doc_offsets), dtype=object)

    ids, rep_ids = ids_of(d, "id"), ids_of(r, "rep_id")
    first = d < r
    a, b = np.where(first, d, r), np.where(first, r, d)
    id_a, id_b = np.where(first, ids, rep_ids), np.where(first, rep_ids, ids)
    return _pair_rows(_file_of(a), _KEPT_FOR, a, b, _column(table, "similarity")[moved],
                      id_a.tolist(), id_b.tolist())


def _lookup_ids(table, docs: np.ndarray) -> list:
    """The ids (from this group's id rows) of ``docs``."""
    kind = _column(table, "kind")
    id_docs = _column(table, "a")[kind == _ID]
    id_values = np.asarray(table.column("id_a").to_pylist(), dtype=object)[kind == _ID]
    order = np.argsort(id_docs, kind="stable")
    at = np.searchsorted(id_docs[order], docs)
    if len(docs) and (at.max() >= len(order) or not np.array_equal(id_docs[order][at], docs)):
        raise RuntimeError("a pair names a document whose id did not reach its file")
    return id_values[order][at].tolist()


def _attach_second_ids(table):
    """Pairs, round 1 (a group by file): each verified pair learns its second
    document's id and goes on to its first document's file."""
    pairs = _column(table, "kind") == _PAIR
    a, b = _column(table, "a")[pairs], _column(table, "b")[pairs]
    return _pair_rows(_file_of(a), _PAIR, a, b, _column(table, "sim")[pairs], None,
                      _lookup_ids(table, b))


def _write_pairs_of(table, out_dir, filesystem):
    """Pairs, round 2 (a group by file): the pairs whose first document is in this
    file, with both ids, sorted by document as ``neardup dedup`` sorts them: the verified
    pairs (``stage`` = ``verify``) and the comparisons with a kept document that no verified
    pair gives (``stage`` = ``clusters``)."""
    f = int(_file_of(_column(table, "a")[:1])[0]) if table.num_rows else -1
    _write_pairs_shard(table, out_dir, f, filesystem)
    return _table({"file": np.array([f], np.int64)})


def _write_pairs_shard(table, out_dir, f, filesystem):
    import pyarrow as pa
    import pyarrow.parquet as pq

    kind, a, b = _column(table, "kind"), _column(table, "a"), _column(table, "b")
    pairs, kept_for = kind == _PAIR, kind == _KEPT_FOR
    verified = set(zip(a[pairs].tolist(), b[pairs].tolist()))
    extra = np.flatnonzero(kept_for)
    extra = extra[[(x, y) not in verified for x, y in zip(a[extra].tolist(), b[extra].tolist())]]
    rows = np.r_[np.flatnonzero(pairs), extra].astype(np.int64)
    rows = rows[np.lexsort((b[rows], a[rows]))]
    id_a = np.asarray(table.column("id_a").to_pylist(), dtype=object)
    id_a[pairs] = _lookup_ids(table, a[pairs])
    shard = pa.table({
        "id_a": pa.array(id_a[rows].tolist(), pa.string()),
        "id_b": pa.array(table.column("id_b").take(pa.array(rows)).to_pylist(), pa.string()),
        "similarity": pa.array(_column(table, "sim")[rows], pa.float64()),
        "stage": pa.array(np.where(kind[rows] == _PAIR, "verify", "clusters").tolist(),
                          pa.string()),
    })
    _write_output(_shard_path(out_dir, "pairs", f), lambda tmp: _write_shard(shard, tmp),
                  filesystem)


def _write_shard(table, path: str) -> None:
    """A shard as Parquet without compression or dictionaries: it is read once, by the
    publish step, on this cluster's disks (compressed, writing and reading it back cost
    the outputs stage a second of CPU at 10^6 documents)."""
    import pyarrow.parquet as pq

    pq.write_table(table, path, compression="none", use_dictionary=False)


def _write_atomic(path: str, write) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path) and not os.path.isfile(path):
        raise OSError(f"{path}: exists and is not a regular file; not overwriting it")
    tmp = f"{path}.tmp-{os.getpid()}"
    write(tmp)
    os.replace(tmp, path)


def _per_file_sums(blocks, count_fn, column: str, files: int) -> np.ndarray:
    """Per-file totals of the partial counts ``count_fn`` makes of each block (no shuffle:
    a handful of rows per block reach the driver)."""
    totals = np.zeros(files, dtype=np.int64)
    counts = blocks.map(count_fn, "numpy").table()
    if counts.num_rows:
        np.add.at(totals, _column(counts, "file"), _column(counts, column))
    return totals


# -------------------------------------------------------------------------------- the driver

def dedup(
    paths: Union[str, Sequence[str], "ray.data.Dataset"],
    output: str,
    text_column: str = "text",
    id_column: str = "id",
    algorithm: str = "minhash-lsh",
    threshold: Optional[float] = None,
    keep: str = "first",
    partitions: Optional[int] = None,
    clusters: str = "verified",
    progress: Optional[Callable[[str], None]] = None,
    verbose: bool = False,
    extract: str = "main",
    html_column: Optional[str] = None,
    write_text: bool = False,
    filesystem: Any = None,
    **params: Any,
) -> Dict[str, Any]:
    """Deduplicates ``paths`` (files, directories, globs: JSONL, CSV, Parquet, optionally
    .gz/.zst; WARC/WET and HTML files; or a ``ray.data.Dataset`` with a ``text_column``) on the connected Ray cluster
    (``ray.init()`` is called if needed) and writes ``output`` as described in the module
    docstring. A Dataset's blocks, in order, take the place of input files: documents are
    numbered in block order, ids come from ``id_column`` when the Dataset has it (else row
    numbers), and the kept rows are written as ``deduplicated/NNNNN.parquet`` per block.
    Returns the summary written to ``OUTPUT/summary.json``. ``threshold`` and ``params`` are
    the algorithm's parameters (a streamed algorithm: ``minhash-lsh``, ``exact``, or
    ``simhash`` with ``weighting="tf"`` or ``"binary"`` or an ``idf_from`` table);
    ``partitions`` is the number of partitions of the shuffles (default: the cluster's
    CPUs, at least 2). ``clusters``: ``"verified"`` (a document is removed only in the name of
    a kept one within the threshold: each component cut until that holds) or ``"connected"``
    (connected components of the verified pairs), as ``neardup dedup --clusters``.
    ``progress``, if given, is called on the driver with each stage's name (``"sketch"``,
    ``"candidates"``, ``"verify"``, ``"components"``, ``"clusters"``, ``"outputs"``) as the
    stage starts, before any of its work is submitted. ``verbose``: when this call starts Ray,
    let it log at INFO and forward its workers' output to the driver; by default it logs
    warnings only and keeps the workers' output in its log files.

    Web pages — WARC/WET files (``.warc``, ``.warc.gz``, ``.warc.zst``), HTML files, or a
    column of HTML named by ``html_column`` — are compared by the text ``extract`` takes of
    them (``"main"``: the main content, ``"visible"``, ``"none"``), extracted in the task that
    sketches their file, as ``neardup dedup`` does; the kept WARC records are written per
    input (``deduplicated/NNNNN-<name>.warc.gz``). ``write_text`` also writes the kept
    records' text as compared, per input (``kept-text/NNNNN-<name>.jsonl``; one input:
    ``kept-text.jsonl``), a page with its URL, host, date and title.
    """
    import ray

    if keep not in ("first", "longest"):
        raise ValueError(f"keep must be 'first' or 'longest' on Ray, not {keep!r} (keeping by a "
                         "field, 'max:FIELD', runs in neardup.dedup and the CLI)")
    if clusters not in ("verified", "connected"):
        raise ValueError(f"clusters must be 'verified' or 'connected', not {clusters!r}")
    if extract not in EXTRACT_MODES:
        raise ValueError(f"extract must be one of {', '.join(EXTRACT_MODES)}, not {extract!r}")
    reading = dict(text_column=text_column, id_column=id_column, extract=extract,
                   html_column=html_column, write_text=bool(write_text), filesystem=filesystem)
    if threshold is not None:
        params = dict(params, threshold=threshold)
    params_json = json.dumps(params)
    kernel = _native.StreamKernel(algorithm, params_json)  # bad parameters fail here, at once
    if not ray.is_initialized():
        ray.init(logging_level=logging.INFO if verbose else logging.WARNING,
                 log_to_driver=verbose)
    dataset = _is_dataset(paths)
    if dataset and (write_text or html_column is not None):
        raise ValueError("write_text and html_column read input files again: give paths, not "
                         "a ray.data.Dataset (whose blocks are its texts already)")
    if dataset:
        # A Ray Data pipeline's output: its blocks, in order, play the part of input files.
        sources = paths.to_arrow_refs()
    else:
        sources = _input_files(paths, filesystem)
    output = os.fspath(output)
    if not _store.is_remote(output):
        output = os.path.abspath(output)
    return _run(ray, sources, dataset, output, algorithm, params_json, reading, keep,
                partitions, kernel, clusters, progress)


def _input_files(paths, filesystem) -> list:
    """The input files (local paths, or URIs of an object store) as ``neardup dedup``
    expands them: files, directories, globs."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    remote = [_store.is_remote(p) for p in paths]
    if any(remote) and not all(remote):
        raise ValueError("give local paths or object-store URIs (s3://, gs://, ...), not both")
    if all(remote) and paths:
        return _store.expand(paths, filesystem)
    return [os.fspath(p) for p in _native.expand_inputs(paths)]


def _run(ray, sources, dataset, output, algorithm, params_json, reading, keep, partitions,
         kernel, clusters, progress):
    F = len(sources)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    P = partitions or max(2, cpus)
    P_files = max(1, min(P, F))
    if _store.is_remote(output):
        # The set is incomplete from now until its summary.json is uploaded again, last.
        _store.delete(_store.join(output, "summary.json"), reading["filesystem"])
    else:
        os.makedirs(output, exist_ok=True)
    timings = {}
    started = time.perf_counter()

    def begin(name):
        if progress is not None:
            progress(name)
        return time.perf_counter()

    def stage(name, t0):
        timings[name] = round(time.perf_counter() - t0, 3)

    # 1. sketch (and 2's band keys): one task per input, its keys split by partition.
    t0 = begin("sketch")
    sketch = ray.remote(_sketch_and_keys).options(num_returns=2 + P, scheduling_strategy="SPREAD")
    outs = [sketch.remote(f, sources, dataset, algorithm, params_json, reading, P)
            for f in range(F)]
    sketched = _blocks.Blocks.of([o[0] for o in outs])
    inventories = ray.get([o[1] for o in outs])
    doc_offsets, text_bytes = _documents_per_file(inventories)
    stage("sketch", t0)

    # 2. candidates: each partition's keys from every input, joined.
    t0 = begin("candidates")
    candidates = _blocks.grouped([[o[2 + p] for o in outs] for p in range(P)], "part",
                                 _candidates, "numpy")
    del outs
    candidate_rows = candidates.count()
    stage("candidates", t0)

    # 3. verify: pairs meet a's signature in its input's sketched block, then b's. The
    # candidate documents, when few enough, are broadcast (their sorted numbers): only their
    # signatures and ids travel in the later stages.
    t0 = begin("verify")
    pairs, edges, wanted, broadcast = 0, None, None, None
    if candidate_rows:
        wanted, broadcast = _candidate_documents(ray, candidates, candidate_rows)
        edges = _verify(sketched, candidates, kernel, algorithm, params_json, P)
        pairs = edges.count() // 2
    stage("verify", t0)

    # 4. components: large-star / small-star until a pair of rounds changes nothing.
    t0 = begin("components")
    rounds = 0
    verified_edges = edges if pairs else None
    if pairs:
        edges, rounds = _stars(edges, P)
    stage("components", t0)

    # 5. clusters: each component anchored on the document kept for it (cut with "verified",
    # only measured with "connected"): members with their signatures and the verified pairs
    # among them meet at the root's partition, found from the stars.
    t0 = begin("clusters")
    documents = sketched.map(_document_rows)
    anchored = None
    if pairs:
        members = _members(ray, verified_edges, pairs)
        anchored = _anchor(sketched, verified_edges, edges, members, kernel, algorithm,
                           params_json, keep, clusters == "verified", P)
        documents = documents.union(anchored)
    anchored_rows = anchored.count() if pairs else 0
    stage("clusters", t0)

    # 6. outputs: roots by file, clusters by the root's file, shards by file; the pairs
    # table's shards by the first document's file; then one set in neardup dedup's layout.
    t0 = begin("outputs")
    names = _deduplicated_names(sources, dataset)
    reading = dict(reading,
                   kept_text=_kept_text_names(sources) if reading["write_text"] else [])
    _write_shards(documents, verified_edges, wanted, sources, dataset, output, doc_offsets,
                  names, reading, keep, P_files)
    stage("outputs", t0)

    total = int(doc_offsets[-1])
    rows = {"sketch": total, "candidates": candidate_rows, "verify": int(pairs),
            "components": rounds, "clusters": anchored_rows,
            "outputs": total}
    run = {
        "inputs": [f"block {f}" for f in range(F)] if dataset else list(sources),
        "text_field": reading["text_column"], "id_field": reading["id_column"],
        "algorithm": algorithm,
        "params": json.loads(kernel.resolved_params), "keep": keep, "cluster_mode": clusters,
        "documents": total, "text_bytes": text_bytes, "pairs": int(pairs),
        "stages": [{"stage": k, "seconds": v, "rows": rows[k]} for k, v in timings.items()],
        "seconds": round(time.perf_counter() - started, 3), "threads": cpus,
        "engine": {"name": "ray", "partitions": P, "component_rounds": rounds,
                   # Candidate documents broadcast, whose ids the pairs rounds carry (None:
                   # too many to broadcast; every id travels).
                   "broadcast_candidate_documents": broadcast},
        "kept_text": reading["kept_text"],
    }
    run.update(_web_keys(inventories, reading))
    return _publish(output, run, names, reading["filesystem"])


def _web_keys(inventories, reading) -> Dict[str, Any]:
    """The summary's keys for web pages (as ``neardup dedup`` writes them): the HTML field
    read, and, when some input held pages, the text compared and what happened to the pages,
    summed over the inputs."""
    keys: Dict[str, Any] = {}
    if reading["html_column"] is not None:
        keys["html_field"] = reading["html_column"]
    tallies = [i["pages"] for i in inventories if i["pages"] is not None]
    if tallies:
        keys["extract"] = reading["extract"]
        keys["pages"] = {}
        for tally in tallies:
            for reason, n in tally.items():
                keys["pages"][reason] = keys["pages"].get(reason, 0) + n
    return keys


def _without_compression(name: str) -> str:
    for suffix in (".gz", ".zst"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _kept_text_names(sources: list) -> list:
    """Where each input's kept text goes (``write_text``): ``kept-text.jsonl`` for one input
    (``neardup dedup``'s name), else ``kept-text/NNNNN-<name>.jsonl``, one per input (as
    ``deduplicated/NNNNN-<name>``): a crawl's text stays in as many files as its WARCs."""
    if len(sources) == 1:
        return [KEPT_TEXT]
    out = []
    for f, source in enumerate(sources):
        base = _without_compression(os.path.basename(source.split("://", 1)[-1]))
        stem, dot, _ = base.rpartition(".")
        out.append(f"kept-text/{f:05d}-{stem if dot else base}.jsonl")
    return out


def _publish(output: str, run: Dict[str, Any], names: list,
             filesystem=None) -> Dict[str, Any]:
    """The shards and staged files published in ``neardup dedup``'s layout by its own
    writers (``_native.publish_external``: the same clusters and pairs tables byte for byte,
    ``removed.txt``, ``README.md`` and ``summary.json`` last); returns the summary. On an
    object store the publish step runs in a local directory with the shards fetched, and the
    set is uploaded, ``summary.json`` last (the corpus files are in place already)."""
    F = len(names)
    run = dict(run, deduplicated=[n for n in names if n is not None])
    shards = {t: [_shard_path(output, t, f) for f in range(F)] for t in ("clusters", "pairs")}
    if not _store.is_remote(output):
        run.update(clusters_shards=shards["clusters"], pairs_shards=shards["pairs"])
        return json.loads(_native.publish_external(output, json.dumps(run)))
    import shutil
    import tempfile

    local = tempfile.mkdtemp(prefix="neardup-ray-publish-")
    try:
        for table, uris in shards.items():
            paths = [_shard_path(local, table, f) for f in range(F)]
            for uri, path in zip(uris, paths):
                _store.download(uri, path, filesystem)
            run[f"{table}_shards"] = paths
        run["corpus_elsewhere"] = True
        run["output_name"] = output  # what the README's next steps name
        summary = json.loads(_native.publish_external(local, json.dumps(run)))
        for name in summary["tables"] + ["removed.txt", "README.md", "summary.json"]:
            _store.upload(os.path.join(local, name), _store.join(output, name), filesystem)
        return summary
    finally:
        shutil.rmtree(local, ignore_errors=True)


def _verify(sketched, candidates, kernel, algorithm, params_json, P):
    """The verified pairs as edges in both directions, with their similarity: candidate
    pairs go to their first document's input file and take its signature from the file's
    sketched block, then to their second's, where they are verified. Signatures are read
    where the sketch left them; only the pairs (and the first signature of each) move."""
    blocks = sketched.refs()
    first = candidates.map(_pairs_by_first_file, "numpy", partitions=P)
    attached = first.groupby("part", P, _attach_first, blocks=blocks, width=kernel.width,
                             partitions=P)
    return attached.groupby("part", P, _verify_second, blocks=blocks, algorithm=algorithm,
                            params=params_json, partitions=P)


def _anchor(sketched, verified_edges, stars, wanted, kernel, algorithm, params_json, keep,
            cut, P):
    """Each component anchored on the document kept for it: its members, their signatures
    (those of ``wanted`` documents, routed from the sketched blocks) and the verified pairs
    among them meet at the root's partition (found from the ``stars``), where the Rust kernel
    cuts (``cut``) or only measures it."""
    routed = sketched.map(_anchor_info_rows, partitions=P).union(
        sketched.map(_anchor_signature_rows, partitions=P, wanted=wanted, width=kernel.width),
        verified_edges.map(_anchor_edge_rows, "numpy", kind=_EDGE),
        stars.map(_anchor_edge_rows, "numpy", kind=_STAR))
    members = routed.groupby("part", P, _attach_roots, width=kernel.width, partitions=P)
    return members.groupby("part", P, _anchor_group, algorithm=algorithm, params=params_json,
                           keep=keep, cut=cut)


def _documents_per_file(inventories) -> tuple:
    """(each input's first document number, then the total; text bytes) from the inputs'
    inventories, or the first input's error raised as one process raises it."""
    for inventory in inventories:
        if inventory["error"] is not None:
            _raise_input_error(inventory["error"])
    counts = [inventory["documents"] for inventory in inventories]
    return (np.r_[0, np.cumsum(counts)].astype(np.int64),
            sum(inventory["bytes"] for inventory in inventories))


def _stars(edges, P) -> tuple:
    """Large-star / small-star rounds until a pair of rounds changes nothing: (the edges,
    one star per component centred on its smallest document; the rounds taken)."""
    history = []
    rounds = 0
    while True:
        checksums = []
        for kind in ("large", "small"):
            out = edges.groupby("part", P, _star_group, "numpy", kind=kind, partitions=P)
            checksums.append(_checksum_of(out.map(_tallies_only, "numpy").table()))
            edges = out.map(_edges_only, "numpy")
            rounds += 1
        history.append(checksums)
        # The inputs of small-star (t − 1), large-star (t) and small-star (t) are equal:
        # neither operation changes the edge set, which is then one star per component.
        if len(history) >= 2 and history[-2][1] == history[-1][0] == history[-1][1]:
            return _blocks.Blocks.of(edges.refs()), rounds


def _write_shards(documents, verified_edges, wanted, sources, dataset, output, doc_offsets,
                  names, reading, keep, P_files) -> None:
    """Outputs: roots by file, clusters by the root's file, then each input's clusters shard
    and deduplicated file by file, and its pairs shard (see :func:`_write_pairs`)."""
    F = len(sources)
    rooted = documents.groupby("file", P_files, _roots_of_file)
    roots_per_file = _per_file_sums(rooted.map(_blocks.select, columns=["file", "root_rank"]),
                                    _roots_per_file, "roots", F)
    roots_before = np.r_[0, np.cumsum(roots_per_file)].astype(np.int64)
    clustered = rooted.groupby("root_file", P_files, _clusters_of_roots,
                               roots_before=roots_before, keep=keep)
    if not _store.is_remote(output):
        _clear_staged(output)
    written = clustered.groupby("file", P_files, _write_file, sources=sources, dataset=dataset,
                                out_dir=output, doc_offsets=doc_offsets, names=names,
                                reading=reading).table()
    # An input without records has no group: its (empty) outputs are written here.
    done = set(_column(written, "file").tolist()) if written.num_rows else set()
    for f in range(F):
        if f not in done:
            _write_outputs_of(f, _no_rows(), sources, dataset, output, doc_offsets, names,
                              reading)
    _write_pairs(clustered, verified_edges, wanted, output, doc_offsets, F, P_files,
                 reading["filesystem"])


def _deduplicated_names(sources, dataset) -> list:
    """Each input's deduplicated file, as ``neardup dedup`` names it (``None`` for an HTML
    file: one page, not copied; a Ray Data block is a Parquet input named ``block``)."""
    if not dataset:
        import shutil

        remote = any(_store.is_remote(s) for s in sources)
        tmp, local = _store.local_names(sources) if remote else (None, list(sources))
        try:
            names = iter(_native.deduplicated_names(local))
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
        html = (".html", ".htm", ".xhtml")
        return [None if _without_compression(s).endswith(html) else next(names)
                for s in sources]
    if len(sources) == 1:
        return ["deduplicated.parquet"]
    return [f"deduplicated/{f:05d}-block.parquet" for f in range(len(sources))]


def _clear_staged(output: str) -> None:
    """Removes an earlier run's staged outputs and shards (they would hold disk, and a
    stale shard must never be published with this run's)."""
    import shutil

    for d in (_staged_dir(output), os.path.join(output, "stages", "ray")):
        if os.path.isdir(d) and not os.path.islink(d):
            shutil.rmtree(d)


def _write_pairs(clustered, verified_edges, wanted, output, doc_offsets, F, P_files,
                 filesystem):
    """The pairs table's shard of every input: verified pairs meet their second document's
    id at its file, then their first's at its file, with the comparisons that removed a
    document without a verified pair (which carry both ids). Only the ids of ``wanted``
    documents (those of candidate pairs, when their numbers were broadcast) travel."""
    rows = clustered.map(_kept_for_rows, doc_offsets=doc_offsets)
    if verified_edges is not None:
        ids = _blocks.Blocks.of(clustered.map(_id_rows, doc_offsets=doc_offsets,
                                              wanted=wanted).refs())
        second = verified_edges.map(_verified_rows, "numpy").union(ids).groupby(
            "part", P_files, _attach_second_ids)
        rows = rows.union(ids, second)
    written = rows.groupby("part", P_files, _write_pairs_of, out_dir=output,
                           filesystem=filesystem).table()
    done = set(_column(written, "file").tolist()) if written.num_rows else set()
    for f in range(F):
        if f not in done:
            _write_pairs_shard(_pair_rows([], _ID, [], [], [], [], None), output, f,
                               filesystem)


def _docs_of_pairs(batch):
    """The distinct documents of a block of candidate pairs."""
    return _table({"doc": _distinct(np.concatenate([batch["a"], batch["b"]]))})


def _edge_documents(batch):
    """The distinct documents of a block of verified edges (both directions: ``u`` holds
    every end)."""
    return _table({"doc": _distinct(batch["u"])})


def _distinct_documents(blocks, documents_of) -> np.ndarray:
    """The sorted distinct documents ``documents_of`` finds in each block, gathered: each
    block's own distinct ones come to the driver, never its rows."""
    found = blocks.map(documents_of, "numpy").table()
    docs = _distinct(_column(found, "doc")) if found.num_rows else np.zeros(0, np.uint64)
    return docs.astype(np.uint64)


def _members(ray, verified_edges, pairs):
    """An object reference to the sorted numbers of the documents with a verified pair (the
    members of components: only their signatures go to anchoring), or ``None`` when there may
    be more than ``BROADCAST_DOCUMENTS`` of them (then every live document's signature goes)."""
    if 2 * pairs > BROADCAST_DOCUMENTS:
        return None
    return ray.put(_distinct_documents(verified_edges, _edge_documents))


def _candidate_documents(ray, candidates, candidate_rows) -> tuple:
    """(an object reference to the sorted numbers of the documents in candidate pairs, how
    many), or (``None``, ``None``) when there may be more than ``BROADCAST_DOCUMENTS`` of
    them (then every id travels to the pairs table)."""
    if 2 * candidate_rows > BROADCAST_DOCUMENTS:
        return None, None
    docs = _distinct_documents(candidates, _docs_of_pairs)
    return ray.put(docs), len(docs)


def _checksum_of(tallies) -> tuple:
    """The checksum of a round's whole input from its groups' tally rows."""
    count = xor = total = 0
    if tallies.num_rows:
        for part, u, v in zip(*(_column(tallies, c).tolist() for c in ("part", "u", "v"))):
            if part == _TALLY_COUNT_XOR:
                count += int(u)
                xor ^= int(v)
            else:
                total = (total + int(u)) % (1 << 64)
    return count, xor, total


def _is_dataset(x) -> bool:
    try:
        from ray.data import Dataset
    except ImportError:  # Ray without its data extra: no Dataset can have been passed
        return False
    return isinstance(x, Dataset)


def read_clusters(output: str):
    """``OUTPUT/clusters.parquet`` as a pyarrow Table (``neardup dedup``'s table, in
    document order)."""
    import pyarrow.parquet as pq

    return pq.read_table(os.path.join(output, "clusters.parquet"), memory_map=False)
