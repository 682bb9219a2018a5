"""CPA (Radulescu & van Gemund 2001), the clairvoyant reference of paper 004 (SPEC 7):
allocation loop and list schedule on hand-computed DAGs, plans valid on random forests, the
loop equal to an obviously correct (slow) reference, and the replay through the engine
starting every task exactly at its planned time."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedlab
from schedlab.engine.durations import RIGID, Amdahl, SpeedupModel
from schedlab.errors import ConfigError, PolicyError
from schedlab.schedulers import make_policy
from schedlab.schedulers.moldable.cpa import (
    CpaInstance,
    CpaParams,
    CpaPlan,
    CriticalPathAndArea,
    allocate,
    average_area_time,
    bottom_levels,
    critical_path_time,
    list_schedule,
    plan_cpa,
)
from schedlab.workload.job import N_FIELDS, F, Workload

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)


def instance(
    work: list[float],
    parent: list[int],
    pi: float | list[float] = 1.0,
    *,
    think: list[float] | None = None,
    release_at: list[float] | None = None,
    size: list[int] | None = None,
) -> CpaInstance:
    """Tasks of ``work`` seconds on one processor; pi NaN means rigid (on ``size``)."""
    n = len(work)
    pis = pi if isinstance(pi, list) else [pi] * n
    models: list[SpeedupModel] = [RIGID if math.isnan(p) else Amdahl(p) for p in pis]
    return CpaInstance(
        work=[float(w) for w in work],
        models=models,
        size=size or [1] * n,
        parent=parent,
        think=think or [0.0] * n,
        release_at=release_at or [0.0] * n,
    )


def workload(
    work: list[float],
    parent: list[int],
    pi: float | list[float],
    procs: int,
    *,
    think: list[float] | None = None,
    submit: list[float] | None = None,
    size: list[int] | None = None,
) -> Workload:
    """The same DAG as SWF rows: field 17 names the parent's job id (an earlier row), 18 the
    think time; a moldable task asks 1 processor for its sequential time."""
    n = len(work)
    rows = np.full((n, N_FIELDS), -1.0)
    rows[:, F["job_id"]] = np.arange(1, n + 1)
    rows[:, F["submit_time"]] = submit if submit is not None else 0.0
    rows[:, F["run_time"]] = work
    rows[:, F["requested_time"]] = work
    rows[:, F["allocated_procs"]] = size if size is not None else 1
    rows[:, F["requested_procs"]] = size if size is not None else 1
    rows[:, F["preceding_job_id"]] = [p + 1 if p >= 0 else -1 for p in parent]
    rows[:, F["think_time"]] = think if think is not None else 0.0
    pis = np.asarray(pi if isinstance(pi, list) else [pi] * n, dtype=np.float64)
    return Workload.from_fields(rows, max_procs=procs).with_attribute("parallel_fraction", pis)


# -- hand-computed DAGs ---------------------------------------------------------------------
# Two chains on P = 4: A = a1 (work 6) -> a2 (work 3), B = b1 (work 3); ids a1 = 0, a2 = 1,
# b1 = 2. Amdahl: t(q) = w ((1 - pi) + pi / q); gain g(q) = t(q)/q - t(q+1)/(q+1).


def test_two_chains_pi_1_allocation_and_schedule() -> None:
    """pi = 1: t(q) = w / q and the area is constant: T_A = (6 + 3 + 3) / 4 = 3.

    start  T_CP = 9 (chain A) > 3. gains a1: 6 - 3 = 3, a2: 3 - 1.5 = 1.5  -> a1 to 2 (t 3)
    it 1   T_CP = 6 > 3. a1: 3/2 - 2/3 = 0.833, a2: 1.5                   -> a2 to 2 (t 1.5)
    it 2   T_CP = 4.5 > 3. a1: 0.833, a2: 1.5/2 - 1/3 = 0.417             -> a1 to 3 (t 2)
    it 3   T_CP = 3.5 > 3. a1: 2/3 - 1.5/4 = 0.292, a2: 0.417             -> a2 to 3 (t 1)
    it 4   T_CP = max(A 3, B 3) = 3 <= T_A = 3: stop after 4 iterations, (3, 3, 1).
    Schedule: bottom levels a1 3, b1 3, a2 1; order a1 (index 0 before 2), b1, a2.
    a1 [0, 2) on 3; b1 on 1 at 0 (1 free): [0, 3); a2 ready at 2, 3 free then: [2, 3).
    Makespan 3 = T_CP.
    """
    plan = plan_cpa(instance([6, 3, 3], [-1, 0, -1], 1.0), 4)
    assert plan.procs.tolist() == [3, 3, 1]
    assert plan.iterations == 4
    assert plan.allocation.critical_path_time == 3.0
    assert plan.allocation.average_area_time == 3.0
    assert plan.order.tolist() == [0, 2, 1]
    assert plan.start_at.tolist() == [0.0, 2.0, 0.0]
    assert plan.end_at.tolist() == [2.0, 3.0, 3.0]
    assert plan.makespan == 3.0


def test_two_chains_pi_09_allocation_and_schedule() -> None:
    """pi = 0.9: f(q) = 0.1 + 0.9/q: f(1..4) = 1, 0.55, 0.4, 0.325; f(q)/q = 1, 0.275,
    0.1333, 0.08125, so g = w x (0.725, 0.14167, 0.05208) at q = 1, 2, 3.
    a1 (w 6): t = 6, 3.3, 2.4, 1.95; g = 4.35, 0.85, 0.3125. a2 (w 3): t = 3, 1.65, 1.2,
    0.975; g = 2.175, 0.425, 0.15625. b1: t = 3.

    start  T_CP 9,   area 12   (T_A 3):     a1 4.35 vs a2 2.175 -> a1 to 2 (t 3.3)
    it 1   T_CP 6.3, area 12.6 (T_A 3.15):  a1 0.85 vs a2 2.175 -> a2 to 2 (t 1.65)
    it 2   T_CP 4.95, area 12.9 (3.225):    a1 0.85 vs a2 0.425 -> a1 to 3 (t 2.4)
    it 3   T_CP 4.05, area 13.5 (3.375):    a1 0.3125 vs a2 0.425 -> a2 to 3 (t 1.2)
    it 4   T_CP 3.6, area 13.8 (3.45):      a1 0.3125 vs a2 0.15625 -> a1 to 4 (t 1.95)
    it 5   T_CP = max(A 3.15, B 3) = 3.15 <= T_A = 14.4 / 4 = 3.6: stop; (4, 3, 1).
    Schedule: bottom levels a1 3.15, b1 3, a2 1.2: order a1, b1, a2.
    a1 [0, 1.95) on all 4; b1 (1 proc) first fits at 1.95: [1.95, 4.95); a2 ready at 1.95,
    3 free: [1.95, 3.15). Makespan 4.95 > T_CP: b1 waited behind a1 (CPA's weakness).
    """
    plan = plan_cpa(instance([6, 3, 3], [-1, 0, -1], 0.9), 4)
    assert plan.procs.tolist() == [4, 3, 1]
    assert plan.iterations == 5
    assert plan.allocation.critical_path_time == pytest.approx(3.15)
    assert plan.allocation.average_area_time == pytest.approx(3.6)
    assert plan.order.tolist() == [0, 2, 1]
    np.testing.assert_allclose(plan.start_at, [0.0, 1.95, 1.95])
    np.testing.assert_allclose(plan.end_at, [1.95, 3.15, 4.95])


def test_fork_follows_the_longest_child() -> None:
    """A tree that is not a chain: r (work 2) with children a (4) and b (1), pi = 1, P = 2.
    T_A = 7/2 = 3.5 throughout. Path r -> a (bl a 4 > b 1), T_CP 6: gains r 2-1 = 1,
    a 4-2 = 2 -> a to 2 (t 2). T_CP = 2 + 2 = 4 > 3.5, path r -> a, a is at P: r to 2 (t 1).
    T_CP 3 <= 3.5: stop, (2, 2, 1) in 2 iterations. Schedule: r [0, 1) on 2, a [1, 3) on 2,
    b ready at 1 but first fits at 3: [3, 4)."""
    plan = plan_cpa(instance([2, 4, 1], [-1, 0, 0], 1.0), 2)
    assert plan.procs.tolist() == [2, 2, 1]
    assert plan.iterations == 2
    assert plan.start_at.tolist() == [0.0, 1.0, 3.0]
    assert plan.end_at.tolist() == [1.0, 3.0, 4.0]


def test_fork_gain_ties_go_to_the_lowest_index() -> None:
    """r (work 2) with children a (2) and b (1), pi = 1, P = 4; T_A = 5/4 throughout. Path
    r -> a; gains r 2 - 1 = 1 and a 2 - 1 = 1 tie: r (index 0) grows first, then a."""
    inst = instance([2, 2, 1], [-1, 0, 0], 1.0)
    assert allocate(inst, 4, max_iterations=1).procs == [2, 1, 1]
    assert allocate(inst, 4, max_iterations=2).procs == [2, 2, 1]


def test_an_exact_tie_of_tcp_and_ta_stops_despite_rounding() -> None:
    """Chain 1 -> 2 (work 15, 1, pi = 1) beside a task of work 1 (pi = 0.5), P = 16:
    T_A = (1 + 15 + 1) / 16 = 1.0625 throughout (pi = 1 keeps the area). After 22 iterations
    (16, 8): T_CP = 15/16 + 1/8 = 1.0625 = T_A exactly, but the running length, updated by
    differences, is a few ulps above: the loop recomputes it near the tie and stops there."""
    inst = instance([1, 15, 1], [-1, -1, 1], [0.5, 1.0, 1.0])
    alloc = allocate(inst, 16)
    assert alloc.procs == [1, 16, 8]
    assert alloc.iterations == 22
    assert alloc.critical_path_time == alloc.average_area_time == 1.0625


def test_an_exact_tie_of_two_trees_goes_to_the_lowest_root_despite_rounding() -> None:
    """A lone task 0 (work 3, pi = 0.5) beside the chain 1 -> 2 (15, 1, pi = 1), P = 16.
    After 6 iterations the chain is on (6, 2): 15/6 + 1/2 = 3, the lone task's time: the
    trees tie exactly and the lowest root (task 0) must grow, although the chain's running
    length is not exactly 3. The whole loop ends on (7, 10, 4), T_CP = T_A = 1.75."""
    inst = instance([3, 15, 1], [-1, -1, 1], [0.5, 1.0, 1.0])
    assert allocate(inst, 16, max_iterations=6).procs == [1, 6, 2]
    assert allocate(inst, 16, max_iterations=7).procs == [2, 6, 2]
    alloc = allocate(inst, 16)
    assert alloc.procs == [7, 10, 4]
    assert alloc.critical_path_time == alloc.average_area_time == 1.75


def test_an_exact_tie_with_the_running_area_stops_the_loop() -> None:
    """Two lone tasks of work 3 and 1, pi = 1, P = 16: the area stays 4 (T_A = 0.25) but
    its running sum drifts; on (12, 4) T_CP = 3/12 = 1/4 = T_A exactly: stop there."""
    alloc = allocate(instance([3, 1], [-1, -1], 1.0), 16)
    assert alloc.procs == [12, 4]
    assert alloc.critical_path_time == alloc.average_area_time == 0.25


def test_think_times_count_in_the_critical_path_and_delay_the_child() -> None:
    """Chain x (work 2) -> y (work 2) with 5 s of think between, P = 4, pi = 1: T_CP =
    2 + 5 + 2 = 9 > T_A = 1. Gains tie (x and y: 2 - 1 = 1, then 1/2 - 2/9 each, ...): the
    lower index grows first, so x and y alternate until both reach P = 4 (6 iterations), when
    no task of the path can grow: T_CP = 0.5 + 5 + 0.5 = 6 still > T_A = 1."""
    inst = instance([2, 2], [-1, 0], 1.0, think=[0.0, 5.0])
    alloc = allocate(inst, 4)
    assert alloc.procs == [4, 4]
    assert alloc.iterations == 6
    assert allocate(inst, 4, max_iterations=1).procs == [2, 1]  # tie: lowest index first
    assert alloc.critical_path_time == 6.0
    start, end, _ = list_schedule(inst, alloc.procs, 4)
    assert start == [0.0, 5.5]
    assert end == [0.5, 6.0]


def test_insertion_fills_a_hole_the_classic_list_schedule_leaves() -> None:
    """P = 1 (nothing grows): a1 (1) -> 2 s think -> a2 (5); b1 (1). Bottom levels a1 1+2+5
    = 8, a2 5, b1 1: order a1, a2, b1. Insertion: a1 [0, 1), a2 [3, 8), b1 in the hole
    [1, 2). Non-insertion: the processor is free at 8 after a2, so b1 [8, 9)."""
    inst = instance([1, 5, 1], [-1, 0, -1], 1.0, think=[0.0, 2.0, 0.0])
    assert allocate(inst, 1).iterations == 0
    start, end, order = list_schedule(inst, [1, 1, 1], 1)
    assert order == [0, 1, 2]
    assert (start, end) == ([0.0, 3.0, 1.0], [1.0, 8.0, 2.0])
    start, end, _ = list_schedule(inst, [1, 1, 1], 1, insertion=False)
    assert (start, end) == ([0.0, 3.0, 8.0], [1.0, 8.0, 9.0])


def test_no_growth_when_the_area_dominates() -> None:
    """Many independent one-task chains: T_CP = 3 <= T_A = 8 x 3 / 2 = 12 from the start."""
    plan = plan_cpa(instance([3.0] * 8, [-1] * 8, 0.99), 2)
    assert plan.iterations == 0
    assert plan.procs.tolist() == [1] * 8
    assert plan.makespan == 12.0


def test_rigid_tasks_keep_their_size_and_never_grow() -> None:
    """A rigid task on the critical path blocks growth: the loop stops when no task of the
    path can grow (here the only one is rigid), even though T_CP > T_A."""
    inst = instance([10, 1], [-1, -1], [math.nan, 0.9], size=[2, 1])
    plan = plan_cpa(inst, 8)
    assert plan.procs.tolist() == [2, 1]
    assert plan.iterations == 0
    assert plan.start_at.tolist() == [0.0, 0.0]


def test_bad_instances_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="cpa parent of task 0"):
        instance([1, 1], [1, 0])  # a cycle
    with pytest.raises(ConfigError, match="cpa parent of task 1"):
        instance([1, 1], [-1, 5])
    with pytest.raises(ConfigError, match="cpa size of rigid task 0"):
        plan_cpa(instance([1], [-1], [math.nan], size=[9]), 4)
    with pytest.raises(ConfigError, match="cpa processors"):
        plan_cpa(instance([1], [-1]), 0)


# -- random forests -------------------------------------------------------------------------
@st.composite
def forests(draw: st.DrawFn, max_tasks: int = 14, chains_only: bool = False) -> dict[str, Any]:
    """Small forests (parent an earlier task), integral works, mixed pi (NaN: rigid)."""
    total = draw(st.integers(1, 6))
    n = draw(st.integers(1, max_tasks))
    parent = [-1]
    has_child: set[int] = set()
    for i in range(1, n):
        options = [-1] + [p for p in range(i) if not (chains_only and p in has_child)]
        p = draw(st.sampled_from(options))
        parent.append(p)
        has_child.add(p)
    work = [float(w) for w in draw(st.lists(st.integers(1, 20), min_size=n, max_size=n))]
    pi = draw(st.lists(st.sampled_from([1.0, 0.9, 0.5, math.nan]), min_size=n, max_size=n))
    size = [draw(st.integers(1, total)) if math.isnan(p) else 1 for p in pi]
    think = [float(t) for t in draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))]
    gaps = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    submit = np.cumsum(gaps).astype(float).tolist()
    return {
        "work": work,
        "parent": parent,
        "pi": pi,
        "size": size,
        "think": [t if p >= 0 else 0.0 for t, p in zip(think, parent)],
        "submit": submit,
        "total": total,
    }


def as_instance(f: dict[str, Any]) -> CpaInstance:
    return instance(
        f["work"],
        f["parent"],
        f["pi"],
        think=f["think"],
        release_at=f["submit"],
        size=f["size"],
    )


def assert_valid(inst: CpaInstance, plan: CpaPlan, total: int) -> None:
    """Every task once, on 1..P processors (rigid: its size), its time the model's, after its
    release (roots) or its parent's end plus think; never more than P processors busy."""
    n = len(inst)
    assert sorted(plan.order.tolist()) == list(range(n))
    assert np.all(np.isfinite(plan.start_at))
    for j in range(n):
        q = int(plan.procs[j])
        assert 1 <= q <= total
        if not inst.moldable[j]:
            assert q == inst.size[j]
        assert plan.end_at[j] == plan.start_at[j] + inst.time(j, q)
        p = inst.parent[j]
        ready = inst.release_at[j] if p < 0 else plan.end_at[p] + inst.think[j]
        assert plan.start_at[j] >= ready
    events = sorted(
        [(float(plan.end_at[j]), -int(plan.procs[j])) for j in range(n)]
        + [(float(plan.start_at[j]), int(plan.procs[j])) for j in range(n)]
    )  # ends before starts at the same instant: a start may take what an end frees
    busy = 0
    for _, delta in events:
        busy += delta
        assert busy <= total


def slow_allocation(inst: CpaInstance, total: int) -> list[int]:
    """The allocation loop as the paper states it, everything recomputed at each step."""
    alloc = inst.initial_procs()
    while True:
        bl = bottom_levels(inst, alloc)
        t_cp = max(bl[r] for r in inst.roots)
        if t_cp <= average_area_time(inst, alloc, total):
            return alloc
        j = min((r for r in inst.roots if bl[r] == t_cp), default=-1)
        best, best_gain = -1, -math.inf
        while j >= 0:  # down the critical path
            q = alloc[j]
            if inst.moldable[j] and q < total:
                g = inst.time(j, q) / q - inst.time(j, q + 1) / (q + 1)
                if g > best_gain or (g == best_gain and j < best):
                    best, best_gain = j, g
            kids = inst.children[j]
            j = max(kids, key=lambda c: (inst.think[c] + bl[c], -c)) if kids else -1
        if best < 0:
            return alloc
        alloc[best] += 1


@SETTINGS
@given(forests(), st.booleans())
def test_plans_are_valid_on_random_forests(f: dict[str, Any], insertion: bool) -> None:
    inst = as_instance(f)
    assert_valid(inst, plan_cpa(inst, f["total"], insertion), f["total"])


@SETTINGS
@given(st.one_of(forests(chains_only=True), forests()))
def test_allocation_equals_the_slow_reference(f: dict[str, Any]) -> None:
    """Incremental loop (chain heaps, tree walks, running T_A) = the recomputing one, on
    forests of chains and on any forest."""
    inst = as_instance(f)
    assert allocate(inst, f["total"]).procs == slow_allocation(inst, f["total"])


@SETTINGS
@given(forests())
def test_allocation_stops_at_the_first_state_with_tcp_at_most_ta(f: dict[str, Any]) -> None:
    """Stops when T_CP <= T_A (or when a longest path has no task that can grow); one
    iteration fewer still had T_CP > T_A."""
    inst = as_instance(f)
    total = f["total"]
    alloc = allocate(inst, total)
    tol = 1e-9 * max(1.0, alloc.average_area_time)
    if alloc.critical_path_time > alloc.average_area_time + tol:
        # blocked: some longest path has no growable task
        times = [inst.time(j, q) for j, q in enumerate(alloc.procs)]
        fixed = [-math.inf] * len(inst)
        for j in reversed(inst.order):
            if inst.moldable[j] and alloc.procs[j] < total:
                continue
            tail = max((inst.think[c] + fixed[c] for c in inst.children[j]), default=0.0)
            fixed[j] = times[j] + tail
        assert max(fixed[r] for r in inst.roots) == pytest.approx(alloc.critical_path_time)
    if alloc.iterations:
        before = allocate(inst, total, max_iterations=alloc.iterations - 1)
        assert before.critical_path_time > before.average_area_time - tol


@SETTINGS
@given(forests(max_tasks=10), st.booleans())
def test_replay_starts_every_task_at_its_planned_time(f: dict[str, Any], insertion: bool) -> None:
    """Through simulate (checked): same starts, ends and processors as the plan, bit for bit,
    with either list schedule."""
    wl = workload(
        f["work"],
        f["parent"],
        f["pi"],
        f["total"],
        think=f["think"],
        submit=f["submit"],
        size=f["size"],
    )
    policy = CriticalPathAndArea(CpaParams(insertion=insertion))
    jobs = schedlab.simulate(wl, policy, check=True).jobs
    plan = policy.plan
    assert plan is not None
    assert_valid(as_instance(f), plan, f["total"])
    np.testing.assert_array_equal(jobs["started_at"], plan.start_at)
    np.testing.assert_array_equal(jobs["finished_at"], plan.end_at)
    np.testing.assert_array_equal(jobs["procs"], plan.procs)
    np.testing.assert_array_equal(jobs["planned_start_at"], plan.start_at)
    np.testing.assert_array_equal(jobs["planned_procs"], plan.procs)


# -- the policy -----------------------------------------------------------------------------
def test_registered_and_replayed_by_name() -> None:
    """``simulate(workload, "cpa")``: the hand-computed pi = 0.9 plan, run and checked."""
    wl = workload([6, 3, 3], [-1, 0, -1], 0.9, 4)
    result = schedlab.simulate(wl, "cpa", check=True)
    jobs = result.jobs
    np.testing.assert_allclose(jobs["started_at"], [0.0, 1.95, 1.95])
    assert jobs["procs"].tolist() == [4, 3, 1]
    assert (jobs["started_at"] == jobs["planned_start_at"]).all()
    assert result.summary()["makespan"] == pytest.approx(4.95)
    assert isinstance(make_policy("cpa"), CriticalPathAndArea)
    with pytest.raises(ConfigError, match="cpa parameter"):
        make_policy("cpa", k=1)
    with pytest.raises(ConfigError, match="cpa parameter insertion"):
        make_policy("cpa", insertion="no")
    classic = schedlab.simulate(wl, "cpa", insertion=False, check=True).jobs
    assert (classic["started_at"] == classic["planned_start_at"]).all()


def test_chains_with_think_and_late_roots_replay_exactly() -> None:
    """Release times of roots and think times reach the engine and the plan alike."""
    wl = workload(
        [1, 15, 1, 1, 15, 1],
        [-1, 0, 1, -1, 3, 4],
        0.99,
        8,
        think=[0, 0.5, 0.25, 0, 1.5, 0],
        submit=[0, 0, 0, 3, 3, 3],
    )
    policy = CriticalPathAndArea()
    jobs = schedlab.simulate(wl, policy, check=True).jobs
    assert policy.plan is not None
    np.testing.assert_array_equal(jobs["started_at"], policy.plan.start_at)
    assert jobs["started_at"][3] >= 3.0


@pytest.mark.parametrize("kill_on_overrun", [True, False])
def test_a_job_killed_at_its_requested_time_is_planned_that_long(kill_on_overrun: bool) -> None:
    """Task 0 runs 6 s but requests 4: killed at 4 (work capped, the plan knows it), or run
    in full with kill_on_overrun off (simulate raises requested to run); exact either way."""
    wl = workload([6, 3, 3], [-1, 0, -1], 0.9, 4)
    fields = wl.fields.copy()
    fields[0, F["requested_time"]] = 4.0
    policy = CriticalPathAndArea()
    result = schedlab.simulate(
        wl.with_fields(fields), policy, check=True, kill_on_overrun=kill_on_overrun
    )
    jobs = result.jobs
    assert policy.plan is not None
    assert jobs["killed"].tolist() == [kill_on_overrun, False, False]
    np.testing.assert_array_equal(jobs["started_at"], policy.plan.start_at)
    np.testing.assert_array_equal(jobs["finished_at"], policy.plan.end_at)


class _Tampered(CriticalPathAndArea):
    """Plans, then moves task ``job`` to ``start_at`` with ``procs``: a broken plan."""

    def __init__(self, job: int, start_at: float, procs: int | None = None) -> None:
        super().__init__()
        self.change = (job, start_at, procs)

    def prepare(self, specs: Any, procs: int) -> None:
        super().prepare(specs, procs)
        assert self.plan is not None
        job, start_at, q = self.change
        starts = self.plan.start_at.copy()
        starts[job] = start_at
        sizes = self.plan.procs.copy()
        if q is not None:
            sizes[job] = q
        self.plan = replace(self.plan, start_at=starts, procs=sizes)


def test_a_plan_the_engine_cannot_follow_is_a_policy_error() -> None:
    wl = workload([6, 3, 3], [-1, 0, -1], 0.9, 4)
    with pytest.raises(PolicyError, match="job 1 planned at t=0.5 is not released"):
        schedlab.simulate(wl, _Tampered(1, 0.5), check=True)
    with pytest.raises(PolicyError, match="job 2 planned at t=0.0 on 1 processors finds only 0"):
        schedlab.simulate(wl, _Tampered(2, 0.0), check=True)


def test_without_prepare_the_policy_refuses_to_run() -> None:
    from schedlab.engine.protocol import ClusterView

    view = ClusterView(total_procs=4, submit_at=[], requested_time=[], procs=[], user=[])
    with pytest.raises(PolicyError, match="clairvoyant"):
        CriticalPathAndArea().setup(view)


def test_critical_path_and_area_helpers() -> None:
    inst = instance([6, 3, 3], [-1, 0, -1], 1.0)
    assert critical_path_time(inst, [1, 1, 1]) == 9.0
    assert average_area_time(inst, [1, 1, 1], 4) == 3.0
    assert critical_path_time(instance([], []), []) == 0.0
