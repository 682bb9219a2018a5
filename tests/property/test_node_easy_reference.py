"""Node FCFS and EASY (`schedlab.schedulers.nodes`) against the node-level reference
(tests/reference_nodes.py), per job: the same starts, ends, kills and allocations (issue 24).

* Random multi-resource clusters (cores, finite memory, GPUs) and jobs asking for nodes with
  memory, GPUs or whole nodes, or plain processors; a few request shapes repeat, as on real
  logs, so that jobs of one shape compete; both placement rules, kills on and off.
* EASY's variants (``backfill_order="sjf"``, ``extra_procs=False``), which the reference does
  not do, against the reference's EASY pass with the candidate order and the extra rule
  changed (`_VariantSim`, a few lines) and on hand-computed cases.
* Hand-computed cases of issue 24: a GPU job blocked by memory, a backfill that would steal
  the head's GPUs, exclusive nodes.
* Single-core nodes and plain requests: the processor policies' start times, variants too.

Derandomized and small: the file runs in well under 20 s.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference_nodes
import schedlab
from reference_nodes import check_node_schedule, processor_capacities, reference_simulate_nodes
from schedlab.engine.nodeloop import NodeRun, simulate_nodes
from schedlab.platform.placement import RULES, Allocation, Request, fits_ever
from schedlab.schedulers.easy import EasyParams
from schedlab.schedulers.nodes.easy import NodeEasy
from schedlab.schedulers.nodes.fcfs import NodeFcfs
from strategies import SmallWorkload, fuzz, small_workloads

INF = math.inf


def _node_policy(policy: str, order: str = "fcfs", extra: bool = True) -> NodeFcfs | NodeEasy:
    if policy == "fcfs":
        return NodeFcfs()
    return NodeEasy(EasyParams(backfill_order=order, extra_procs=extra))


def _assert_same(run: NodeRun, ref: dict) -> None:
    assert run.started_at.tolist() == ref["start"]
    assert run.finished_at.tolist() == ref["end"]
    assert run.killed.tolist() == ref["killed"]
    assert run.allocation == ref["allocation"]


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
def node_cases(draw: st.DrawFn, max_jobs: int = 40) -> tuple[SmallWorkload, list, list[Request]]:
    """2-3 node types of 2-5 nodes each, and jobs arriving close together: most take one of
    a few request shapes (as on real logs, so that jobs of one shape compete and wait
    together), the others one of their own."""
    capacities: list = []
    for kind in draw(st.lists(NODE_TYPES, min_size=2, max_size=3)):
        capacities += [kind] * draw(st.integers(2, 5))
    total = sum(c for c, _, _ in capacities)
    n = draw(st.integers(1, max_jobs))
    gaps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    submit = np.cumsum(gaps).astype(float).tolist()
    run = [float(x) for x in draw(st.lists(st.integers(1, 30), min_size=n, max_size=n))]
    slack = draw(st.lists(st.integers(-5, 15), min_size=n, max_size=n))
    req = [float(max(1.0, r + d)) for r, d in zip(run, slack)]
    plain = st.builds(Request.processors, st.integers(1, max(1, total // 3)))
    shapes = draw(st.lists(st.one_of(NODE_REQUESTS, plain), min_size=2, max_size=6))
    requests = []
    for _ in range(n):
        if draw(st.integers(0, 4)):
            request = draw(st.sampled_from(shapes))
        else:
            request = draw(st.one_of(NODE_REQUESTS, plain))
        requests.append(request if fits_ever(capacities, request) else Request.processors(1))
    return SmallWorkload(submit, run, req, [1] * n, 1), capacities, requests


@pytest.mark.parametrize("policy, examples", [("fcfs", 60), ("easy", 150)])
def test_same_schedule_as_the_reference(policy: str, examples: int) -> None:
    """Per job: the same starts, ends, kills and allocations as the reference."""

    @fuzz(examples)
    @given(case=node_cases(), rule=st.sampled_from(RULES), kill=st.booleans())
    def check(case: tuple[SmallWorkload, list, list[Request]], rule: str, kill: bool) -> None:
        _compare(policy, case, rule, kill)

    check()


def _compare(
    policy: str, case: tuple[SmallWorkload, list, list[Request]], rule: str, kill: bool
) -> None:
    w, capacities, requests = case
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    ref = reference_simulate_nodes(
        w.submit, w.run, req, requests, capacities, policy, rule=rule, kill_on_overrun=kill
    )
    run = simulate_nodes(
        w.submit, w.run, req, requests, capacities, _node_policy(policy), rule, kill
    )
    _assert_same(run, ref)


# -- EASY's variants: the reference's EASY pass with another order and no extra rule ---------
class _VariantSim(reference_nodes._Sim):
    """The reference's `easy_pass`, candidates in (requested time, arrival) order when
    ``order`` is "sjf", and without the extra rule when ``extra`` is False."""

    order = "fcfs"
    extra = True

    def easy_pass(self, now: float) -> list[tuple[int, Allocation]]:
        started = self.fcfs_pass()
        queue = self.waiting[len(started) :]
        if not queue:
            return started
        head = queue[0]
        running_now = [(self.start[j] + self.req[j], self.alloc[j]) for j in self.running]
        running_now += [(now + self.req[j], alloc) for j, alloc in started]
        at_shadow = self.state.copy()
        shadow = INF
        for t in sorted({e for e, _ in running_now}):
            for e, alloc in running_now:
                if e == t:
                    at_shadow.release(alloc)
            if self.place(at_shadow, head) is not None:
                shadow = t
                break
        rest = queue[1:]
        if self.order == "sjf":
            rest.sort(key=lambda j: (self.req[j], j))
        for j in rest:
            alloc = self.place(self.state, j)
            if alloc is None:
                continue
            if now + self.req[j] > shadow:
                if not self.extra:
                    continue
                trial = at_shadow.copy()
                trial.allocate(alloc)
                if self.place(trial, head) is None:
                    continue
                at_shadow = trial
            self.state.allocate(alloc)
            started.append((j, alloc))
        return started


def _variant(w: SmallWorkload, capacities: list, requests: list, rule: str, params: EasyParams):
    duration = [min(r, q) for r, q in zip(w.run, w.req)]
    sim = _VariantSim(w.submit, duration, w.req, requests, capacities, rule)
    sim.order = params.backfill_order
    sim.extra = params.extra_procs
    sim.run_queue_policy("easy")
    return sim.start, sim.alloc


VARIANTS = [EasyParams("sjf"), EasyParams("fcfs", False), EasyParams("sjf", False)]


@pytest.mark.parametrize("params", VARIANTS, ids=["sjf", "no-extra", "sjf-no-extra"])
@fuzz(30)
@given(case=node_cases(), rule=st.sampled_from(RULES))
def test_variants_follow_the_reference_pass(
    params: EasyParams, case: tuple[SmallWorkload, list, list[Request]], rule: str
) -> None:
    w, capacities, requests = case
    start, alloc = _variant(w, capacities, requests, rule, params)
    run = simulate_nodes(w.submit, w.run, w.req, requests, capacities, NodeEasy(params), rule)
    assert run.started_at.tolist() == start
    assert run.allocation == alloc


def test_the_variant_pass_is_the_reference_at_the_defaults() -> None:
    """The oracle of the variants is the reference itself when nothing is changed."""
    submit = [0.0, 0.0, 1.0, 1.0, 2.0, 3.0]
    run = [10.0, 4.0, 6.0, 3.0, 20.0, 2.0]
    w = SmallWorkload(submit, run, [12.0, 5.0, 9.0, 3.0, 25.0, 2.0], [1] * 6, 1)
    capacities = [(4, 4096.0, 2), (4, 4096.0, 0)]
    requests = [
        Request(1, 2, 3000.0, 1),
        Request(2, 2),
        Request(1, 1, 0.0, 1),
        Request.processors(3),
        Request(1, 4, exclusive=True),
        Request(1, 1, 1024.0),
    ]
    ref = reference_simulate_nodes(w.submit, w.run, w.req, requests, capacities, "easy")
    start, alloc = _variant(w, capacities, requests, "first_fit", EasyParams())
    assert (start, alloc) == (ref["start"], ref["allocation"])


# -- single-core nodes: the processor policies ------------------------------------------------
@pytest.mark.parametrize(
    "policy, params",
    [("fcfs", {}), ("easy", {}), ("easy", {"backfill_order": "sjf"}),
     ("easy", {"extra_procs": False})],
)  # fmt: skip
@fuzz(25)
@given(w=small_workloads(max_jobs=30, max_procs=10), kill=st.booleans())
def test_single_core_nodes_start_jobs_as_the_processor_policy(
    policy: str, params: dict, w: SmallWorkload, kill: bool
) -> None:
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    requests = [Request.processors(p) for p in w.procs]
    node = _node_policy(
        policy, params.get("backfill_order", "fcfs"), params.get("extra_procs", True)
    )
    run = simulate_nodes(
        w.submit, w.run, req, requests, processor_capacities(w.total), node, "best_fit", kill
    )
    jobs = schedlab.simulate(w.workload(), policy, kill_on_overrun=kill, **params).jobs
    np.testing.assert_array_equal(jobs["started_at"].to_numpy(), run.started_at)


# -- hand-computed cases ------------------------------------------------------------------------
def _run(policy, submit, run, requests, capacities, rule="first_fit", params=None):
    """Both the policy and the reference (run = requested time); the policy's run."""
    node = NodeEasy(params) if params is not None else _node_policy(policy)
    out = simulate_nodes(submit, run, run, requests, capacities, node, rule)
    check_node_schedule(capacities, requests, out.started_at, out.finished_at, out.allocation)
    if params is None or params == EasyParams():
        ref = reference_simulate_nodes(submit, run, run, requests, capacities, policy, rule)
        _assert_same(out, ref)
    return out


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
def test_a_gpu_job_blocked_by_memory(policy: str) -> None:
    """Node 0 has GPUs, node 1 none. A CPU job taking 3 of node 0's 4 GiB leaves its GPUs
    free but not the memory a GPU job asks for: under first fit the GPU job waits for it to
    end; best fit puts the CPU job on node 1 (fewer resources left) and both run."""
    capacities = [(8, 4096.0, 2), (8, 4096.0, 0)]
    requests = [Request(1, 2, 3072.0), Request(1, 1, 2048.0, 1)]
    first = _run(policy, [0.0, 1.0], [10.0, 5.0], requests, capacities, "first_fit")
    assert first.started_at.tolist() == [0.0, 10.0]
    assert first.allocation[1] == Allocation((0,), (1,), (2048.0,), (1,))
    best = _run(policy, [0.0, 1.0], [10.0, 5.0], requests, capacities, "best_fit")
    assert best.started_at.tolist() == [0.0, 1.0]
    assert [a.nodes for a in best.allocation if a] == [(1,), (0,)]


def test_a_backfill_that_would_steal_the_heads_gpus_is_refused() -> None:
    """Only node 0 has GPUs (4); job A holds 2 of them until 10, so the head H (4 GPUs)
    is reserved at 10 on node 0. C (2 GPUs, long) fits now but would keep 2 GPUs at 10:
    refused. D (a core, long) also stays on node 0 past 10 but leaves H its 4 GPUs and 2
    cores: allowed. E (2 GPUs) ends by 10: allowed. H starts at 10, C after H."""
    capacities = [(4, INF, 4), (4, INF, 0)]
    requests = [
        Request(1, 2, 0.0, 2),  # A
        Request(1, 2, 0.0, 4),  # H
        Request(1, 1, 0.0, 2),  # C
        Request(1, 1),  # D
        Request(1, 1, 0.0, 2),  # E
    ]
    submit = [0.0, 1.0, 2.0, 3.0, 4.0]
    run = [10.0, 10.0, 100.0, 100.0, 5.0]
    out = _run("easy", submit, run, requests, capacities)
    assert out.started_at.tolist() == [0.0, 10.0, 20.0, 3.0, 4.0]
    assert all(a is not None and a.nodes == (0,) for a in out.allocation)


def test_exclusive_nodes() -> None:
    """An exclusive job takes an idle node whole (every core), and nobody joins it; an
    exclusive head of both nodes waits for both to empty, and a long job on either is not
    backfilled, while a short one is."""
    capacities = [(4, INF, 0), (4, INF, 0)]
    requests = [
        Request(1, 1),  # A: node 0
        Request(1, 1, exclusive=True),  # X: node 1, all of it
        Request(1, 1),  # B: node 0 (node 1 is held)
        Request(2, 1, exclusive=True),  # Y: both nodes, reserved at 11
        Request(1, 1),  # C: short, backfilled on node 0
        Request(1, 1),  # D: long, would hold node 0 at 11: waits for Y
    ]
    submit = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    run = [10.0, 10.0, 5.0, 10.0, 5.0, 100.0]
    out = _run("easy", submit, run, requests, capacities)
    assert out.started_at.tolist() == [0.0, 1.0, 2.0, 11.0, 4.0, 21.0]
    assert out.allocation[1] == Allocation((1,), (4,), (0.0,), (0,), True)
    assert out.allocation[3] == Allocation((0, 1), (4, 4), (0.0, 0.0), (0, 0), True)
    assert [out.allocation[j].nodes for j in (2, 4)] == [(0,), (0,)]  # type: ignore[union-attr]


def test_sjf_backfills_the_shorter_of_two_candidates() -> None:
    """Two free cores, a blocked head; J1 (7 s) and J2 (3 s) both end by the shadow time but
    only one fits: arrival order takes J1, sjf J2."""
    capacities = [(4, INF, 0)]
    requests = [Request(1, 2), Request(1, 4), Request(1, 2), Request(1, 2)]
    submit = [0.0, 1.0, 2.0, 2.0]
    run = [10.0, 10.0, 7.0, 3.0]
    fcfs = _run("easy", submit, run, requests, capacities)
    assert fcfs.started_at.tolist() == [0.0, 10.0, 2.0, 20.0]
    sjf = _run("easy", submit, run, requests, capacities, params=EasyParams("sjf"))
    assert sjf.started_at.tolist() == [0.0, 10.0, 20.0, 2.0]


def test_without_the_extra_rule_only_short_jobs_backfill() -> None:
    """A holds nodes 0-1 until 10 and H (two whole nodes) is reserved at 10, when all three
    nodes are free. J (long) on node 2 leaves H nodes 0-1: the extra rule starts it now,
    without the rule it waits until H starts beside it. Were H to need all three nodes, J
    would wait for H's end either way."""
    capacities = [(2, INF, 0)] * 3
    requests = [Request(2, 2), Request(2, 2), Request(1, 2)]
    submit = [0.0, 1.0, 2.0]
    run = [10.0, 10.0, 100.0]
    with_extra = _run("easy", submit, run, requests, capacities)
    assert with_extra.started_at.tolist() == [0.0, 10.0, 2.0]
    without = _run("easy", submit, run, requests, capacities, params=EasyParams("fcfs", False))
    assert without.started_at.tolist() == [0.0, 10.0, 10.0]
    requests[1] = Request(3, 2)
    whole = _run("easy", submit, run, requests, capacities)
    assert whole.started_at.tolist() == [0.0, 10.0, 20.0]


def test_a_start_offers_a_refused_request_again() -> None:
    """X (long) would take node 0's free core, which the head H needs at the shadow time:
    refused. S (short) then takes that core, so Y, of X's very request, now goes to node 1
    and leaves H its node: Y starts, although X's request was refused a moment before."""
    capacities = [(2, INF, 2), (2, INF, 0)]
    requests = [
        Request(1, 1, 0.0, 2),  # A: node 0's GPUs until 10
        Request(1, 2, 0.0, 2),  # H: node 0 whole, at 10
        Request(1, 1),  # X
        Request(1, 1, 512.0),  # S, another request
        Request(1, 1),  # Y
    ]
    submit = [0.0, 1.0, 1.0, 1.0, 1.0]
    run = [10.0, 10.0, 100.0, 5.0, 100.0]
    out = _run("easy", submit, run, requests, capacities)
    assert out.started_at.tolist() == [0.0, 10.0, 10.0, 1.0, 1.0]
    assert [out.allocation[j].nodes for j in (3, 4, 2)] == [(0,), (1,), (1,)]  # type: ignore[union-attr]


def test_a_backfill_that_would_take_the_heads_memory_is_refused() -> None:
    """A holds 3 GiB of each node until 10; H needs 4 GiB on both: reserved at 10. X (long,
    2 GiB) fits now, and the head would still have its cores at 10, but not its memory on
    X's node: refused, it starts when H has ended."""
    capacities = [(4, 5120.0, 0), (4, 5120.0, 0)]
    requests = [Request(2, 1, 3072.0), Request(2, 1, 4096.0), Request(1, 1, 2048.0)]
    out = _run("easy", [0.0, 1.0, 2.0], [10.0, 10.0, 100.0], requests, capacities)
    assert out.started_at.tolist() == [0.0, 10.0, 20.0]
