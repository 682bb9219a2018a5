"""Node conservative backfilling (`schedlab.schedulers.nodes.conservative`) against the
node-level reference (tests/reference_nodes.py), per job: the same starts, ends, kills,
allocations and reservations at submission (issue 24).

* Random multi-resource clusters (multi-core nodes, finite memory, GPUs) and jobs asking for
  nodes with memory, GPUs or whole nodes, or plain processors; both placement rules, kills
  on and off. Against the reference the fast plan runs in audit mode (`NodePlan.audit`):
  every fit is also recomputed literally, and the plan is checked consistent at every
  instant.
* Deeper queues, where fits move other reservations to other nodes.
* Plain requests on multi-core nodes (a pool of cores) and, on nodes of one core, the
  processor policy's starts and reservations (`schedlab.simulate(..., "conservative")`).
* Hand cases: a reservation moved to other nodes by a later job, a GPU job waiting behind
  memory, an exclusive job.

Derandomized and small: the file runs in well under 20 s.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schedlab
from reference_nodes import check_node_schedule, processor_capacities, reference_simulate_nodes
from schedlab.engine.nodeloop import NodeRun, simulate_nodes
from schedlab.platform.placement import RULES, Request, fits_ever
from schedlab.schedulers.conservative import ConservativeParams
from schedlab.schedulers.nodes import make_node_policy
from schedlab.schedulers.nodes.conservative import NodeConservative, NodePlan
from strategies import SmallWorkload, fuzz, small_workloads

INF = math.inf


@pytest.fixture
def audit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every fit of the fast plan is recomputed the literal way and compared, and the plan
    is checked consistent at every instant (the tests against the node reference)."""
    monkeypatch.setattr(NodePlan, "audit", True)
    yield


NODE_TYPES = st.tuples(
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1024.0, 4096.0, INF]),
    st.sampled_from([0, 0, 2, 4]),
)
NODE_REQUESTS = st.builds(
    Request,
    nodes=st.integers(1, 3),
    cores_per_node=st.sampled_from([1, 2, 4, 8]),
    mem_per_node=st.sampled_from([0.0, 512.0, 1000.3, 2048.0]),
    gpus_per_node=st.sampled_from([0, 0, 1, 2, 4]),
    exclusive=st.sampled_from([False, False, False, True]),
)


@st.composite
def clusters(draw: st.DrawFn, max_jobs: int = 18) -> tuple[SmallWorkload, list, list[Request]]:
    """1-3 node types of 1-3 nodes each, and jobs asking for nodes (memory, GPUs, whole
    nodes) or plain processors; a few request shapes repeat, so that jobs compete."""
    capacities: list = []
    for kind in draw(st.lists(NODE_TYPES, min_size=1, max_size=3)):
        capacities += [kind] * draw(st.integers(1, 3))
    w = draw(small_workloads(max_jobs=max_jobs, max_procs=1))
    total = sum(c for c, _, _ in capacities)
    shapes = draw(st.lists(NODE_REQUESTS, min_size=1, max_size=4))
    requests = []
    for _ in w.submit:
        kind = draw(st.integers(0, 3))
        if kind == 0:
            request = Request.processors(draw(st.integers(1, total)))
        else:
            request = draw(st.sampled_from(shapes)) if kind < 3 else draw(NODE_REQUESTS)
        requests.append(request if fits_ever(capacities, request) else Request.processors(1))
    return w, capacities, requests


def _run(
    w: SmallWorkload, requests: list[Request], capacities: list, rule: str, kill: bool
) -> tuple[NodeRun, NodeConservative, dict]:
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    policy = NodeConservative()
    run = simulate_nodes(
        w.submit, w.run, req, requests, capacities, policy, rule=rule, kill_on_overrun=kill
    )
    ref = reference_simulate_nodes(
        w.submit, w.run, req, requests, capacities, "conservative", rule=rule,
        kill_on_overrun=kill,
    )  # fmt: skip
    return run, policy, ref


def _assert_same(run: NodeRun, policy: NodeConservative, ref: dict) -> None:
    assert run.started_at.tolist() == ref["start"]
    assert run.finished_at.tolist() == ref["end"]
    assert run.killed.tolist() == ref["killed"]
    assert run.allocation == ref["allocation"]
    assert policy.job_columns()["reservation_at"].tolist() == ref["reservation_at_submit"]


@pytest.mark.usefixtures("audit")
@fuzz(120)
@given(case=clusters(), rule=st.sampled_from(RULES), kill=st.booleans())
def test_equals_reference_on_multi_resource_clusters(case, rule: str, kill: bool) -> None:
    """Starts, ends, kills, allocations and reservations at submission: the reference's."""
    w, capacities, requests = case
    run, policy, ref = _run(w, requests, capacities, rule, kill)
    _assert_same(run, policy, ref)
    assert (run.started_at <= np.array(ref["reservation_at_submit"])).all()


@pytest.mark.usefixtures("audit")
@fuzz(12)
@given(case=clusters(max_jobs=45), rule=st.sampled_from(RULES), kill=st.booleans())
def test_equals_reference_on_deeper_queues(case, rule: str, kill: bool) -> None:
    """Longer queues: fits that move other reservations to other nodes, compressions that
    move many jobs."""
    w, capacities, requests = case
    run, policy, ref = _run(w, requests, capacities, rule, kill)
    _assert_same(run, policy, ref)


@st.composite
def _multicore_plain(draw: st.DrawFn) -> tuple[SmallWorkload, list, list[Request]]:
    cores = draw(st.lists(st.integers(1, 6), min_size=1, max_size=4))
    capacities = [(c, INF, 0) for c in cores]
    w = draw(small_workloads(max_jobs=20, max_procs=1))
    total = sum(cores)
    procs = draw(st.lists(st.integers(1, total), min_size=len(w.submit), max_size=len(w.submit)))
    return w, capacities, [Request.processors(p) for p in procs]


@pytest.mark.usefixtures("audit")
@fuzz(40)
@given(case=_multicore_plain(), rule=st.sampled_from(RULES), kill=st.booleans())
def test_plain_requests_on_multicore_nodes(case, rule: str, kill: bool) -> None:
    """Plain requests spread over any nodes: the reference's schedule, allocations too."""
    w, capacities, requests = case
    run, policy, ref = _run(w, requests, capacities, rule, kill)
    _assert_same(run, policy, ref)


@fuzz(100)
@given(
    w=small_workloads(max_jobs=30, max_procs=12),
    rule=st.sampled_from(RULES),
    kill=st.booleans(),
)
def test_single_core_nodes_are_processor_conservative(
    w: SmallWorkload, rule: str, kill: bool
) -> None:
    """Nodes of one core and plain requests: the processor policy's starts, ends and
    reservations at submission (schedlab's own simulator)."""
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    requests = [Request.processors(p) for p in w.procs]
    capacities = processor_capacities(w.total)
    policy = make_node_policy("conservative")
    run = simulate_nodes(
        w.submit, w.run, req, requests, capacities, policy, rule=rule, kill_on_overrun=kill
    )
    jobs = schedlab.simulate(w.workload(), "conservative", kill_on_overrun=kill, check=True).jobs
    np.testing.assert_array_equal(run.started_at, jobs["started_at"].to_numpy())
    np.testing.assert_array_equal(run.finished_at, jobs["finished_at"].to_numpy())
    np.testing.assert_array_equal(
        policy.job_columns()["reservation_at"], jobs["reservation_at"].to_numpy()
    )


# --------------------------------------------------------------------------------------------
# Hand cases
# --------------------------------------------------------------------------------------------


def _hand(submit, run, req, requests, capacities, rule="first_fit") -> tuple[NodeRun, dict]:
    w = SmallWorkload(
        [float(x) for x in submit], [float(x) for x in run], [float(x) for x in req], [1], 1
    )
    result, policy, ref = _run(w, requests, capacities, rule, True)
    _assert_same(result, policy, ref)
    check_node_schedule(capacities, requests, ref["start"], ref["end"], ref["allocation"])
    return result, policy.job_columns()


@pytest.mark.usefixtures("audit")
def test_a_later_job_moves_a_reservation_to_other_nodes() -> None:
    """Three nodes of one core. J0 holds node 0 until 1, J1 and J2 nodes 1 and 2 until 5.
    At 1, J3 (2 nodes, 10 s) is reserved at 5 on {0, 1} (first fit once J1 and J2 end).
    J4 (1 node, 10 s) arrives at 1: by count one node is free at every instant, but on no
    single node unless J3's reservation moves to {1, 2}; it does: J4 starts at 1 on node 0
    and J3 still starts at 5 (the reference docstring's example)."""
    node = Request(nodes=1, cores_per_node=1)
    run, columns = _hand(
        [0, 0, 0, 1, 1],
        [1, 5, 5, 10, 10],
        [1, 5, 5, 10, 10],
        [node, node, node, Request(nodes=2, cores_per_node=1), node],
        [(1, INF, 0)] * 3,
    )
    assert run.started_at.tolist() == [0.0, 0.0, 0.0, 5.0, 1.0]
    assert [a.nodes for a in run.allocation if a is not None] == [(0,), (1,), (2,), (1, 2), (0,)]
    assert columns["reservation_at"].tolist() == [0.0, 0.0, 0.0, 5.0, 1.0]


@pytest.mark.usefixtures("audit")
def test_a_job_that_would_take_memory_a_reserved_gpu_job_needs_waits() -> None:
    """A GPU node (8 cores, 4096 MiB, 2 GPUs, node 0) and a CPU node (8 cores, 4096 MiB).
    J0 holds 3000 MiB of the GPU node until 10. J1 (2 cores, 3500 MiB, 2 GPUs) fits no node
    now and is reserved at 10 on the GPU node. J2 (1 core, 1024 MiB, 20 s) fits the GPU node
    now, where placement puts it, but would keep 1024 MiB there at 10 and J1 could go
    nowhere else: not now; at 10 it goes to the CPU node. J3 (1 core, no memory) fits the
    GPU node now and leaves J1 room at 10: it starts now."""
    run, columns = _hand(
        [0, 1, 2, 3],
        [10, 5, 20, 20],
        [10, 5, 20, 20],
        [
            Request(nodes=1, cores_per_node=1, mem_per_node=3000.0),
            Request(nodes=1, cores_per_node=2, mem_per_node=3500.0, gpus_per_node=2),
            Request(nodes=1, cores_per_node=1, mem_per_node=1024.0),
            Request(nodes=1, cores_per_node=1),
        ],
        [(8, 4096.0, 2), (8, 4096.0, 0)],
    )
    assert run.started_at.tolist() == [0.0, 10.0, 10.0, 3.0]
    assert [a.nodes for a in run.allocation if a is not None] == [(0,), (0,), (1,), (0,)]
    assert columns["reservation_at"].tolist() == [0.0, 10.0, 10.0, 3.0]


@pytest.mark.usefixtures("audit")
def test_an_exclusive_job_waits_for_empty_nodes() -> None:
    """Two nodes of 4 cores. J0 (1 core) runs on node 0 until 10, J1 (1 core) on node 0
    too (first fit). J2 exclusive on 2 nodes is reserved at 10. J3 (1 core, 5 s) starts now
    on node 0 (ends by 10); J4 (1 core, 20 s) would keep node 0 busy past 10: it waits for
    the exclusive job, reserved at its end (30)."""
    core = Request(nodes=1, cores_per_node=1)
    run, columns = _hand(
        [0, 0, 1, 2, 3],
        [10, 10, 20, 5, 20],
        [10, 10, 20, 5, 20],
        [core, core, Request(nodes=2, cores_per_node=1, exclusive=True), core, core],
        [(4, INF, 0)] * 2,
    )
    assert run.started_at.tolist() == [0.0, 0.0, 10.0, 2.0, 30.0]
    assert columns["reservation_at"].tolist() == [0.0, 0.0, 10.0, 2.0, 30.0]


def test_registry_and_params() -> None:
    """The node registry builds it under the processor policy's name and parameters."""
    policy = make_node_policy("conservative", compress=False)
    assert isinstance(policy, NodeConservative)
    assert policy.params == ConservativeParams(compress=False)
