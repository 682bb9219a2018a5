"""From a sweep's run (`RunConfig`) to the `Scenario` that simulates it.

A cluster run's workload is a model (seeded by the run's seed) or a trace, with the run's
transforms, on ``procs`` processors or on the nodes of its ``cluster`` file (issue 24: the
workload read, or the model generated, for the cluster's cores, as ``schedlab run
--platform`` does); a platform run's is the stream its platform ships with
(`workload.streams`; the run's generator settings over it, seeded by the run's seed) or an
SWF trace replayed as a global or local stream. Traces, model workloads, platforms and
clusters are read once per worker process (small caches), however many runs use them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from schedlab.engine.protocol import policy_hooks
from schedlab.errors import ConfigError
from schedlab.experiments.config import RunConfig
from schedlab.grid.platforms import load_platform_source, resolve_platform
from schedlab.platform.cluster import ClusterSpec, read_cluster
from schedlab.platform.description import Platform
from schedlab.scenario import RunOptions, Scenario
from schedlab.schedulers.registry import policy_class
from schedlab.workload.grid import GridWorkload
from schedlab.workload.job import Workload
from schedlab.workload.load import MODELS, SIZE_KEYS, is_model_spec, load_workload, parse_model_spec
from schedlab.workload.models.tdcs import TdcsWorkload
from schedlab.workload.streams import platform_stream
from schedlab.workload.transforms import TRANSFORMS

__all__ = [
    "apply_transforms",
    "cluster_of",
    "grid_workload_of",
    "load_grid_run",
    "load_run_workload",
    "records_timeseries",
    "resolve_cluster",
    "resolve_workload",
    "scenario_of",
]


def resolve_workload(workload: str, base_dir: str | os.PathLike[str]) -> str:
    """A `RunConfig.workload` made loadable: model specs as they are, paths made absolute."""
    name = workload.split(":", 1)[0]
    if name in MODELS and (":" in workload or workload == name):
        return workload
    from schedlab.workload.importers import parse_source

    source = parse_source(workload)  # a log format prefix stays around the path
    return source.prefix + os.path.normpath(Path(base_dir) / source.path) + source.suffix


def apply_transforms(
    workload: Workload, transforms: Sequence[tuple[str, Mapping[str, Any]]]
) -> Workload:
    """Apply `RunConfig.transforms` in order (names: keys of `TRANSFORMS`)."""
    for name, args in transforms:
        try:
            fn = TRANSFORMS[name]
        except KeyError:
            raise ConfigError("transform", name, sorted(TRANSFORMS)) from None
        workload = fn(workload, **args)
    return workload


def load_run_workload(run: RunConfig, base_dir: str | os.PathLike[str]) -> Workload:
    """The workload of cluster run ``run`` with its machine size and transforms (not its
    load factor, which the scenario applies)."""
    if run.is_grid:
        raise ConfigError("run", run.run_id, "a cluster run (grid runs: load_grid_run)")
    source = resolve_workload(run.workload, base_dir)
    procs = _machine_size(run, base_dir)
    return apply_transforms(load_workload(source, max_procs=procs), run.transforms)


def resolve_cluster(cluster: str, base_dir: str | os.PathLike[str]) -> str:
    """A `RunConfig.cluster` made loadable: the path against the sweep file's folder."""
    return os.path.normpath(Path(base_dir) / cluster)


def cluster_of(run: RunConfig, base_dir: str | os.PathLike[str] | None) -> ClusterSpec | None:
    """The `ClusterSpec` of a run on node types (read through the cache), else None."""
    if run.cluster is None:
        return None
    if run.procs is not None or run.platform is not None:
        key = "procs" if run.procs is not None else "platform"
        raise ConfigError(key, getattr(run, key), f"none on a run with a cluster ({run.cluster})")
    return _cluster(resolve_cluster(run.cluster, base_dir or "."))


def _machine_size(run: RunConfig, base_dir: str | os.PathLike[str] | None) -> int | None:
    """The processors the workload is read or generated for: the run's ``procs``, or its
    cluster's cores (None: the trace's own MaxProcs)."""
    cluster = cluster_of(run, base_dir)
    return run.procs if cluster is None else cluster.cores


@lru_cache(maxsize=4)
def _read_trace(path: str, procs: int | None) -> Workload:
    """Traces are read once per worker, however many runs use them (SWF, or a Slurm, PBS
    or CSV log: `workload.importers`)."""
    from schedlab.workload.importers import read_trace

    return read_trace(path, max_procs=procs)


@lru_cache(maxsize=2)
def _generate(name: str, params: tuple[tuple[str, Any], ...]) -> Workload:
    """Model workloads too are generated once per worker (batches of one big workload)."""
    return MODELS[name][0](**dict(params))


@lru_cache(maxsize=4)
def _platform(source: str) -> Platform:
    """Platforms too are read once per worker."""
    return load_platform_source(source)


@lru_cache(maxsize=4)
def _cluster(path: str) -> ClusterSpec:
    """Cluster files too are read once per worker."""
    return read_cluster(path)


def build_workload(run: RunConfig, base_dir: str | None) -> Workload:
    """The workload of a cluster run: model (seeded) or trace, then its transforms in order."""
    source = resolve_workload(run.workload, base_dir or ".")
    procs = _machine_size(run, base_dir)
    if is_model_spec(source):
        name, params = parse_model_spec(source)
        if run.seed is not None:
            params["seed"] = run.seed  # the run's seed seeds the model
        if procs is not None:
            params[SIZE_KEYS[name]] = procs
        workload = _generate(name, tuple(sorted(params.items())))
    else:
        workload = _read_trace(source, procs)
    return apply_transforms(workload, run.transforms)


def _scaled(workload: GridWorkload | TdcsWorkload, factor: float) -> GridWorkload | TdcsWorkload:
    """The stream with every submit time divided by ``factor`` (a load factor)."""
    if factor == 1.0:
        return workload
    if isinstance(workload, TdcsWorkload):
        grid = _scaled(workload.grid, factor)
        assert isinstance(grid, GridWorkload)
        return dataclasses.replace(workload, grid=grid)
    return dataclasses.replace(
        workload,
        submit_at=workload.submit_at / factor,
        source=f"{workload.source} x load {factor:g}",
    )


def grid_workload_of(
    run: RunConfig, platform: Platform, trace: Workload | None = None
) -> GridWorkload | TdcsWorkload:
    """The stream of platform run ``run`` on ``platform`` at its load factor: the platform's
    own stream with the run's generator settings, seeded by the run's seed, or ``trace``
    (the run's SWF file, read by the caller) after the run's transforms."""
    if run.generator is not None:
        workload = platform_stream(platform, run.generator, run.seed or 0)
    else:
        if trace is None:
            raise ConfigError("grid run trace", run.workload, "the run's SWF trace, read")
        trace = apply_transforms(trace, run.transforms)
        workload = GridWorkload.from_swf(trace, platform, run.stream or "global")
    return _scaled(workload, run.load_factor)


def load_grid_run(
    run: RunConfig, base_dir: str | os.PathLike[str]
) -> tuple[Platform, GridWorkload | TdcsWorkload]:
    """(`Platform`, stream) of platform run ``run``, its files read through the caches."""
    if run.platform is None:
        raise ConfigError("run platform", None, "a grid run (one with a platform)")
    platform = _platform(resolve_platform(run.platform, base_dir))
    trace = None
    if run.generator is None:
        trace = _read_trace(resolve_workload(run.workload, base_dir), None)
    return platform, grid_workload_of(run, platform, trace)


def records_timeseries(policy: str, cluster: ClusterSpec | None = None) -> bool:
    """Whether a run of ``policy`` (on ``cluster``, when it has one) records its time series
    while simulating.

    Recording costs about 13 % of an EASY simulation plus a Parquet file per run, and the
    series can be rebuilt exactly from the per-job table (`metrics.occupancy`) whenever every
    job runs in one piece. Only a policy that may suspend or requeue jobs (``preempts`` not
    False on its class; unknown policies count as preempting) records it. Node policies never
    preempt (`engine.nodeloop`), so a run on node types records none; on a cluster of
    single-core nodes (the processor model) the processor policy runs, and its class says.
    """
    if cluster is not None and not cluster.is_processor_model:
        return False
    return policy_hooks(policy_class(policy)).preempts


def scenario_of(run: RunConfig, base_dir: str | None = None, label: str | None = None) -> Scenario:
    """The `Scenario` of ``run`` (module docstring), its inputs read through the caches;
    ``label`` (the run's policy label) names a TDCS run's configuration."""
    cluster = cluster_of(run, base_dir)  # checks that a run on node types has no platform
    if run.platform is None:
        return Scenario(
            workload=build_workload(run, base_dir),
            policy=run.policy,
            params=run.params,
            cluster=cluster,
            load_factor=run.load_factor,
            kill_on_overrun=run.kill_on_overrun,
            options=RunOptions(timeseries=records_timeseries(run.policy, cluster)),
        )
    platform, stream = load_grid_run(run, base_dir or ".")
    queue_policy = None
    if run.queue_policy is not None:
        queue_policy = (run.queue_policy[0], dict(run.queue_policy[1]))
    return Scenario(
        workload=stream,
        platform=platform,
        meta=run.policy,
        meta_params=run.params,
        queue_policy=queue_policy,
        seed=run.seed or 0,
        label=label,
    )
