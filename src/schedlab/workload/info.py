"""A workload's vital statistics, for ``schedlab workload info``."""

from __future__ import annotations

from typing import Any

import numpy as np

from schedlab.workload.job import Workload


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
    }
