"""Placement on nodes (`schedlab.platform.placement`) and hand-computed node scenarios run
through the node-level reference (tests/reference_nodes.py), issue 24."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_nodes import check_node_schedule, reference_simulate_nodes
from schedlab.platform.placement import (
    RULES,
    Allocation,
    NodeState,
    Request,
    fits_ever,
    fitting_nodes,
    never_fits_reason,
    place,
)

GIB = 1024.0  # MiB
GPU_NODE = (32, 256 * GIB, 4)
CPU_NODE = (64, 512 * GIB, 0)


def _run(capacities, jobs, policy, rule="first_fit"):
    """``jobs``: (submit, run = requested time, Request). Returns the reference's output,
    after the independent per-node check."""
    submit = [float(s) for s, _, _ in jobs]
    run = [float(r) for _, r, _ in jobs]
    requests = [q for _, _, q in jobs]
    out = reference_simulate_nodes(submit, run, list(run), requests, capacities, policy, rule)
    check_node_schedule(capacities, requests, out["start"], out["end"], out["allocation"])
    return out


def _node_of(out, j):
    return out["allocation"][j].nodes


# ------------------------------------------------------------------ the hand scenarios


def test_gpu_job_blocked_by_memory() -> None:
    """A CPU job holds 200 GiB of the GPU node's 256: a GPU job asking 100 GiB has cores and
    GPUs free there but not the memory, and the CPU node has no GPU, so it waits for the
    CPU job to end (100 s)."""
    capacities = [GPU_NODE, CPU_NODE]
    cpu_job = Request(nodes=1, cores_per_node=8, mem_per_node=200 * GIB)
    gpu_job = Request(nodes=1, cores_per_node=8, mem_per_node=100 * GIB, gpus_per_node=2)
    state = NodeState(capacities)
    state.allocate(place(state, cpu_job))
    assert state.free_cores[0] == 24 and state.free_gpus[0] == 4
    assert place(state, gpu_job) is None
    assert fits_ever(capacities, gpu_job)  # not a job to skip: it fits the empty cluster
    for policy in ("fcfs", "easy", "conservative"):
        out = _run(capacities, [(0, 100, cpu_job), (0, 50, gpu_job)], policy)
        assert out["start"] == [0.0, 100.0]
        assert _node_of(out, 0) == (0,) and _node_of(out, 1) == (0,)


def _gpu_steal_jobs():
    """Two nodes of 8 cores and 2 GPUs. J0 and J1 (5 cores, 1 GPU) hold one GPU on each
    until 10; the head J2 needs a node with both GPUs free (shadow time 10). J3 (1 GPU,
    100 s) backfills on node 0: node 1 still frees both GPUs at 10. J4 (1 GPU, 100 s) would
    go on node 1 and steal the head's GPUs there (a pooled count, 4 free at 10 for 2
    needed, would let it start): it waits."""
    big = Request(nodes=1, cores_per_node=5, gpus_per_node=1)
    gpu1 = Request(nodes=1, cores_per_node=1, gpus_per_node=1)
    gpu2 = Request(nodes=1, cores_per_node=1, gpus_per_node=2)
    return [(0, 10, big), (0, 10, big), (0, 10, gpu2), (0, 100, gpu1), (0, 100, gpu1)]


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_backfill_may_not_steal_the_heads_gpus(policy: str) -> None:
    capacities = [(8, math.inf, 2)] * 2
    out = _run(capacities, _gpu_steal_jobs(), policy)
    assert out["start"] == [0.0, 0.0, 10.0, 0.0, 10.0]
    assert _node_of(out, 3) == (0,)  # the backfilled job
    assert _node_of(out, 2) == (1,)  # the head, on the node whose GPUs were kept


def test_easy_reservation_is_not_a_fixed_node_set() -> None:
    """Four 1-core nodes; at 1 nodes 0-1 are free, 2-3 busy until 10. The head H (3 nodes)
    waits for 10; C (1 node, 100 s) takes node 0 now because H can still be placed at 10 on
    nodes 1-3, as the processor model's one extra processor allows. A reservation fixed
    by first fit on {0, 1, 2} would have refused it."""
    one = Request(nodes=1, cores_per_node=1)
    jobs = [(0, 1, one), (0, 1, one), (0, 10, one), (0, 10, one)]
    jobs += [(1, 5, Request(nodes=3, cores_per_node=1)), (1, 100, one)]
    out = _run([(1, math.inf, 0)] * 4, jobs, "easy")
    assert out["start"] == [0.0, 0.0, 0.0, 0.0, 10.0, 1.0]
    assert _node_of(out, 5) == (0,) and _node_of(out, 4) == (1, 2, 3)


def test_fcfs_does_not_backfill_the_gpu_jobs() -> None:
    out = _run([(8, math.inf, 2)] * 2, _gpu_steal_jobs(), "fcfs")
    assert out["start"] == [0.0, 0.0, 10.0, 10.0, 10.0]


def test_exclusive_nodes() -> None:
    """J0 (1 core) runs on node 0, so the exclusive J1 takes node 1 whole (all 4 cores, its
    1 GiB of memory); J2 cannot join node 1 and goes to node 0; the exclusive J3 needs an
    empty node and waits until node 0 empties at 10."""
    capacities = [(4, 8 * GIB, 0)] * 2
    one = Request(nodes=1, cores_per_node=1, mem_per_node=GIB)
    whole = Request(nodes=1, cores_per_node=1, mem_per_node=GIB, exclusive=True)
    out = _run(capacities, [(0, 10, one), (0, 10, whole), (0, 10, one), (0, 10, whole)], "fcfs")
    assert out["start"] == [0.0, 0.0, 0.0, 10.0]
    assert out["allocation"][1] == Allocation((1,), (4,), (GIB,), (0,), True)
    assert _node_of(out, 2) == (0,)
    assert _node_of(out, 3) == (0,)


def test_exclusive_node_takes_nobody_else() -> None:
    """An exclusively held node offers nothing, even to a plain request that would take
    any free core; an exclusive request wants nodes with no job at all."""
    state = NodeState([(4, math.inf, 0)] * 2)
    state.allocate(place(state, Request(nodes=1, cores_per_node=1)))  # node 0: 3 cores left
    exclusive = place(state, Request(nodes=1, cores_per_node=1, exclusive=True))
    assert exclusive is not None and exclusive.nodes == (1,) and exclusive.cores == (4,)
    state.allocate(exclusive)
    assert place(state, Request.processors(4)) is None
    assert place(state, Request.processors(3)).nodes == (0,)
    assert place(state, Request(nodes=1, cores_per_node=1, exclusive=True)) is None
    assert not fitting_nodes(state, Request(nodes=1, cores_per_node=1))[1]


def test_best_fit_and_first_fit_choose_different_nodes() -> None:
    """Node 2 has 2 cores left: best fit puts a 2-core job there (0 left), first fit on
    node 0; a 4-core job goes to the 4-core node 1 under best fit."""
    state = NodeState([(8, 16 * GIB, 0), (4, 16 * GIB, 0), (8, 16 * GIB, 0)])
    state.allocate(Allocation((2,), (6,), (0.0,), (0,)))
    two, four = Request(nodes=1, cores_per_node=2), Request(nodes=1, cores_per_node=4)
    assert place(state, two, "first_fit").nodes == (0,)
    assert place(state, two, "best_fit").nodes == (2,)
    assert place(state, four, "first_fit").nodes == (0,)
    assert place(state, four, "best_fit").nodes == (1,)


def test_best_fit_ties_by_memory_then_gpus() -> None:
    """Same cores left: the node with less memory left wins; then the one with fewer GPUs
    left (a CPU job stays off the GPU node); then the lower index."""
    by_memory = NodeState([(4, 8 * GIB, 0), (4, 4 * GIB, 0)])
    job = Request(nodes=1, cores_per_node=4, mem_per_node=GIB)
    assert place(by_memory, job, "best_fit").nodes == (1,)
    by_gpus = NodeState([(4, math.inf, 2), (4, math.inf, 0)])
    assert place(by_gpus, Request(nodes=1, cores_per_node=4), "best_fit").nodes == (1,)
    assert place(by_gpus, Request.processors(2), "best_fit").nodes == (1,)
    even = NodeState([(4, math.inf, 0)] * 3)
    assert place(even, Request(nodes=2, cores_per_node=1), "best_fit").nodes == (0, 1)


def test_best_fit_changes_when_jobs_start() -> None:
    """The 4-core job on node 0 (first fit) leaves no 8-core node for the next job, which
    waits 10 s; best fit puts it on the 4-core node and both start at once."""
    capacities = [(8, math.inf, 0), (4, math.inf, 0)]
    jobs = [(0, 10, Request(nodes=1, cores_per_node=4)), (0, 10, Request(1, 8))]
    assert _run(capacities, jobs, "fcfs", "first_fit")["start"] == [0.0, 10.0]
    assert _run(capacities, jobs, "fcfs", "best_fit")["start"] == [0.0, 0.0]


def test_plain_request_spreads_over_nodes() -> None:
    """A plain request takes free cores anywhere: first fit drains nodes in index order,
    best fit the busiest nodes first."""
    state = NodeState([(4, math.inf, 0), (4, math.inf, 0), (4, math.inf, 0)])
    state.allocate(Allocation((2,), (3,), (0.0,), (0,)))  # node 2: 1 core left
    ff = place(state, Request.processors(6), "first_fit")
    assert (ff.nodes, ff.cores) == ((0, 1), (4, 2))
    bf = place(state, Request.processors(6), "best_fit")
    assert (bf.nodes, bf.cores) == ((0, 1, 2), (4, 1, 1))
    assert place(state, Request.processors(10)) is None


def test_conservative_moves_planned_nodes_not_times() -> None:
    """Three 1-core nodes. At 1, node 0 is free and nodes 1-2 are busy until 5; X (2
    nodes) is reserved at 5, planned on {0, 1}. Y (1 node, 10 s) fits by count (one node
    free at every instant) and starts at 1 on node 0: X's plan moves to {1, 2} at the same
    time. A reservation that pinned its nodes would have kept Y waiting until 5."""
    one = Request(nodes=1, cores_per_node=1)
    jobs = [(0, 1, one), (0, 5, one), (0, 5, one), (1, 5, Request(2, 1)), (1, 10, one)]
    out = _run([(1, math.inf, 0)] * 3, jobs, "conservative")
    assert out["start"] == [0.0, 0.0, 0.0, 5.0, 1.0]
    assert out["reservation_at_submit"][3:] == [5.0, 1.0]
    assert _node_of(out, 4) == (0,) and _node_of(out, 3) == (1, 2)


# ------------------------------------------------------------------ never over capacity


def test_allocate_and_release_never_leave_the_capacity() -> None:
    state = NodeState([(2, 4 * GIB, 1)])
    alloc = place(state, Request(nodes=1, cores_per_node=2, mem_per_node=GIB, gpus_per_node=1))
    state.allocate(alloc)
    with pytest.raises(AssertionError):
        state.allocate(Allocation((0,), (1,), (0.0,), (0,)))  # no core left
    state.release(alloc)
    with pytest.raises(AssertionError):
        state.release(alloc)  # above capacity, and the node is held by nobody
    with pytest.raises(AssertionError):
        state.allocate(Allocation((0,), (1,), (5 * GIB,), (0,)))  # more memory than it has
    state.check()


def test_wide_allocations_take_the_vectorised_path() -> None:
    """Allocations on many nodes are applied with numpy; the result is the same."""
    state = NodeState.single_core(40)
    alloc = place(state, Request.processors(30))
    assert alloc.nodes == tuple(range(30))
    state.allocate(alloc)
    assert int(state.free_cores.sum()) == 10 and int(state.running.sum()) == 30
    assert not state.can_allocate(
        Allocation(tuple(range(25, 35)), (1,) * 10, (0.0,) * 10, (0,) * 10)
    )
    with pytest.raises(AssertionError):
        state.allocate(alloc)
    state.release(alloc)
    with pytest.raises(AssertionError):
        state.release(alloc)
    assert (state.free_cores == 1).all() and (state.running == 0).all()


def test_check_node_schedule_catches_an_overcommitted_node() -> None:
    capacities = [(2, math.inf, 0)]
    request = Request(nodes=1, cores_per_node=2)
    alloc = Allocation((0,), (2,), (0.0,), (0,))
    check_node_schedule(capacities, [request] * 2, [0.0, 5.0], [5.0, 9.0], [alloc] * 2)
    with pytest.raises(AssertionError, match="over its cores"):
        check_node_schedule(capacities, [request] * 2, [0.0, 4.0], [5.0, 9.0], [alloc] * 2)


def test_memory_is_exact_in_whole_kib() -> None:
    """Requests round up to a whole KiB, capacities down; the free memory returns exactly to
    the capacity whatever the order jobs come and go."""
    assert Request(nodes=1, cores_per_node=1, mem_per_node=0.1).mem_per_node == 103 / 1024
    assert NodeState([(1, 10.0001, 0)]).cap_memory[0] == 10.0
    state = NodeState([(64, 1000.0, 0)])
    sizes = [0.1, 0.2, 0.3, 7.77, 123.456, 0.001]
    allocs = []
    for size in sizes:
        alloc = place(state, Request(nodes=1, cores_per_node=1, mem_per_node=size))
        state.allocate(alloc)
        allocs.append(alloc)
    for alloc in reversed(allocs[::2]):
        state.release(alloc)
    for alloc in allocs[1::2]:
        state.release(alloc)
    assert state.free_memory[0] == 1000.0


# ------------------------------------------------------------------ requests and reasons


def test_requests_are_checked() -> None:
    with pytest.raises(ValueError, match="plain processor request"):
        Request(nodes=None, cores_per_node=4, gpus_per_node=1)
    with pytest.raises(ValueError, match="cores_per_node"):
        Request(nodes=1, cores_per_node=0)
    with pytest.raises(ValueError, match="mem_per_node"):
        Request(nodes=1, cores_per_node=1, mem_per_node=math.nan)
    with pytest.raises(ValueError, match="integer"):
        Request(nodes=1.5, cores_per_node=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rule"):
        place(NodeState([(1, 1.0, 0)]), Request.processors(1), "worst_fit")
    assert Request(nodes=2, cores_per_node=8).total_cores == 16


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (Request.processors(97), "wider_than_machine"),
        (Request.processors(96), None),
        (Request(nodes=3, cores_per_node=1), "more_nodes_than_machine"),
        (Request(nodes=1, cores_per_node=65), "cores_per_node_above_every_node"),
        (
            Request(nodes=1, cores_per_node=1, mem_per_node=600 * GIB),
            "memory_per_node_above_every_node",
        ),
        (Request(nodes=1, cores_per_node=1, gpus_per_node=8), "gpus_per_node_above_every_node"),
        (Request(nodes=2, cores_per_node=1, gpus_per_node=1), "too_few_nodes_hold_it"),
        (Request(nodes=1, cores_per_node=48, gpus_per_node=1), "too_few_nodes_hold_it"),
        (Request(nodes=2, cores_per_node=32, exclusive=True), None),
    ],
)
def test_never_fits_reason(request_: Request, reason: str | None) -> None:
    assert never_fits_reason([GPU_NODE, CPU_NODE], request_) == reason
    assert fits_ever(NodeState([GPU_NODE, CPU_NODE]), request_) == (reason is None)


# ------------------------------------------------------------------ place, exhaustively


@st.composite
def _states(draw: st.DrawFn) -> tuple[NodeState, Request]:
    nodes = draw(st.integers(1, 5))
    capacities = [
        (
            draw(st.integers(1, 4)),
            draw(st.sampled_from([2.0, 4.0, math.inf])),
            draw(st.integers(0, 2)),
        )
        for _ in range(nodes)
    ]
    state = NodeState(capacities)
    for _ in range(draw(st.integers(0, 6))):  # random jobs already running
        job = Request(
            nodes=1,
            cores_per_node=draw(st.integers(1, 2)),
            mem_per_node=draw(st.sampled_from([0.0, 1.0])),
            gpus_per_node=draw(st.integers(0, 1)),
            exclusive=draw(st.booleans()),
        )
        alloc = place(state, job, draw(st.sampled_from(RULES)))
        if alloc is not None:
            state.allocate(alloc)
    if draw(st.booleans()):
        return state, Request.processors(draw(st.integers(1, 10)))
    return state, Request(
        nodes=draw(st.integers(1, 3)),
        cores_per_node=draw(st.integers(1, 3)),
        mem_per_node=draw(st.sampled_from([0.0, 1.0, 3.0])),
        gpus_per_node=draw(st.integers(0, 2)),
        exclusive=draw(st.booleans()),
    )


def _node_takes(state: NodeState, i: int, r: Request) -> bool:
    """One node's share of node request ``r`` fits node i, read the plain way."""
    if state.held_exclusive[i] or (r.exclusive and state.running[i] != 0):
        return False
    return bool(
        state.free_cores[i] >= r.cores_per_node
        and state.free_memory[i] >= r.mem_per_node
        and state.free_gpus[i] >= r.gpus_per_node
    )


@settings(max_examples=300, deadline=None, derandomize=True)
@given(case=_states(), rule=st.sampled_from(RULES))
def test_place_is_complete_and_follows_its_rule(case: tuple[NodeState, Request], rule: str):
    """`place` finds an allocation iff one exists (every subset of nodes tried), the one it
    returns fits, and it is the rule's choice: first fit the lowest indices, best fit the
    smallest (cores, memory, GPUs left, index) keys."""
    state, r = case
    alloc = place(state, r, rule)
    if r.nodes is None:
        usable = [
            0 if state.held_exclusive[i] else int(state.free_cores[i]) for i in range(len(state))
        ]
        assert (alloc is not None) == (sum(usable) >= r.cores_per_node)
        if alloc is not None:
            assert state.can_allocate(alloc) and alloc.total_cores == r.cores_per_node
        return
    exists = any(
        all(_node_takes(state, i, r) for i in subset)
        for subset in itertools.combinations(range(len(state)), r.nodes)
    )
    assert (alloc is not None) == exists
    if alloc is None:
        return
    assert state.can_allocate(alloc)
    fitting = [i for i in range(len(state)) if _node_takes(state, i, r)]

    def key(i: int) -> tuple:
        return (
            int(state.free_cores[i]) - r.cores_per_node,
            float(state.free_memory[i]) - r.mem_per_node,
            int(state.free_gpus[i]) - r.gpus_per_node,
            i,
        )

    expected = fitting[: r.nodes] if rule == "first_fit" else sorted(fitting, key=key)[: r.nodes]
    assert alloc.nodes == tuple(sorted(expected))
