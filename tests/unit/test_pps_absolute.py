"""`pps` with absolute priorities (paper 003, SPEC 6): the ``priority`` attribute, the
victim rule, and the modes cancel, requeue, suspend, checkpoint and none. Hand-computed
timelines with the kernel's checker on, and the victim rule against a slow reference."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redispatch import Redispatch
from schedlab.engine.checker import KernelChecker
from schedlab.engine.kernel import JobSpecs, Kernel, KernelRun
from schedlab.errors import ConfigError
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers import make_policy
from schedlab.schedulers.pps import AbsolutePriority, PriorityPreemptive
from schedlab.schedulers.victims import choose_victims


def specs(
    jobs: list[tuple[float, float, int, int]], ckpt: list[int] | None = None, **kw: Any
) -> JobSpecs:
    """(submit, run, procs, priority) jobs; requested = 10 x run."""
    n = len(jobs)
    return JobSpecs.rigid(
        submit_at=[j[0] for j in jobs],
        run_time=[j[1] for j in jobs],
        requested_time=[10 * j[1] for j in jobs],
        procs=[j[2] for j in jobs],
        attributes={
            "priority": [j[3] for j in jobs],
            "checkpointable": ckpt if ckpt is not None else [1] * n,
            "global": [0] * n,
        },
        **kw,
    )


def run(jobs: JobSpecs, procs: int = 4, **params: Any) -> KernelRun:
    checker = KernelChecker()
    policy = make_policy("pps", priority="attribute", **params)
    kernel = Kernel(jobs=jobs, pools=[(PoolSpec.cluster(procs), policy)], tracer=checker)
    result = kernel.run()
    checker.audit(kernel)
    return result


# j0 background (prio 0) and j1 low (prio 1) fill the 4 processors from t=0; j2 (prio 2)
# arrives at 10 and needs 2: the victim is j0, the lowest priority.
SCENARIO = [(0, 100, 2, 0), (0, 100, 2, 1), (10, 20, 2, 2)]


def test_one_policy_two_passes() -> None:
    assert type(make_policy("pps")) is PriorityPreemptive
    general = make_policy("pps", priority="attribute")
    assert isinstance(general, AbsolutePriority) and general.name == "pps"
    assert type(make_policy("pps", preemption="cancel")) is AbsolutePriority


def test_suspend_keeps_the_work() -> None:
    """j0 runs 0-10 and 30-120 (j2 runs 10-30)."""
    r = run(specs(SCENARIO), preemption="suspend")
    assert r.started_at.tolist() == [0, 0, 10]
    assert r.finished_at.tolist() == [120, 100, 30]
    assert r.preemptions.tolist() == [1, 0, 0]
    assert r.suspended_time.tolist() == [20, 0, 0]


def test_requeue_loses_the_attempt() -> None:
    """j0 restarts from scratch at 30: ends at 130; its 10 s are lost."""
    r = run(specs(SCENARIO), preemption="requeue")
    assert r.finished_at.tolist() == [130, 100, 30]
    assert r.wasted_time.tolist() == [10, 0, 0]


def test_cancel_kills_the_victim() -> None:
    r = run(specs(SCENARIO), preemption="cancel")
    assert r.finished_at.tolist() == [10, 100, 30]
    assert r.killed.tolist() == [True, False, False]
    assert r.wasted_time.tolist() == [10, 0, 0]  # the cancelled attempt is lost work


def test_checkpoint_keeps_the_work_and_pays_the_overhead() -> None:
    """j0 checkpointable: restarts at 30, 5 s overhead, 90 s of work: ends at 125."""
    r = run(specs(SCENARIO), preemption="checkpoint", checkpoint_overhead=5.0)
    assert r.finished_at.tolist() == [125, 100, 30]
    assert r.overhead_time.tolist() == [5, 0, 0]
    assert r.wasted_time.tolist() == [0, 0, 0]


def test_checkpoint_requeues_a_job_that_cannot_checkpoint() -> None:
    r = run(specs(SCENARIO, ckpt=[0, 0, 0]), preemption="checkpoint", checkpoint_overhead=5.0)
    assert r.finished_at.tolist() == [130, 100, 30]
    assert r.wasted_time.tolist() == [10, 0, 0]
    assert r.overhead_time.tolist() == [0, 0, 0]


def test_none_never_preempts() -> None:
    """j2 waits for the first end (100), runs 100-120."""
    r = run(specs(SCENARIO), preemption="none")
    assert r.started_at.tolist() == [0, 0, 100]
    assert r.finished_at.tolist() == [100, 100, 120]
    assert r.preemptions.sum() == 0


def test_equal_priorities_take_the_most_recent_start() -> None:
    """j0 and j1 both prio 0 (j1 started after j0 in the same pass): j1 is the victim."""
    jobs = [(0, 100, 2, 0), (0, 100, 2, 0), (10, 20, 2, 2)]
    r = run(specs(jobs), preemption="suspend")
    assert r.preemptions.tolist() == [0, 1, 0]
    assert r.finished_at.tolist() == [100, 120, 30]


def test_never_equal_or_higher_priority() -> None:
    """j2 has j1's priority: it waits for an end instead of preempting j1 (or j0, prio 2)."""
    jobs = [(0, 100, 2, 2), (0, 50, 2, 1), (10, 20, 2, 1)]
    r = run(specs(jobs), preemption="suspend")
    assert r.preemptions.sum() == 0
    assert r.started_at.tolist() == [0, 0, 50]


def test_unneeded_victims_are_dropped() -> None:
    """x (prio 0, 1 proc) and y (prio 1, 3 procs) run; z (prio 2) needs 3. Taken in order
    x then y; x is then not needed: only y is preempted and x keeps running."""
    jobs = [(0, 100, 1, 0), (0, 100, 3, 1), (10, 20, 3, 2)]
    r = run(specs(jobs), preemption="suspend")
    assert r.preemptions.tolist() == [0, 1, 0]
    assert r.finished_at.tolist() == [100, 120, 30]


def test_simulate_takes_the_kernel_for_the_new_modes() -> None:
    """Through `schedlab.simulate` (submission-order priority, cancel): the same rules; the
    inlined loop is refused since it has no checkpoints or evictions."""
    import numpy as np

    import schedlab
    from schedlab.workload.job import Workload

    # job 2 (4 procs) waits behind job 1; job 3 fills the 2 free processors at 2; at 100
    # job 1 ends and job 2 (earlier, so higher priority) cancels job 3
    w = Workload.from_columns(
        submit_time=np.array([0.0, 1.0, 2.0]),
        run_time=np.array([100.0, 10.0, 100.0]),
        procs=np.array([2, 4, 2]),
        max_procs=4,
    )
    result = schedlab.simulate(w, policy="pps", preemption="cancel", check=True)
    jobs = result.jobs
    assert jobs["started_at"].tolist() == [0, 100, 2]
    assert jobs["finished_at"].tolist() == [100, 110, 100]
    assert jobs["killed"].tolist() == [False, False, True]
    assert jobs["lost_work"].tolist() == [0, 0, 2 * 98]
    with pytest.raises(ConfigError, match="preemption of Baranov and Tikhomirov"):
        schedlab.simulate(w, policy="pps", preemption="cancel", engine="inlined")


def test_priority_attribute_is_required() -> None:
    jobs = JobSpecs.rigid(submit_at=[0], run_time=[1], requested_time=[1], procs=[1])
    policy = make_policy("pps", priority="attribute")
    with pytest.raises(ConfigError, match="priority"):
        Kernel(jobs=jobs, pools=[(PoolSpec.cluster(1), policy)]).run()


def test_a_global_checkpointable_victim_goes_back_to_its_dispatcher() -> None:
    """Pool 0 (2 procs): global job g (prio 0, 100 s) runs from 0; local job h (prio 2)
    arrives at 10 and evicts g, which restarts at once on pool 1 (power 2): 5 s overhead
    plus 90 / 2 s: ends at 60."""
    jobs = JobSpecs.rigid(
        submit_at=[0, 10],
        run_time=[100, 20],
        requested_time=[1000, 200],
        procs=[2, 2],
        attributes={"priority": [0, 2], "checkpointable": [1, 1], "global": [1, 0]},
    )
    jobs = dataclasses.replace(jobs, target_actor=[0, -1])  # g to the actor, h to pool 0
    policy = {"priority": "attribute", "preemption": "checkpoint", "checkpoint_overhead": 5.0}
    checker = KernelChecker()
    kernel = Kernel(
        jobs=jobs,
        pools=[
            (PoolSpec.cluster(2), make_policy("pps", **policy)),
            (PoolSpec(name="fast", groups=((2.0, 2),)), make_policy("pps", **policy)),
        ],
        actors=[Redispatch()],
        tracer=checker,
    )
    r = kernel.run()
    checker.audit(kernel)
    assert r.evictions.tolist() == [1, 0]
    assert r.pool.tolist() == [1, 0]
    assert r.finished_at.tolist() == [60, 30]
    assert r.overhead_time.tolist() == [5, 0]


# -- the victim rule against a slow reference -----------------------------------------------


def reference_victims(
    need: int, priority: float, free: int, running: list[tuple[int, float, float, int]]
) -> list[int] | None:
    """SPEC 6 read literally: the shortest prefix of the ordered lower-priority jobs that
    makes the job fit, then, from its last element back, each one removed if the rest
    still fits."""
    if need <= free:
        return []
    order = sorted((r for r in running if r[1] < priority), key=lambda r: (r[1], -r[2]))
    for k in range(1, len(order) + 1):
        if free + sum(r[3] for r in order[:k]) >= need:
            chosen = list(order[:k])
            break
    else:
        return None
    for i in range(len(chosen) - 1, -1, -1):
        rest = chosen[:i] + chosen[i + 1 :]
        if free + sum(r[3] for r in rest) >= need:
            chosen = rest
    return [r[0] for r in chosen]


running_jobs = st.lists(st.tuples(st.integers(0, 3), st.integers(1, 8)), max_size=10).map(
    lambda rows: [(i, float(p), float(i), q) for i, (p, q) in enumerate(rows)]
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    need=st.integers(1, 30),
    priority=st.integers(0, 4),
    free=st.integers(0, 10),
    running=running_jobs,
)
def test_victims_match_the_reference_and_are_all_needed(
    need: int, priority: int, free: int, running: list[tuple[int, float, float, int]]
) -> None:
    got = choose_victims(need, float(priority), free, running)
    assert got == reference_victims(need, float(priority), free, running)
    lower = {r[0]: r for r in running if r[1] < priority}
    if got is None:
        assert free + sum(r[3] for r in lower.values()) < need
        return
    assert all(v in lower for v in got)  # never equal or higher priority
    freed = free + sum(lower[v][3] for v in got)
    assert freed >= need or (not got and free >= need)
    for v in got:  # never more victims than needed
        assert freed - lower[v][3] < need
