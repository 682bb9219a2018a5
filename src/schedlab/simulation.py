"""The public entry point: ``simulate(workload, policy="easy", **params)``.

It prepares a workload (load factor, kill_on_overrun convention of docs/model.md), runs the engine
with the named policy and returns a ``SimulationResult`` whose ``.jobs`` is the per-job
table (docs/model.md, "Metrics") and ``.summary()`` the aggregate metrics.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.checker import CheckedPolicy, InvariantChecker, KernelChecker
from schedlab.engine.durations import RIGID, Amdahl, SpeedupModel
from schedlab.engine.kernel import JobSpecs, Kernel, KernelRun
from schedlab.engine.protocol import Policy
from schedlab.engine.simulator import RawRun, Simulator
from schedlab.errors import ConfigError, WorkloadError
from schedlab.metrics.summary import per_class, per_job_metrics, summarize, warmup_jobs
from schedlab.metrics.timeseries import TimeSeriesObserver
from schedlab.outputs import atomic_output, is_stdout
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers.registry import make_policy
from schedlab.workload.dependencies import Dependencies, dependencies
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

    @cached_property
    def timeseries(self) -> pd.DataFrame | None:
        """Queue length and busy processors after every instant (with timeseries=True)."""
        if self.timeseries_columns is None:
            return None
        import pandas as pd

        return pd.DataFrame(self.timeseries_columns)

    @cached_property
    def jobs(self) -> pd.DataFrame:
        """Per-job table, one row per simulated job, in submit order (DESIGN.md 4), with the
        per-job ``response_time``, ``slowdown`` and ``bounded_slowdown`` after ``wait_time``
        (derived here only: sweeps store `columns`, from which they follow)."""
        import pandas as pd

        columns = dict(self.columns)
        derived = per_job_metrics(columns)
        ordered: dict[str, np.ndarray] = {}
        for name, values in columns.items():
            ordered[name] = values
            if name == "run_time":
                ordered.update(derived)
        return pd.DataFrame(ordered)

    def measured(self, warmup: int | str = 0) -> dict[str, np.ndarray]:
        """`columns` without the first jobs a warm-up cut drops (``N`` jobs or ``"X%"``)."""
        cut = warmup_jobs(warmup, len(self.workload))
        if cut == 0:
            return self.columns
        return {name: values[cut:] for name, values in self.columns.items()}

    def summary(self, warmup: int | str = 0) -> dict[str, Any]:
        """The summary keys of DESIGN.md section 4 (``wall_time`` = simulation seconds).

        ``warmup``: leave the first jobs (in submit order) out of the metrics, ``N`` jobs or
        ``"X%"`` of them; they are still simulated, so the rest sees a machine already busy.
        ``jobs`` then counts the measured jobs only.
        """
        return summarize(
            self.measured(warmup),
            procs=self.procs,
            skipped=self.workload.total_skipped,
            wall_time=self.wall_time,
        )

    def by(self, column: str, warmup: int | str = 0) -> pd.DataFrame:
        """Aggregates per class: ``by("user")``, ``by("queue")``, ... (``warmup`` as in
        `summary`)."""
        jobs = self.jobs
        cut = warmup_jobs(warmup, len(jobs))
        return per_class(jobs.iloc[cut:], column, procs=self.procs)

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
    """A path a per-job table can be written to: known extension, existing folder (or ``-``,
    standard output, as CSV)."""
    p = Path(path)
    if is_stdout(path):
        return p
    if p.suffix.lower() not in TABLE_SUFFIXES:
        raise ConfigError(option, str(path), ["FILE.csv", "FILE.parquet"])
    if not p.parent.is_dir():
        raise ConfigError(option, str(path), "a file in an existing directory")
    return p


def write_table(frame: pd.DataFrame, path: str | Path) -> None:
    """Write ``frame`` as .csv or .parquet (chosen by the extension), whole or not at all."""
    p = check_table_path(path)
    with atomic_output(p) as tmp:
        if is_stdout(p) or p.suffix.lower() == ".csv":
            frame.to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)


def require_jobs(workload: Workload) -> None:
    """WorkloadError when ``workload`` has no job: nothing to simulate, or to write.

    One error for every way to get there: a file without job lines (raised by the reader),
    a file whose jobs were all skipped, a selection or cleaning that kept none.
    """
    if len(workload):
        return
    skipped = {k: v for k, v in workload.skipped.items() if v}
    if skipped:
        reasons = ", ".join(f"{count:,} {reason}" for reason, count in skipped.items())
        detail = f"every job was skipped or removed ({reasons})"
    else:
        detail = "the selection (first/window/jobs) kept none, or the source has none"
    raise WorkloadError(workload.source, f"no job to simulate: {detail}")


def prepare_workload(
    workload: Workload, *, load_factor: float = 1.0, kill_on_overrun: bool = True
) -> Workload:
    """Apply the load factor and, with kill_on_overrun off, raise estimates to run times."""
    if load_factor != 1.0:
        workload = scale_load(workload, load_factor)
    if not kill_on_overrun:
        workload = raise_requested_to_run(workload)
    return workload


ENGINES = ("auto", "inlined", "general")


def speedup_models(
    workload: Workload, speedup: SpeedupModel | Sequence[SpeedupModel] | None = None
) -> list[SpeedupModel] | None:
    """Each job's speed-up model, or None when every job is rigid.

    ``speedup`` (one model for every job, or one per job) wins; otherwise a job with a
    ``parallel_fraction`` attribute (not NaN) is moldable under Amdahl's law.
    """
    n = len(workload)
    if speedup is not None:
        if isinstance(speedup, SpeedupModel):
            return [speedup] * n
        models = list(speedup)
        if len(models) != n or not all(isinstance(m, SpeedupModel) for m in models):
            raise ConfigError("speedup", f"{len(models)} values", f"{n} speed-up models")
        return models
    fraction = workload.attributes.get("parallel_fraction")
    if fraction is None or bool(np.all(np.isnan(fraction))):
        return None
    cache: dict[float, SpeedupModel] = {}
    out: list[SpeedupModel] = []
    for value in fraction.tolist():
        if value != value:
            out.append(RIGID)
        else:
            model = cache.get(value)
            if model is None:
                model = cache[value] = Amdahl(value)
            out.append(model)
    return out


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
    engine: str = "auto",
    speedup: SpeedupModel | Sequence[SpeedupModel] | None = None,
    **params: Any,
) -> SimulationResult:
    """Replay ``workload`` (a Workload, an SWF path or a model spec) through ``policy``.

    ``procs`` overrides the machine size; ``params`` configure the policy by name (e.g.
    ``backfill_order="sjf"`` for EASY). ``check`` turns on the invariant checker;
    ``timeseries`` records queue length and busy processors; ``progress(ended, jobs)`` is
    called now and then during long runs. ``speedup`` makes jobs moldable (one
    `engine.durations` model for all, or one per job; see `speedup_models`).

    ``engine``: "inlined" is the single-cluster loop of `engine.simulator` (rigid jobs, no
    dependants); "general" the kernel of `engine.kernel` (one pool here); "auto" takes the
    inlined loop whenever the workload allows it. Both give the same results where both
    apply.
    """
    if engine not in ENGINES:
        raise ConfigError("engine", engine, ENGINES)
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
    try:
        valid = isinstance(load_factor, (int, float)) and 0 < load_factor < math.inf
    except OverflowError:  # an int too large for a float
        valid = False
    if not valid:
        raise ConfigError("load_factor", load_factor, "a finite number > 0")
    require_jobs(workload)
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
    models = speedup_models(workload, speedup)
    deps = dependencies(workload)
    # moldable jobs, dependants and clairvoyant policies (with `prepare`) need the kernel
    general = (
        models is not None
        or deps.count > 0
        or callable(getattr(instance, "prepare", None))
        or getattr(instance, "needs_kernel", False)  # e.g. checkpoints, evictions (pps)
    )
    if engine == "inlined" and general:
        raise ConfigError(
            "engine",
            engine,
            "general or auto: moldable jobs, dependants, a clairvoyant policy or the preemption "
            "of Baranov and Tikhomirov (Computational Technologies 2017) need the kernel",
        )
    observers: list[Any] = []
    series = TimeSeriesObserver() if timeseries else None
    if series is not None:
        observers.append(series)
    if general or engine == "general":
        raw, extra = _run_general(
            workload, instance, models, deps, kill_on_overrun, check, observers, progress
        )
    else:
        raw, extra = _run_inlined(workload, instance, kill_on_overrun, check, observers, progress)
    return SimulationResult(
        workload=workload,
        policy=name,
        params=dict(params),
        raw=raw,
        requested_time=workload.requested_time,
        load_factor=load_factor,
        kill_on_overrun=kill_on_overrun,
        timeseries_columns=series.columns() if series is not None else None,
        extra_columns=extra,
        wall_time=time.perf_counter() - clock,
    )


def _policy_columns(instance: Any) -> dict[str, np.ndarray]:
    columns = getattr(instance, "job_columns", None)
    return columns() if callable(columns) else {}


def _run_inlined(
    workload: Workload,
    instance: Policy,
    kill_on_overrun: bool,
    check: bool,
    observers: list[Any],
    progress: Callable[[int, int], None] | None,
) -> tuple[RawRun, dict[str, np.ndarray]]:
    """The single-cluster loop (engine.simulator): rigid jobs, no dependants."""
    checker = None
    engine_policy: Policy = instance
    if check:
        checked = CheckedPolicy(instance)
        checker = InvariantChecker(checked)
        observers = [*observers, checker]
        engine_policy = checked
    sim = Simulator(
        submit_at=workload.submit_time.tolist(),
        run_time=workload.run_time.tolist(),
        requested_time=workload.requested_time.tolist(),
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
    return raw, _policy_columns(instance)


def _run_general(
    workload: Workload,
    instance: Policy,
    models: list[SpeedupModel] | None,
    deps: Dependencies,
    kill_on_overrun: bool,
    check: bool,
    observers: list[Any],
    progress: Callable[[int, int], None] | None,
) -> tuple[RawRun, dict[str, np.ndarray]]:
    """The general kernel with one pool of the machine's processors (power 1), every job
    delivered straight to it."""
    specs = JobSpecs.rigid(
        submit_at=workload.submit_time.tolist(),
        run_time=workload.run_time.tolist(),
        requested_time=workload.requested_time.tolist(),
        procs=workload.procs.tolist(),
        user=workload.user_id.tolist(),
        parent=deps.parent.tolist(),
        think=deps.think.tolist(),
        speedup=models,
        attributes={k: v.tolist() for k, v in workload.attributes.items()},
    )
    prepare = getattr(instance, "prepare", None)
    if callable(prepare):  # a clairvoyant policy plans on the realised instance (CPA)
        prepare(specs, workload.max_procs)
    checker = KernelChecker() if check else None
    kernel = Kernel(
        jobs=specs,
        pools=[(PoolSpec.cluster(workload.max_procs), instance)],
        kill_on_overrun=kill_on_overrun,
        observers=observers,
        tracer=checker,
        progress=progress,
    )
    run = kernel.run()
    if checker is not None:
        checker.audit(kernel)
    raw = raw_run_of(run)
    extra = to_global(_policy_columns(instance), kernel.pools[0].gids, len(workload))
    if models is not None:
        # the least area of each job (processor-seconds): a moldable job's is its work (its
        # sequential time), a rigid job's its size times its time (metrics.moldable_metrics)
        work = np.asarray(specs.work, dtype=np.float64)
        rigid = np.array([m is RIGID for m in models])
        extra["least_area"] = np.where(rigid, work * workload.procs, work)
    return raw, extra


def raw_run_of(run: KernelRun) -> RawRun:
    """The kernel's outcome in the shape of the inlined loop's (plus what only it has)."""
    return RawRun(
        started_at=run.started_at,
        finished_at=run.finished_at,
        killed=run.killed,
        preemptions=run.preemptions,
        suspended_time=run.suspended_time,
        executed_time=run.executed_work,
        wasted_time=run.wasted_time,
        total_procs=run.total_procs,
        wall_time=run.wall_time,
        instants=run.instants,
        submitted_at=run.submitted_at,
        alloc_procs=run.alloc_procs,
        pool=run.pool,
        node_power=run.node_power,
        pool_names=run.pool_names,
    )


def to_global(columns: dict[str, np.ndarray], gids: Sequence[int], n: int) -> dict[str, np.ndarray]:
    """Per-job columns a pool's policy gives by local number, by global id instead."""
    if not columns:
        return {}
    index = np.asarray(gids, dtype=np.int64)
    out = {}
    for name, values in columns.items():
        values = np.asarray(values)
        if values.dtype.kind in "fc":
            full = np.full(n, np.nan, dtype=values.dtype)
        else:
            full = np.empty(n, dtype=object if values.dtype.kind in "OUS" else values.dtype)
        full[index[: len(values)]] = values[: len(index)]
        out[name] = full
    return out
