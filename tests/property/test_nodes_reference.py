"""The node-level reference (tests/reference_nodes.py) against the processor model and its
own invariants (issue 24).

* Nodes of one core with plain processor requests are today's processor model: the node
  reference, the processor reference (tests/reference.py) and `schedlab.simulate` give the
  same start times (and, for conservative, the same reservations at submission), under
  either placement rule, with kills on or off.
* Plain requests on nodes of several cores (memory and GPUs unconstrained) pool the cores:
  the node reference equals the processor reference with P = all cores.
* On random multi-resource clusters (cores, memory, GPUs, exclusive jobs) every schedule
  respects every node at every instant, FCFS starts jobs in order and conservative
  backfilling never starts a job later than its reservation at submission.

Derandomized and small, so the file runs in well under 30 s.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedlab
from reference import reference_simulate
from reference_nodes import check_node_schedule, processor_capacities, reference_simulate_nodes
from schedlab.platform.placement import RULES, Request, fits_ever
from strategies import SmallWorkload, small_workloads

POLICIES = ["fcfs", "easy", "conservative"]
SETTINGS = settings(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _node_run(
    w: SmallWorkload, policy: str, rule: str, kill: bool, capacities: list
) -> tuple[list[float], dict]:
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    requests = [Request.processors(p) for p in w.procs]
    out = reference_simulate_nodes(
        w.submit, w.run, req, requests, capacities, policy, rule=rule, kill_on_overrun=kill
    )
    check_node_schedule(capacities, requests, out["start"], out["end"], out["allocation"])
    return req, out


@pytest.mark.parametrize("policy", POLICIES)
@SETTINGS
@given(
    w=small_workloads(max_jobs=25, max_procs=12),
    rule=st.sampled_from(RULES),
    kill=st.booleans(),
)
def test_single_core_nodes_are_the_processor_model(
    policy: str, w: SmallWorkload, rule: str, kill: bool
) -> None:
    """P nodes of (1 core, inf memory, 0 GPUs) and plain requests: the same starts, ends and
    reservations as the processor reference and as schedlab's simulator."""
    req, nodes = _node_run(w, policy, rule, kill, processor_capacities(w.total))
    procs = reference_simulate(w.submit, w.run, req, w.procs, w.total, policy, kill_on_overrun=kill)
    assert nodes["start"] == procs["start"]
    assert nodes["end"] == procs["end"]
    assert nodes["killed"] == procs["killed"]
    jobs = schedlab.simulate(w.workload(), policy, kill_on_overrun=kill, check=True).jobs
    np.testing.assert_array_equal(jobs["started_at"].to_numpy(), nodes["start"])
    if policy == "conservative":
        assert nodes["reservation_at_submit"] == procs["reservation_at_submit"]
        np.testing.assert_array_equal(
            jobs["reservation_at"].to_numpy(), nodes["reservation_at_submit"]
        )


@st.composite
def _multicore_plain(draw: st.DrawFn) -> tuple[SmallWorkload, list]:
    cores = draw(st.lists(st.integers(1, 6), min_size=1, max_size=4))
    gpus = draw(st.lists(st.sampled_from([0, 2]), min_size=len(cores), max_size=len(cores)))
    capacities = [(c, math.inf, g) for c, g in zip(cores, gpus)]
    w = draw(small_workloads(max_jobs=20, max_procs=1))
    total = sum(cores)
    procs = draw(st.lists(st.integers(1, total), min_size=len(w.submit), max_size=len(w.submit)))
    return SmallWorkload(w.submit, w.run, w.req, procs, total), capacities


@pytest.mark.parametrize("policy", POLICIES)
@settings(SETTINGS, max_examples=80)
@given(case=_multicore_plain(), rule=st.sampled_from(RULES))
def test_plain_requests_pool_the_cores(
    policy: str, case: tuple[SmallWorkload, list], rule: str
) -> None:
    """Plain requests spread over any nodes: nodes of several cores act as one pool."""
    w, capacities = case
    _, nodes = _node_run(w, policy, rule, True, capacities)
    procs = reference_simulate(w.submit, w.run, w.req, w.procs, w.total, policy)
    assert nodes["start"] == procs["start"]


CAPACITY_TYPES = st.tuples(
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1024.0, 4096.0, math.inf]),
    st.sampled_from([0, 0, 2, 4]),
)


@st.composite
def multi_resource_cases(draw: st.DrawFn) -> tuple[SmallWorkload, list, list[Request]]:
    """A cluster of 1-3 node types (1-3 nodes each) and jobs asking for nodes, cores,
    memory (fractional MiB included), GPUs, exclusive nodes, or plain processors."""
    capacities: list = []
    for kind in draw(st.lists(CAPACITY_TYPES, min_size=1, max_size=3)):
        capacities += [kind] * draw(st.integers(1, 3))
    w = draw(small_workloads(max_jobs=18, max_procs=1))
    total = sum(c for c, _, _ in capacities)
    requests = []
    for _ in w.submit:
        if draw(st.integers(0, 3)) == 0:
            request = Request.processors(draw(st.integers(1, total)))
        else:
            request = Request(
                nodes=draw(st.integers(1, 3)),
                cores_per_node=draw(st.sampled_from([1, 2, 4, 8])),
                mem_per_node=draw(st.sampled_from([0.0, 512.0, 1000.3, 2048.0])),
                gpus_per_node=draw(st.sampled_from([0, 0, 1, 2, 4])),
                exclusive=draw(st.integers(0, 4)) == 0,
            )
        requests.append(request if fits_ever(capacities, request) else Request.processors(1))
    return w, capacities, requests


@pytest.mark.parametrize("policy", POLICIES)
@settings(SETTINGS, max_examples=150)
@given(case=multi_resource_cases(), rule=st.sampled_from(RULES))
def test_node_schedules_respect_every_node(
    policy: str, case: tuple[SmallWorkload, list, list[Request]], rule: str
) -> None:
    """Never more cores, memory or GPUs in use on a node than it has (checked at every
    instant inside the reference and again by an independent sweep); an exclusive job is
    alone on its nodes; FCFS keeps submission order; conservative keeps its promises."""
    w, capacities, requests = case
    out = reference_simulate_nodes(w.submit, w.run, w.req, requests, capacities, policy, rule=rule)
    check_node_schedule(capacities, requests, out["start"], out["end"], out["allocation"])
    starts = out["start"]
    assert all(s >= t for s, t in zip(starts, w.submit))
    if policy == "fcfs":
        assert starts == sorted(starts)
    if policy == "conservative":
        assert all(s <= r for s, r in zip(starts, out["reservation_at_submit"]))
