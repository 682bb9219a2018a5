"""Hand-built TDCS platforms and workloads for the dispatcher tests (test_tdcs_dispatch,
test_tdcs_ablations): one site per cluster, jobs given as dicts."""

from __future__ import annotations

from typing import Any

import numpy as np

from schedlab.platform.description import NO_NETWORK, Link, Platform, Queue, Site
from schedlab.workload.grid import GridWorkload
from schedlab.workload.models.tdcs import TdcsWorkload


def platform(clusters: list[tuple[float, int]], lan: Link = NO_NETWORK, **kw: Any) -> Platform:
    """One site per cluster (power, nodes), one queue each."""
    sites = tuple(
        Site(name=f"c{i}", queues=(Queue(site=f"c{i}", name="q", groups=((p, n),)),), lan=lan)
        for i, (p, n) in enumerate(clusters)
    )
    return Platform(sites=sites, **kw)


def workload(jobs: list[dict[str, Any]]) -> TdcsWorkload:
    """Jobs: submit, work, prio, and optionally requested (= work), procs (1), pool (-1:
    global), origin (0, or the pool's site), input (0), ckpt (0)."""
    col = {k: [j.get(k, d) for j in jobs] for k, d in
           (("submit", 0.0), ("work", 1.0), ("procs", 1), ("pool", -1), ("prio", 0),
            ("input", 0.0), ("ckpt", 0))}  # fmt: skip
    requested = [j.get("requested", w) for j, w in zip(jobs, col["work"])]
    origin = [j.get("origin", max(j.get("pool", -1), 0)) for j in jobs]
    grid = GridWorkload(
        submit_at=np.array(col["submit"], dtype=float),
        work=np.array(col["work"], dtype=float),
        procs=np.array(col["procs"]),
        org=np.zeros(len(jobs), dtype=int),
        stream=np.array(col["pool"]),
        job_id=np.arange(1, len(jobs) + 1),
    )
    return TdcsWorkload(grid, requested, col["prio"], origin, col["input"], col["ckpt"])
