"""PPS, priority-based preemptive scheduling (SPEC section 4, paper 002), on hand-computed cases.

Jobs are written ``(submit, run, req, procs)``; job k is the k-th in submit order and has
priority k (lower index = higher priority). Every run has the invariant checker on.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedlab
from schedlab.errors import ConfigError
from schedlab.schedulers import available_policies, make_policy
from schedlab.schedulers.pps import PpsParams, PriorityPreemptive
from schedlab.workload.job import Workload
from strategies import SmallWorkload, small_workloads

Job = tuple[float, float, float, int]


def run(jobs: list[Job], total: int, **kw: object) -> schedlab.SimulationResult:
    a = np.array(jobs, dtype=float).reshape(-1, 4)
    workload = Workload.from_columns(
        submit_time=a[:, 0],
        run_time=a[:, 1],
        requested_time=a[:, 2],
        procs=a[:, 3].astype(np.int64),
        max_procs=total,
    )
    return schedlab.simulate(workload, "pps", check=True, **kw)


def column(result: schedlab.SimulationResult, name: str) -> list[float]:
    return result.jobs[name].tolist()


# -- registration and parameters -------------------------------------------------------


def test_pps_is_registered_with_suspend_by_default() -> None:
    """``pps`` is a registered policy name; its default preemption is suspend/resume."""
    assert "pps" in available_policies()
    policy = make_policy("pps")
    assert isinstance(policy, PriorityPreemptive)
    assert policy.params == PpsParams(preemption="suspend")
    assert make_policy("pps", preemption="requeue").params.preemption == "requeue"


def test_bad_preemption_value_names_option_and_allowed_values() -> None:
    """PpsParams rejects an unknown mode with a ConfigError naming option and choices."""
    allowed = "suspend, requeue, cancel, checkpoint, none"
    with pytest.raises(ConfigError) as info:
        PpsParams(preemption="migrate")
    err = info.value
    assert "preemption" in err.option
    assert err.value == "migrate"
    assert err.allowed == allowed
    assert str(err) == f"invalid value 'migrate' for pps preemption; allowed: {allowed}"
    with pytest.raises(ConfigError, match="pps priority.*submit, attribute"):
        PpsParams(priority="deadline")
    with pytest.raises(ConfigError, match="checkpoint_overhead"):
        PpsParams(checkpoint_overhead=-1.0)


def test_bad_preemption_through_simulate_and_unknown_parameter() -> None:
    """The same errors reach users of ``simulate``; an unknown key lists ``preemption``."""
    with pytest.raises(ConfigError, match="pps preemption.*suspend, requeue"):
        run([(0, 1, 1, 1)], 1, preemption="Suspend")
    with pytest.raises(ConfigError, match="'backfill_order'.*allowed: .*preemption"):
        run([(0, 1, 1, 1)], 1, backfill_order="sjf")


def test_params_are_frozen() -> None:
    """Settings are immutable once checked."""
    params = PpsParams()
    with pytest.raises(dataclasses.FrozenInstanceError):
        params.preemption = "requeue"  # type: ignore[misc]


# -- hand-computed schedules -------------------------------------------------------------


def test_chain_of_suspensions_lowest_first_then_resume_in_priority_order() -> None:
    """A wide job suspends two lower-priority jobs, lowest first; they resume by priority.

    P = 4; jobs 0 (2 procs, 4 s), 1 (4 procs, 3 s), 2 (3 procs, 5 s) at t=0, job 3 (1 proc,
    10 s) at t=1, job 4 (1 proc, 10 s) at t=2.
    t=0: job 0 starts (free 2); job 1 needs 4 > 2 and nothing of lower priority runs; job 2
         needs 3 > 2, same: both wait.
    t=1: job 3 fits (free 1). t=2: job 4 fits (free 0).
    t=4: job 0 ends, free 2. Job 1: 2 free + preemptible 2 (jobs 3, 4) = 4: suspend job 4
         (free 3), then job 3 (free 4); job 1 runs [4,7). Job 2: 0 free + 0 preemptible: stop.
    t=7: job 1 ends, free 4. Job 2 starts (free 1); job 3 (higher priority than job 4)
         resumes (free 0) with 10 - 3 = 7 s left: ends 14. Job 4 waits.
    t=12: job 2 ends, free 3: job 4 resumes with 10 - 2 = 8 s left: ends 20.
    Suspended: job 3 for [4,7) = 3 s, job 4 for [4,12) = 8 s; both ran 10 s in all.
    """
    jobs = [(0, 4, 4, 2), (0, 3, 3, 4), (0, 5, 5, 3), (1, 10, 10, 1), (2, 10, 10, 1)]
    result = run(jobs, 4)
    assert column(result, "started_at") == [0.0, 4.0, 7.0, 1.0, 2.0]
    assert column(result, "finished_at") == [4.0, 7.0, 12.0, 14.0, 20.0]
    assert column(result, "preemptions") == [0, 0, 0, 1, 1]
    assert column(result, "suspended_time") == [0.0, 0.0, 0.0, 3.0, 8.0]
    assert column(result, "run_time") == [4.0, 3.0, 5.0, 10.0, 10.0]
    assert column(result, "wasted_time") == [0.0] * 5
    assert not result.jobs["killed"].any()


def test_preemption_stops_as_soon_as_the_job_fits() -> None:
    """Only as many lower-priority jobs are suspended as the job needs, lowest first.

    P = 6; job 0 (3 procs, 4 s) and job 1 (5 procs, 3 s) at t=0, job 2 (1 proc, 10 s) at
    t=1, job 3 (2 procs, 10 s) at t=2.
    t=0: job 0 starts (free 3); job 1 needs 5 > 3, nothing preemptible: waits.
    t=1: job 2 starts (free 2). t=2: job 3 starts (free 0).
    t=4: job 0 ends, free 3. Job 1: 3 + preemptible 3 >= 5: suspend job 3 (lowest priority,
         free 5): it fits, so job 2 keeps running. Job 1 runs [4,7).
    t=7: job 1 ends, free 5: job 3 resumes with 8 s left: ends 15. t=11: job 2 ends.
    """
    result = run([(0, 4, 4, 3), (0, 3, 3, 5), (1, 10, 10, 1), (2, 10, 10, 2)], 6)
    assert column(result, "started_at") == [0.0, 4.0, 1.0, 2.0]
    assert column(result, "finished_at") == [4.0, 7.0, 11.0, 15.0]
    assert column(result, "preemptions") == [0, 0, 0, 1]
    assert column(result, "suspended_time") == [0.0, 0.0, 0.0, 3.0]
    assert column(result, "run_time") == [4.0, 3.0, 10.0, 10.0]


def test_job_suspended_and_restartable_in_the_same_pass_keeps_running() -> None:
    """Lowest first may free more than needed; a victim that fits again is never stopped.

    P = 6; job 0 (3 procs, 4 s) and job 1 (5 procs, 3 s) at t=0, job 2 (2 procs, 10 s) at
    t=1, job 3 (1 proc, 10 s) at t=2.
    t=0: job 0 starts (free 3), job 1 waits. t=1: job 2 starts (free 1). t=2: job 3 (free 0).
    t=4: job 0 ends, free 3. Job 1 needs 5: suspend job 3 (free 4), not enough, suspend job 2
         (free 6); job 1 starts (free 1). The scan goes on: job 2 needs 2 > 1 + 0; job 3
         fits in 1: it is resumed by the same pass, so it simply never stopped: no
         preemption, no suspended time, and it ends at 2 + 10 = 12.
    t=7: job 1 ends, free 5: job 2 resumes with 7 s left (ends 14); in requeue mode it
         restarts from scratch (ends 17, 3 s wasted) while job 3 still keeps its progress.
    """
    jobs = [(0, 4, 4, 3), (0, 3, 3, 5), (1, 10, 10, 2), (2, 10, 10, 1)]
    result = run(jobs, 6)
    assert column(result, "started_at") == [0.0, 4.0, 1.0, 2.0]
    assert column(result, "finished_at") == [4.0, 7.0, 14.0, 12.0]
    assert column(result, "preemptions") == [0, 0, 1, 0]
    assert column(result, "suspended_time") == [0.0, 0.0, 3.0, 0.0]
    requeue = run(jobs, 6, preemption="requeue")
    assert column(requeue, "finished_at") == [4.0, 7.0, 17.0, 12.0]
    assert column(requeue, "preemptions") == [0, 0, 1, 0]
    assert column(requeue, "wasted_time") == [0.0, 0.0, 3.0, 0.0]


def test_never_preempts_a_higher_priority_job() -> None:
    """A waiting job counts only lower-priority running jobs as preemptible.

    P = 4; job 0 (3 procs, 10 s) at t=0, job 1 (4 procs, 2 s) at t=1, job 2 (1 proc, 20 s)
    at t=2.
    t=0: job 0 starts (free 1).
    t=1: job 1 needs 4: free 1 + all running 3 would suffice, but job 0 has a higher
         priority: preemptible is 0, so job 1 waits.
    t=2: job 2 fits (free 0).
    t=10: job 0 ends, free 3. Job 1: 3 + preemptible 1 (job 2) = 4: job 2 is suspended after
          running 8 s; job 1 runs [10,12).
    t=12: job 1 ends: job 2 resumes with 12 s left: ends 24 (suspended 2 s).
    """
    result = run([(0, 10, 10, 3), (1, 2, 2, 4), (2, 20, 20, 1)], 4)
    assert column(result, "started_at") == [0.0, 10.0, 2.0]
    assert column(result, "finished_at") == [10.0, 12.0, 24.0]
    assert column(result, "preemptions") == [0, 0, 1]
    assert column(result, "suspended_time") == [0.0, 0.0, 2.0]
    assert column(result, "run_time") == [10.0, 2.0, 20.0]


def test_same_submit_time_ties_are_broken_by_trace_order() -> None:
    """Of two jobs submitted at the same instant, the first in the trace has priority.

    P = 3; job 0 (2 procs, 10 s) at t=0; jobs 1 (3 procs, 1 s) and 2 (1 proc, 10 s) at t=1.
    t=1: job 1 needs 3 > 1, and job 2 is not running yet: it waits; job 2 starts (free 0).
    t=10: job 0 ends, free 2: job 1 (submitted at the same time as job 2 but before it in
          the trace) suspends job 2 (ran 9 s) and runs [10,11); job 2 resumes at 11 with 1 s
          left and ends at 12.
    """
    result = run([(0, 10, 10, 2), (1, 1, 1, 3), (1, 10, 10, 1)], 3)
    assert column(result, "started_at") == [0.0, 10.0, 1.0]
    assert column(result, "finished_at") == [10.0, 11.0, 12.0]
    assert column(result, "preemptions") == [0, 0, 1]


def test_requeue_restarts_the_victim_from_scratch() -> None:
    """preemption="requeue": a suspended job loses its work and reruns its whole run time.

    The case of ``test_never_preempts_a_higher_priority_job``: job 2 ran [2,10) when job 1
    preempted it; those 8 s are wasted. It restarts at 12 with its full 20 s: ends 32.
    run_time = 32 - 2 (start) - 2 (suspended) - 8 (wasted) = 20.
    """
    result = run([(0, 10, 10, 3), (1, 2, 2, 4), (2, 20, 20, 1)], 4, preemption="requeue")
    assert column(result, "started_at") == [0.0, 10.0, 2.0]
    assert column(result, "finished_at") == [10.0, 12.0, 32.0]
    assert column(result, "preemptions") == [0, 0, 1]
    assert column(result, "suspended_time") == [0.0, 0.0, 2.0]
    assert column(result, "wasted_time") == [0.0, 0.0, 8.0]
    assert column(result, "run_time") == [10.0, 2.0, 20.0]
    assert result.raw.executed_time.tolist() == [10.0, 2.0, 20.0]
    assert not result.jobs["killed"].any()


@pytest.mark.parametrize(
    ("preemption", "killed_at", "wasted"),
    [("suspend", 24.0, 0.0), ("requeue", 32.0, 8.0)],
)
def test_kill_on_overrun_after_preemption(preemption: str, killed_at: float, wasted: float) -> None:
    """A victim that overruns is killed when its requested time is used up.

    The case of ``test_never_preempts_a_higher_priority_job`` with job 2 running 30 s but
    requesting 20 s. PPS uses no estimate, so the schedule up to t=12 is the same. Suspend:
    8 s done before the suspension count, 12 s of budget remain at the resume at 12: killed
    at 24. Requeue: the work and the budget restart: killed at 12 + 20 = 32.
    """
    result = run([(0, 10, 10, 3), (1, 2, 2, 4), (2, 30, 20, 1)], 4, preemption=preemption)
    assert column(result, "finished_at") == [10.0, 12.0, killed_at]
    assert column(result, "killed") == [False, False, True]
    assert column(result, "wasted_time") == [0.0, 0.0, wasted]
    assert result.raw.executed_time.tolist() == [10.0, 2.0, 20.0]
    # with kill_on_overrun off, the victim runs its whole 30 s
    off = run(
        [(0, 10, 10, 3), (1, 2, 2, 4), (2, 30, 20, 1)],
        4,
        preemption=preemption,
        kill_on_overrun=False,
    )
    assert column(off, "finished_at") == [10.0, 12.0, 34.0 if preemption == "suspend" else 42.0]
    assert not off.jobs["killed"].any()


def test_no_preemption_columns_when_nobody_is_preempted() -> None:
    """Jobs that always fit run like FCFS without blocking; no preemption columns appear."""
    result = run([(0, 5, 5, 2), (1, 5, 5, 3), (2, 1, 1, 1)], 4)
    assert column(result, "started_at") == [0.0, 5.0, 2.0]
    assert "preemptions" not in result.jobs


# -- work conservation ------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=30, max_procs=8))
def test_work_conserved_in_suspend_mode(w: SmallWorkload) -> None:
    """Suspend/resume loses no work: every job executes min(run, req), killed iff run > req,
    and the time between its first start and its end is that work plus its suspensions."""
    result = schedlab.simulate(w.workload(), "pps", check=True)
    raw = result.raw
    run_time = np.array(w.run)
    req = np.array(w.req)
    not_killed = ~raw.killed
    np.testing.assert_array_equal(raw.executed_time[not_killed], run_time[not_killed])
    np.testing.assert_array_equal(raw.killed, run_time > req)
    np.testing.assert_array_equal(raw.executed_time, np.minimum(run_time, req))
    np.testing.assert_array_equal(
        raw.finished_at - raw.started_at - raw.suspended_time, np.minimum(run_time, req)
    )
    assert not raw.wasted_time.any()


def _held_nodes_run(
    submit: list[float], run: list[float], procs: list[int], total: int, mu_env: float
) -> Any:
    """pps on one pool whose batch system releases an ended job's nodes ``mu_env`` seconds
    after its end (the general kernel, under the invariant checker)."""
    from schedlab.engine.checker import KernelChecker
    from schedlab.engine.kernel import JobSpecs, Kernel
    from schedlab.platform.pool import PoolSpec

    specs = JobSpecs.rigid(submit_at=submit, run_time=run, requested_time=run, procs=procs)
    kernel = Kernel(
        jobs=specs,
        pools=[(PoolSpec.cluster(total, mu_env=mu_env), make_policy("pps"))],
        tracer=KernelChecker(),
    )
    return kernel.run()


def test_a_job_whose_nodes_are_still_held_is_never_a_victim() -> None:
    """4 processors, each end's nodes released 1 s after it. Job 1 (4 processors) waits
    behind job 0; jobs 2 (1.5 s) and 3 (2 processors) start at 0. Job 2 ends at 1.5 but its
    processor stays held until 2.5. At 2 job 0's processor comes back: job 1 would fit only
    with job 2's held processor too, so it waits (pps used to count job 2 as running, suspend
    it and fail: "Suspend(job 2): job is not running"). At 2.5 job 2's processor is free as
    well: job 3 is suspended, job 1 starts, and job 3 resumes when job 1's nodes come back."""
    run = _held_nodes_run(
        submit=[0.0, 0.0, 0.0, 0.0],
        run=[1.0, 50.0, 1.5, 100.0],
        procs=[1, 4, 1, 2],
        total=4,
        mu_env=1.0,
    )
    assert run.started_at.tolist() == [0.0, 2.5, 0.0, 0.0]
    assert run.finished_at.tolist() == [1.0, 52.5, 1.5, 53.5 + 97.5]
    assert run.preemptions.tolist() == [0, 0, 0, 1]


@settings(max_examples=60, deadline=None)
@given(
    jobs=st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]),  # few submit times: ties
            st.sampled_from([0.0, 0.5, 1.0, 2.5]),  # run times, zero included
            st.integers(1, 4),
        ),
        min_size=1,
        max_size=12,
    ),
    mu_env=st.sampled_from([0.5, 1.0, 3.0]),
)
def test_pps_under_held_nodes_keeps_the_invariants(
    jobs: list[tuple[float, float, int]], mu_env: float
) -> None:
    """Any small workload under pps on a pool that holds ended jobs' nodes a while: no
    decision is refused (an ended job is never picked as a victim), the invariant checker
    finds nothing, and every job ends."""
    jobs = sorted(jobs, key=lambda job: job[0])
    run = _held_nodes_run(
        submit=[t for t, _, _ in jobs],
        run=[r for _, r, _ in jobs],
        procs=[p for _, _, p in jobs],
        total=4,
        mu_env=mu_env,
    )
    assert not np.isnan(run.finished_at).any()
    assert (run.finished_at >= run.started_at).all()
