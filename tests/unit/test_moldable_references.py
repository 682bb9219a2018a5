"""The reference schedulers of paper 004 (SPEC 7): rand, Ref4, RefN; and a property test
over every policy of the paper's online family.

Instances are built by hand: chains of tasks (a root and the tasks its end releases, zero
think time), Amdahl's law with pi = 1 unless said otherwise, so a task of sequential time
w runs w / q on q nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moldable_instances import chain_workload, run_checked
from schedlab.engine.decisions import Start
from schedlab.engine.durations import Amdahl
from schedlab.engine.protocol import ClusterView
from schedlab.errors import ConfigError
from schedlab.schedulers.moldable.references import (
    RandomReference,
    RandParams,
    Ref4,
    RefN,
    SlotParams,
)
from schedlab.schedulers.registry import make_policy
from schedlab.workload.dependencies import dependencies

ONLINE_POLICIES = ("fs", "fs0.5", "fs0.5x", "fs0.5mpx", "rand", "ref4", "refn")


def peak_procs(jobs: Any) -> int:
    """Most processors in use at once (a sweep over starts and ends; ends first)."""
    events = sorted(
        [(t, 0, -q) for t, q in zip(jobs.finished_at, jobs.procs)]
        + [(t, 1, q) for t, q in zip(jobs.started_at, jobs.procs)]
    )
    used = peak = 0
    for _, _, dq in events:
        used += dq
        peak = max(peak, used)
    return peak


# -- rand --------------------------------------------------------------------------------------
def test_rand_reserves_each_task_at_its_earliest_start() -> None:
    """seed 1 draws q = 2, 3, 4, 4, 1, 1 on N = 4 (numpy's default_rng(1).integers(1, 5)).

    Roots w = [4, 4, 4, 4, 1, 2], reserved in release order:
    T0 q 2, 2 s: [0, 2) (2 free left). T1 q 3: 3 free from 2: [2, 10/3).
    T2 q 4: [10/3, 13/3). T3 q 4: [13/3, 16/3). T4 q 1, 1 s: [0, 1) (a hole: 2 free).
    T5 q 1, 2 s: 1 free on [0, 1), 2 on [1, 2): [0, 2).
    """
    jobs, summary = run_checked(
        chain_workload([[4], [4], [4], [4], [1], [2]], procs=4), "rand", seed=1
    )
    assert jobs.procs.tolist() == [2, 3, 4, 4, 1, 1]
    assert jobs.started_at.tolist() == pytest.approx([0, 2, 10 / 3, 13 / 3, 0, 0])
    assert jobs.finished_at.tolist() == pytest.approx([2, 10 / 3, 13 / 3, 16 / 3, 1, 2])
    assert jobs.reservation_at.tolist() == pytest.approx(jobs.started_at.tolist())
    assert summary["normalized_cmax"] == pytest.approx((16 / 3) / (19 / 4))


def test_rand_is_deterministic_for_a_seed() -> None:
    """Same seed, same schedule; the draws depend on the seed; allocations in [1, N], never
    more than N nodes in use, every task at its reservation."""
    rng = np.random.default_rng(7)
    chains = [
        [float(rng.choice([1.0, 15.0])) for _ in range(int(rng.integers(1, 6)))] for _ in range(10)
    ]
    wl = chain_workload(chains, procs=8, pi=0.99)
    a, _ = run_checked(wl, "rand", seed=3)
    b, _ = run_checked(wl, "rand", seed=3)
    c, _ = run_checked(wl, "rand", seed=4)
    assert a.equals(b)
    assert a.procs.tolist() != c.procs.tolist()
    for jobs in (a, c):
        assert jobs.procs.between(1, 8).all()
        assert peak_procs(jobs) <= 8
        assert np.allclose(jobs.started_at, jobs.reservation_at)


def test_rand_start_waits_for_busy_nodes() -> None:
    """A reservation that is due while its nodes are still busy (the engine's end a rounding
    later than the view's) is not started then, but at the next pass, before later ones."""
    view = ClusterView(
        total_procs=2,
        submit_at=[0.0],
        requested_time=[1.0],
        procs=[1],
        user=[0],
        speedup=[Amdahl(1.0)],
        parent=[-1],
    )
    policy = RandomReference(RandParams(seed=0))
    policy.setup(view)
    policy.on_submit(0)
    view.free_procs = 0  # (as if the nodes were still held)
    assert policy.schedule(0.0, view) == []
    view.free_procs = 2
    view.now = 1e-12
    q = policy.alloc[0]
    assert policy.schedule(1e-12, view) == [Start(0, q)]


def test_rand_seed_is_checked() -> None:
    """A negative or non-integer seed is a ConfigError naming the option."""
    with pytest.raises(ConfigError, match="seed"):
        make_policy("rand", seed=-1)
    with pytest.raises(ConfigError, match="seed"):
        make_policy("rand", seed=1.5)


# -- Ref4 and RefN -----------------------------------------------------------------------------
_SLOT_CHAINS = [[2, 2], [4], [2], [6], [2, 2]]  # C0 .. C4; workload rows 0-1, 2, 3, 4, 5-6


def test_ref4_binds_chains_to_slots() -> None:
    """N = 8: 4 slots of 2 nodes; tasks run w / 2.

    t=0: C0..C3 take slots 0..3 in release order; C4 waits.
    t=1: C0's first task ends and its child is released: it goes on at once on slot 0
      [1, 2); C2 ends with no child: slot 2 takes C4: [1, 2), then its child [2, 3).
    C1 [0, 2) on slot 1, C3 [0, 3) on slot 3. Cmax 3, bound 20 / 8.
    """
    jobs, summary = run_checked(chain_workload(_SLOT_CHAINS, procs=8), "ref4")
    assert jobs.procs.tolist() == [2] * 7
    assert jobs.slot.tolist() == [0, 0, 1, 2, 3, 2, 2]
    assert jobs.started_at.tolist() == [0, 1, 0, 0, 0, 1, 2]
    assert jobs.finished_at.tolist() == [1, 2, 2, 1, 3, 2, 3]
    assert summary["normalized_cmax"] == pytest.approx(3 / 2.5)


def test_refn_one_node_per_slot() -> None:
    """N = 8: 8 slots of one node: every chain starts at 0 on its own node and runs its
    tasks back to back at sequential speed: Cmax 6 (C3)."""
    jobs, _ = run_checked(chain_workload(_SLOT_CHAINS, procs=8), "refn")
    assert jobs.procs.tolist() == [1] * 7
    assert jobs.slot.tolist() == [0, 0, 1, 2, 3, 4, 4]
    assert jobs.started_at.tolist() == [0, 2, 0, 0, 0, 0, 2]
    assert jobs.finished_at.max() == 6


def test_a_chain_keeps_its_slot_before_waiting_chains() -> None:
    """N = 4, Ref4: 4 slots of 1 node. C0 = [1, 1], C1..C3 = [5], C4 = [1] waits.
    At t=1 C0's child is released with C4 waiting: the child keeps slot 0 [1, 2); C4 gets
    slot 0 only when C0 ends: [2, 3)."""
    jobs, _ = run_checked(chain_workload([[1, 1], [5], [5], [5], [1]], procs=4), "ref4")
    assert jobs.slot.tolist() == [0, 0, 1, 2, 3, 0]
    assert jobs.started_at.tolist() == [0, 1, 0, 0, 0, 2]


def test_slots_parameter_and_small_machines() -> None:
    """``slots`` sets the slot count (floor(N / slots) nodes each); Ref4 on N = 2 < 4 is
    2 slots of one node (RefN); nodes left by the floor stay idle."""
    jobs, _ = run_checked(
        chain_workload(_SLOT_CHAINS, procs=8), "ref4", slots=2
    )  # 2 slots of 4 nodes
    assert jobs.procs.tolist() == [4] * 7
    assert peak_procs(jobs) <= 8
    small, _ = run_checked(chain_workload(_SLOT_CHAINS, procs=2), "ref4")
    refn, _ = run_checked(chain_workload(_SLOT_CHAINS, procs=2), "refn")
    assert small.equals(refn)
    assert small.procs.tolist() == [1] * 7
    odd, _ = run_checked(chain_workload(_SLOT_CHAINS, procs=7), "ref4")  # 4 slots of 1 node, 3 idle
    assert odd.procs.tolist() == [1] * 7
    assert peak_procs(odd) <= 4


def test_slot_layout() -> None:
    """min(slots, N) slots of max(1, N // slots) nodes; 0 slots means one per node."""

    class View:
        def __init__(self, n: int) -> None:
            self.total_procs = n
            self.parent: list[int] = []

    for cls, n, slots, expected in [
        (Ref4, 64, None, (4, 16)),
        (Ref4, 3, None, (3, 1)),
        (Ref4, 10, None, (4, 2)),
        (RefN, 64, None, (64, 1)),
        (Ref4, 64, 8, (8, 8)),
        (RefN, 5, 0, (5, 1)),
    ]:
        policy = cls(SlotParams(slots) if slots is not None else None)
        policy.setup(View(n))  # type: ignore[arg-type]
        assert (policy.slot_count, policy.slot_procs) == expected, (cls, n, slots)
    with pytest.raises(ConfigError, match="slots"):
        make_policy("ref4", slots=-1)


# -- every policy on random small multi-level instances ----------------------------------------
@st.composite
def instances(draw: st.DrawFn) -> tuple[list[list[float]], int, float]:
    """1-6 chains of 1-5 tasks, sequential times from HLW's {1, 15} and small integers,
    1-9 nodes, pi from 0 to 1."""
    procs = draw(st.integers(1, 9))
    pi = draw(st.sampled_from([0.0, 0.5, 0.9, 0.99, 1.0]))
    times = st.sampled_from([1.0, 15.0, 2.0, 3.0, 0.5])
    chains = draw(st.lists(st.lists(times, min_size=1, max_size=5), min_size=1, max_size=6))
    return chains, procs, pi


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(instances())
def test_every_policy_gives_valid_schedules(inst: tuple[list[list[float]], int, float]) -> None:
    """Valid (the kernel's checker), each task after its parent's end (released then, zero
    think time), allocations in [1, N], never more than N in use, normalized Cmax >= 1.
    rand starts every task at its reservation; Ref4/RefN run a chain on one slot, each task
    at its parent's end, one task at a time per slot, on the slot's nodes."""
    chains, procs, pi = inst
    wl = chain_workload(chains, procs, pi)
    parent = dependencies(wl).parent
    for name in ONLINE_POLICIES:
        jobs, summary = run_checked(wl, name)
        started = jobs.started_at.to_numpy()
        finished = jobs.finished_at.to_numpy()
        kids = parent >= 0
        assert (started[kids] >= finished[parent[kids]]).all(), name
        assert (jobs.submitted_at.to_numpy()[kids] == finished[parent[kids]]).all(), name
        assert jobs.procs.between(1, procs).all(), name
        assert peak_procs(jobs) <= procs, name
        assert summary["normalized_cmax"] >= 1.0 - 1e-12, name
        assert not jobs.killed.any(), name
        if name == "rand":
            assert np.allclose(started, jobs.reservation_at.to_numpy()), name
        if name in ("ref4", "refn"):
            slot = jobs.slot.to_numpy()
            assert (slot[kids] == slot[parent[kids]]).all(), name
            assert (started[kids] == finished[parent[kids]]).all(), name
            assert len(set(jobs.procs)) == 1, name
            for s in set(slot.tolist()):
                on = np.argsort(started[slot == s], kind="stable")
                begin, end = started[slot == s][on], finished[slot == s][on]
                assert (begin[1:] >= end[:-1]).all(), name
