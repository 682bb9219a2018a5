"""`Result`: what every run gives, whatever its kind (`scenario.run`).

One per-job table (``columns`` as numpy arrays, ``jobs`` as a DataFrame), ``summary()``,
``by(key)``, the time series and ``write_jobs()``. Which columns and metrics a run has
follows from what it is (``kind``):

* ``"cluster"``: one cluster, no actors (`simulate`): the columns of DESIGN section 4 (plus
  those a policy or the workload adds) and the summary of `metrics.summary`;
* ``"grid"``: a platform under a meta-scheduler (`run_grid`): the metrics of Caron et al.
  (`metrics.grid`): global and local waits, execution and response per job, per stream,
  site or organisation, and the meta-scheduler's counters (matcher requests, pilots);
* ``"tdcs"``: a platform whose jobs carry absolute priorities (a stream of Baranov and
  Tikhomirov: `run_tdcs`, or `run_grid` on such a platform): the components of processing
  time (`metrics.tdcs`), then the grid columns a platform run has.

The grid and TDCS extras are named parts: ``meta`` (the meta-scheduler's name, parameters,
counters, matcher requests over time, the dispatcher's per-job records). Pilots (jobs
spawned by a meta-scheduler) are infrastructure: they are counted (``pilots``,
``wasted_pilots``) but are not rows of the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.fastpath import RawRun
from schedlab.metrics.grid import (
    GROUP_KEYS,
    busy_procs,
    check_group_key,
    grid_by,
    grid_summary,
    matcher_requests,
    state_counts,
    time_grid,
)
from schedlab.metrics.summary import per_class, per_job_metrics, summarize, warmup_jobs
from schedlab.metrics.tdcs import priority_classes, tdcs_summary
from schedlab.outputs import write_table
from schedlab.workload.job import Workload

if TYPE_CHECKING:  # a cluster run's result needs none of them (imported where used)
    import pandas as pd

    from schedlab.engine.jobs import KernelRun
    from schedlab.platform.cluster import ClusterSpec
    from schedlab.platform.description import Platform
    from schedlab.platform.placement import Allocation, Request
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.models.tdcs import TdcsWorkload

__all__ = ["DEFAULT_BINS", "MetaOutcome", "Result", "attribute_columns"]

DEFAULT_BINS = 200  # points of a platform run's series
TDCS_GROUP_KEYS = ("stream", "priority", "origin", "cluster", "site", "org")


@dataclass(frozen=True)
class MetaOutcome:
    """What a meta-scheduler or dispatcher reports after a platform run."""

    name: str
    params: dict[str, Any]
    counters: dict[str, int]  # matcher requests by kind, wasted pilots, dispatches...
    request_times: dict[str, list[float]]  # matcher requests by kind (empty: no matcher)
    records: dict[str, Any]  # per job (global id): queue_time, transfer_time (TDCS)


@dataclass(eq=False)
class Result:
    """Outcome of one run (module docstring)."""

    kind: str  # "cluster", "grid" or "tdcs"
    workload: Workload | GridWorkload | TdcsWorkload
    raw: RawRun | KernelRun
    policy: str  # the cluster policy, or the meta-scheduler
    params: dict[str, Any]
    platform: Platform | None = None
    meta: MetaOutcome | None = None
    configuration: str = ""  # a TDCS run's name (e.g. tdcs_no_preemption)
    preemption: str = ""  # a TDCS run's local managers' mode
    requested_time: np.ndarray | None = None  # cluster runs: after the load factor
    load_factor: float = 1.0
    kill_on_overrun: bool = True
    timeseries_columns: dict[str, np.ndarray] | None = None  # recorded (timeseries=True)
    extra_columns: dict[str, np.ndarray] = field(default_factory=dict)  # from the policy
    wall_time: float = 0.0
    warmup: int | str = 0  # default warm-up of summary() and by()
    bins: int = DEFAULT_BINS
    # a cluster of node types (issue 24): the nodes, and where each job ran (None: not started)
    cluster: ClusterSpec | None = None
    allocations: list[Allocation | None] | None = None
    node_requests: list[Request] | None = None  # what each job asked of the nodes

    # -- what a run is --------------------------------------------------------------------
    @property
    def procs(self) -> int:
        return self.raw.total_procs

    @property
    def meta_params(self) -> dict[str, Any]:
        return dict(self.meta.params) if self.meta is not None else {}

    @property
    def counters(self) -> dict[str, int]:
        return dict(self.meta.counters) if self.meta is not None else {}

    @property
    def records(self) -> dict[str, Any]:
        return dict(self.meta.records) if self.meta is not None else {}

    # -- the per-job table ------------------------------------------------------------------
    @cached_property
    def columns(self) -> dict[str, np.ndarray]:
        """The per-job table as numpy columns, one row per job of the workload, in submit
        order (module docstring for which columns a kind of run has)."""
        if self.kind == "cluster":
            return self._cluster_columns()
        grid = self._grid_columns()
        if self.kind != "tdcs":
            return grid
        tdcs = self._tdcs_columns()
        return {**tdcs, **{k: v for k, v in grid.items() if k not in tdcs}}

    @cached_property
    def jobs(self) -> pd.DataFrame:
        """The per-job table; a cluster run's has the per-job ``response_time``, ``slowdown``
        and ``bounded_slowdown`` after ``run_time`` (derived here only: sweeps store
        `columns`, from which they follow)."""
        import pandas as pd

        if self.kind != "cluster":
            return pd.DataFrame(self.columns)
        derived = per_job_metrics(self.columns)
        ordered: dict[str, np.ndarray] = {}
        for name, values in self.columns.items():
            ordered[name] = values
            if name == "run_time":
                ordered.update(derived)
        return pd.DataFrame(ordered)

    def write_jobs(self, path: str | Path) -> None:
        """The per-job table to CSV or Parquet, chosen by the extension."""
        write_table(self.jobs, path)

    def _cluster_columns(self) -> dict[str, np.ndarray]:
        w = self.workload
        assert isinstance(w, Workload) and self.requested_time is not None
        raw = self.raw
        started = raw.started_at
        finished = raw.finished_at
        n = len(w)
        # time really running in the attempt that counted: suspensions and lost attempts out
        run = finished - started - raw.suspended_time - raw.wasted_time
        # dependants are submitted when their parent ends (+ think time), not at field 2
        submitted = w.submit_time if raw.submitted_at is None else raw.submitted_at[:n]
        procs = w.procs if raw.alloc_procs is None else raw.alloc_procs[:n]
        columns = {
            "job_id": w.job_id,
            "submitted_at": submitted,
            "started_at": started,
            "finished_at": finished,
            "wait_time": started - submitted,
            "run_time": run,
            "requested_time": self.requested_time,
            "procs": procs,
            "user": w.user_id,
            "group": w.group_id,
            "queue": w.queue_id,
            "killed": raw.killed,
        }
        if procs is not w.procs and not np.array_equal(procs, w.procs):
            columns["requested_procs"] = w.procs  # moldable jobs got another size
        if raw.pool is not None and raw.pool_names is not None and len(raw.pool_names) > 1:
            columns["pool"] = np.asarray(raw.pool_names, dtype=object)[raw.pool[:n]]
        if raw.node_power is not None and np.any(raw.node_power[:n] != 1.0):
            columns["node_power"] = raw.node_power[:n]
        columns.update(attribute_columns(w))
        if raw.preemptions.any():
            columns["preemptions"] = raw.preemptions
            columns["suspended_time"] = raw.suspended_time
            columns["wasted_time"] = raw.wasted_time
            # processor-seconds run by attempts a requeue threw away
            columns["lost_work"] = raw.wasted_time * procs
            overhead = getattr(raw, "overhead_time", None)
            if overhead is not None and overhead.any():
                columns["overhead_time"] = overhead  # restarts from checkpoints
        columns.update(self.extra_columns)
        return columns

    def _grid_columns(self) -> dict[str, np.ndarray]:
        from schedlab.engine.jobs import KernelRun
        from schedlab.workload.grid import GridWorkload
        from schedlab.workload.models.tdcs import TdcsWorkload

        assert isinstance(self.raw, KernelRun) and self.platform is not None
        w = self.workload.grid if isinstance(self.workload, TdcsWorkload) else self.workload
        assert isinstance(w, GridWorkload)
        raw = self.raw
        n = len(w)
        pool = raw.pool[:n]
        names = np.asarray(raw.pool_names + [""], dtype=object)
        site_of = np.asarray([q.site for q in self.platform.queues()] + [""], dtype=object)
        submitted = raw.submitted_at[:n]
        started = raw.started_at[:n]
        finished = raw.finished_at[:n]
        admitted = raw.admitted_at[:n]
        run = finished - started - raw.suspended_time[:n] - raw.wasted_time[:n]
        return {
            "job_id": np.asarray(w.job_id),
            "stream": np.where(np.asarray(w.stream) < 0, "global", "local").astype(object),
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

    def _tdcs_columns(self) -> dict[str, np.ndarray]:
        """The paper's columns (`metrics.tdcs`): its run time counts lost attempts and
        restarts, so that the four components add up to the processing time."""
        from schedlab.engine.jobs import KernelRun
        from schedlab.workload.models.tdcs import TdcsWorkload

        w = self.workload
        assert isinstance(w, TdcsWorkload) and isinstance(self.raw, KernelRun)
        assert self.platform is not None
        raw = self.raw
        n = len(w)
        sites = [s.name for s in self.platform.sites]
        pool_site = np.asarray([sites[i] for i in self.platform.pool_sites()] + [""], dtype=object)
        submitted = raw.submitted_at[:n]
        started = raw.started_at[:n]
        finished = raw.finished_at[:n]
        run = finished - started - raw.suspended_time[:n]
        records = self.records
        gq = np.asarray(records.get("queue_time", np.zeros(n)), dtype=np.float64)[:n]
        tr = np.asarray(records.get("transfer_time", np.zeros(n)), dtype=np.float64)[:n]
        processing = finished - submitted
        procs = np.asarray(w.grid.procs)
        wasted = raw.wasted_time[:n]
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
            "overhead_time": raw.overhead_time[:n],
            "checkpointable": w.checkpointable,
            "killed": raw.killed[:n],
        }

    # -- metrics ----------------------------------------------------------------------------
    def measured(self, warmup: int | str | None = None) -> dict[str, np.ndarray]:
        """`columns` without the first jobs a warm-up cut drops (``N`` jobs or ``"X%"``;
        None: the run's own ``warmup``)."""
        cut = warmup_jobs(self.warmup if warmup is None else warmup, len(self.workload))
        if cut == 0:
            return self.columns
        return {name: values[cut:] for name, values in self.columns.items()}

    def summary(self, warmup: int | str | None = None) -> dict[str, Any]:
        """The run's metrics (module docstring); ``wall_time`` = seconds the simulation took.

        ``warmup``: leave the first jobs (in submit order) out of the metrics, ``N`` jobs or
        ``"X%"`` of them (None: the run's own); they are still simulated, so the rest sees a
        machine already busy. ``jobs`` then counts the measured jobs only.
        """
        if self.kind == "cluster":
            skipped = self.workload.total_skipped if isinstance(self.workload, Workload) else 0
            out = summarize(
                self.measured(warmup), procs=self.procs, skipped=skipped, wall_time=self.wall_time
            )
            if self.cluster is None:
                return out
            return self._with_node_metrics(out, warmup)
        from schedlab.engine.jobs import KernelRun  # (a platform run: the kernel's)
        from schedlab.workload.models.tdcs import TdcsWorkload

        if self.kind == "tdcs":
            assert isinstance(self.workload, TdcsWorkload)
            return tdcs_summary(
                self.measured(warmup),
                configuration=self.configuration or self.policy,
                preemption=self.preemption,
                early_end_share=self.workload.early_share(),
                procs=self.procs,
                wall_time=self.wall_time,
            )
        counters = dict(self.counters)
        counters.setdefault("pilots", self.raw.spawned if isinstance(self.raw, KernelRun) else 0)
        return grid_summary(
            self.measured(warmup), procs=self.procs, counters=counters, wall_time=self.wall_time
        )

    def _with_node_metrics(self, out: dict[str, Any], warmup: int | str | None) -> dict[str, Any]:
        """``out`` with the metrics of a run on node types (`metrics.nodes`) after
        ``utilization``: per-resource use, GPU-hours, fragmentation."""
        from schedlab.metrics.nodes import node_summary

        assert self.cluster is not None
        assert self.allocations is not None and self.node_requests is not None
        c = self.columns
        cut = warmup_jobs(self.warmup if warmup is None else warmup, len(self.workload))
        extra = node_summary(
            self.cluster,
            c["submitted_at"],
            c["started_at"],
            c["finished_at"],
            c["cores_held"],
            c["memory_held_mib"],
            c["gpus"],
            self.node_requests,
            self.allocations,
            warmup=cut,
        )
        merged: dict[str, Any] = {}
        for key, value in out.items():
            merged[key] = value
            if key == "utilization":
                merged.update(extra)
        return merged if len(merged) > len(out) else {**out, **extra}

    def by(self, key: str, warmup: int | str | None = None) -> pd.DataFrame:
        """The metrics per value of column ``key`` (``warmup`` as in `summary`): any column of
        a cluster run (``user``, ``queue``...); site, org or stream for a grid run (the grid
        metrics); also priority, origin and cluster for a TDCS run."""
        if self.kind == "cluster":
            jobs = self.jobs
            cut = warmup_jobs(self.warmup if warmup is None else warmup, len(jobs))
            return per_class(jobs.iloc[cut:], key, procs=self.procs)
        keys = TDCS_GROUP_KEYS if self.kind == "tdcs" else GROUP_KEYS
        return grid_by(self.measured(warmup), key, keys)

    def classes(self) -> dict[str, np.ndarray]:
        """A TDCS run's priority classes (high, low, background) as masks over the jobs."""
        return priority_classes(np.asarray(self.columns["priority"]))

    # -- time series ------------------------------------------------------------------------
    @cached_property
    def timeseries(self) -> pd.DataFrame | None:
        """A cluster run's queue length and busy processors after every instant (recorded
        with timeseries=True; None otherwise); a platform run's jobs queued, running and done
        over ``bins`` instants (`states`)."""
        import pandas as pd

        if self.kind != "cluster":
            return self.states()
        if self.timeseries_columns is None:
            return None
        return pd.DataFrame(self.timeseries_columns)

    def _times(self) -> np.ndarray:
        return time_grid(self.columns, self.bins)

    def states(self, by: str | None = None) -> pd.DataFrame:
        """Jobs queued, running and done over time (``bins`` points), for all jobs or per
        ``by`` (site, org or stream): long form with a ``by`` column."""
        import pandas as pd

        c = self.columns
        if by is not None:
            check_group_key(by, TDCS_GROUP_KEYS if self.kind == "tdcs" else GROUP_KEYS)
        times = self._times()
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
        """Matcher requests per time bin, by kind (no kind without a matcher)."""
        import pandas as pd

        times = self._times()
        requests = self.meta.request_times if self.meta is not None else {}
        return pd.DataFrame({"time": times, **matcher_requests(requests, times)})

    def series(self, by: str | None = None) -> pd.DataFrame:
        """What ``--timeseries-out`` writes: `states` and, for all jobs together, the
        matcher's requests per bin by kind (``matcher_requests_KIND``) and in all."""
        frame = self.states(by)
        if by is not None:
            return frame
        requests = self.matcher_requests().drop(columns="time")
        frame["matcher_requests"] = requests.sum(axis=1).to_numpy() if len(requests.columns) else 0
        for kind in requests.columns:
            frame[f"matcher_requests_{kind}"] = requests[kind].to_numpy()
        return frame

    def series_columns(self) -> dict[str, np.ndarray] | None:
        """The time series a sweep stores: a cluster run's recorded one (None when not
        recorded: it is rebuilt from the table); a platform run's ``bins`` instants with
        jobs ``queued``, ``running``, ``done``, ``busy_procs`` (processors running jobs) and
        the matcher's requests in the bin that starts at each instant: ``matcher_requests``
        (all; 0 without a matcher) and ``matcher_requests_KIND`` for each kind counted."""
        if self.kind == "cluster":
            return self.timeseries_columns
        frame = self.states()
        times = frame["time"].to_numpy(np.float64)
        out: dict[str, np.ndarray] = {
            "time": times,
            "queued": frame["queued"].to_numpy(np.int64),
            "running": frame["running"].to_numpy(np.int64),
            "done": frame["done"].to_numpy(np.int64),
            "busy_procs": busy_procs(self.columns, times),
        }
        requests = matcher_requests(self.meta.request_times if self.meta else {}, times)
        total = np.zeros(len(times), dtype=np.int64)
        for values in requests.values():
            total += values.astype(np.int64)
        out["matcher_requests"] = total
        for kind, values in requests.items():
            out[f"matcher_requests_{kind}"] = values.astype(np.int64)
        return out


def attribute_columns(workload: Workload) -> dict[str, np.ndarray]:
    """Per-job columns from the workload's attributes (DESIGN 4: ``priority``, ``deadline``).

    A workload with deadlines gets ``priority`` (False for the jobs submitted as
    non-priority, i.e. with a deadline) and ``deadline`` (absolute, seconds, NaN if none),
    whatever the policy: CBF and DBF results can then be compared class by class.
    """
    slack = workload.attributes.get("deadline_time")
    if slack is None:
        return {}
    return {"priority": np.isnan(slack), "deadline": workload.submit_time + slack}
