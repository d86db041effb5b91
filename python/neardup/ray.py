"""``neardup.ray``: ``neardup dedup``'s stages on a Ray cluster, for corpora one machine
cannot hold.

>>> import ray, neardup.ray                                   # doctest: +SKIP
>>> ray.init(address="auto")                                  # doctest: +SKIP
>>> neardup.ray.dedup("s3-mounted/shards/*.parquet", output="/shared/dedup", threshold=0.8)

Same stages, same answer as ``neardup dedup`` on one machine: the clusters written here equal
its ``clusters.parquet`` row for row (the tests check it on a corpus whose clusters span input
files). Every stage is a set of Ray tasks calling the Rust kernels (``_native.StreamKernel``);
the driver only schedules and holds object references plus one count per input file.

1. **sketch** — one task per input file: read it exactly as ``neardup dedup`` does (any
   supported format, the same errors naming file and line), signatures and join keys (LSH band
   keys for MinHash). The keys leave the task already split into ``partitions`` hash
   partitions; the signatures stay in the object store.
2. **candidates** — one task per key partition: sort (position, key, document) and emit
   every pair inside a run of equal keys (what ``neardup dedup``'s join does per band).
3. **verify** — pairs are routed to the file of their first document, which attaches its
   signature, then to the file of the second, which verifies the pair with the algorithm's own
   ``verify`` (MinHash: estimated Jaccard ≥ threshold).
4. **components** — large-star / small-star rounds (Kiveris et al., "Connected Components in
   MapReduce and Beyond", SoCC 2014) over edges hash-partitioned by vertex, until a round
   pair changes nothing (O(log² n) rounds); the result is a star per component centred on its
   smallest document.
5. **outputs** — clusters numbered by first member as ``neardup dedup`` numbers them (from
   per-file counts of non-root documents, so no global array is ever gathered); the kept
   member is the root (``keep="first"``) or, with ``keep="longest"``, the longest text of the
   cluster, the first among equals — members send their text lengths along to their root's
   file, which chooses, as ``neardup dedup --keep longest`` does; written as
   ``OUTPUT/clusters/NNNNN.parquet`` (id, cluster, cluster_size, kept) per input file, plus
   the kept records as ``OUTPUT/deduplicated/NNNNN.<ext>`` (JSONL lines copied byte for byte,
   Parquet and CSV rows) and ``OUTPUT/summary.json``.

Documents are numbered (file index << 40) | record index during the run: the order of
``neardup dedup``'s global numbering, without knowing file sizes in advance.

A ``ray.data.Dataset`` is accepted in place of paths (the output of a Ray Data pipeline:
``ray.data.read_parquet(...).filter(...)``): its blocks, taken in order with
``Dataset.to_arrow_refs()``, are the inputs, each sketched from its Arrow text column without a
copy, and the same stages follow.
"""

from __future__ import annotations

import glob as _glob
import json
import os
import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _native

if TYPE_CHECKING:  # for the annotation only: Ray is an optional dependency
    import ray.data

FILE_SHIFT = np.uint64(40)
ROW_MASK = np.uint64((1 << 40) - 1)
_MIX = np.uint64(0x9E3779B97F4A7C15)


def _partition_of(values: np.ndarray, partitions: int) -> np.ndarray:
    """A hash partition of uint64 values (a multiplicative mix, so sequential document
    numbers spread evenly)."""
    with np.errstate(over="ignore"):
        mixed = values.astype(np.uint64) * _MIX
    return ((mixed >> np.uint64(33)) % np.uint64(partitions)).astype(np.int64)


def _split(partition: np.ndarray, partitions: int, *columns: np.ndarray) -> List[tuple]:
    """Rows split by partition number: one tuple of column slices per partition."""
    order = np.argsort(partition, kind="stable")
    bounds = np.searchsorted(partition[order], np.arange(partitions + 1))
    return [
        tuple(c[order[bounds[p]:bounds[p + 1]]] for c in columns) for p in range(partitions)
    ]


def _concat(parts: Sequence[tuple], dtypes: Sequence[Any]) -> List[np.ndarray]:
    """Column-wise concatenation of partitions (tuples of arrays), one dtype per column."""
    if not parts:
        return [np.zeros(0, dtype=d) for d in dtypes]
    return [np.concatenate([p[i] for p in parts]).astype(d, copy=False)
            for i, d in enumerate(dtypes)]


def _file_of(doc: np.ndarray) -> np.ndarray:
    return (doc >> FILE_SHIFT).astype(np.int64)


def _row_of(doc: np.ndarray) -> np.ndarray:
    return (doc & ROW_MASK).astype(np.int64)


def _pairs_in_runs(keys: np.ndarray, docs: np.ndarray) -> tuple:
    """Every pair (a < b) of documents within runs of equal keys (keys and docs sorted by
    key, then doc)."""
    if len(keys) < 2:
        return np.zeros(0, np.uint64), np.zeros(0, np.uint64)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    lengths = np.diff(np.r_[starts, len(keys)])
    a_out, b_out = [], []
    for length in np.unique(lengths[lengths > 1]):
        group_starts = starts[lengths == length]
        i, j = np.triu_indices(int(length), k=1)
        a_out.append(docs[(group_starts[:, None] + i[None, :]).ravel()])
        b_out.append(docs[(group_starts[:, None] + j[None, :]).ravel()])
    if not a_out:
        return np.zeros(0, np.uint64), np.zeros(0, np.uint64)
    return np.concatenate(a_out), np.concatenate(b_out)


def _unique_pairs(a: np.ndarray, b: np.ndarray) -> tuple:
    if len(a) == 0:
        return a, b
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    keep = np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])]
    return a[keep], b[keep]


def _edge_checksum(u: np.ndarray, v: np.ndarray) -> tuple:
    """An order-independent checksum of the directed edges u → v with u < v."""
    own = u < v
    with np.errstate(over="ignore"):
        h = (u[own] * _MIX) ^ (v[own] + np.uint64(0x632BE59BD9B4E019))
        h ^= h >> np.uint64(29)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        return int(own.sum()), int(np.bitwise_xor.reduce(h)) if len(h) else 0, int(h.sum(dtype=np.uint64)) if len(h) else 0


def _both_directions(x: np.ndarray, y: np.ndarray, partitions: int) -> List[tuple]:
    keep = x != y
    x, y = x[keep], y[keep]
    u = np.concatenate([x, y])
    v = np.concatenate([y, x])
    return _split(_partition_of(u, partitions), partitions, u, v)


def _star_round(kind: str, partitions: int, *incoming: tuple) -> tuple:
    """One large-star or small-star round over the directed edges u → v whose u hashes to
    this partition. Returns the next round's partitions, this round's input checksum and, for
    the final round, (node, root)."""
    u, v = _concat(incoming, [np.uint64, np.uint64])
    u, v = _unique_pairs(u, v)
    checksum = _edge_checksum(u, v)
    if len(u) == 0:
        empty = np.zeros(0, np.uint64)
        return [(empty, empty)] * partitions, checksum, (empty, empty)
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
    return _both_directions(x, y, partitions), checksum, (nodes, m)


def _remote(ray, f, **options):
    return ray.remote(**options)(f) if options else ray.remote(f)


def _returning(ray, f, n):
    """``f`` as a Ray task with ``n`` returns, called as ``g(*args) -> list of n refs`` (Ray
    returns a bare reference when ``num_returns`` is 1)."""
    if n == 1:
        task = ray.remote(lambda *args: f(*args)[0])
        return lambda *args: [task.remote(*args)]
    task = ray.remote(num_returns=n)(f)
    return lambda *args: list(task.remote(*args))


def _task_sketch(f, path, algorithm, params, text_field, id_field, partitions):
    kernel = _native.StreamKernel(algorithm, params)
    sigs, empty, ids, nbytes, lines = kernel.sketch_file(path, text_field, id_field)
    shard = {"sigs": sigs, "empty": empty, "ids": ids, "bytes": nbytes, "lines": lines}
    return _keys_by_partition(kernel, f, path, shard, partitions)


def _task_sketch_block(f, table, algorithm, params, text_column, id_column, partitions):
    """A Ray Data block (a pyarrow Table) sketched like a file: texts borrowed from the Arrow
    column, ids from ``id_column`` when present (as text), else row numbers."""
    kernel = _native.StreamKernel(algorithm, params)
    if text_column not in table.column_names:
        raise ValueError(f"block {f}: no column {text_column!r} "
                         f"(columns: {', '.join(table.column_names)})")
    sigs, empty = kernel.sketch(table.column(text_column))
    import pyarrow.compute as pc

    # Text lengths in UTF-8 bytes, as `neardup dedup` counts them (for keep="longest").
    nbytes = pc.fill_null(pc.binary_length(table.column(text_column)), 0)
    nbytes = np.minimum(nbytes.to_numpy(zero_copy_only=False).astype(np.int64), 2**32 - 1)
    nbytes = nbytes.astype(np.uint32)
    if id_column in table.column_names:
        ids = [None if i is None else str(i) for i in table.column(id_column).to_pylist()]
    else:
        ids = [None] * table.num_rows
    shard = {"sigs": sigs, "empty": empty, "ids": ids, "bytes": nbytes, "lines": None}
    return _keys_by_partition(kernel, f, f"block {f}", shard, partitions)


def _keys_by_partition(kernel, f, source, shard, partitions):
    """(records, shard, key partitions…): the join keys of the live documents of input ``f``
    split into hash partitions by (position, key)."""
    sigs, empty = shard["sigs"], shard["empty"]
    n = len(empty)
    if n >= 1 << 40:
        raise ValueError(f"{source}: more than 2^40 records in one input")
    docs = (np.uint64(f) << FILE_SHIFT) | np.arange(n, dtype=np.uint64)
    live = ~empty
    keys = kernel.keys(sigs[live]) if live.any() else np.zeros((0, kernel.keys_per_doc), np.uint64)
    k = keys.shape[1]
    position = np.repeat(np.arange(k, dtype=np.uint64)[None, :], len(keys), axis=0).ravel()
    key = keys.ravel()
    doc = np.repeat(docs[live], k)
    parts = _split(_partition_of(key ^ (position * _MIX), partitions), partitions, position, key, doc)
    return (n, shard, *parts)


def _task_candidates(files, *parts):
    position, key, doc = _concat(parts, [np.uint64, np.uint64, np.uint64])
    order = np.lexsort((doc, key, position))
    position, key, doc = position[order], key[order], doc[order]
    # A run is equal (position, key); fold the two into one comparable array of runs.
    run = np.r_[0, np.cumsum((position[1:] != position[:-1]) | (key[1:] != key[:-1]))]
    a, b = _pairs_in_runs(run, doc)
    return tuple(_split(_file_of(a), files, a, b))


def _task_attach(files, shard, *incoming):
    a, b = _concat(incoming, [np.uint64, np.uint64])
    a, b = _unique_pairs(a, b)
    sig_a = shard["sigs"][_row_of(a)]
    return tuple(_split(_file_of(b), files, a, b, sig_a))


def _task_verify(partitions, algorithm, params, shard, *incoming):
    kernel = _native.StreamKernel(algorithm, params)
    width = kernel.width
    if incoming:
        a = np.concatenate([p[0] for p in incoming]).astype(np.uint64)
        b = np.concatenate([p[1] for p in incoming]).astype(np.uint64)
        sig_a = np.concatenate([p[2].reshape(-1, width) for p in incoming]).astype(np.uint32)
    else:
        a = b = np.zeros(0, np.uint64)
        sig_a = np.zeros((0, width), np.uint32)
    sig_b = shard["sigs"][_row_of(b)]
    scores = kernel.verify(np.ascontiguousarray(sig_a), np.ascontiguousarray(sig_b))
    ok = ~np.isnan(scores)
    return (int(ok.sum()), *_both_directions(a[ok], b[ok], partitions))


def _task_roots_by_file(files, nodes_roots):
    nodes, roots = nodes_roots
    nonroot = nodes != roots
    return tuple(_split(_file_of(nodes[nonroot]), files, nodes[nonroot], roots[nonroot]))


def _task_nonroots_of_file(*incoming):
    v, r = _concat(incoming, [np.uint64, np.uint64])
    order = np.argsort(v, kind="stable")
    return v[order], r[order]


def _task_label_roots(files, f, offsets, nonroot_before, nonroots_here, shard, keep, *incoming):
    """For the roots in file f: label = global index − non-roots before it, size = 1 +
    members, and which member is kept (the root, the component's first document, unless
    ``keep == "longest"`` finds a strictly longer member; among equally long members the
    first). Sends (member, label, size, kept) to each member's file and keeps the roots'."""
    v, r, bv = _concat(incoming, [np.uint64, np.uint64, np.int64])
    here_nodes = nonroots_here[0]
    roots, inverse, counts = np.unique(r, return_inverse=True, return_counts=True)
    below = nonroot_before[f] + np.searchsorted(here_nodes, roots)
    labels = offsets[f] + _row_of(roots) - below
    sizes = counts + 1
    member_label = labels[inverse]
    member_size = sizes[inverse]
    root_kept = np.ones(len(roots), dtype=bool)
    member_kept = np.zeros(len(v), dtype=bool)
    if keep == "longest" and len(v):
        # Per root, its best member: longest, then first (largest bytes, smallest document).
        order = np.lexsort((v, -bv, inverse))
        first_of_group = np.r_[True, inverse[order][1:] != inverse[order][:-1]]
        best = order[first_of_group]  # one member index per root, in root order
        root_bytes = shard["bytes"][_row_of(roots)].astype(np.int64)
        wins = bv[best] > root_bytes
        root_kept = ~wins
        member_kept[best[wins]] = True
    out = list(_split(_file_of(v), files, v, member_label, member_size, member_kept))
    return (roots, labels, sizes, root_kept, *out)


def _task_outputs(f, source, out_dir, offsets, nonroot_before, shard, nonroots_here,
                  roots, root_labels, root_sizes, root_kept, *members):
    """Writes input ``f``'s clusters and kept records; ``source`` is its path or, for a Ray
    Data input, its block (a pyarrow Table)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = len(shard["empty"])
    rows = np.arange(n, dtype=np.int64)
    here_nodes = nonroots_here[0]
    # Singletons and roots: label from the count of non-roots before them.
    below = nonroot_before[f] + np.searchsorted(_row_of(here_nodes), rows)
    labels = (offsets[f] + rows - below).astype(np.int64)
    sizes = np.ones(n, dtype=np.int64)
    sizes[_row_of(roots)] = root_sizes
    labels[_row_of(roots)] = root_labels
    v, member_label, member_size, member_kept = _concat(
        members, [np.uint64, np.int64, np.int64, bool])
    labels[_row_of(v)] = member_label
    sizes[_row_of(v)] = member_size
    kept = np.ones(n, dtype=bool)  # singletons
    kept[_row_of(roots)] = root_kept
    kept[_row_of(v)] = member_kept
    ids = [i if i is not None else str(offsets[f] + r) for r, i in enumerate(shard["ids"])]
    table = pa.table({
        "id": pa.array(ids, type=pa.large_string()),
        "cluster": pa.array(labels, type=pa.uint32()),
        "cluster_size": pa.array(sizes, type=pa.uint32()),
        "kept": pa.array(kept),
    })
    name = f"{f:05d}"
    clusters = os.path.join(out_dir, "clusters", f"{name}.parquet")
    _write_atomic(clusters, lambda tmp: pq.write_table(table, tmp))
    dedup = _write_deduplicated(source, os.path.join(out_dir, "deduplicated", name), shard, kept)
    return {"file": source if isinstance(source, str) else f"block {f}",
            "documents": n, "removed": int((~kept).sum()),
            "clusters": clusters, "deduplicated": dedup}


def _write_atomic(path: str, write) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path) and not os.path.isfile(path):
        raise OSError(f"{path}: exists and is not a regular file; not overwriting it")
    tmp = f"{path}.tmp-{os.getpid()}"
    write(tmp)
    os.replace(tmp, path)


def _write_deduplicated(path: Any, target_stem: str, shard: dict, kept: np.ndarray) -> str:
    """The kept records of one input in its own format (JSONL lines byte for byte; Parquet
    and CSV rows through pyarrow; a Ray Data block as Parquet)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if isinstance(path, pa.Table):
        target = target_stem + ".parquet"
        _write_atomic(target, lambda tmp: pq.write_table(path.filter(kept), tmp))
        return target
    lower = path.lower()
    if lower.endswith(".parquet"):
        target = target_stem + ".parquet"
        table = pq.read_table(path)
        _write_atomic(target, lambda tmp: pq.write_table(table.filter(kept), tmp))
        return target
    if ".csv" in os.path.basename(lower):
        import pyarrow.csv as pcsv

        target = target_stem + ".csv"
        table = pcsv.read_csv(path)
        _write_atomic(target, lambda tmp: pcsv.write_csv(table.filter(kept), tmp))
        return target
    target = target_stem + ".jsonl"
    # The kept records' lines, byte for byte, as `neardup dedup` copies them (blank lines,
    # which hold no record, are not copied).
    kept_lines = set((shard["lines"][kept]).tolist())
    opener = _opener(path)

    def write(tmp):
        with opener(path) as src, open(tmp, "wb") as dst:
            for number, line in enumerate(src, start=1):
                if number in kept_lines:
                    dst.write(line if line.endswith(b"\n") else line + b"\n")

    _write_atomic(target, write)
    return target


def _opener(path: str):
    if path.endswith(".gz"):
        import gzip

        return lambda p: gzip.open(p, "rb")
    if path.endswith(".zst"):
        import zstandard  # optional: only for .zst inputs

        return lambda p: zstandard.open(p, "rb")
    return lambda p: open(p, "rb")


def dedup(
    paths: Union[str, Sequence[str], "ray.data.Dataset"],
    output: str,
    text_column: str = "text",
    id_column: str = "id",
    algorithm: str = "minhash-lsh",
    threshold: Optional[float] = None,
    keep: str = "first",
    partitions: Optional[int] = None,
    **params: Any,
) -> Dict[str, Any]:
    """Deduplicates ``paths`` (files, directories, globs: JSONL, CSV, Parquet, optionally
    .gz/.zst; or a ``ray.data.Dataset`` with a ``text_column``) on the connected Ray cluster
    (``ray.init()`` is called if needed) and writes ``output`` as described in the module
    docstring. A Dataset's blocks, in order, take the place of input files: documents are
    numbered in block order, ids come from ``id_column`` when the Dataset has it (else row
    numbers), and the kept rows are written as ``deduplicated/NNNNN.parquet`` per block. Returns the summary written to
    ``OUTPUT/summary.json``. ``threshold`` and ``params`` are the algorithm's parameters (a
    streamed algorithm: ``minhash-lsh`` or ``exact``); ``partitions`` is the number of hash
    partitions of the shuffles (default: 2 × the cluster's CPUs).
    """
    import ray

    if keep not in ("first", "longest"):
        raise ValueError(f"keep must be 'first' or 'longest', not {keep!r}")
    if threshold is not None:
        params = dict(params, threshold=threshold)
    params_json = json.dumps(params)
    kernel = _native.StreamKernel(algorithm, params_json)  # bad parameters fail here, at once
    if not ray.is_initialized():
        ray.init()
    dataset = _is_dataset(paths)
    if dataset:
        # A Ray Data pipeline's output: its blocks, in order, play the part of input files.
        files = paths.to_arrow_refs()
    else:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        files = [os.fspath(p) for p in _native.expand_inputs([os.fspath(p) for p in paths])]
    cpus = int(ray.cluster_resources().get("CPU", 1))
    P = partitions or max(2, 2 * cpus)
    F = len(files)
    os.makedirs(output, exist_ok=True)
    timings = {}
    started = time.perf_counter()

    def stage(name, t0):
        timings[name] = round(time.perf_counter() - t0, 3)

    # 1. sketch
    t0 = time.perf_counter()
    sketch = _remote(ray, _task_sketch_block if dataset else _task_sketch, num_returns=P + 2)
    sketched = [sketch.remote(f, source, algorithm, params_json, text_column, id_column, P)
                for f, source in enumerate(files)]
    counts = ray.get([s[0] for s in sketched])
    shards = [s[1] for s in sketched]
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    stage("sketch", t0)

    # 2. candidates, routed to the first document's file
    t0 = time.perf_counter()
    candidates = _returning(ray, _task_candidates, F)
    cand = [candidates(F, *[s[2 + p] for s in sketched]) for p in range(P)]
    attach = _returning(ray, _task_attach, F)
    attached = [attach(F, shards[f], *[c[f] for c in cand]) for f in range(F)]
    ray.wait([x for a in attached for x in a], num_returns=F * F, fetch_local=False)
    stage("candidates", t0)

    # 3. verify, on the second document's file
    t0 = time.perf_counter()
    verify = _returning(ray, _task_verify, P + 1)
    verified = [verify(P, algorithm, params_json, shards[f], *[a[f] for a in attached])
                for f in range(F)]
    pairs = int(sum(ray.get([v[0] for v in verified])))
    edges = [[v[1 + p] for v in verified] for p in range(P)]
    stage("verify", t0)

    # 4. components: large-star / small-star until a pair of rounds changes nothing
    t0 = time.perf_counter()
    star = _returning(ray, _star_round_task, P + 2)
    history = []
    rounds = 0
    while True:
        checksums = []
        for kind in ("large", "small"):
            outs = [star(kind, P, *edges[p]) for p in range(P)]
            checksums.append(tuple(ray.get([o[P] for o in outs])))
            final = [o[P + 1] for o in outs]
            edges = [[o[q] for o in outs] for q in range(P)]
            rounds += 1
        history.append(checksums)
        # The inputs of small-star (t − 1), large-star (t) and small-star (t) are equal: neither
        # operation changes the edge set, which is then one star per component, and `final`
        # holds (node, root) read off it.
        if len(history) >= 2 and history[-2][1] == history[-1][0] == history[-1][1]:
            break
    stage("components", t0)

    # 5. outputs
    t0 = time.perf_counter()
    by_file = _returning(ray, _task_roots_by_file, F)
    routed = [by_file(F, fin) for fin in final]
    nonroots_of_file, length = _remote(ray, _task_nonroots_of_file), _remote(ray, _length)
    nonroots = [nonroots_of_file.remote(*[r[f] for r in routed]) for f in range(F)]
    nonroot_counts = ray.get([length.remote(n) for n in nonroots])
    nonroot_before = np.r_[0, np.cumsum(nonroot_counts)].astype(np.int64)
    # Non-root members routed to their root's file (with their text lengths), which numbers
    # its roots and chooses the kept member.
    by_root = _returning(ray, _split_by_root_file, F)
    to_roots = [by_root(F, n, shards[f]) for f, n in enumerate(nonroots)]
    label = _returning(ray, _task_label_roots, F + 4)
    labelled = [label(F, f, offsets, nonroot_before, nonroots[f], shards[f], keep,
                      *[t[f] for t in to_roots])
                for f in range(F)]
    write = _remote(ray, _task_outputs)
    outputs = ray.get([
        write.remote(f, files[f], os.path.abspath(output), offsets, nonroot_before,
                     shards[f], nonroots[f], *labelled[f][:4],
                     *[lab[4 + f] for lab in labelled])
        for f in range(F)
    ])
    stage("outputs", t0)

    documents = int(offsets[-1])
    removed = sum(o["removed"] for o in outputs)
    summary = {
        "version": _native.__version__,
        "inputs": [f"block {f}" for f in range(F)] if dataset else files,
        "algorithm": algorithm,
        "params": json.loads(kernel.build_params),
        "documents": documents, "pairs": pairs, "removed": removed,
        "kept": documents - removed, "partitions": P, "component_rounds": rounds,
        "stages_seconds": timings, "seconds": round(time.perf_counter() - started, 3),
        "clusters": [o["clusters"] for o in outputs],
        "deduplicated": [o["deduplicated"] for o in outputs],
    }
    def write_summary(tmp):
        with open(tmp, "w") as f:
            f.write(json.dumps(summary, indent=2) + "\n")

    _write_atomic(os.path.join(output, "summary.json"), write_summary)
    return summary


def _is_dataset(x) -> bool:
    try:
        from ray.data import Dataset
    except ImportError:  # Ray without its data extra: no Dataset can have been passed
        return False
    return isinstance(x, Dataset)


def _star_round_task(kind, partitions, *incoming):
    parts, checksum, final = _star_round(kind, partitions, *incoming)
    return (*parts, checksum, final)


def _split_by_root_file(files, nonroots, shard):
    """The non-root documents of one file, with their text lengths, split by their root's
    file."""
    v, r = nonroots
    nbytes = shard["bytes"][_row_of(v)].astype(np.int64)
    return tuple(_split(_file_of(r), files, v, r, nbytes))


def _length(arrays):
    return len(arrays[0])


def read_clusters(output: str):
    """The clusters shards of a ``dedup`` output as one pyarrow Table, in document order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    shards = sorted(_glob.glob(os.path.join(output, "clusters", "*.parquet")))
    return pa.concat_tables([pq.read_table(s) for s in shards])
