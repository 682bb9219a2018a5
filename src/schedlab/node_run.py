"""One cluster of node types (issue 24): the scenario's checked workload placed on nodes by
the node loop (`engine.nodeloop`) under a node policy, given back as a cluster `Result`
whose per-job table also says where each job ran and what it held.

`scenario.run` comes here only for a cluster that is not the processor model (single-core
nodes, what ``--procs`` means), so processor runs keep their loops, results and speed.
"""

from __future__ import annotations

import time

import numpy as np

from schedlab.engine.fastpath import RawRun
from schedlab.engine.nodeloop import NodePolicy, NodeSimulator
from schedlab.errors import ConfigError
from schedlab.metrics.nodes import held_resources, hostlists
from schedlab.metrics.occupancy import timeseries_from_jobs
from schedlab.platform.cluster import ClusterSpec
from schedlab.platform.placement import Request
from schedlab.results import Result
from schedlab.schedulers.nodes.registry import (
    available_node_policies,
    make_node_policy,
    pooled_only_reason,
)
from schedlab.schedulers.registry import available_policies
from schedlab.workload.job import Workload
from schedlab.workload.requests import cluster_capacities

__all__ = ["node_policy_of", "run_on_nodes"]


def node_policy_of(policy: object, params: dict[str, object]) -> tuple[str, NodePolicy]:
    """The node policy a scenario names (a registered name and its params, or an instance);
    ConfigError for a processor policy with no node version, saying why."""
    if isinstance(policy, str):
        reason = pooled_only_reason(policy)
        if reason is not None and policy in available_policies():
            raise ConfigError(
                "policy",
                policy,
                f"one that places jobs on nodes ({', '.join(available_node_policies())}): "
                f"{policy} cannot run on node types because {reason}",
            )
        return policy, make_node_policy(policy, **params)
    if params:
        raise ConfigError("params", sorted(params), "none when a policy instance is given")
    if not isinstance(policy, NodePolicy):
        raise ConfigError("policy", type(policy).__name__, "a node policy on node types")
    return policy.name, policy


def run_on_nodes(
    *,
    workload: Workload,
    requests: list[Request],
    cluster: ClusterSpec,
    policy: object,
    params: dict[str, object],
    load_factor: float,
    kill_on_overrun: bool,
    check: bool,
    timeseries: bool,
    warmup: int | str,
    bins: int,
) -> Result:
    """Simulate ``workload`` (scaled and prepared; ``requests`` aligned with its jobs) on
    ``cluster`` and give the cluster `Result` with the node columns."""
    for t in cluster.node_types:
        if t.power != 1.0:
            raise ConfigError(
                f"node type {t.name!r} power",
                t.power,
                "1.0 on a cluster run (node powers are for grid queues)",
            )
    name, instance = node_policy_of(policy, params)
    clock = time.perf_counter()
    capacities = cluster_capacities(cluster)
    sim = NodeSimulator(
        submit_at=workload.submit_time.tolist(),
        run_time=workload.run_time.tolist(),
        requested_time=workload.requested_time.tolist(),
        requests=requests,
        capacities=capacities,
        policy=instance,
        rule=cluster.placement,
        user=workload.user_id.tolist(),
        kill_on_overrun=kill_on_overrun,
        attributes={k: v.tolist() for k, v in workload.attributes.items()},
        check=check,
        partitions=cluster.node_partitions() if cluster.partitions else None,
    )
    out = sim.run()
    n = len(workload)
    zeros = np.zeros(n, dtype=np.float64)
    raw = RawRun(
        started_at=out.started_at,
        finished_at=out.finished_at,
        killed=out.killed,
        preemptions=np.zeros(n, dtype=np.int64),
        suspended_time=zeros,
        executed_time=out.finished_at - out.started_at,
        wasted_time=zeros.copy(),
        total_procs=cluster.cores,
        wall_time=out.wall_time,
        instants=out.instants,
    )
    cap_cores = np.array([c for c, _, _ in capacities], dtype=np.int64)
    cap_gpus = np.array([g for _, _, g in capacities], dtype=np.int64)
    cores, memory, gpus, count = held_resources(out.allocation, cap_cores, cap_gpus)
    extra: dict[str, np.ndarray] = {
        "nodes_used": hostlists(out.allocation, cluster),
        "node_count": count,
        "cores_held": cores,
        "memory_held_mib": memory,
        "gpus": gpus,
    }
    job_columns = getattr(instance, "job_columns", None)
    if callable(job_columns):
        extra.update(job_columns())
    series = None
    if timeseries:
        series = timeseries_from_jobs(
            {
                "submitted_at": workload.submit_time,
                "started_at": out.started_at,
                "finished_at": out.finished_at,
                "cores_held": cores,
            }
        )
    return Result(
        kind="cluster",
        workload=workload,
        raw=raw,
        policy=name,
        params=dict(params),
        requested_time=workload.requested_time,
        load_factor=load_factor,
        kill_on_overrun=kill_on_overrun,
        timeseries_columns=series,
        extra_columns=extra,
        wall_time=time.perf_counter() - clock,
        warmup=warmup,
        bins=bins,
        cluster=cluster,
        allocations=out.allocation,
        node_requests=requests,
    )
