"""One grid run: a platform, a grid workload and a meta-scheduler through the kernel.

`run_grid` builds the kernel's pools from the platform (each queue a pool with its registry
policy), the meta-scheduler's actors (actor 0 receives the global stream; local jobs go to their
pool directly), runs it, and returns a `GridResult`: the per-job table of the metrics of Caron
et al. (LIP RR-2005-13, section 4.4), the summary, counts of jobs by state over time per site
and per organisation, and the matcher's requests over time.

Metrics (the paper's; SPEC 3): for a job submitted at t (to the meta-scheduler for a meta-job,
to its site for a local job), admitted into its queue at tl, started at r and ended at d:
global wait r - t, local wait r - tl, execution d - r, response d - t; makespan = max d -
min t over the jobs counted. Pilots (jobs spawned by the meta-scheduler) are infrastructure:
they are counted (``pilots``, ``wasted_pilots``) but are not rows of the job table.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.checker import KernelChecker
from schedlab.engine.kernel import Kernel, KernelRun
from schedlab.errors import ConfigError
from schedlab.grid.registry import MetaScheduler, make_meta_scheduler, params_of
from schedlab.schedulers.registry import make_policy

if TYPE_CHECKING:
    import pandas as pd

    from schedlab.grid.workload import GridWorkload
    from schedlab.platform.description import Platform

__all__ = ["GridResult", "run_grid", "state_counts"]

DEFAULT_BINS = 200  # points of the state-count and request series
GROUP_KEYS = ("site", "org", "stream")  # what per-group metrics and series can be split by


def state_counts(
    submitted: np.ndarray,
    started: np.ndarray,
    finished: np.ndarray,
    times: np.ndarray,
) -> dict[str, np.ndarray]:
    """Jobs queued (submitted, not started), running and done at each of ``times``.

    Computed from the per-job instants with sorted searches (no live observer): a job
    counts as queued on [submit, start), running on [start, end), done from its end on.
    """
    sub = np.sort(submitted)
    sta = np.sort(started)
    fin = np.sort(finished)
    n_sub = np.searchsorted(sub, times, side="right")
    n_sta = np.searchsorted(sta, times, side="right")
    n_fin = np.searchsorted(fin, times, side="right")
    return {
        "queued": (n_sub - n_sta).astype(np.int64),
        "running": (n_sta - n_fin).astype(np.int64),
        "done": n_fin.astype(np.int64),
    }


@dataclass(eq=False)
class GridResult:
    """Outcome of one grid run (module docstring)."""

    platform: Platform
    workload: GridWorkload
    meta: str
    meta_params: dict[str, Any]
    raw: KernelRun
    counters: dict[str, int]
    request_times: dict[str, list[float]]
    wall_time: float = 0.0
    bins: int = DEFAULT_BINS
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def procs(self) -> int:
        return self.raw.total_procs

    @cached_property
    def columns(self) -> dict[str, np.ndarray]:
        """Per-job columns, one row per job of the workload (pilots excluded)."""
        w = self.workload
        raw = self.raw
        n = len(w)
        pool = raw.pool[:n]
        names = np.asarray(self.raw.pool_names + [""], dtype=object)
        sites = [q.site for q in self.platform.queues()]
        site_of = np.asarray(sites + [""], dtype=object)
        submitted = raw.submitted_at[:n]
        started = raw.started_at[:n]
        finished = raw.finished_at[:n]
        admitted = raw.admitted_at[:n]
        run = finished - started - raw.suspended_time[:n] - raw.wasted_time[:n]
        streams = np.asarray(w.stream)
        return {
            "job_id": np.asarray(w.job_id),
            "stream": np.where(streams < 0, "global", "local").astype(object),
            "org": np.asarray(w.org),
            "site": site_of[pool],
            "pool": names[pool],
            "submitted_at": submitted,
            "admitted_at": admitted,
            "started_at": started,
            "finished_at": finished,
            "wait_time": started - submitted,
            "local_wait_time": started - admitted,
            "run_time": run,
            "response_time": finished - submitted,
            "work": np.asarray(w.work, dtype=np.float64),
            "procs": raw.alloc_procs[:n],
            "node_power": raw.node_power[:n],
            "pilot": raw.host[:n],
            "killed": raw.killed[:n],
        }

    @cached_property
    def jobs(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.columns)

    def summary(self) -> dict[str, Any]:
        """The paper's metrics for all jobs, and separately for meta-jobs and local jobs,
        then the meta-scheduler's counters (matcher requests, pilots)."""
        c = self.columns
        out: dict[str, Any] = {"jobs": len(c["job_id"]), "procs": self.procs}
        groups = {"": np.ones(len(c["job_id"]), dtype=bool)}
        groups["global_"] = c["stream"] == "global"
        groups["local_"] = c["stream"] == "local"
        for prefix, mask in groups.items():
            if not mask.any():
                continue
            sub = c["submitted_at"][mask]
            fin = c["finished_at"][mask]
            if prefix:
                out[f"{prefix}jobs"] = int(mask.sum())
            out[f"{prefix}makespan"] = float(fin.max() - sub.min())
            out[f"{prefix}mean_wait_time"] = float(c["wait_time"][mask].mean())
            out[f"{prefix}mean_local_wait_time"] = float(c["local_wait_time"][mask].mean())
            out[f"{prefix}mean_execution_time"] = float(c["run_time"][mask].mean())
            out[f"{prefix}mean_response_time"] = float(c["response_time"][mask].mean())
        makespan = out["makespan"]
        busy = float(np.dot(c["run_time"], c["procs"]))
        out["utilization"] = busy / (self.procs * makespan) if makespan > 0 else 0.0
        out["killed"] = int(np.count_nonzero(c["killed"]))
        out.update(self.counters)
        out.setdefault("matcher_requests", 0)
        out.setdefault("wasted_pilots", 0)
        out["wall_time"] = self.wall_time
        return out

    def by(self, key: str) -> pd.DataFrame:
        """The paper's metrics per ``key`` ("site", "org" or "stream"): one row per value,
        with the jobs, makespan, mean wait (global), local wait, execution and response
        times, and killed jobs. A job counts at the site that ran it."""
        import pandas as pd

        if key not in GROUP_KEYS:
            raise ConfigError("--by", key, ", ".join(GROUP_KEYS))
        c = self.columns
        rows = []
        for value in sorted(set(c[key].tolist()), key=str):
            mask = c[key] == value
            rows.append(
                {
                    key: value,
                    "jobs": int(mask.sum()),
                    "makespan": float(c["finished_at"][mask].max() - c["submitted_at"][mask].min()),
                    "mean_wait_time": float(c["wait_time"][mask].mean()),
                    "mean_local_wait_time": float(c["local_wait_time"][mask].mean()),
                    "mean_execution_time": float(c["run_time"][mask].mean()),
                    "mean_response_time": float(c["response_time"][mask].mean()),
                    "killed": int(np.count_nonzero(c["killed"][mask])),
                }
            )
        return pd.DataFrame(rows)

    def _grid(self) -> np.ndarray:
        c = self.columns
        start = float(np.min(c["submitted_at"])) if len(c["job_id"]) else 0.0
        end = float(np.max(c["finished_at"])) if len(c["job_id"]) else 0.0
        return np.linspace(start, end, self.bins)

    def timeseries(self, by: str | None = None) -> pd.DataFrame:
        """Jobs queued, running and done over time (``bins`` points), for all jobs or per
        ``by`` ("site", "org" or "stream"): long form with a ``by`` column."""
        import pandas as pd

        if by is not None and by not in GROUP_KEYS:
            raise ConfigError("--by", by, ", ".join(GROUP_KEYS))
        c = self.columns
        times = self._grid()
        frames = []
        keys = [None] if by is None else sorted(set(c[by].tolist()), key=str)
        for key in keys:
            mask = np.ones(len(c["job_id"]), dtype=bool) if by is None else c[by] == key
            counts = state_counts(
                c["submitted_at"][mask], c["started_at"][mask], c["finished_at"][mask], times
            )
            frame = pd.DataFrame({"time": times, **counts})
            if by is not None:
                frame.insert(0, by, key)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def matcher_requests(self) -> pd.DataFrame:
        """Matcher requests per time bin, by kind (empty without a matcher)."""
        import pandas as pd

        times = self._grid()
        edges = np.append(times, times[-1] + 1e-9) if len(times) else times
        data: dict[str, Any] = {"time": times}
        for kind, values in sorted(self.request_times.items()):
            hist, _ = np.histogram(np.asarray(values, dtype=np.float64), bins=edges)
            data[kind] = hist
        return pd.DataFrame(data)

    def series(self, by: str | None = None) -> pd.DataFrame:
        """What ``--timeseries-out`` writes: `timeseries` and, for all jobs together, the
        matcher's requests per bin by kind (``matcher_requests_KIND``) and in all."""
        frame = self.timeseries(by)
        if by is not None:
            return frame
        requests = self.matcher_requests().drop(columns="time")
        frame["matcher_requests"] = requests.sum(axis=1).to_numpy() if len(requests.columns) else 0
        for kind in requests.columns:
            frame[f"matcher_requests_{kind}"] = requests[kind].to_numpy()
        return frame

    def write_jobs(self, path: str | Path) -> None:
        from schedlab.simulation import write_table

        write_table(self.jobs, path)


def run_grid(
    platform: Platform,
    workload: GridWorkload,
    meta: str | MetaScheduler = "push",
    *,
    seed: int = 0,
    check: bool = False,
    bins: int = DEFAULT_BINS,
    progress: Any = None,
    **params: Any,
) -> GridResult:
    """Simulate ``workload`` on ``platform`` under meta-scheduler ``meta`` (a registered name
    with its ``params``, or an instance); ``seed`` seeds the meta-scheduler's own draws;
    ``check`` turns on the kernel's invariant checker."""
    clock = time.perf_counter()
    instance = make_meta_scheduler(meta, **params) if isinstance(meta, str) else meta
    name = meta if isinstance(meta, str) else getattr(meta, "name", "?")
    specs = platform.pool_specs()
    pools = [(spec, make_policy(spec.policy, **dict(spec.params))) for spec in specs]
    actors = instance.actors(platform.context(seed))
    checker = KernelChecker() if check else None
    kernel = Kernel(
        jobs=workload.job_specs(),
        pools=pools,
        actors=actors,
        kill_on_overrun=True,
        tracer=checker,
        progress=progress,
    )
    raw = kernel.run()
    if checker is not None:
        checker.audit(kernel)
    counters = dict(instance.counters())
    counters.setdefault("pilots", raw.spawned)
    return GridResult(
        platform=platform,
        workload=workload,
        meta=name,
        meta_params=dict(params_of(instance)) if hasattr(instance, "params") else {},
        raw=raw,
        counters=counters,
        request_times=instance.request_times(),
        wall_time=time.perf_counter() - clock,
        bins=bins,
    )
