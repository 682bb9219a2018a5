"""Hand-built multi-level applications for the moldable schedulers' tests (paper 004)."""

from __future__ import annotations

from typing import Any

import numpy as np

import schedlab
from schedlab.workload.job import Workload


def chain_workload(chains: list[list[float]], procs: int, pi: float = 1.0) -> Workload:
    """One SWF row per task, chain after chain; a task names the previous one of its chain
    (field 17) with zero think time (field 18); run = requested = sequential time; every task
    moldable under Amdahl's law with ``pi``, on a machine of ``procs`` nodes."""
    rows = []
    for chain in chains:
        prev = -1
        for w in chain:
            job_id = len(rows) + 1
            rows.append([job_id, 0, -1, w, 1, -1, -1, 1, w, -1, 1, 1, 1, -1, 1, -1, prev, 0])
            prev = job_id
    wl = Workload.from_fields(np.array(rows, dtype=np.float64), max_procs=procs)
    return wl.with_attribute("parallel_fraction", np.full(len(rows), pi))


def run_checked(wl: Workload, policy: Any, **params: Any) -> tuple[Any, dict[str, Any]]:
    """Simulate with the invariant checker on; the per-job table and the summary, whose
    normalized Cmax must respect the lower bound."""
    result = schedlab.simulate(wl, policy, check=True, **params)
    summary = result.summary()
    assert summary["normalized_cmax"] >= 1.0 - 1e-12
    return result.jobs, summary
