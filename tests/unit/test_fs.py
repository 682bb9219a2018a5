"""The FS family of paper 004 (SPEC 7): fair share, longest first, skipping, X, delta, kmP.

Every instance is built by hand: chains of tasks (a root and the tasks its end releases,
zero think time), one processor requested each, Amdahl's law with pi = 1 unless said
otherwise, so a task of sequential time w runs w / q on q nodes and the times below are
exact. Local indices (the order tasks reach the policy) are given with each instance.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedlab
from moldable_instances import chain_workload, run_checked
from schedlab.engine.decisions import Decision, WakeAt
from schedlab.engine.protocol import ClusterView
from schedlab.errors import ConfigError
from schedlab.schedulers.moldable.fs import (
    FairShare,
    FairShare05,
    FairShare05Params,
    FairShare05X,
    FsParams,
)
from schedlab.schedulers.registry import make_policy, policy_class
from schedlab.workload.job import Workload

FS_NAMES = ("fs", "fs0.5", "fs0.5x", "fs0.5mpx")


# -- allocation and list scheduling ------------------------------------------------------------
def test_longest_first_with_ties_by_arrival() -> None:
    """On one node q_FS is 1 for all: tasks run longest first, equal times in arrival order.

    Roots w = [1, 3, 3] (local 0, 1, 2). t=0: times 1, 3, 3 -> order 1, 2, 0: task 1
    [0, 3). t=3: A = {0, 2}: task 2 (3) before task 0 (1): [3, 6), then task 0 [6, 7).
    """
    jobs, summary = run_checked(chain_workload([[1], [3], [3]], procs=1), "fs")
    assert jobs.started_at.tolist() == [6.0, 0.0, 3.0]
    assert jobs.procs.tolist() == [1, 1, 1]
    assert summary["normalized_cmax"] == pytest.approx(1.0)


def test_fair_share_rounding_and_skipping() -> None:
    """q_FS rounds down (at least 1); a task that does not fit is skipped, the scan goes on.

    N = 4. Chains A = [8], B = [2, 6], C = [2, 1]; local 0 A1, 1 B1, 2 C1, 3 B2, 4 C2.
    t=0: sum w = 12: q(A1) = floor(32/12 = 2.67) = 2, q(B1) = q(C1) = floor(0.67) -> 1;
      times 4, 2, 2; all fit: A1 [0, 4) on 2, B1 and C1 [0, 2) on 1.
    t=2: B2 (6) and C2 (1) released, 2 nodes free; sum w = 7: q(B2) = floor(24/7 = 3.43)
      = 3, time 2; q(C2) = floor(0.57) -> 1, time 1. B2 first but needs 3 > 2: skipped;
      C2 fits: [2, 3) on 1.
    t=3: A = {B2}: q = 4, 1 free: waits. t=4: A1 ends: B2 [4, 5.5) on 4.
    Cmax 5.5; bound 19 / 4 = 4.75.
    """
    jobs, summary = run_checked(chain_workload([[8], [2, 6], [2, 1]], procs=4), "fs")
    assert jobs.procs.tolist() == [2, 1, 4, 1, 1]  # workload order: A1, B1, B2, C1, C2
    assert jobs.started_at.tolist() == [0.0, 0.0, 4.0, 0.0, 2.0]
    assert jobs.finished_at.tolist() == [4.0, 2.0, 5.5, 2.0, 3.0]
    assert summary["normalized_cmax"] == pytest.approx(5.5 / 4.75)


def test_extra_nodes_go_to_the_started_tasks() -> None:
    """X: the node left free at t=2 goes to C2, the only task started then.

    Same instance as the skipping test: at t=2 C2 starts on 1 node and 1 stays free, so C2
    gets 2 nodes and runs [2, 2.5); B2 (skipped, not started) gets nothing. At t=0 the
    shares use all 4 nodes: no extra node.
    """
    jobs, _ = run_checked(chain_workload([[8], [2, 6], [2, 1]], procs=4), "fs", extra_nodes=True)
    assert jobs.procs.tolist() == [2, 1, 4, 1, 2]  # workload order: A1, B1, B2, C1, C2
    assert jobs.finished_at.tolist() == [4.0, 2.0, 5.5, 2.0, 2.5]


def test_extra_nodes_to_the_longest_current_time() -> None:
    """X gives each free node to the started task with the longest *current* time.

    N = 8, roots w = [4, 1, 1]: sum 6, q = floor(5.33) = 5, floor(1.33) = 1, 1: one node
    free. Times 0.8, 1, 1: the longest are tasks 1 and 2 (tie: first arrived), so task 1
    gets it: procs [5, 2, 1] (the widest task is not the one served).
    """
    jobs, _ = run_checked(chain_workload([[4], [1], [1]], procs=8), "fs", extra_nodes=True)
    assert jobs.procs.tolist() == [5, 2, 1]
    assert jobs.finished_at.tolist() == pytest.approx([0.8, 0.5, 1.0])


def test_extra_nodes_recomputed_after_each_node() -> None:
    """Times are recomputed after each extra node: the same task is not served twice.

    N = 8, roots w = [1, 1, 1]: q = floor(8/3) = 2 each, 2 nodes free, times 0.5 each.
    Node 1: tie, task 0 -> 3 nodes (1/3). Node 2: tasks 1 and 2 at 0.5, task 1 -> 3.
    """
    jobs, _ = run_checked(chain_workload([[1], [1], [1]], procs=8), "fs", extra_nodes=True)
    assert jobs.procs.tolist() == [3, 3, 2]
    plain, _ = run_checked(chain_workload([[1], [1], [1]], procs=8), "fs")
    assert plain.procs.tolist() == [2, 2, 2]


# -- delta -------------------------------------------------------------------------------------
def _delta_instance(c: float) -> Workload:
    """N = 4, chains A = [1, 1], B = [1, 1], C = [c]; local 0 A1, 1 B1, 2 C1, 3 A2, 4 B2.

    t=0: sum w = 2 + c: A1, B1 on 1 node, C1 on 2 (for c in [2.4, 3.2]); A1 and B1 end at
    1, C1 at c / 2. t=1: A2 and B2 released, q = 2 each (time 0.5), 2 nodes free.
    """
    return chain_workload([[1, 1], [1, 1], [c]], procs=4)


def test_plain_fs_starts_what_fits() -> None:
    """FS at t=1: A2 (tie, first arrived) [1, 1.5) on 2; B2 waits: at 1.2 C1 ends but B2's
    share is then 4 with 2 free; at 1.5 A2 ends: B2 [1.5, 1.75) on 4."""
    jobs, _ = run_checked(_delta_instance(2.4), "fs")  # workload order: A1, A2, B1, B2, C1
    assert jobs.started_at.tolist() == pytest.approx([0.0, 1.0, 0.0, 1.5, 0.0])
    assert jobs.procs.tolist() == [1, 2, 1, 4, 2]


def test_fixed_delta_waits_for_an_end_within_delta() -> None:
    """FS0.5 at t=1: C1 ends at 1.2 in (1, 1.5]: nothing starts, a wake-up at 1.2; then
    A2 and B2 start together on 2 nodes each, [1.2, 1.7). Cmax 1.7, bound 6.4 / 4."""
    jobs, summary = run_checked(_delta_instance(2.4), "fs0.5")
    assert jobs.started_at.tolist() == pytest.approx([0.0, 1.2, 0.0, 1.2, 0.0])
    assert jobs.procs.tolist() == [1, 2, 1, 2, 2]
    assert summary["normalized_cmax"] == pytest.approx(1.7 / 1.6)


def test_an_end_exactly_at_t_plus_delta_blocks_and_an_end_at_t_does_not() -> None:
    """c = 3: C1 ends at 1.5 = 1 + delta exactly: FS0.5 waits (closed interval). At 1.5 C1
    has ended (ends come before the pass), so it does not block: A2, B2 [1.5, 2)."""
    jobs, _ = run_checked(_delta_instance(3.0), "fs0.5")
    assert jobs.started_at.tolist() == [0.0, 1.5, 0.0, 1.5, 0.0]
    assert jobs.finished_at.tolist() == [1.0, 2.0, 1.0, 2.0, 1.5]


def test_an_end_after_t_plus_delta_does_not_block() -> None:
    """c = 3.2: C1 ends at 1.6 > 1.5: FS0.5 starts A2 at 1 as FS does. At 1.5 (A2 ends) C1
    ends within delta: B2 waits for 1.6, where it would start anyway (share 4)."""
    jobs, _ = run_checked(_delta_instance(3.2), "fs0.5")
    assert jobs.started_at.tolist() == pytest.approx([0.0, 1.0, 0.0, 1.6, 0.0])
    assert jobs.procs.tolist() == [1, 2, 1, 4, 2]


class _Recording(FairShare05):
    """FS0.5 that records every pass: (now, decisions)."""

    def setup(self, view: ClusterView) -> None:
        super().setup(view)
        self.passes: list[tuple[float, list[Decision]]] = []

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        out = super().schedule(now, view)
        self.passes.append((now, list(out)))
        return out


def test_a_blocked_pass_asks_to_be_woken_at_the_first_end_once() -> None:
    """The blocked pass at t=1 returns exactly WakeAt(1.2) (C1's end), nothing else; the
    pass at 1.2 starts A2 and B2 and asks for nothing more."""
    policy = _Recording(FairShare05Params())
    schedlab.simulate(_delta_instance(2.4), policy, check=True)
    at = {now: out for now, out in policy.passes}
    assert at[1.0] == [WakeAt(1.2)]
    assert sorted(d.job for d in at[1.2]) == [3, 4]  # type: ignore[union-attr]
    wakes = [d for _, out in policy.passes for d in out if isinstance(d, WakeAt)]
    assert wakes == [WakeAt(1.2)]


def test_proportional_delta() -> None:
    """kmP, k = 0.5: at t=1 the smallest available time is 0.5 (A2, B2 on 2), delta 0.25.
    c = 2.4: C1 ends at 1.2 <= 1.25: wait, as FS0.5. c = 2.8: C1 ends at 1.4 > 1.25: A2
    starts at 1 as in FS (while a fixed delta of 0.5 waits for 1.4)."""
    jobs, _ = run_checked(_delta_instance(2.4), "fs", delta_mode="proportional", k=0.5)
    assert jobs.started_at.tolist() == pytest.approx([0.0, 1.2, 0.0, 1.2, 0.0])
    jobs, _ = run_checked(_delta_instance(2.8), "fs", delta_mode="proportional", k=0.5)
    assert jobs.started_at.tolist() == pytest.approx([0.0, 1.0, 0.0, 1.5, 0.0])
    jobs, _ = run_checked(_delta_instance(2.8), "fs0.5")
    assert jobs.started_at.tolist() == pytest.approx([0.0, 1.4, 0.0, 1.4, 0.0])
    # the preset: proportional delta and X (no node left free here: same as above)
    jobs, _ = run_checked(_delta_instance(2.4), "fs0.5mpx")
    assert jobs.started_at.tolist() == pytest.approx([0.0, 1.2, 0.0, 1.2, 0.0])


def test_amdahl_times_come_from_the_engine() -> None:
    """pi = 0.5, N = 4, two roots of w = 2: q = 2 each, time 2 x (0.5 + 0.25) = 1.5."""
    jobs, summary = run_checked(chain_workload([[2], [2]], procs=4, pi=0.5), "fs")
    assert jobs.procs.tolist() == [2, 2]
    assert jobs.finished_at.tolist() == [1.5, 1.5]
    assert summary["normalized_cmax"] == pytest.approx(1.5)


# -- configuration -----------------------------------------------------------------------------
def test_presets() -> None:
    """The paper's variants are registered names with their own defaults, one Params type."""
    defaults = {
        "fs": (0.0, "fixed", False),
        "fs0.5": (0.5, "fixed", False),
        "fs0.5x": (0.5, "fixed", True),
    }
    for name, (delta, mode, extra) in defaults.items():
        p = make_policy(name).params  # type: ignore[attr-defined]
        assert (p.delta, p.delta_mode, p.extra_nodes) == (delta, mode, extra)
        assert isinstance(p, FsParams)
    p = make_policy("fs0.5mpx").params  # type: ignore[attr-defined]
    assert (p.delta_mode, p.k, p.extra_nodes) == ("proportional", 0.5, True)
    assert issubclass(policy_class("fs0.5x"), FairShare)
    assert isinstance(make_policy("fs0.5", extra_nodes=True), FairShare05)
    assert policy_class("fs0.5x") is FairShare05X


@pytest.mark.parametrize(
    "params",
    [
        {"delta": -0.5},
        {"delta": float("inf")},
        {"k": -1.0},
        {"delta_mode": "relative"},
        {"extra_nodes": "yes"},
    ],
)
def test_bad_params_are_config_errors(params: dict[str, Any]) -> None:
    """Each bad value names its option (constructed directly or through the registry)."""
    with pytest.raises(ConfigError) as err:
        FsParams(**params)
    assert next(iter(params)) in str(err.value)
    with pytest.raises(ConfigError):
        make_policy("fs0.5", **params)


@pytest.mark.parametrize("name", FS_NAMES)
def test_rigid_jobs_keep_their_size(name: str) -> None:
    """Without a speed-up model a task is rigid: it runs at its own size, no extra node."""
    rows = [
        [1, 0, -1, 3, 2, -1, -1, 2, 3, -1, 1, 1, 1, -1, 1, -1, -1, 0],
        [2, 0, -1, 1, 1, -1, -1, 1, 1, -1, 1, 1, 1, -1, 1, -1, 1, 0],
    ]
    wl = Workload.from_fields(np.array(rows, dtype=np.float64), max_procs=4)
    result = schedlab.simulate(wl, name, check=True)
    assert result.jobs.procs.tolist() == [2, 1]
    assert result.jobs.started_at.tolist() == [0.0, 3.0]


# -- against a slow, direct reading of SPEC 7 ----------------------------------------------------
def reference_fs(
    chains: list[list[float]],
    n_procs: int,
    pi: float,
    delta: float = 0.0,
    proportional: bool = False,
    k: float = 0.5,
    extra: bool = False,
) -> tuple[list[float], list[int]]:
    """FS as SPEC 7 words it, on its own clock: start time and nodes of each task (workload
    order). Passes at every end instant (ends at 0 think time release the next task of the
    chain; tasks arrive by release time, then workload order); a blocked pass starts
    nothing, and the blocking task's end is itself the next instant."""
    work: list[float] = []
    child: list[int] = []
    roots: list[int] = []
    for chain in chains:
        roots.append(len(work))
        for pos, w in enumerate(chain):
            work.append(w)
            child.append(len(work) if pos + 1 < len(chain) else -1)
    n = len(work)
    start = [float("nan")] * n
    alloc = [0] * n
    available = [(0.0, j) for j in roots]  # (release time, workload position)
    running: dict[int, float] = {}
    now = 0.0
    while True:
        free = n_procs - sum(alloc[j] for j in running)
        if available and free > 0:
            total = sum(work[j] for _, j in available)
            share = {}
            time = {}
            for _, j in available:
                q = max(1, min(n_procs, int(work[j] * n_procs / total + 1e-9)))
                share[j] = q
                time[j] = work[j] * ((1.0 - pi) + pi / q)
            d = k * min(time.values()) if proportional else delta
            blocked = d > 0 and any(e <= now + d for e in running.values())
            if not blocked:
                started = []
                for _, j in sorted(available, key=lambda a: (-time[a[1]], a)):
                    if share[j] <= free:
                        free -= share[j]
                        started.append(j)
                arrival = {j: (-t, -j) for t, j in available}  # larger: arrived first
                while extra and started and free > 0:
                    j = max(started, key=lambda s: (time[s], arrival[s]))  # ties: first arrived
                    share[j] += 1
                    time[j] = work[j] * ((1.0 - pi) + pi / share[j])
                    free -= 1
                for j in started:
                    start[j] = now
                    alloc[j] = share[j]
                    running[j] = now + time[j]
                available = [a for a in available if a[1] not in started]
        if not running:
            assert not available
            return start, alloc
        now = min(running.values())
        for j in sorted(j for j, e in running.items() if e == now):
            del running[j]
            if child[j] >= 0:
                available.append((now, child[j]))


VARIANTS = {
    "fs": {},
    "fs0.5": {"delta": 0.5},
    "fs0.5x": {"delta": 0.5, "extra": True},
    "fs0.5mpx": {"proportional": True, "k": 0.5, "extra": True},
}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(
        st.lists(st.sampled_from([1.0, 15.0, 2.0, 0.5, 3.0]), min_size=1, max_size=5),
        min_size=1,
        max_size=7,
    ),
    st.integers(1, 9),
    st.sampled_from([1.0, 0.99, 0.9, 0.5, 0.0]),
)
def test_fs_equals_a_direct_reading(chains: list[list[float]], procs: int, pi: float) -> None:
    """Every FS variant gives the start times and allocations of `reference_fs`."""
    wl = chain_workload(chains, procs, pi)
    for name, options in VARIANTS.items():
        jobs, _ = run_checked(wl, name)
        start, alloc = reference_fs(chains, procs, pi, **options)  # type: ignore[arg-type]
        assert jobs.procs.tolist() == alloc, name
        assert jobs.started_at.tolist() == pytest.approx(start), name


def test_share_of_present_counts_the_running_tasks() -> None:
    """share_of="present" divides the nodes among available and running tasks.

    N = 4, pi = 1. Chains A = [1, 3], B = [8]; rows (global ids) 0 A1, 1 A2, 2 B1.
    t=0: A = {A1, B1}, sum w = 9: q(A1) = floor(4/9) -> 1, time 1; q(B1) = floor(32/9 =
      3.56) = 3, time 8/3. Both start.
    t=1: A1 ends, A2 (w 3) released; 1 node free.
      "available": sum = 3, q(A2) = 4 > 1 free: skipped; at 8/3 B1 ends and A2 runs on 4:
      3/4 -> ends at 8/3 + 0.75.
      "present": sum = 3 + 8 (B1 runs) = 11, q(A2) = floor(12/11) = 1: starts at 1 on 1
      node -> ends at 4.
    """
    wl = chain_workload([[1, 3], [8]], procs=4)
    jobs, _ = run_checked(wl, "fs")
    assert jobs.procs.tolist() == [1, 4, 3]
    assert jobs.finished_at.tolist()[1] == pytest.approx(8 / 3 + 0.75)
    jobs, _ = run_checked(wl, "fs", share_of="present")
    assert jobs.procs.tolist() == [1, 1, 3]
    assert jobs.started_at.tolist()[1] == 1.0 and jobs.finished_at.tolist()[1] == 4.0
    with pytest.raises(ConfigError, match="share_of"):
        make_policy("fs", share_of="everyone")
