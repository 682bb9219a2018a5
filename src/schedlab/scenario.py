"""`Scenario`: one run as a value, whatever its kind; `run`: the one place that assembles it.

A scenario says what to simulate: the jobs (a `Workload` for one cluster: a trace or a
model's jobs; a grid or TDCS stream for a platform), where (one cluster of the workload's
machine size or ``procs``, or a `Platform` of sites, queues and links), under what (a
cluster policy, or a meta-scheduler or dispatcher over the platform's queues, whose local
policies the platform names or ``queue_policy`` overrides), and how (`RunOptions`: invariant
checks, the engine path, time series, warm-up).

`run` builds the kernel's jobs from the workload and its pools from the platform, the
actors' context (the network travels with the platform), checks queue and policy
parameters before any work, attaches the invariant checker, picks the inlined fast path
(`engine.fastpath`) or the general kernel (`engine.kernel`), and returns a `Result`.
`simulate`, `run_grid`, `run_tdcs`, the sweep runner and the reproductions only build
scenarios (docs/model.md, "How a run flows").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.durations import RIGID, Amdahl, SpeedupModel
from schedlab.engine.fastpath import RawRun, Simulator
from schedlab.engine.protocol import Policy, PolicyHooks, policy_hooks
from schedlab.errors import ConfigError, WorkloadError
from schedlab.metrics.timeseries import TimeSeriesObserver
from schedlab.results import DEFAULT_BINS, MetaOutcome, Result
from schedlab.schedulers.registry import make_policy
from schedlab.workload.dependencies import Dependencies, dependencies
from schedlab.workload.job import Workload
from schedlab.workload.load import load_workload
from schedlab.workload.transforms import raise_requested_to_run, scale_load

# The kernel, the grid, node types and the invariant checker are imported where a run needs
# them: a cluster run on the fast path (most runs, and every sweep worker's) loads none.
if TYPE_CHECKING:
    from schedlab.engine.jobs import JobSpecs, KernelRun
    from schedlab.grid.registry import MetaScheduler
    from schedlab.platform.cluster import ClusterSpec
    from schedlab.platform.description import Platform
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.models.tdcs import TdcsWorkload

__all__ = [
    "ENGINES",
    "RunOptions",
    "Scenario",
    "platform_jobs",
    "raw_run_of",
    "require_jobs",
    "run",
    "speedup_models",
]

ENGINES = ("auto", "inlined", "general")


@dataclass(frozen=True)
class RunOptions:
    """How a run is made, not what it simulates.

    ``check``: the invariant checker (processors in use never over the machine, no start
    before submit, every job ends once, work conserved). ``engine`` (one cluster): "inlined"
    is the fast path (rigid jobs, no dependants), "general" the kernel (one pool), "auto"
    the fast path whenever the run allows it; both give the same results where both apply.
    ``timeseries`` (one cluster): record queue length and busy processors after every
    instant. ``warmup``: the first jobs that `Result.summary` leaves out by default (``N``
    or ``"X%"``). ``bins``: points of a platform run's series. ``progress(ended, jobs)`` is
    called now and then during long runs.
    """

    check: bool = False
    engine: str = "auto"
    timeseries: bool = False
    warmup: int | str = 0
    bins: int = DEFAULT_BINS
    progress: Callable[[int, int], None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Scenario:
    """One run (module docstring).

    One cluster (``platform`` None): ``workload`` is a `Workload`, an SWF path or a model
    spec; ``procs`` overrides its machine size; ``policy`` a registered name with its
    ``params``, or an instance; ``load_factor`` scales the submit times by 1/f;
    ``kill_on_overrun`` kills a job at its requested time (off: estimates are raised to run
    times); ``speedup`` makes jobs moldable (one `engine.durations` model, or one per job).
    ``cluster`` describes the machine by its node types (cores, memory, GPUs per node; issue
    24): jobs are then placed on nodes by the node loop (`engine.nodeloop`), unless it is the
    processor model (single-core nodes), which is ``procs`` = its cores.

    A platform: ``workload`` is a `GridWorkload` or `TdcsWorkload` (jobs with absolute
    priorities); ``meta`` a registered meta-scheduler or dispatcher with its ``meta_params``,
    or an instance; ``queue_policy`` (policy, params) replaces every queue's own; ``seed``
    seeds the meta-scheduler's draws; ``label`` names the configuration in a TDCS summary.
    """

    workload: Workload | GridWorkload | TdcsWorkload | str | Path
    platform: Platform | None = None
    policy: str | Policy = "easy"
    params: Mapping[str, Any] = field(default_factory=dict)
    meta: str | MetaScheduler | None = None
    meta_params: Mapping[str, Any] = field(default_factory=dict)
    queue_policy: tuple[str, Mapping[str, Any]] | None = None
    procs: int | None = None
    cluster: ClusterSpec | None = None
    load_factor: float = 1.0
    kill_on_overrun: bool = True
    speedup: SpeedupModel | Sequence[SpeedupModel] | None = None
    seed: int = 0
    label: str | None = None
    options: RunOptions = field(default_factory=RunOptions)


def run(scenario: Scenario) -> Result:
    """Simulate ``scenario`` (module docstring); every input is checked before any work."""
    if scenario.options.engine not in ENGINES:
        raise ConfigError("engine", scenario.options.engine, ENGINES)
    if scenario.platform is not None and scenario.cluster is not None:
        raise ConfigError("cluster", scenario.cluster.name, "none with a platform of sites")
    if scenario.platform is not None and scenario.options.engine == "inlined":
        raise ConfigError("engine", "inlined", "general or auto: a platform runs on the kernel")
    if scenario.platform is None:
        cluster = scenario.cluster
        if cluster is None:
            return _run_cluster(scenario)
        if scenario.procs is not None and scenario.procs != cluster.cores:
            raise ConfigError(
                "procs", scenario.procs, f"none with a cluster of node types ({cluster.cores})"
            )
        if cluster.is_processor_model:  # today's model: the processor loops, same results
            return _run_cluster(replace(scenario, cluster=None, procs=cluster.cores))
        return _run_nodes(scenario, cluster)
    return _run_platform(scenario)


# -- one cluster -------------------------------------------------------------------------------
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


def _cluster_workload(s: Scenario) -> Workload:
    """The scenario's workload on its machine, checked (not yet scaled)."""
    workload = s.workload
    if not isinstance(workload, Workload | str | Path):
        from schedlab.workload.grid import GridWorkload
        from schedlab.workload.models.tdcs import TdcsWorkload

        if isinstance(workload, GridWorkload | TdcsWorkload):
            raise ConfigError("platform", None, "a platform for a grid or TDCS stream")
    if not isinstance(workload, Workload):
        workload = load_workload(workload, max_procs=s.procs)
    elif s.procs is not None and s.procs != workload.max_procs:
        workload = Workload.from_fields(
            workload.fields,
            max_procs=s.procs,
            header=workload.header,
            source=workload.source,
            skipped=workload.skipped,
            attributes=workload.attributes,
        )
    try:
        f = s.load_factor
        valid = isinstance(f, int | float) and 0 < f < math.inf
    except OverflowError:  # an int too large for a float
        valid = False
    if not valid:
        raise ConfigError("load_factor", s.load_factor, "a finite number > 0")
    require_jobs(workload)
    return workload


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


def _run_cluster(s: Scenario) -> Result:
    workload = _cluster_workload(s)
    clock = time.perf_counter()
    if s.load_factor != 1.0:
        workload = scale_load(workload, s.load_factor)
    if not s.kill_on_overrun:
        workload = raise_requested_to_run(workload)
    if isinstance(s.policy, str):
        name, instance = s.policy, make_policy(s.policy, **s.params)
    elif s.params:
        raise ConfigError("params", sorted(s.params), "none when a policy instance is given")
    else:
        name, instance = s.policy.name, s.policy
    hooks = policy_hooks(instance)
    models = speedup_models(workload, s.speedup)
    deps = dependencies(workload)
    # moldable jobs, dependants, clairvoyant policies and what only the kernel does
    general = models is not None or deps.count > 0 or hooks.prepare is not None
    general = general or hooks.needs_kernel
    opts = s.options
    if opts.engine == "inlined" and general:
        raise ConfigError(
            "engine",
            opts.engine,
            "general or auto: moldable jobs, dependants, a clairvoyant policy or the preemption "
            "of Baranov and Tikhomirov (Computational Technologies 2017) need the kernel",
        )
    series = TimeSeriesObserver() if opts.timeseries else None
    observers: list[Any] = [series] if series is not None else []
    if general or opts.engine == "general":
        raw, extra = _kernel_cluster(s, workload, instance, hooks, models, deps, observers)
    else:
        raw, extra = _fast_cluster(s, workload, instance, hooks, observers)
    return Result(
        kind="cluster",
        workload=workload,
        raw=raw,
        policy=name,
        params=dict(s.params),
        requested_time=workload.requested_time,
        load_factor=s.load_factor,
        kill_on_overrun=s.kill_on_overrun,
        timeseries_columns=series.columns() if series is not None else None,
        extra_columns=extra,
        wall_time=time.perf_counter() - clock,
        warmup=opts.warmup,
        bins=opts.bins,
    )


def _run_nodes(s: Scenario, cluster: ClusterSpec) -> Result:
    """A cluster of node types: the workload on its cores, then the node loop (`node_run`)."""
    from schedlab.node_run import run_on_nodes
    from schedlab.workload.requests import without_unplaceable

    if s.options.engine == "inlined":
        raise ConfigError("engine", "inlined", "general or auto: node types run on the node loop")
    if s.speedup is not None:
        raise ConfigError("speedup", "a speed-up model", "none on node types (rigid jobs only)")
    workload = _cluster_workload(replace(s, procs=cluster.cores))
    if dependencies(workload).count > 0:
        raise ConfigError(
            "workload",
            f"{workload.source}: jobs that depend on others (SWF field 17)",
            "independent jobs on node types (dependants run on --procs)",
        )
    if speedup_models(workload) is not None:
        raise ConfigError(
            "workload",
            f"{workload.source}: moldable jobs (parallel_fraction)",
            "rigid jobs on node types (moldable jobs run on --procs)",
        )
    if s.load_factor != 1.0:
        workload = scale_load(workload, s.load_factor)
    if not s.kill_on_overrun:
        workload = raise_requested_to_run(workload)
    workload, requests = without_unplaceable(workload, cluster)
    require_jobs(workload)
    opts = s.options
    return run_on_nodes(
        workload=workload,
        requests=requests,
        cluster=cluster,
        policy=s.policy,
        params=dict(s.params),
        load_factor=s.load_factor,
        kill_on_overrun=s.kill_on_overrun,
        check=opts.check,
        timeseries=opts.timeseries,
        warmup=opts.warmup,
        bins=opts.bins,
    )


def _policy_columns(hooks: PolicyHooks) -> dict[str, np.ndarray]:
    return hooks.job_columns() if hooks.job_columns is not None else {}


def _fast_cluster(
    s: Scenario, workload: Workload, instance: Policy, hooks: PolicyHooks, observers: list[Any]
) -> tuple[RawRun, dict[str, np.ndarray]]:
    """The fast path (engine.fastpath): rigid jobs, no dependants."""
    checker = None
    engine_policy: Policy = instance
    if s.options.check:
        from schedlab.engine.checker import CheckedPolicy, InvariantChecker

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
        kill_on_overrun=s.kill_on_overrun,
        observers=observers,
        progress=s.options.progress,
        attributes={k: v.tolist() for k, v in workload.attributes.items()},
    )
    raw = sim.run()
    if checker is not None:
        checker.audit(sim, raw)
    return raw, _policy_columns(hooks)


def _kernel_cluster(
    s: Scenario,
    workload: Workload,
    instance: Policy,
    hooks: PolicyHooks,
    models: list[SpeedupModel] | None,
    deps: Dependencies,
    observers: list[Any],
) -> tuple[RawRun, dict[str, np.ndarray]]:
    """The general kernel with one pool of the machine's processors (power 1), every job
    delivered straight to it."""
    from schedlab.engine.checker import KernelChecker
    from schedlab.engine.jobs import JobSpecs
    from schedlab.engine.kernel import Kernel
    from schedlab.platform.pool import PoolSpec

    specs = JobSpecs.rigid(  # (the workload's arrays: rigid jobs' columns are read as bytes)
        submit_at=workload.submit_time,
        run_time=workload.run_time,
        requested_time=workload.requested_time,
        procs=workload.procs,
        user=workload.user_id,
        parent=deps.parent,
        think=deps.think,
        speedup=models,
        attributes=dict(workload.attributes),
    )
    prepare = hooks.prepare
    if prepare is not None:  # a clairvoyant policy plans on the realised instance (CPA)
        prepare(specs, workload.max_procs)
    checker = KernelChecker() if s.options.check else None
    kernel = Kernel(
        jobs=specs,
        pools=[(PoolSpec.cluster(workload.max_procs), instance)],
        kill_on_overrun=s.kill_on_overrun,
        observers=observers,
        tracer=checker,
        progress=s.options.progress,
    )
    # the kernel copied what it needs: the specs' lists need not live through the run
    work = np.asarray(specs.work, dtype=np.float64) if models is not None else None
    del specs
    run_ = kernel.run()
    if checker is not None:
        checker.audit(kernel)
    raw = raw_run_of(run_)
    extra = _to_global(_policy_columns(hooks), kernel.pools[0].gids, len(workload))
    kernel.close()
    if models is not None and work is not None:
        # the least area of each job (processor-seconds): a moldable job's is its work (its
        # sequential time), a rigid job's its size times its time (metrics.moldable_metrics)
        rigid = np.array([m is RIGID for m in models])
        extra["least_area"] = np.where(rigid, work * workload.procs, work)
    return raw, extra


def raw_run_of(outcome: KernelRun) -> RawRun:
    """The kernel's outcome in the shape of the fast path's (plus what only it has)."""
    return RawRun(
        started_at=outcome.started_at,
        finished_at=outcome.finished_at,
        killed=outcome.killed,
        preemptions=outcome.preemptions,
        suspended_time=outcome.suspended_time,
        executed_time=outcome.executed_work,
        wasted_time=outcome.wasted_time,
        total_procs=outcome.total_procs,
        wall_time=outcome.wall_time,
        instants=outcome.instants,
        submitted_at=outcome.submitted_at,
        alloc_procs=outcome.alloc_procs,
        pool=outcome.pool,
        node_power=outcome.node_power,
        pool_names=outcome.pool_names,
    )


def _to_global(
    columns: dict[str, np.ndarray], gids: Sequence[int], n: int
) -> dict[str, np.ndarray]:
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


# -- a platform --------------------------------------------------------------------------------
def platform_jobs(workload: GridWorkload | TdcsWorkload, actor: int = 0) -> JobSpecs:
    """The kernel's jobs of a platform stream, by row: meta-jobs (stream -1) to ``actor``,
    local jobs to their pool; a TDCS stream adds its requested work and attributes."""
    from schedlab.engine.jobs import JobSpecs
    from schedlab.workload.models.tdcs import TdcsWorkload

    if isinstance(workload, TdcsWorkload):
        specs = platform_jobs(workload.grid, actor)
        specs.requested_work = workload.requested
        g = workload.is_global
        specs.attributes.update(
            priority=workload.priority.astype(np.float64),
            checkpointable=workload.checkpointable.astype(np.float64),
            origin=workload.origin.astype(np.float64),
            input_size=workload.input_size,
            stream=workload.grid.stream.astype(np.float64),
            **{"global": g.astype(np.float64)},
        )
        return specs
    # numpy arrays, which the kernel reads as bytes into its typed columns (lists would
    # make a Python object per job and value only to be copied: a sixth of a million-job
    # grid's peak memory)
    n = len(workload)
    is_global = workload.is_global
    return JobSpecs(
        release_at=workload.submit_at,
        work=workload.work,
        requested_work=workload.work,
        procs=workload.procs,
        user=workload.org,
        speedup=[RIGID] * n,
        parent=np.full(n, -1, dtype=np.int64),
        think=np.zeros(n),
        target_actor=np.where(is_global, actor, -1),
        target_pool=np.where(is_global, -1, workload.stream),
        attributes={"org": workload.org.astype(np.float64)},
    )


def _preemption_of(policies: Sequence[Any]) -> str:
    """The local managers' preemption mode, as a TDCS summary names it ("mixed" when the
    queues differ; "none" for a queue whose policy does not preempt)."""
    modes = {str(getattr(getattr(p, "params", None), "preemption", "none")) for p in policies}
    return modes.pop() if len(modes) == 1 else "mixed"


def _last_submit(workload: GridWorkload | TdcsWorkload) -> float:
    from schedlab.workload.models.tdcs import TdcsWorkload

    submits = workload.grid.submit_at if isinstance(workload, TdcsWorkload) else workload.submit_at
    return float(submits.max()) if len(submits) else 0.0


def _run_platform(s: Scenario) -> Result:
    from schedlab.engine.checker import KernelChecker
    from schedlab.engine.kernel import Kernel
    from schedlab.grid.context import GridContext
    from schedlab.grid.platforms import check_policies
    from schedlab.grid.registry import make_meta_scheduler, reports_of
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.models.tdcs import TdcsWorkload

    clock = time.perf_counter()
    assert s.platform is not None
    workload = s.workload
    if not isinstance(workload, GridWorkload | TdcsWorkload):
        raise ConfigError("workload", type(workload).__name__, "a grid or TDCS stream")
    if s.meta is None:
        raise ConfigError("meta", None, "a meta-scheduler or dispatcher for a platform")
    platform = s.platform
    if s.queue_policy is not None:
        platform = platform.with_queue_policy(*s.queue_policy)
    check_policies(platform)
    workload.check_platform(platform)
    if isinstance(s.meta, str):
        name, instance = s.meta, make_meta_scheduler(s.meta, **s.meta_params)
    elif s.meta_params:
        raise ConfigError("meta_params", sorted(s.meta_params), "none with an instance")
    else:
        name, instance = str(getattr(s.meta, "name", "?")), s.meta
    # DIRAC agents poll while jobs are still to come: refuse a retry that would flood (a
    # cluster run never imports the grid's meta-schedulers)
    from schedlab.grid.dirac import check_polling

    check_polling(instance, len(platform.queues()), _last_submit(workload), "retry")
    specs = platform.pool_specs()
    pools = [(spec, make_policy(spec.policy, **dict(spec.params))) for spec in specs]
    actors = instance.actors(GridContext.of(platform, s.seed))
    checker = KernelChecker() if s.options.check else None
    kernel = Kernel(
        jobs=platform_jobs(workload),
        pools=pools,
        actors=actors,
        kill_on_overrun=True,
        tracer=checker,
        progress=s.options.progress,
    )
    raw = kernel.run()
    if checker is not None:
        checker.audit(kernel)
    params, counters, request_times, records = reports_of(instance)
    kernel.close()
    meta = MetaOutcome(name, params, counters, request_times, records)
    return Result(
        kind="tdcs" if isinstance(workload, TdcsWorkload) else "grid",
        workload=workload,
        raw=raw,
        policy=name,
        params=dict(s.meta_params),
        platform=platform,
        meta=meta,
        configuration=s.label or name,
        preemption=_preemption_of([p for _, p in pools]),
        wall_time=time.perf_counter() - clock,
        warmup=s.options.warmup,
        bins=s.options.bins,
    )
