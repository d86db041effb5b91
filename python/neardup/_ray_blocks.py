"""Blocks of Arrow rows on Ray Core: the few dataset operations ``neardup.ray`` needs (map,
union, a hash shuffle into groups, count), as plain Ray tasks over object references.

Why not Ray Data: its operators cost more CPU than the work they carry here. At 10^6
documents a run spent 52 CPU seconds against ``neardup dedup``'s 18, 10 of them in the
driver's streaming executor, and each ``groupby`` sorted its rows to group them by a key
whose values are already partition numbers. Here a shuffle is one task per block that splits
it by ``key % partitions`` (``num_returns=partitions``) and one task per partition that
concatenates its pieces and calls the group function once per key value; the driver only
submits tasks and waits.

Fault tolerance is Ray's: every block is the output of a retriable task owned by the driver,
so a block lost with its node is rebuilt by re-running the tasks that made it (lineage
reconstruction), and a task that dies with its node is retried elsewhere.

A block is an Arrow table; a table of no rows may have no columns (functions are not called
on it). A map or group function takes the block as a ``pyarrow.Table`` (``fmt="pyarrow"``)
or as a dict of NumPy arrays (``fmt="numpy"``) and returns a table or such a dict.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

Fn = Callable[..., Any]
# One step of a block's pending work: (function, format, keyword arguments).
Step = Tuple[Fn, str, Dict[str, Any]]


def _as_table(value):
    import pyarrow as pa

    if isinstance(value, pa.Table):
        return value
    if isinstance(value, dict):
        return pa.table({k: pa.array(v) if isinstance(v, np.ndarray) and v.dtype == object
                         else v for k, v in value.items()})
    raise TypeError(f"a block function returned {type(value).__name__}, not a table or dict")


def _apply(fn: Fn, fmt: str, kwargs: Dict[str, Any], table):
    """``fn`` on one block (not called on a block without rows)."""
    import pyarrow as pa

    if table.num_rows == 0:
        return pa.table({})
    if fmt == "numpy":
        arg = {name: table.column(name).to_numpy(zero_copy_only=False)
               for name in table.column_names}
    else:
        arg = table
    return _as_table(fn(arg, **kwargs))


def _run_steps(table, steps: Sequence[Step]):
    for fn, fmt, kwargs in steps:
        table = _apply(fn, fmt, kwargs, table)
    return table


def concat(tables: Sequence[Any]):
    """Tables with rows, concatenated (their schemas unified); an empty table if none."""
    import pyarrow as pa

    tables = [t for t in tables if t.num_rows]
    if not tables:
        return pa.table({})
    if len(tables) == 1:
        return tables[0]
    return pa.concat_tables(tables, promote_options="default")


def select(table, columns: Sequence[str]):
    """A map step keeping ``columns`` (before a NumPy step that needs only them)."""
    return table.select(list(columns))


def _small(values: np.ndarray) -> np.ndarray:
    """Non-negative integers as the narrowest type NumPy radix-sorts (16 bits) when they fit."""
    if len(values) and values.min() >= 0 and values.max() < (1 << 15):
        return values.astype(np.int16)
    return values


def _runs(values: np.ndarray):
    """(row order, start of each run of equal values in that order, end of each)."""
    if np.all(values[1:] >= values[:-1]):  # already in order (a block from one file, ...)
        order = None
        ordered = values
    else:
        order = np.argsort(_small(values), kind="stable")
        ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    return order, ordered, starts, np.r_[starts[1:], len(values)]


def split(table, key: str, partitions: int) -> List[Any]:
    """``table``'s rows in ``partitions`` tables by ``key % partitions`` (row order kept
    within each). Rows already in partition order are sliced, not copied: producers of wide
    rows (signatures) sort them by partition with NumPy before they become Arrow."""
    if table.num_rows == 0:
        return [table] * partitions
    part = table.column(key).to_numpy() % partitions
    order, ordered, _, _ = _runs(part)
    if order is not None:
        table = table.take(order)
    bounds = np.searchsorted(ordered, np.arange(partitions + 1))
    return [table.slice(int(bounds[p]), int(bounds[p + 1] - bounds[p]))
            for p in range(partitions)]


def groups(table, key: str, fn: Fn, fmt: str, kwargs: Dict[str, Any]):
    """``fn`` on each group of ``table``'s rows with one value of ``key``, in key order."""
    if table.num_rows == 0:
        return table
    order, _, starts, ends = _runs(table.column(key).to_numpy())
    if order is not None:
        table = table.take(order)
    return concat([_apply(fn, fmt, kwargs, table.slice(int(s), int(e - s)))
                   for s, e in zip(starts, ends)])


def task_threads() -> None:
    """Called first in every task: the Rust kernels' thread pool (rayon's, built on its
    first use in a worker process) gets as many threads as the task was given CPUs. Left to
    itself it takes every core of the machine in each worker, so two one-CPU tasks on a
    two-core node ran four threads, which cost a third more CPU seconds for the same work
    (sketching at 10^6 documents: 16.4 against 12.3). A pool already built, or a
    ``RAYON_NUM_THREADS`` the user set, is left as it is."""
    import os

    if "RAYON_NUM_THREADS" in os.environ:
        return
    try:
        import ray

        cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 1)
    except Exception:  # not in a Ray task: nothing to fit
        return
    os.environ["RAYON_NUM_THREADS"] = str(max(1, int(round(cpus))))


def _tasks():
    """The remote functions, made once per process (Ray must be imported first). Spread
    over the nodes, as Ray Data spreads its tasks: one node does not end up holding every
    block (nor every block lost with it)."""
    global _TASKS
    if _TASKS is None:
        import ray

        @ray.remote(scheduling_strategy="SPREAD")
        def run_steps(table, steps):
            task_threads()
            return _run_steps(table, steps)

        @ray.remote(scheduling_strategy="SPREAD")
        def split_task(table, steps, key, partitions):
            task_threads()
            return tuple(split(_run_steps(table, steps), key, partitions))

        @ray.remote(scheduling_strategy="SPREAD")
        def group_task(key, fn, fmt, kwargs, *pieces):
            task_threads()
            return groups(concat(pieces), key, fn, fmt, kwargs)

        @ray.remote(scheduling_strategy="SPREAD")
        def rows_task(table):
            return table.num_rows

        _TASKS = dict(run_steps=run_steps, split=split_task, group=group_task,
                      rows=rows_task)
    return _TASKS


_TASKS: Optional[Dict[str, Any]] = None


def grouped(pieces: Sequence[Sequence[Any]], key: str, fn: Fn, fmt: str = "pyarrow", /,
            **kwargs: Any) -> "Blocks":
    """One block per partition: ``fn`` on the groups (by ``key``) of the partition's
    ``pieces`` (object references to tables, already split by partition)."""
    group = _tasks()["group"]
    return Blocks.of([group.remote(key, fn, fmt, kwargs, *piece) for piece in pieces])


class Blocks:
    """Blocks as (object reference, steps not yet run on it): ``map`` only records a step,
    which runs in the task that next needs the block (a shuffle's split, or ``refs``)."""

    def __init__(self, items: Sequence[Tuple[Any, Tuple[Step, ...]]]):
        self.items = list(items)

    @classmethod
    def of(cls, refs: Sequence[Any]) -> "Blocks":
        return cls([(r, ()) for r in refs])

    def map(self, fn: Fn, fmt: str = "pyarrow", /, **kwargs: Any) -> "Blocks":
        step = (fn, fmt, kwargs)
        return Blocks([(ref, steps + (step,)) for ref, steps in self.items])

    def union(self, *others: "Blocks") -> "Blocks":
        return Blocks(self.items + [i for o in others for i in o.items])

    def refs(self) -> List[Any]:
        """The blocks, each with its steps run (submitted now, computed by Ray)."""
        run = _tasks()["run_steps"]
        refs = [ref if not steps else run.remote(ref, steps) for ref, steps in self.items]
        self.items = [(r, ()) for r in refs]
        return refs

    def groupby(self, key: str, partitions: int, fn: Fn, fmt: str = "pyarrow", /,
                **kwargs: Any) -> "Blocks":
        """``fn`` on every group of rows with one value of ``key`` (a non-negative integer
        column), the groups hashed into ``partitions`` tasks."""
        tasks = _tasks()
        if partitions == 1:
            pieces = [[ref if not steps else tasks["run_steps"].remote(ref, steps)
                       for ref, steps in self.items]]
        else:
            split_refs = [tasks["split"].options(num_returns=partitions).remote(
                ref, steps, key, partitions) for ref, steps in self.items]
            pieces = [[s[p] for s in split_refs] for p in range(partitions)]
        return grouped(pieces, key, fn, fmt, **kwargs)

    def tables(self) -> List[Any]:
        """The blocks themselves, fetched to the caller (small results only)."""
        import ray

        return ray.get(self.refs())

    def table(self):
        return concat(self.tables())

    def count(self) -> int:
        import ray

        rows = _tasks()["rows"]
        return int(sum(ray.get([rows.remote(r) for r in self.refs()])))
