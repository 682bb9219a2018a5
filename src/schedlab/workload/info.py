"""A workload's vital statistics, for ``schedlab workload info``.

Besides sizes and times: the trace's partitions (SWF field 16, `workload.partitions`) with
their jobs, peak of processors in use and offered load, and warnings when an offered load
exceeds 1 (more work than the processors can do over the submit span: a simulation of it
only piles up jobs, and a log of several machines read as one shows this way).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schedlab.workload.job import Workload
from schedlab.workload.partitions import jobs_text, partition_rows


def describe(workload: Workload) -> dict[str, Any]:
    """Counts, span, sizes, run times and offered load of ``workload``."""
    n = len(workload)
    submit = workload.submit_time
    run = workload.run_time
    procs = workload.procs
    header = workload.header_values
    return {
        "source": workload.source,
        "jobs": n,
        "skipped": workload.total_skipped,
        "skipped_by_reason": {k: v for k, v in workload.skipped.items() if v},
        "reordered_submits": workload.reordered,
        "procs": workload.max_procs,
        "first_submit": float(submit[0]) if n else 0.0,
        "last_submit": float(submit[-1]) if n else 0.0,
        "span_days": float(submit[-1] - submit[0]) / 86400.0 if n else 0.0,
        "users": int(np.unique(workload.user_id).size) if n else 0,
        "mean_procs": float(procs.mean()) if n else 0.0,
        "max_procs_of_a_job": int(procs.max()) if n else 0,
        "serial_fraction": float((procs == 1).mean()) if n else 0.0,
        "mean_run_time": float(run.mean()) if n else 0.0,
        "median_run_time": float(np.median(run)) if n else 0.0,
        "has_estimates": bool((workload.column("requested_time") > 0).any()) if n else False,
        "offered_load": workload.offered_load(),
        "unix_start_time": header.get("UnixStartTime", ""),
        "computer": header.get("Computer", ""),
        **resource_requests(workload),
        "partitions": [row.to_json() for row in partition_rows(workload)],
        "warnings": load_warnings(workload),
    }


FEW_JOBS = 100  # fewer jobs than this cannot show a sustained load


def resource_requests(workload: Workload) -> dict[str, Any]:
    """What the jobs ask of the nodes, when the log said (Slurm TRES, PBS select, CSV
    columns: the ``req_*`` and ``exclusive`` attributes); nothing for an SWF trace, which
    has processors only. A site checks here that its log was read as it meant."""
    attrs = workload.attributes
    if not any(name in attrs for name in _REQUEST_ATTRIBUTES):
        return {}
    n = len(workload)
    nan = np.full(n, np.nan)
    nodes = np.asarray(attrs.get("req_nodes", nan), dtype=np.float64)
    gpus = np.asarray(attrs.get("req_gpus_per_node", nan), dtype=np.float64)
    memory = np.asarray(attrs.get("req_mem_per_node", nan), dtype=np.float64)
    exclusive = np.asarray(attrs.get("exclusive", nan), dtype=np.float64)
    total_gpus = gpus * np.where(np.isnan(nodes), 1.0, nodes)
    return {
        "jobs_giving_nodes": int(np.count_nonzero(~np.isnan(nodes))),
        "largest_node_request": _largest(nodes),
        "jobs_asking_gpus": int(np.count_nonzero(gpus > 0)),
        "largest_gpu_request": _largest(total_gpus),
        "jobs_giving_memory": int(np.count_nonzero(~np.isnan(memory))),
        "largest_memory_per_node_mib": float(np.nanmax(memory))
        if (~np.isnan(memory)).any()
        else None,
        # unknown (None, shown "-") when the log cannot say, as sacct cannot
        "exclusive_jobs": int(np.count_nonzero(exclusive == 1))
        if (~np.isnan(exclusive)).any()
        else None,
    }


_REQUEST_ATTRIBUTES = (
    "req_nodes",
    "req_cores_per_node",
    "req_mem_per_node",
    "req_gpus_per_node",
    "exclusive",
)


def _largest(values: np.ndarray) -> int:
    known = values[~np.isnan(values)]
    return int(known.max()) if known.size else 0


def load_warnings(workload: Workload) -> list[str]:
    """Warnings for offered loads above 1: the whole trace on its P processors, and each
    partition (of several) on its peak of processors in use."""
    out = []
    load = workload.offered_load()
    n = len(workload)
    span = float(workload.submit_time[-1] - workload.submit_time[0]) if n else 0.0
    mean_run = float(workload.run_time.mean()) if n else 0.0
    if load > 1 and (n < FEW_JOBS or span < 10 * mean_run):
        out.append(
            f"offered load {load:.3g} > 1 on {workload.max_procs:,} processors, but "
            f"{jobs_text(n)} submitted within {span:,.0f} s make too short a log to judge a "
            "load (that takes many jobs over a span much longer than their run times)"
        )
    elif load > 1:
        out.append(
            f"offered load {load:.3g} > 1: the jobs ask more processor time than "
            f"{workload.max_procs:,} processors give over the submit span, so waits grow "
            "without bound (is the machine size right? a log of several machines read as "
            "one looks like this)"
        )
    rows = [r for r in partition_rows(workload) if r.partition >= 0]
    if len(rows) > 1:
        for row in rows:
            if row.offered_load > 1:
                name = f" ({row.name})" if row.name else ""
                out.append(
                    f"partition {row.partition}{name}: offered load {row.offered_load:.3g} "
                    f"> 1 on its peak of {row.peak_procs:,} processors in use"
                )
    return out
