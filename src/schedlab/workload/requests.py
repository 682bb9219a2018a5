"""From a workload's jobs to what each asks of the nodes (`placement.Request`), and the jobs
no node of a cluster can ever hold (issue 24).

A job whose ``req_nodes`` attribute is known is a *node request*: ``req_nodes`` nodes, each
with ``req_cores_per_node`` cores (when the log does not say: its processors shared out over
its nodes, rounded up, as the importers do), ``req_mem_per_node`` MiB (unknown: none asked,
as a Slurm site without ``DefMemPerNode`` gives) and ``req_gpus_per_node`` GPUs (unknown:
none), on whole nodes when ``exclusive`` is 1. Every other job (an SWF trace's, a log's
without node counts) is a *plain processor request* of its SWF processors, spread over any
free cores: on single-core nodes that is today's processor model exactly.

**Partitions.** When the cluster's node types list partitions, a job of a partition
(SWF field 16, named by the log's ``Partition:`` header lines: Slurm's ``Partition``, PBS's
queue) may run only on the nodes of that partition; a job whose partition no node type
lists runs on the node types that list none (they are in every partition), and is skipped
(``no_node_in_its_partition``, counted like every job that cannot run) when every type
lists some; a job without a partition (-1) may run anywhere. A cluster listing no partition ignores
them, as a machine of one partition does.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np

from schedlab.platform.cluster import ClusterSpec
from schedlab.platform.placement import NodeState, Request, never_fits_reason
from schedlab.workload.job import Workload
from schedlab.workload.partitions import partition_names

__all__ = ["cluster_capacities", "job_partitions", "job_requests", "without_unplaceable"]


def cluster_capacities(cluster: ClusterSpec) -> list[tuple[int, float, int]]:
    """Each node's ``(cores, memory MiB, gpus)``, nodes numbered type by type."""
    out: list[tuple[int, float, int]] = []
    for t in cluster.node_types:
        out.extend([(t.cores, t.memory_mib, t.gpus)] * t.count)
    return out


def _value(column: np.ndarray | None, j: int) -> float:
    return math.nan if column is None else float(column[j])


def job_partitions(workload: Workload, cluster: ClusterSpec) -> list[int]:
    """Each job's partition as the cluster numbers them (`ClusterSpec.partitions`): -1 for
    any node (no partition, or a cluster without partitions), ``len(partitions)`` for a
    partition the cluster does not have (never fits: `never_fits_reason`)."""
    names = cluster.partitions
    if not names:
        return [-1] * len(workload)
    number = {name: k for k, name in enumerate(names)}
    by_id = partition_names(workload)
    out: list[int] = []
    for pid in workload.column("partition_id").tolist():
        pid = int(pid)
        if pid < 0:
            out.append(-1)
            continue
        name = by_id.get(pid, str(pid))
        out.append(number.get(name, len(names)))
    return out


def job_requests(workload: Workload, partitions: list[int] | None = None) -> list[Request]:
    """One `Request` per job of ``workload`` (module docstring), in the partitions given
    (`job_partitions`; None: any node)."""
    if partitions is not None and any(p >= 0 for p in partitions):
        return [
            replace(r, partition=p) if p >= 0 else r
            for r, p in zip(job_requests(workload), partitions)
        ]
    attrs = workload.attributes
    nodes = attrs.get("req_nodes")
    cores = attrs.get("req_cores_per_node")
    memory = attrs.get("req_mem_per_node")
    gpus = attrs.get("req_gpus_per_node")
    exclusive = attrs.get("exclusive")
    procs = workload.procs.tolist()
    if nodes is None or bool(np.all(np.isnan(nodes))):
        cache: dict[int, Request] = {}
        out = []
        for p in procs:
            request = cache.get(p)
            if request is None:
                request = cache[p] = Request.processors(int(p))
            out.append(request)
        return out
    shared: dict[tuple[float, ...], Request] = {}
    requests: list[Request] = []
    for j, p in enumerate(procs):
        n = float(nodes[j])
        if n != n:
            key: tuple[float, ...] = (math.nan, float(p))
            request = shared.get(key)
            if request is None:
                request = shared[key] = Request.processors(int(p))
            requests.append(request)
            continue
        c = _value(cores, j)
        if c != c:
            c = float(max(1, math.ceil(p / n)))
        m = _value(memory, j)
        g = _value(gpus, j)
        x = _value(exclusive, j)
        key = (n, c, 0.0 if m != m else m, 0.0 if g != g else g, 1.0 if x == 1.0 else 0.0)
        request = shared.get(key)
        if request is None:
            request = shared[key] = Request(
                nodes=int(key[0]),
                cores_per_node=int(key[1]),
                mem_per_node=key[2],
                gpus_per_node=int(key[3]),
                exclusive=key[4] == 1.0,
            )
        requests.append(request)
    return requests


def without_unplaceable(workload: Workload, cluster: ClusterSpec) -> tuple[Workload, list[Request]]:
    """``workload`` without the jobs no node of ``cluster`` can ever hold, counted in its
    ``skipped`` by reason (`placement.NEVER_FITS_REASONS`), and the kept jobs' requests."""
    requests = job_requests(workload, job_partitions(workload, cluster))
    state = NodeState(cluster_capacities(cluster), cluster.node_partitions())
    reasons: dict[Request, str | None] = {}
    keep = np.ones(len(requests), dtype=bool)
    counts: Counter[str] = Counter()
    for j, request in enumerate(requests):
        if request not in reasons:
            reasons[request] = never_fits_reason(state, request)
        reason = reasons[request]
        if reason is not None:
            keep[j] = False
            counts[reason] += 1
    if not counts:
        return workload, requests
    skipped = dict(workload.skipped)
    for reason, count in counts.items():
        skipped[reason] = skipped.get(reason, 0) + count
    kept = workload.take(keep, skipped=skipped)
    return kept, [r for r, k in zip(requests, keep.tolist()) if k]
