"""The public entry points: `simulate` (one cluster), `run_grid` (a platform under a
meta-scheduler) and `run_tdcs` (clusters with absolute priorities under a dispatcher).

Each builds a `Scenario` and runs it (`scenario.run`); each returns a `Result`
(``SimulationResult`` is its old name). They differ only in the defaults a user of that kind
of run expects.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedlab.engine.durations import SpeedupModel
from schedlab.engine.protocol import Policy
from schedlab.errors import ConfigError
from schedlab.registry import param_types
from schedlab.results import DEFAULT_BINS, Result
from schedlab.scenario import RunOptions, Scenario, run
from schedlab.schedulers.pps import DEFAULT_CHECKPOINT_OVERHEAD
from schedlab.workload.job import Workload

if TYPE_CHECKING:  # a cluster run imports neither the grid nor the node types (start-up)
    from schedlab.grid.registry import MetaScheduler
    from schedlab.platform.cluster import ClusterSpec
    from schedlab.platform.description import Platform
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.models.tdcs import TdcsWorkload

__all__ = ["SimulationResult", "run_grid", "run_tdcs", "simulate"]

SimulationResult = Result  # the name of `Result` before there was one result for every run


def simulate(
    workload: Workload | str | Path,
    policy: str | Policy = "easy",
    *,
    procs: int | None = None,
    cluster: ClusterSpec | str | Path | None = None,
    load_factor: float = 1.0,
    kill_on_overrun: bool = True,
    check: bool = False,
    timeseries: bool = False,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "auto",
    speedup: SpeedupModel | Sequence[SpeedupModel] | None = None,
    **params: Any,
) -> Result:
    """Replay ``workload`` (a Workload, an SWF path or a model spec) through ``policy``.

    ``procs`` overrides the machine size; ``cluster`` (a `ClusterSpec` or the path of a
    cluster file of ``[[nodes]]`` tables) describes the machine by its node types instead, and
    jobs are then placed on nodes (they may ask for nodes, cores, memory and GPUs);
    ``params`` configure the policy by name (e.g. ``backfill_order="sjf"`` for EASY).
    ``check`` turns on the invariant checker; ``timeseries`` records queue length and busy
    processors; ``progress(ended, jobs)`` is called now and then during long runs.
    ``speedup`` makes jobs moldable (one `engine.durations` model for all, or one per job).

    ``engine``: "inlined" is the single-cluster fast path (`engine.fastpath`: rigid jobs,
    no dependants); "general" the kernel of `engine.kernel` (one pool here); "auto" takes the
    fast path whenever the workload allows it. Both give the same results where both apply.
    """
    if cluster is not None:
        from schedlab.platform.cluster import ClusterSpec, read_cluster

        if not isinstance(cluster, ClusterSpec):
            cluster = read_cluster(cluster)
    return run(
        Scenario(
            workload=workload,
            policy=policy,
            params=params,
            procs=procs,
            cluster=cluster,
            load_factor=load_factor,
            kill_on_overrun=kill_on_overrun,
            speedup=speedup,
            options=RunOptions(
                check=check, engine=engine, timeseries=timeseries, progress=progress
            ),
        )
    )


def run_grid(
    platform: Platform,
    workload: GridWorkload | TdcsWorkload,
    meta: str | MetaScheduler = "push",
    *,
    seed: int = 0,
    check: bool = False,
    bins: int = DEFAULT_BINS,
    progress: Callable[[int, int], None] | None = None,
    **params: Any,
) -> Result:
    """Simulate ``workload`` on ``platform`` under meta-scheduler ``meta`` (a registered name
    with its ``params``, or an instance); ``seed`` seeds the meta-scheduler's own draws;
    ``check`` turns on the kernel's invariant checker. Every queue runs the policy the
    platform names for it."""
    return run(
        Scenario(
            workload=workload,
            platform=platform,
            meta=meta,
            meta_params=params,
            seed=seed,
            options=RunOptions(check=check, bins=bins, progress=progress),
        )
    )


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
) -> Result:
    """Simulate ``workload`` on ``platform`` with ``dispatcher`` (a configuration of
    `grid.tdcs.CONFIGURATIONS`) and its ``params``; every cluster under
    pps(priority="attribute", ``preemption``), so that only the dispatcher differs between
    runs; a checkpoint costs ``checkpoint_overhead`` s at restart and weighs
    ``checkpoint_factor`` x the input (Baranov and Tikhomirov; SPEC 6).

    Refused before anything runs (ConfigError): another meta-scheduler (the local managers
    hand evicted jobs back to their dispatcher, which only these take back), and a workload
    without jobs (every metric of the run would be undefined).
    """
    from schedlab.grid.registry import meta_scheduler_class
    from schedlab.grid.tdcs import CONFIGURATIONS, local_manager

    if dispatcher not in CONFIGURATIONS:
        raise ConfigError("tdcs dispatcher", dispatcher, tuple(CONFIGURATIONS))
    if not len(workload):
        raise ConfigError(
            f"tdcs workload {workload.source}", "0 jobs", "at least one job to dispatch"
        )
    meta, fixed = CONFIGURATIONS[dispatcher]
    mode = fixed or preemption
    if "checkpoint_factor" in param_types(meta_scheduler_class(meta)):
        params = {**params, "checkpoint_factor": checkpoint_factor}
    return run(
        Scenario(
            workload=workload,
            platform=platform,
            meta=meta,
            meta_params=params,
            queue_policy=local_manager(mode, checkpoint_overhead),
            seed=seed,
            label=dispatcher,
            options=RunOptions(check=check),
        )
    )
