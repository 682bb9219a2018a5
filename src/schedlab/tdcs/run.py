"""One run of the system of Baranov and Tikhomirov (Computational Technologies 2017; SPEC 6):
local priority managers, streams, a dispatcher.

`run_tdcs` gives every queue of the platform the same local resource manager, `pps` reading
the ``priority`` attribute (a larger number preempts a strictly smaller one) with the
chosen ``preemption`` mode and checkpoint overhead, so that only the dispatcher differs
between runs; builds the dispatcher (a registered meta-scheduler bound to the platform's
network), runs the kernel and returns a `TdcsResult`.

Per job, with s its submission, e its end: processing time e - s = global queue time (in
the dispatchers' queue, every visit) + transfer time (every dispatch's delay: control
message and data) + local queue time (in a cluster's queue: before its start, suspended,
or requeued) + run time (running, checkpoint restarts and lost attempts included). The
first two are the dispatcher's records, the run time the kernel's, the local queue time
the rest: the four add up to the processing time exactly.
"""

from __future__ import annotations

import dataclasses
import time
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.checker import KernelChecker
from schedlab.engine.kernel import Kernel
from schedlab.errors import ConfigError
from schedlab.grid.registry import make_meta_scheduler, params_of
from schedlab.grid.run import GridResult
from schedlab.platform.description import Platform, Site
from schedlab.schedulers.registry import make_policy
from schedlab.tdcs.network import Network

if TYPE_CHECKING:
    import pandas as pd

    from schedlab.tdcs.workload import TdcsWorkload

__all__ = [
    "CONFIGURATIONS",
    "PREEMPTION",
    "TdcsResult",
    "local_managers",
    "run_tdcs",
]

PREEMPTION = ("checkpoint", "suspend", "requeue", "cancel", "none")
DEFAULT_CHECKPOINT_OVERHEAD = 60.0  # s to read a checkpoint back at a restart
# named configurations: dispatcher and, where it is fixed, the local managers' preemption
CONFIGURATIONS: dict[str, tuple[str, str | None]] = {
    "tdcs": ("tdcs", None),
    "tdcs_no_preemption": ("tdcs", "none"),
    "round_robin": ("round_robin", None),
    "least_loaded": ("least_loaded", None),
    "random": ("random", None),
}


def local_managers(platform: Platform, preemption: str, overhead: float) -> Platform:
    """``platform`` with every queue under pps(priority="attribute", preemption, overhead)."""
    if preemption not in PREEMPTION:
        raise ConfigError("--preemption", preemption, PREEMPTION)
    if not (isinstance(overhead, int | float) and 0 <= overhead < float("inf")):
        raise ConfigError("--checkpoint-overhead", overhead, "seconds >= 0")
    params = {"priority": "attribute", "preemption": preemption}
    if preemption == "checkpoint":
        params["checkpoint_overhead"] = float(overhead)  # type: ignore[assignment]
    sites = tuple(
        Site(
            name=s.name,
            queues=tuple(dataclasses.replace(q, policy="pps", params=params) for q in s.queues),
            lan=s.lan,
        )
        for s in platform.sites
    )
    return dataclasses.replace(platform, sites=sites)


@dataclasses.dataclass(eq=False)
class TdcsResult:
    """One run: the grid result (kernel outcome, the grid views) plus the paper's table."""

    grid: GridResult
    workload: TdcsWorkload
    configuration: str
    preemption: str
    records: dict[str, Any]

    @property
    def raw(self) -> Any:
        return self.grid.raw

    @cached_property
    def columns(self) -> dict[str, np.ndarray]:
        """Per-job columns (module docstring), one row per job of the workload."""
        w = self.workload
        raw = self.raw
        n = len(w)
        sites = [s.name for s in self.grid.platform.sites]
        pool_site = np.asarray(
            [sites[i] for i in self.grid.platform.pool_sites()] + [""], dtype=object
        )
        submitted = raw.submitted_at[:n]
        started = raw.started_at[:n]
        finished = raw.finished_at[:n]
        run = finished - started - raw.suspended_time[:n]
        gq = np.asarray(self.records.get("queue_time", np.zeros(n)), dtype=np.float64)[:n]
        tr = np.asarray(self.records.get("transfer_time", np.zeros(n)), dtype=np.float64)[:n]
        processing = finished - submitted
        procs = np.asarray(w.grid.procs)
        wasted = raw.wasted_time[:n]
        overhead = getattr(raw, "overhead_time", np.zeros(len(raw.submitted_at)))[:n]
        return {
            "job_id": np.asarray(w.grid.job_id),
            "stream": np.where(w.is_global, "global", "local").astype(object),
            "priority": w.priority,
            "origin": np.asarray(sites, dtype=object)[w.origin],
            "cluster": pool_site[raw.pool[:n]],
            "procs": procs,
            "work": np.asarray(w.grid.work),
            "requested_time": w.requested,
            "node_power": raw.node_power[:n],
            "submitted_at": submitted,
            "started_at": started,
            "finished_at": finished,
            "global_queue_time": gq,
            "transfer_time": tr,
            "local_queue_time": processing - gq - tr - run,
            "run_time": run,
            "processing_time": processing,
            "wait_time": processing - run,
            "preemptions": raw.preemptions[:n],
            "evictions": raw.evictions[:n],
            "wasted_time": wasted,
            "lost_work": wasted * procs,
            "overhead_time": overhead,
            "checkpointable": w.checkpointable,
            "killed": raw.killed[:n],
        }

    @cached_property
    def jobs(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.columns)

    def classes(self) -> dict[str, np.ndarray]:
        """Masks of the high (top level), low (between) and background (lowest) jobs."""
        prio = self.workload.priority
        top, bottom = (int(prio.max()), int(prio.min())) if len(prio) else (0, 0)
        return {
            "high": prio == top,
            "low": (prio < top) & (prio > bottom),
            "background": (prio == bottom) & (prio < top),
        }

    def summary(self) -> dict[str, Any]:
        """The paper's metrics (SPEC 6): high-priority processing time and its components,
        low-priority and background throughput (jobs/hour, ended within the submission
        window) and mean wait (processing - run), lost work, preemptions."""
        c = self.columns
        cls = self.classes()
        out: dict[str, Any] = {
            "configuration": self.configuration,
            "preemption": self.preemption,
            "jobs": len(c["job_id"]),
        }
        window = float(c["submitted_at"].max()) if len(c["job_id"]) else 0.0
        hours = window / 3600.0
        high = cls["high"]
        for key, column in (
            ("high_priority_mean_processing_time", "processing_time"),
            ("global_queue_time", "global_queue_time"),
            ("transfer_time", "transfer_time"),
            ("local_queue_time", "local_queue_time"),
            ("run_time", "run_time"),
        ):
            out[key] = _mean(c[column][high])
        glob = high & (c["stream"] == "global")
        out["global_high_priority_mean_processing_time"] = _mean(c["processing_time"][glob])
        for name in ("low", "background"):
            mask = cls[name]
            done = mask & (c["finished_at"] <= window)
            out[f"{name}_priority_throughput" if name == "low" else "background_throughput"] = (
                float(done.sum()) / hours if hours > 0 else float("nan")
            )
            key = (
                f"{name}_priority_mean_wait_time" if name == "low" else "background_mean_wait_time"
            )
            out[key] = _mean(c["wait_time"][mask])
        out["lost_work"] = float(c["lost_work"].sum())
        out["preemptions"] = int(c["preemptions"].sum())
        out["evictions"] = int(c["evictions"].sum())
        out["overhead_time"] = float(c["overhead_time"].sum())
        out["killed"] = int(np.count_nonzero(c["killed"]))
        out["early_end_share"] = self.workload.early_share()
        makespan = float(c["finished_at"].max() - c["submitted_at"].min()) if len(high) else 0.0
        out["makespan"] = makespan
        busy = float(np.dot(c["run_time"], c["procs"]))
        out["utilization"] = busy / (self.grid.procs * makespan) if makespan > 0 else 0.0
        out["wall_time"] = self.grid.wall_time
        return out

    def write_jobs(self, path: str | Path) -> None:
        from schedlab.simulation import write_table

        write_table(self.jobs, path)


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else float("nan")


def run_tdcs(
    platform: Platform,
    workload: TdcsWorkload,
    dispatcher: str = "tdcs",
    *,
    preemption: str = "checkpoint",
    checkpoint_overhead: float = DEFAULT_CHECKPOINT_OVERHEAD,
    checkpoint_factor: float = 1.0,
    seed: int = 0,
    check: bool = False,
    **params: Any,
) -> TdcsResult:
    """Simulate ``workload`` on ``platform`` with ``dispatcher`` (a configuration of
    `CONFIGURATIONS`, or any registered meta-scheduler) and its ``params``; every cluster
    under pps(priority="attribute", ``preemption``); a checkpoint costs
    ``checkpoint_overhead`` s at restart and weighs ``checkpoint_factor`` x the input."""
    clock = time.perf_counter()
    meta, fixed = CONFIGURATIONS.get(dispatcher, (dispatcher, None))
    mode = fixed or preemption
    instance = make_meta_scheduler(meta, **params)
    workload.check_platform(platform)
    managed = local_managers(platform, mode, checkpoint_overhead)
    bind = getattr(instance, "bind", None)
    if bind is not None:
        bind(Network.of(platform), checkpoint_factor)
    specs = managed.pool_specs()
    pools = [(spec, make_policy(spec.policy, **dict(spec.params))) for spec in specs]
    checker = KernelChecker() if check else None
    kernel = Kernel(
        jobs=workload.job_specs(),
        pools=pools,
        actors=instance.actors(managed.context(seed)),
        kill_on_overrun=True,
        tracer=checker,
    )
    raw = kernel.run()
    if checker is not None:
        checker.audit(kernel)
    grid = GridResult(
        platform=managed,
        workload=workload.grid,
        meta=meta,
        meta_params=dict(params_of(instance)) if hasattr(instance, "params") else {},
        raw=raw,
        counters=dict(instance.counters()),
        request_times={},
        wall_time=time.perf_counter() - clock,
    )
    records = instance.records() if hasattr(instance, "records") else {}
    return TdcsResult(grid, workload, dispatcher, mode, records)
