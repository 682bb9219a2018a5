"""Metrics of runs with absolute priorities across clusters (Baranov and Tikhomirov,
Computational Technologies 2017; SPEC 6), from the per-job table.

Per job, with s its submission and e its end: processing time e - s = global queue time (in
the dispatchers' queue, every visit) + transfer time (every dispatch's delay: control message
and data) + local queue time (in a cluster's queue: before its start, suspended, or requeued)
+ run time (running, checkpoint restarts and lost attempts included). The first two are the
dispatcher's records (zero for a dispatcher that keeps none), the run time the kernel's, the
local queue time the rest: the four add up to the processing time exactly.

Classes: high (the top priority level), low (between) and background (the lowest level,
when it is below the top).

Repeated preemption (what the paper's planning horizon is for: jobs already dispatched to a
cluster preempted again and again by later, higher ones): preemptions per job, over all jobs
and over the global ones (those a dispatcher placed, the horizon's concern), the jobs
preempted twice or more, and the most times one job was preempted. An eviction of a running
job counts as a preemption.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = [
    "COMPONENTS",
    "REPEATED_PREEMPTION_KEYS",
    "TDCS_KEYS",
    "priority_classes",
    "repeated_preemptions",
    "tdcs_summary",
]

# the components of processing time, in the order they add up
COMPONENTS = ("global_queue_time", "transfer_time", "local_queue_time", "run_time")
# the numbers `tdcs_summary` gives beyond those of every summary (`metrics.summary`), for
# tables of results (`all_summary_keys`)
TDCS_KEYS: tuple[str, ...] = (
    "high_priority_mean_processing_time",
    *COMPONENTS,
    "global_high_priority_mean_processing_time",
    "low_priority_throughput",
    "low_priority_mean_wait_time",
    "background_throughput",
    "background_mean_wait_time",
    "lost_work",
    "preemptions",
    "evictions",
    "overhead_time",
    "early_end_share",
    # repeated preemption (module docstring)
    "preemptions_per_job",
    "global_preemptions_per_job",
    "repeatedly_preempted_jobs",
    "global_repeatedly_preempted_jobs",
    "max_preemptions_of_a_job",
)
REPEATED_PREEMPTION_KEYS = TDCS_KEYS[-5:]
Columns = Mapping[str, np.ndarray]


def priority_classes(priority: np.ndarray) -> dict[str, np.ndarray]:
    """Masks of the high (top level), low (between) and background (lowest) jobs."""
    top, bottom = (int(priority.max()), int(priority.min())) if len(priority) else (0, 0)
    return {
        "high": priority == top,
        "low": (priority < top) & (priority > bottom),
        "background": (priority == bottom) & (priority < top),
    }


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else float("nan")


def repeated_preemptions(preemptions: np.ndarray, is_global: np.ndarray) -> dict[str, Any]:
    """The counts of repeated preemption (module docstring), ``REPEATED_PREEMPTION_KEYS``,
    from each job's preemptions and whether it is a global job."""
    n = np.asarray(preemptions, dtype=np.int64)
    glob = np.asarray(is_global, dtype=bool)
    return {
        "preemptions_per_job": _mean(n.astype(np.float64)),
        "global_preemptions_per_job": _mean(n[glob].astype(np.float64)),
        "repeatedly_preempted_jobs": int(np.count_nonzero(n >= 2)),
        "global_repeatedly_preempted_jobs": int(np.count_nonzero(n[glob] >= 2)),
        "max_preemptions_of_a_job": int(n.max()) if len(n) else 0,
    }


def tdcs_summary(
    c: Columns,
    *,
    configuration: str,
    preemption: str,
    early_end_share: float,
    procs: int,
    wall_time: float,
) -> dict[str, Any]:
    """The paper's metrics (module docstring): high-priority processing time and its
    components, low-priority and background throughput (jobs/hour, ended within the
    submission window) and mean wait (processing - run), lost work, preemptions."""
    cls = priority_classes(np.asarray(c["priority"]))
    out: dict[str, Any] = {
        "configuration": configuration,
        "preemption": preemption,
        "jobs": len(c["job_id"]),
        "procs": procs,
    }
    window = float(c["submitted_at"].max()) if len(c["job_id"]) else 0.0
    hours = window / 3600.0
    high = cls["high"]
    out["high_priority_mean_processing_time"] = _mean(c["processing_time"][high])
    for key in COMPONENTS:
        out[key] = _mean(c[key][high])
    glob = high & (c["stream"] == "global")
    out["global_high_priority_mean_processing_time"] = _mean(c["processing_time"][glob])
    for name, throughput, wait in (
        ("low", "low_priority_throughput", "low_priority_mean_wait_time"),
        ("background", "background_throughput", "background_mean_wait_time"),
    ):
        mask = cls[name]
        done = mask & (c["finished_at"] <= window)
        out[throughput] = float(done.sum()) / hours if hours > 0 else float("nan")
        out[wait] = _mean(c["wait_time"][mask])
    out["lost_work"] = float(c["lost_work"].sum())
    out["preemptions"] = int(c["preemptions"].sum())
    out["evictions"] = int(c["evictions"].sum())
    out["overhead_time"] = float(c["overhead_time"].sum())
    out["killed"] = int(np.count_nonzero(c["killed"]))
    out["early_end_share"] = early_end_share
    out.update(repeated_preemptions(c["preemptions"], c["stream"] == "global"))
    makespan = float(c["finished_at"].max() - c["submitted_at"].min()) if len(high) else 0.0
    out["makespan"] = makespan
    busy = float(np.dot(c["run_time"], c["procs"]))
    out["utilization"] = busy / (procs * makespan) if makespan > 0 else 0.0
    out["wall_time"] = wall_time
    return out
