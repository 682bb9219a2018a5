"""Metrics of runs on nodes (issue 24, item 5): what each job held, where it ran, how busy
each resource was and how much of the free capacity was stranded.

Pure functions of numpy arrays and the placement types (`Allocation`, `Request`), so a result,
a benchmark or a test can call them alike.

Definitions (``span`` is the summary's: from the first submit to the last end of the measured
jobs, so that ``core_utilization`` of single-core nodes equals ``utilization``):

* ``core_utilization`` = sum(cores held x run) / (cores of the cluster x span), and likewise
  ``memory_utilization`` (MiB held; absent when some node's memory is unconstrained: a share
  of infinity says nothing) and ``gpu_utilization`` (absent on a cluster without GPUs). A job
  holds what its allocation records; an exclusive job every core and GPU of its nodes (it
  bars every other job from them) but only the memory it asked for (placement.py).
* ``gpu_hours_used`` = sum(GPUs held x run) / 3600; ``gpu_hours_idle`` = GPUs of the cluster x
  span / 3600 minus those used (absent without GPUs).
* ``fragmented_core_hours``: the integral over time of the free cores on nodes that cannot
  take one node's share of the *next job* (the earliest-submitted waiting job, ties by index),
  counted while some job waits: cores that are free but of no use to the job the queue is
  waiting on. A node cannot take the share when it lacks the per-node cores, memory or GPUs,
  or, for an exclusive job, when any job runs on it. A plain processor request takes any free
  core, so nothing is fragmented while one is next. ``fragmentation`` is that integral over
  (cores of the cluster x time during which some job waits): the share of the capacity
  stranded while the queue waits; 0 when no job ever waits.

Speed: the fragmentation sweep finds the next job of every instant with one prefix maximum and
a binary search (the next job only moves forward in submit order), then rebuilds the free
resources of every node at the instants that count only, chunk by chunk, from the per-node
changes of the allocations: numpy passes over (instants x nodes), no Python loop over them.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from schedlab.platform.cluster import ClusterSpec
from schedlab.platform.placement import Allocation, NodeState, Request

__all__ = [
    "NODE_KEYS",
    "held_resources",
    "hostlist",
    "hostlists",
    "node_capacities",
    "node_summary",
    "occupancy_series",
]

# The summary keys of a run on nodes, in this order (some absent: module docstring)
NODE_KEYS: tuple[str, ...] = (
    "core_utilization",
    "memory_utilization",
    "gpu_utilization",
    "gpu_hours_used",
    "gpu_hours_idle",
    "fragmentation",
    "fragmented_core_hours",
)

_HOUR = 3600.0
# Cells (instants x nodes) of one chunk of the fragmentation sweep: a few MiB per array
_CHUNK_CELLS = 1 << 18
_MIN_ROWS = 8  # instants of a chunk, however many nodes
_KIB = 1024.0  # KiB per MiB: memory is counted in whole KiB (placement.py), exact as integers
_UNBOUNDED = 2**62  # KiB of a node whose memory is unconstrained

Capacities = ClusterSpec | Sequence[tuple[int, float, int]]


def node_capacities(cluster: Capacities) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cores (int64), memory (MiB, float64, whole KiB as placement rounds them) and GPUs
    (int64) of every node, in node order, of a `ClusterSpec` or of capacities ``[(cores,
    memory MiB, gpus), ...]``."""
    if isinstance(cluster, ClusterSpec):
        caps = [(t.cores, t.memory_mib, t.gpus) for t in cluster.node_types]
        counts = [t.count for t in cluster.node_types]
        state = NodeState(caps)  # checks and rounds the memory as placement does
        return (
            np.repeat(state.cap_cores, counts),
            np.repeat(state.cap_memory, counts),
            np.repeat(state.cap_gpus, counts),
        )
    state = NodeState(cluster)
    return state.cap_cores, state.cap_memory, state.cap_gpus


def held_resources(
    allocations: Sequence[Allocation | None], cap_cores: np.ndarray, cap_gpus: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per job: ``(cores_held, memory_held_mib, gpus_held, node_count)`` (int64, float64,
    int64, int64). An exclusive allocation holds every core and GPU of its nodes (taken from
    ``cap_cores`` and ``cap_gpus``, per node) and the memory it records; a job never started
    (None) holds nothing."""
    n = len(allocations)
    cores = np.zeros(n, dtype=np.int64)
    memory = np.zeros(n, dtype=np.float64)
    gpus = np.zeros(n, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    all_cores = [int(c) for c in cap_cores]
    all_gpus = [int(g) for g in cap_gpus]
    for j, alloc in enumerate(allocations):
        if alloc is None:
            continue
        if alloc.exclusive:
            cores[j] = sum(all_cores[i] for i in alloc.nodes)
            gpus[j] = sum(all_gpus[i] for i in alloc.nodes)
        else:
            cores[j] = sum(alloc.cores)
            gpus[j] = sum(alloc.gpus)
        memory[j] = sum(alloc.memory)  # whole KiB: exact in any order
        count[j] = len(alloc.nodes)
    return cores, memory, gpus, count


# -- where jobs ran ----------------------------------------------------------------------------


def _ranges(numbers: list[int]) -> list[str]:
    """Sorted distinct integers -> ``["0-3", "7"]``."""
    out: list[str] = []
    first = prev = numbers[0]
    for k in numbers[1:]:
        if k != prev + 1:
            out.append(f"{first}-{prev}" if prev > first else str(first))
            first = k
        prev = k
    out.append(f"{first}-{prev}" if prev > first else str(first))
    return out


def hostlist(nodes: Sequence[int], cluster: ClusterSpec) -> str:
    """The nodes as a Slurm hostlist: each node named by its type and its index within the
    type (nodes are numbered type by type, `ClusterSpec.first_node`), consecutive indices as
    ranges: ``gpu[0-3,7],cpu12``; one node alone is ``gpu7``; no node is "". Types appear in
    node order. ValueError for a number that is no node of ``cluster``."""
    return _Namer(cluster).hostlist(nodes)


def hostlists(allocations: Sequence[Allocation | None], cluster: ClusterSpec) -> np.ndarray:
    """`hostlist` of every job's allocation (object array of str; "" for a job never
    started). Jobs on the same nodes share one string: a run has far fewer distinct node sets
    than jobs."""
    namer = _Namer(cluster)
    out = np.empty(len(allocations), dtype=object)
    seen: dict[tuple[int, ...], str] = {}
    for j, alloc in enumerate(allocations):
        if alloc is None:
            out[j] = ""
            continue
        text = seen.get(alloc.nodes)
        if text is None:
            text = seen[alloc.nodes] = namer.hostlist(alloc.nodes)
        out[j] = text
    return out


class _Namer:
    """The node names of one cluster, computed once for many hostlists."""

    def __init__(self, cluster: ClusterSpec) -> None:
        self.cluster = cluster.name
        self.first = list(cluster.first_node)
        self.end = [f + t.count for f, t in zip(self.first, cluster.node_types)]
        self.names = [t.name for t in cluster.node_types]

    def hostlist(self, nodes: Sequence[int]) -> str:
        numbers = sorted({int(i) for i in nodes})
        if not numbers:
            return ""
        if numbers[0] < 0 or numbers[-1] >= self.end[-1]:
            bad = numbers[0] if numbers[0] < 0 else numbers[-1]
            raise ValueError(
                f"node {bad} is not a node of cluster {self.cluster} (0..{self.end[-1] - 1})"
            )
        parts: list[str] = []
        t = bisect_right(self.first, numbers[0]) - 1
        local: list[int] = []
        for i in numbers:
            if i >= self.end[t]:
                parts.append(_one_type(self.names[t], local))
                t = bisect_right(self.first, i) - 1
                local = []
            local.append(i - self.first[t])
        parts.append(_one_type(self.names[t], local))
        return ",".join(parts)


def _one_type(name: str, local: list[int]) -> str:
    if len(local) == 1:
        return f"{name}{local[0]}"
    return f"{name}[{','.join(_ranges(local))}]"


# -- over time ---------------------------------------------------------------------------------


def _sum_by(times: np.ndarray, weights: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Sum of ``weights`` whose ``times`` are <= each of ``at`` (exact integers)."""
    order = np.argsort(times, kind="stable")
    cumulative = np.concatenate(([0], np.cumsum(weights[order], dtype=np.int64)))
    return cumulative[np.searchsorted(times[order], at, side="right")]


def occupancy_series(
    started: np.ndarray, finished: np.ndarray, cores_held: np.ndarray, gpus_held: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(times, cores_busy, gpus_busy)``: a step function, the cores and GPUs held after each
    distinct start or end (jobs never started are left out; one never ended holds to the
    last instant)."""
    started = np.asarray(started, dtype=np.float64)
    finished = np.asarray(finished, dtype=np.float64)
    cores = np.asarray(cores_held, dtype=np.int64)
    gpus = np.asarray(gpus_held, dtype=np.int64)
    ran = np.isfinite(started)
    ended = ran & np.isfinite(finished)
    times = np.unique(np.concatenate((started[ran], finished[ended])))
    busy = [
        _sum_by(started[ran], held[ran], times) - _sum_by(finished[ended], held[ended], times)
        for held in (cores, gpus)
    ]
    return times, busy[0], busy[1]


# -- the summary -------------------------------------------------------------------------------


def node_summary(
    cluster: Capacities,
    submitted: np.ndarray,
    started: np.ndarray,
    finished: np.ndarray,
    cores_held: np.ndarray,
    memory_held: np.ndarray,
    gpus_held: np.ndarray,
    requests: Sequence[Request],
    allocations: Sequence[Allocation | None],
    *,
    warmup: int = 0,
) -> dict[str, float]:
    """The node metrics of a run (module docstring), keys in `NODE_KEYS` order, from per-job
    arrays in one order (submit order): times in seconds (``started`` NaN for a job never
    started), what each job held (`held_resources`), its request and its allocation.

    ``warmup``: the first jobs (in the given order) are left out of the metrics, as the
    summary's warm-up does: utilizations count the other jobs over their span, and
    fragmentation is measured within that span; the left-out jobs still hold their nodes and
    still queue (the next job may be one of them).
    """
    cap_cores, cap_memory, cap_gpus = node_capacities(cluster)
    submitted = np.asarray(submitted, dtype=np.float64)
    started = np.asarray(started, dtype=np.float64)
    finished = np.asarray(finished, dtype=np.float64)
    n = len(submitted)
    if not (len(started) == len(finished) == len(requests) == len(allocations) == n):
        raise ValueError("node_summary: per-job arrays of different lengths")
    measured = slice(warmup, None)
    run = np.where(np.isfinite(started) & np.isfinite(finished), finished - started, 0.0)[measured]
    span = 0.0
    if n > warmup:
        t_first = float(np.nanmin(submitted[measured]))
        ends = finished[measured]
        t_last = float(np.nanmax(ends)) if np.isfinite(ends).any() else t_first
        span = max(t_last - t_first, 0.0)
    else:
        t_first = t_last = 0.0

    def share(held: np.ndarray, capacity: float) -> float:
        used = float(np.dot(np.asarray(held, dtype=np.float64)[measured], run))
        return used / (capacity * span) if span > 0 else 0.0

    total_cores = int(cap_cores.sum())
    total_memory = float(cap_memory.sum())
    total_gpus = int(cap_gpus.sum())
    out: dict[str, float] = {"core_utilization": share(cores_held, total_cores)}
    if math.isfinite(total_memory):
        out["memory_utilization"] = share(memory_held, total_memory)
    if total_gpus > 0:
        used = float(np.dot(np.asarray(gpus_held, dtype=np.float64)[measured], run)) / _HOUR
        out["gpu_utilization"] = share(gpus_held, total_gpus)
        out["gpu_hours_used"] = used
        out["gpu_hours_idle"] = total_gpus * span / _HOUR - used
    stranded, waiting = _fragmentation(
        (cap_cores, cap_memory, cap_gpus),
        submitted,
        started,
        finished,
        requests,
        allocations,
        (t_first, t_last),
    )
    out["fragmentation"] = stranded / (total_cores * waiting) if waiting > 0 else 0.0
    out["fragmented_core_hours"] = stranded / _HOUR
    return out


def _next_jobs(
    times: np.ndarray, submitted: np.ndarray, started: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For each interval ``[times[k], times[k + 1])``: the next job (earliest-submitted
    waiting one, ties by index; -1 when none waits), and the index of each job's start in
    ``times`` (``len(times)`` for a job never started).

    A job waits on the intervals ``s <= k < a`` (``s``, ``a``: the indices of its submit and
    start). In submit order the ``s`` never decrease, and a job that has started never waits
    again, so the next job at k is the first job r (in submit order) with ``a[r] > k``, if its
    ``s[r] <= k``: the first r where the running maximum of ``a`` exceeds k.
    """
    k_all = len(times)
    n = len(submitted)
    order = np.lexsort((np.arange(n), submitted))
    s = np.searchsorted(times, submitted[order], side="left")
    start_idx = np.full(n, k_all, dtype=np.int64)
    ran = np.isfinite(started)
    start_idx[ran] = np.searchsorted(times, started[ran], side="left")
    a = start_idx[order]
    ahead = np.maximum.accumulate(a)
    k = np.arange(k_all - 1)
    r = np.searchsorted(ahead, k, side="right")
    has = r < n
    r_safe = np.minimum(r, n - 1)
    has &= s[r_safe] <= k
    return np.where(has, order[r_safe], -1), start_idx


def _fragmentation(
    caps: tuple[np.ndarray, np.ndarray, np.ndarray],
    submitted: np.ndarray,
    started: np.ndarray,
    finished: np.ndarray,
    requests: Sequence[Request],
    allocations: Sequence[Allocation | None],
    window: tuple[float, float],
) -> tuple[float, float]:
    """(stranded core-seconds, seconds during which some job waits) within ``window``
    (module docstring)."""
    if len(submitted) == 0:
        return 0.0, 0.0
    ran = np.isfinite(started)
    ended = ran & np.isfinite(finished)
    times = np.unique(
        np.concatenate((submitted[np.isfinite(submitted)], started[ran], finished[ended]))
    )
    if times.size < 2:
        return 0.0, 0.0
    head, start_idx = _next_jobs(times, submitted, started)
    duration = np.diff(times)
    inside = (times[:-1] >= window[0]) & (times[1:] <= window[1])
    waits = (head >= 0) & inside & (duration > 0)
    waiting = float(duration[waits].sum())
    if waiting == 0.0:
        return 0.0, 0.0
    # the next jobs' per-node shares; plain requests strand nothing
    heads = np.unique(head[waits])
    share = np.zeros((len(requests), 4), dtype=np.float64)  # cores, memory, gpus, exclusive
    node_request = np.zeros(len(requests), dtype=bool)
    for j in heads.tolist():
        req = requests[j]
        if req.nodes is not None:
            node_request[j] = True
            share[j] = (req.cores_per_node, req.mem_per_node, req.gpus_per_node, req.exclusive)
    counted = np.flatnonzero(waits & node_request[np.maximum(head, 0)])
    if counted.size == 0:
        return 0.0, waiting
    end_idx = np.full(len(finished), len(times), dtype=np.int64)
    end_idx[ended] = np.searchsorted(times, finished[ended], side="left")
    # runs of counted intervals with one next job and no start or end inside strand the same
    # cores: one row each (submissions alone change nothing; this halves the rows)
    changes = np.zeros(len(times) + 1, dtype=bool)
    changes[start_idx] = True
    changes[end_idx] = True
    new = changes[counted]
    new[0] = True
    new[1:] |= (np.diff(counted) != 1) | (head[counted[1:]] != head[counted[:-1]])
    firsts = np.flatnonzero(new)
    rows = counted[firsts]
    row_duration = np.add.reduceat(duration[counted], firsts)
    free_cores = _free_cores_stranded(
        caps, rows, share[head[rows]], start_idx, end_idx, times, allocations
    )
    return float(np.dot(free_cores, row_duration)), waiting


def _free_cores_stranded(
    caps: tuple[np.ndarray, np.ndarray, np.ndarray],
    rows: np.ndarray,
    share: np.ndarray,
    start_idx: np.ndarray,
    end_idx: np.ndarray,
    times: np.ndarray,
    allocations: Sequence[Allocation | None],
) -> np.ndarray:
    """At each interval of ``rows`` (increasing), the free cores on nodes that cannot take
    ``share`` (per row: cores, memory, GPUs per node and exclusive) of that row's next job.

    The free resources of every node are rebuilt at those intervals only: each allocation
    takes its holding at its start's interval and gives it back at its end's, every change
    goes to the first row at or after it (changes to one node at one row summed first), and
    a cumulative sum along the rows gives what is free. The grids are node-major (one line
    per node, the rows along it) and integer (memory in whole KiB: exact), chunk by chunk
    carrying the last row: an integer cumulative sum along contiguous memory is several
    times faster than one across it or in floating point.
    """
    cap_cores, cap_memory, cap_gpus = caps
    nodes_n = len(cap_cores)
    node, cores, memory, gpus, job = _entries(allocations, cap_cores, cap_gpus)
    ran = start_idx[job] < len(times)  # an allocation of a job never started holds nothing
    node, cores, memory, gpus, job = node[ran], cores[ran], memory[ran], gpus[ran], job[ran]
    need_cores = share[:, 0].astype(np.int32)
    need_kib = np.round(share[:, 1] * _KIB).astype(np.int64)
    need_gpus = share[:, 2].astype(np.int32)
    exclusive = share[:, 3] > 0
    finite = np.isfinite(cap_memory)
    cap_kib = np.full(nodes_n, _UNBOUNDED, dtype=np.int64)
    cap_kib[finite] = np.round(cap_memory[finite] * _KIB).astype(np.int64)
    # each entry: -holding at its start, +holding at its end (never ended: no change)
    row = np.searchsorted(rows, np.concatenate((start_idx[job], end_idx[job])), side="left")
    sign = np.repeat(np.array([-1, 1], dtype=np.int64), len(job))
    keep = row < len(rows)
    key = row[keep] * nodes_n + np.concatenate((node, node))[keep]
    order = np.argsort(key, kind="stable")
    key = key[order]
    firsts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))

    def changes(held: np.ndarray) -> np.ndarray:
        """The summed change of free ``held`` per (row, node) of ``key``."""
        signed = (np.concatenate((held, held)) * sign)[keep][order]
        return np.add.reduceat(signed, firsts) if signed.size else signed

    key = key[firsts]
    row, node = key // nodes_n, key % nodes_n
    # (free per node at the start, change per (row, node)) of each resource that matters
    grids: dict[str, tuple[np.ndarray, np.ndarray]] = {
        "cores": (cap_cores.astype(np.int32), changes(cores))
    }
    if np.any(need_kib > 0) and finite.any():
        grids["memory"] = (cap_kib, changes(np.round(memory * _KIB).astype(np.int64)))
    if np.any(need_gpus > 0):
        grids["gpus"] = (cap_gpus.astype(np.int32), changes(gpus))
    if exclusive.any() and np.any(cores == 0):  # else "a job runs" = "a core is held"
        grids["jobs"] = (np.zeros(nodes_n, dtype=np.int32), -changes(np.ones(len(job), np.int64)))
    carry = {name: initial for name, (initial, _) in grids.items()}
    out = np.zeros(len(rows), dtype=np.int64)
    step = max(_MIN_ROWS, _CHUNK_CELLS // nodes_n)
    bounds = np.searchsorted(row, np.arange(0, len(rows) + step, step), side="left")
    for c, r0 in enumerate(range(0, len(rows), step)):
        r1 = min(r0 + step, len(rows))
        lo, hi = bounds[c], bounds[c + 1]
        at = (node[lo:hi], row[lo:hi] - r0)
        free: dict[str, np.ndarray] = {}
        for name, (initial, change) in grids.items():
            grid = np.zeros((nodes_n, r1 - r0), dtype=initial.dtype)
            grid[at] = change[lo:hi]  # one change per (node, row): no repeated index
            grid[:, 0] += carry[name]
            np.cumsum(grid, axis=1, out=grid)
            carry[name] = grid[:, -1].copy()
            free[name] = grid
        cores_free = free["cores"]
        bad = cores_free < need_cores[None, r0:r1]
        if "memory" in free:
            bad |= free["memory"] < need_kib[None, r0:r1]
        if "gpus" in free:
            bad |= free["gpus"] < need_gpus[None, r0:r1]
        whole = exclusive[r0:r1]
        if whole.any():
            busy = free["jobs"] > 0 if "jobs" in free else cores_free < cap_cores[:, None]
            bad[:, whole] |= busy[:, whole]
        out[r0:r1] = (cores_free * bad).sum(axis=0)
    return out


def _entries(
    allocations: Sequence[Allocation | None],
    cap_cores: np.ndarray,
    cap_gpus: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One row per (job, node) of the allocations: node, cores, memory (MiB) and GPUs held
    there (an exclusive job: every core and GPU of the node), and the job."""
    node: list[int] = []
    cores: list[int] = []
    memory: list[float] = []
    gpus: list[int] = []
    size: list[int] = []
    whole: list[bool] = []
    job: list[int] = []
    for j, alloc in enumerate(allocations):
        if alloc is None:
            continue
        node.extend(alloc.nodes)
        cores.extend(alloc.cores)
        memory.extend(alloc.memory)
        gpus.extend(alloc.gpus)
        size.append(len(alloc.nodes))
        whole.append(alloc.exclusive)
        job.append(j)
    nodes = np.array(node, dtype=np.int64)
    held_cores = np.array(cores, dtype=np.int64)
    held_gpus = np.array(gpus, dtype=np.int64)
    exclusive = np.repeat(np.array(whole, dtype=bool), size)
    held_cores[exclusive] = cap_cores[nodes[exclusive]]
    held_gpus[exclusive] = cap_gpus[nodes[exclusive]]
    jobs = np.repeat(np.array(job, dtype=np.int64), size)
    return nodes, held_cores, np.array(memory, dtype=np.float64), held_gpus, jobs
