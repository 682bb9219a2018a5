"""DBF on nodes (`schedlab.schedulers.nodes.dbf`, issue 24): the processor DBF's decisions on
nodes of one core, its promises on random multi-resource clusters, and hand cases with GPUs.

* Nodes of one core and plain requests are the processor model: the same starts, classes
  and definitive reservations as ``schedlab.simulate(workload, "dbf")`` on random workloads
  with deadlines, and on the rare paths of Algorithm 1 pinned in
  tests/property/test_dbf_vs_reference.py.
* Random multi-resource clusters: every accepted non-priority job ends by its deadline, no
  job with a definitive reservation starts after it, and without deadlines DBF is node
  conservative backfilling. The plan runs in audit mode there (`NodePlan.audit`: each fit
  recomputed literally).
* Hand cases on GPU nodes: a priority job overtakes a non-priority one within its deadline;
  one whose deadline would be missed is migrated; an impossible deadline is promoted.

Notation: ``Jk`` is the k-th job; ``[a, b)`` a run; deadlines are absolute (submission +
``deadline_time``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schedlab
from reference_nodes import processor_capacities
from schedlab.engine.nodeloop import NodeRun, simulate_nodes
from schedlab.platform.placement import RULES, Request, fits_ever
from schedlab.schedulers.dbf import DbfParams
from schedlab.schedulers.nodes import make_node_policy
from schedlab.schedulers.nodes.conservative import NodeConservative, NodePlan
from schedlab.schedulers.nodes.dbf import NodeDbf
from strategies import SmallWorkload, fuzz, small_workloads

NAN = math.nan
INF = math.inf


@pytest.fixture
def audit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every fit of the fast plan is recomputed the literal way and compared (the random
    multi-resource tests, which have no other oracle; the processor DBF is one)."""
    monkeypatch.setattr(NodePlan, "audit", True)
    yield


@st.composite
def slacks(draw: st.DrawFn, req: list[float]) -> list[float]:
    """Each job's ``deadline_time``: NaN (priority), tight, loose or impossible (below its
    requested time), as tests/property/test_dbf_vs_reference.py draws them."""
    out = []
    for r in req:
        kind = draw(st.sampled_from(["priority", "priority", "tight", "loose", "impossible"]))
        if kind == "priority":
            out.append(NAN)
        elif kind == "tight":
            out.append(r + draw(st.integers(0, 12)))
        elif kind == "loose":
            out.append(r + draw(st.integers(13, 120)))
        else:
            out.append(draw(st.floats(0.0, r, exclude_max=True)))
    return out


def _dbf(
    submit, run, req, requests, capacities, slack, *, rule="first_fit", kill=True
) -> tuple[NodeRun, dict]:
    policy = NodeDbf()
    result = simulate_nodes(
        submit, run, req, requests, capacities, policy, rule=rule, kill_on_overrun=kill,
        attributes={"deadline_time": slack},
    )  # fmt: skip
    return result, policy.job_columns()


def _compare_with_processor_dbf(w: SmallWorkload, slack: list[float], kill: bool) -> dict:
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    requests = [Request.processors(p) for p in w.procs]
    run, columns = _dbf(
        w.submit, w.run, req, requests, processor_capacities(w.total), slack, kill=kill
    )
    workload = SmallWorkload(w.submit, w.run, req, w.procs, w.total).workload()
    workload = workload.with_attribute("deadline_time", np.array(slack, dtype=float))
    jobs = schedlab.simulate(workload, "dbf", kill_on_overrun=kill, check=True).jobs
    np.testing.assert_array_equal(run.started_at, jobs["started_at"].to_numpy())
    np.testing.assert_array_equal(run.finished_at, jobs["finished_at"].to_numpy())
    assert columns["dbf_class"].tolist() == jobs["dbf_class"].tolist()
    np.testing.assert_array_equal(columns["reservation_at"], jobs["reservation_at"].to_numpy())
    return columns


@st.composite
def _single_core_cases(draw: st.DrawFn, max_jobs: int = 25) -> tuple[SmallWorkload, list]:
    w = draw(small_workloads(max_jobs=max_jobs, max_procs=12))
    return w, draw(slacks(w.req))


@fuzz(110)
@given(case=_single_core_cases(), kill=st.booleans())
def test_single_core_nodes_are_processor_dbf(case, kill: bool) -> None:
    """Starts, ends, classes and definitive reservations: the processor DBF's."""
    w, slack = case
    _compare_with_processor_dbf(w, slack, kill)


@fuzz(20)
@given(case=_single_core_cases(max_jobs=70))
def test_single_core_nodes_are_processor_dbf_on_long_queues(case) -> None:
    """Deeper queues: Algorithm 1 moves many provisional reservations."""
    w, slack = case
    _compare_with_processor_dbf(w, slack, True)


# The rare paths of Algorithm 1 (tests/property/test_dbf_vs_reference.py, RARE): L_TMP's
# fallback to its provisional reservations, and earlier non-priority jobs joining L_TMP.
RARE = {
    "fallback-1": (
        [3, 6, 6, 6, 7, 10],
        [1, 1, 3, 4, 1, 2],
        [2, 4, 6, 4, 2, 3],
        [2, 2, 2, 2, 2, 1],
        2,
        [5, NAN, 15, 8, 10, 4],
    ),
    "fallback-2": (
        [2, 3, 3, 4, 4, 7],
        [2, 5, 1, 3, 2, 3],
        [5, 5, 1, 3, 5, 4],
        [2, 2, 1, 1, 2, 2],
        2,
        [NAN, 12, 1, 4, 8, 6],
    ),
    "earlier-jobs-join": (
        [2, 2, 2, 4, 5],
        [2, 3, 3, 1, 4],
        [2, 3, 3, 1, 4],
        [1, 2, 2, 1, 1],
        2,
        [7, 9, 4, 3, NAN],
    ),
}


@pytest.mark.parametrize("kill", [True, False])
@pytest.mark.parametrize("case", sorted(RARE))
def test_rare_algorithm_1_paths_on_single_core_nodes(case: str, kill: bool) -> None:
    submit, run, req, procs, total, slack = RARE[case]
    w = SmallWorkload(
        [float(x) for x in submit], [float(x) for x in run], [float(x) for x in req], procs, total
    )
    columns = _compare_with_processor_dbf(w, [float(s) for s in slack], kill)
    assert "migrated" in columns["dbf_class"].tolist()


# --------------------------------------------------------------------------------------------
# Random multi-resource clusters
# --------------------------------------------------------------------------------------------

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
def clusters(draw: st.DrawFn) -> tuple[SmallWorkload, list, list[Request], list[float]]:
    """1-3 node types of 1-3 nodes, jobs asking for nodes (memory, GPUs, whole nodes) or
    plain processors, and deadlines."""
    capacities: list = []
    for kind in draw(st.lists(NODE_TYPES, min_size=1, max_size=3)):
        capacities += [kind] * draw(st.integers(1, 3))
    w = draw(small_workloads(max_jobs=20, max_procs=1))
    total = sum(c for c, _, _ in capacities)
    requests = []
    for _ in w.submit:
        if draw(st.integers(0, 3)) == 0:
            request = Request.processors(draw(st.integers(1, total)))
        else:
            request = draw(NODE_REQUESTS)
        requests.append(request if fits_ever(capacities, request) else Request.processors(1))
    return w, capacities, requests, draw(slacks(w.req))


@pytest.mark.usefixtures("audit")
@fuzz(80)
@given(case=clusters(), rule=st.sampled_from(RULES), kill=st.booleans())
def test_deadlines_and_definitive_reservations_hold_on_nodes(case, rule: str, kill: bool) -> None:
    """Every accepted non-priority job (started as such, or migrated) ends by its deadline,
    by its requested time too; every job with a definitive reservation starts no later; the
    classes follow the deadlines (the engine checks every node at every instant)."""
    w, capacities, requests, slack = case
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    run, columns = _dbf(w.submit, w.run, req, requests, capacities, slack, rule=rule, kill=kill)
    cls = columns["dbf_class"]
    has_deadline = ~np.isnan(np.array(slack))
    assert set(cls[~has_deadline]) <= {"priority"}
    assert set(cls[has_deadline]) <= {"non_priority", "migrated", "promoted"}
    deadline = np.array(w.submit) + np.array(slack)
    accepted = (cls == "non_priority") | (cls == "migrated")
    assert (run.finished_at[accepted] <= deadline[accepted]).all()
    assert (run.started_at[accepted] + np.array(req)[accepted] <= deadline[accepted]).all()
    reservation = columns["reservation_at"]
    np.testing.assert_array_equal(np.isnan(reservation), cls == "non_priority")
    definitive = ~np.isnan(reservation)
    assert (run.started_at[definitive] <= reservation[definitive]).all()


@pytest.mark.usefixtures("audit")
@fuzz(50)
@given(case=clusters(), rule=st.sampled_from(RULES), kill=st.booleans(), attr=st.booleans())
def test_without_deadlines_dbf_is_node_conservative(case, rule: str, kill: bool, attr) -> None:
    """No non-priority job (no attribute, or all NaN): exactly node conservative
    backfilling, nodes included."""
    w, capacities, requests, _ = case
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    policy = NodeDbf()
    run = simulate_nodes(
        w.submit, w.run, req, requests, capacities, policy, rule=rule, kill_on_overrun=kill,
        attributes={"deadline_time": [NAN] * len(w.submit)} if attr else None,
    )  # fmt: skip
    cbf = NodeConservative()
    expected = simulate_nodes(
        w.submit, w.run, req, requests, capacities, cbf, rule=rule, kill_on_overrun=kill
    )
    assert run.started_at.tolist() == expected.started_at.tolist()
    assert run.allocation == expected.allocation
    columns = policy.job_columns()
    assert columns["reservation_at"].tolist() == cbf.job_columns()["reservation_at"].tolist()
    assert set(columns["dbf_class"]) == {"priority"}


# --------------------------------------------------------------------------------------------
# Hand cases on GPU nodes
# --------------------------------------------------------------------------------------------

GPU_NODES = [(4, 8192.0, 2)] * 2  # two nodes of 4 cores, 8 GiB and 2 GPUs
WIDE = Request(nodes=2, cores_per_node=2, gpus_per_node=2)  # both nodes, every GPU
TWO_GPUS = Request(nodes=1, cores_per_node=2, mem_per_node=4096.0, gpus_per_node=2)
ONE_GPU_EACH = Request(nodes=2, cores_per_node=1, gpus_per_node=1)


def test_a_priority_job_overtakes_a_non_priority_one_within_its_deadline() -> None:
    """J0 (priority) holds every GPU until 10. J1 (non-priority, 2 GPUs on one node, 5 s,
    deadline 1 + 25 = 26) is reserved at 10 on node 0, provisionally. J2 (priority, one GPU
    on each node, 5 s) arrives at 2: Algorithm 1 cancels J1, places J2 at 10 on both nodes
    and J1 after it at 15, still by its deadline (20 <= 26): J2 starts first. Conservative
    backfilling would have kept J1 at 10 and J2 at 15."""
    submit, run = [0.0, 1.0, 2.0], [10.0, 5.0, 5.0]
    requests = [WIDE, TWO_GPUS, ONE_GPU_EACH]
    result, columns = _dbf(submit, run, run, requests, GPU_NODES, [NAN, 25.0, NAN])
    assert result.started_at.tolist() == [0.0, 15.0, 10.0]
    assert columns["dbf_class"].tolist() == ["priority", "non_priority", "priority"]
    np.testing.assert_array_equal(columns["reservation_at"], [0.0, NAN, 10.0])
    cbf = simulate_nodes(submit, run, run, requests, GPU_NODES, NodeConservative())
    assert cbf.started_at.tolist() == [0.0, 10.0, 15.0]


def test_a_non_priority_job_that_would_miss_its_deadline_is_migrated() -> None:
    """As above with J1's deadline 1 + 14 = 15: behind J2 it would end at 20 > 15, so it
    forms L_TMP, is placed first (at 10, ending 15) and made definitive; J2 goes after it."""
    submit, run = [0.0, 1.0, 2.0], [10.0, 5.0, 5.0]
    requests = [WIDE, TWO_GPUS, ONE_GPU_EACH]
    result, columns = _dbf(submit, run, run, requests, GPU_NODES, [NAN, 14.0, NAN])
    assert result.started_at.tolist() == [0.0, 10.0, 15.0]
    assert columns["dbf_class"].tolist() == ["priority", "migrated", "priority"]
    np.testing.assert_array_equal(columns["reservation_at"], [0.0, 10.0, 15.0])


def test_an_impossible_deadline_is_promoted() -> None:
    """J1's earliest fit is 10, ending 15, after its deadline (1 + 8 = 9): it is promoted
    and placed as a priority job, definitively, at 10."""
    submit, run = [0.0, 1.0], [10.0, 5.0]
    result, columns = _dbf(submit, run, run, [WIDE, TWO_GPUS], GPU_NODES, [NAN, 8.0])
    assert result.started_at.tolist() == [0.0, 10.0]
    assert columns["dbf_class"].tolist() == ["priority", "promoted"]
    np.testing.assert_array_equal(columns["reservation_at"], [0.0, 10.0])


def test_registry_and_params() -> None:
    policy = make_node_policy("dbf", compress=False)
    assert isinstance(policy, NodeDbf)
    assert policy.params == DbfParams(compress=False)
