"""Partitions on nodes (issue 24): node policies against the node-level reference when nodes
belong to partitions and jobs to one of them, per job (starts, ends, allocations).

Nodes are in partition 0, partition 1 or both (mask -1, a node type listing no partition);
jobs ask for partition 0, partition 1 or any node, with node requests (memory, GPUs, whole
nodes) and plain processor requests alike, so that the partition-restricted plain head of
EASY (its own shadow time, `_reserve_in_partition`) is exercised too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference_nodes import check_node_schedule, reference_simulate_nodes
from schedlab.engine.nodeloop import simulate_nodes
from schedlab.platform.placement import RULES, NodeState, Request, never_fits_reason
from schedlab.schedulers.nodes.registry import make_node_policy
from strategies import fuzz

MASKS = (0b01, 0b10, -1)


@st.composite
def partition_cases(draw: st.DrawFn):
    capacities: list[tuple[int, float, int]] = []
    partitions: list[int] = []
    for _ in range(draw(st.integers(2, 3))):
        kind = (
            draw(st.sampled_from([1, 2, 4])),
            draw(st.sampled_from([1024.0, math.inf])),
            draw(st.sampled_from([0, 2])),
        )
        count = draw(st.integers(1, 3))
        mask = draw(st.sampled_from(MASKS))
        capacities += [kind] * count
        partitions += [mask] * count
    state = NodeState(capacities, partitions)
    n = draw(st.integers(1, 25))
    submit = np.cumsum(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))).tolist()
    run = [float(x) for x in draw(st.lists(st.integers(1, 20), min_size=n, max_size=n))]
    req = [r + float(s) for r, s in zip(run, draw(st.lists(st.integers(-3, 10), min_size=n,
                                                             max_size=n)))]  # fmt: skip
    req = [max(1.0, x) for x in req]
    requests = []
    for _ in range(n):
        partition = draw(st.sampled_from([-1, 0, 1]))
        if draw(st.booleans()):
            request = Request.processors(draw(st.integers(1, 6)), partition=partition)
        else:
            request = Request(
                nodes=draw(st.integers(1, 2)),
                cores_per_node=draw(st.sampled_from([1, 2, 4])),
                mem_per_node=draw(st.sampled_from([0.0, 512.0])),
                gpus_per_node=draw(st.sampled_from([0, 0, 1])),
                exclusive=draw(st.sampled_from([False, False, True])),
                partition=partition,
            )
        if never_fits_reason(state, request) is not None:
            request = Request.processors(1)
        requests.append(request)
    return (
        [float(t) for t in submit], run, req, requests, capacities, partitions,
        draw(st.sampled_from(RULES)),
    )  # fmt: skip


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@fuzz(60)
@given(case=partition_cases())
def test_node_policies_equal_the_reference_with_partitions(policy, case):
    submit, run, req, requests, capacities, partitions, rule = case
    ref = reference_simulate_nodes(
        submit, run, req, requests, capacities, policy, rule, partitions=partitions
    )
    out = simulate_nodes(
        submit, run, req, requests, capacities, make_node_policy(policy), rule,
        partitions=partitions,
    )  # fmt: skip
    assert out.started_at.tolist() == ref["start"]
    assert out.allocation == ref["allocation"]
    check_node_schedule(capacities, requests, ref["start"], ref["end"], ref["allocation"])
    for request, alloc in zip(requests, out.allocation):
        if request.partition >= 0:
            assert all((partitions[i] >> request.partition) & 1 for i in alloc.nodes)
