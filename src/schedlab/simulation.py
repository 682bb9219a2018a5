"""The public entry point: ``simulate(workload, policy="easy", **params)``.

It prepares a workload (load factor, kill_on_overrun convention of SPEC 1), runs the engine
with the named policy and returns a ``SimulationResult`` whose ``.jobs`` is the per-job
table of DESIGN.md section 4 and ``.summary()`` the aggregate metrics.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.checker import CheckedPolicy, InvariantChecker
from schedlab.engine.protocol import Policy
from schedlab.engine.simulator import RawRun, Simulator
from schedlab.errors import ConfigError
from schedlab.metrics.summary import per_class, summarize
from schedlab.metrics.timeseries import TimeSeriesObserver
from schedlab.schedulers.registry import make_policy
from schedlab.workload.job import Workload
from schedlab.workload.load import load_workload
from schedlab.workload.transforms import raise_requested_to_run, scale_load

if TYPE_CHECKING:
    import pandas as pd


@dataclass(eq=False)
class SimulationResult:
    """Outcome of one run: per-job table, summary, optional time series."""

    workload: Workload
    policy: str
    params: dict[str, Any]
    raw: RawRun
    requested_time: np.ndarray
    load_factor: float = 1.0
    kill_on_overrun: bool = True
    timeseries_columns: dict[str, np.ndarray] | None = None  # with timeseries=True
    extra_columns: dict[str, np.ndarray] = field(default_factory=dict)
    wall_time: float = 0.0

    @property
    def procs(self) -> int:
        return self.raw.total_procs

    @cached_property
    def columns(self) -> dict[str, np.ndarray]:
        """Per-job table as numpy columns, one entry per simulated job, in submit order."""
        w = self.workload
        raw = self.raw
        started = raw.started_at
        finished = raw.finished_at
        # time really running in the attempt that counted: suspensions and lost attempts out
        run = finished - started - raw.suspended_time - raw.wasted_time
        columns = {
            "job_id": w.job_id,
            "submitted_at": w.submit_time,
            "started_at": started,
            "finished_at": finished,
            "wait_time": started - w.submit_time,
            "run_time": run,
            "requested_time": self.requested_time,
            "procs": w.procs,
            "user": w.user_id,
            "group": w.group_id,
            "queue": w.queue_id,
            "killed": raw.killed,
        }
        columns.update(attribute_columns(w))
        if raw.preemptions.any():
            columns["preemptions"] = raw.preemptions
            columns["suspended_time"] = raw.suspended_time
            columns["wasted_time"] = raw.wasted_time
        columns.update(self.extra_columns)
        return columns

    @cached_property
    def timeseries(self) -> pd.DataFrame | None:
        """Queue length and busy processors after every instant (with timeseries=True)."""
        if self.timeseries_columns is None:
            return None
        import pandas as pd

        return pd.DataFrame(self.timeseries_columns)

    @cached_property
    def jobs(self) -> pd.DataFrame:
        """Per-job table, one row per simulated job, in submit order (DESIGN.md 4)."""
        import pandas as pd

        return pd.DataFrame(self.columns)

    def summary(self) -> dict[str, Any]:
        """The summary keys of DESIGN.md section 4 (``wall_time`` = simulation seconds)."""
        return summarize(
            self.columns,
            procs=self.procs,
            skipped=self.workload.total_skipped,
            wall_time=self.wall_time,
        )

    def by(self, column: str) -> pd.DataFrame:
        """Aggregates per class: ``by("user")``, ``by("queue")``, ..."""
        return per_class(self.jobs, column, procs=self.procs)

    def write_jobs(self, path: str | Path) -> None:
        """Per-job table to CSV or Parquet, chosen by the extension."""
        write_table(self.jobs, path)


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


TABLE_SUFFIXES = (".csv", ".parquet", ".pq")


def check_table_path(path: str | Path, option: str = "path") -> Path:
    """A path a per-job table can be written to: known extension, existing folder."""
    p = Path(path)
    if p.suffix.lower() not in TABLE_SUFFIXES:
        raise ConfigError(option, str(path), ["FILE.csv", "FILE.parquet"])
    if not p.parent.is_dir():
        raise ConfigError(option, str(path), "a file in an existing directory")
    return p


def write_table(frame: pd.DataFrame, path: str | Path) -> None:
    """Write ``frame`` as .csv or .parquet (chosen by the extension)."""
    p = check_table_path(path)
    if p.suffix.lower() == ".csv":
        frame.to_csv(p, index=False)
    else:
        frame.to_parquet(p, index=False)


def prepare_workload(
    workload: Workload, *, load_factor: float = 1.0, kill_on_overrun: bool = True
) -> Workload:
    """Apply the load factor and, with kill_on_overrun off, raise estimates to run times."""
    if load_factor != 1.0:
        workload = scale_load(workload, load_factor)
    if not kill_on_overrun:
        workload = raise_requested_to_run(workload)
    return workload


def simulate(
    workload: Workload | str | Path,
    policy: str | Policy = "easy",
    *,
    procs: int | None = None,
    load_factor: float = 1.0,
    kill_on_overrun: bool = True,
    check: bool = False,
    timeseries: bool = False,
    progress: Callable[[int, int], None] | None = None,
    **params: Any,
) -> SimulationResult:
    """Replay ``workload`` (a Workload, an SWF path or a model spec) through ``policy``.

    ``procs`` overrides the machine size; ``params`` configure the policy by name (e.g.
    ``backfill_order="sjf"`` for EASY). ``check`` turns on the invariant checker;
    ``timeseries`` records queue length and busy processors; ``progress(ended, jobs)`` is
    called now and then during long runs.
    """
    if not isinstance(workload, Workload):
        workload = load_workload(workload, max_procs=procs)
    elif procs is not None and procs != workload.max_procs:
        workload = Workload.from_fields(
            workload.fields,
            max_procs=procs,
            header=workload.header,
            source=workload.source,
            skipped=workload.skipped,
            attributes=workload.attributes,
        )
    if not (
        isinstance(load_factor, (int, float)) and load_factor > 0 and math.isfinite(load_factor)
    ):
        raise ConfigError("load_factor", load_factor, "a finite number > 0")
    clock = time.perf_counter()
    workload = prepare_workload(workload, load_factor=load_factor, kill_on_overrun=kill_on_overrun)
    if isinstance(policy, str):
        name = policy
        instance = make_policy(policy, **params)
    else:
        if params:
            raise ConfigError("params", sorted(params), "none when a policy instance is given")
        instance = policy
        name = policy.name
    requested = workload.requested_time
    observers: list[Any] = []
    series = TimeSeriesObserver() if timeseries else None
    if series is not None:
        observers.append(series)
    checker = None
    engine_policy: Policy = instance
    if check:
        checked = CheckedPolicy(instance)
        checker = InvariantChecker(checked)
        observers.append(checker)
        engine_policy = checked
    sim = Simulator(
        submit_at=workload.submit_time.tolist(),
        run_time=workload.run_time.tolist(),
        requested_time=requested.tolist(),
        procs=workload.procs.tolist(),
        user=workload.user_id.tolist(),
        total_procs=workload.max_procs,
        policy=engine_policy,
        kill_on_overrun=kill_on_overrun,
        observers=observers,
        progress=progress,
        attributes={k: v.tolist() for k, v in workload.attributes.items()},
    )
    raw = sim.run()
    if checker is not None:
        checker.audit(sim, raw)
    extra: dict[str, np.ndarray] = {}
    columns = getattr(instance, "job_columns", None)
    if callable(columns):
        extra = columns()
    return SimulationResult(
        workload=workload,
        policy=name,
        params=dict(params),
        raw=raw,
        requested_time=requested,
        load_factor=load_factor,
        kill_on_overrun=kill_on_overrun,
        timeseries_columns=series.columns() if series is not None else None,
        extra_columns=extra,
        wall_time=time.perf_counter() - clock,
    )
