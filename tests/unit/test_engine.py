"""The engine (DESIGN.md sections 2, 3 and 6): decisions, tie rule, preemption, checks.

Toy policies written here drive the engine through ``schedlab.simulate(..., policy=obj)``
or the ``Simulator`` directly. Jobs are written ``(submit, run, req, procs)``; a policy sees
jobs by their index in the submit-ordered workload.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedlab
from schedlab.engine import ClusterView, Decision, Kill, Simulator, Start, Suspend, WakeAt
from schedlab.engine.checker import CheckedPolicy, InvariantChecker
from schedlab.errors import InvariantError, PolicyError
from schedlab.schedulers import make_policy
from schedlab.workload.job import Workload
from strategies import SmallWorkload, small_workloads

Job = tuple[float, float, float, int]


def workload(jobs: list[Job], total: int) -> Workload:
    a = np.array(jobs, dtype=float).reshape(-1, 4)
    return Workload.from_columns(
        submit_time=a[:, 0],
        run_time=a[:, 1],
        requested_time=a[:, 2],
        procs=a[:, 3].astype(np.int64),
        max_procs=total,
    )


class Scripted:
    """Returns the decisions scripted for each instant; records every hook call."""

    name: ClassVar[str] = "scripted"

    def __init__(self, script: dict[float, list[Any]] | None = None) -> None:
        self.script = script or {}
        self.log: list[tuple[str, float, int | None]] = []
        self.free_seen: dict[float, int] = {}
        self.view: ClusterView | None = None

    def setup(self, view: ClusterView) -> None:
        self.view = view

    def on_submit(self, job: int) -> None:
        assert self.view is not None
        self.log.append(("submit", self.view.now, job))

    def on_finish(self, job: int) -> None:
        assert self.view is not None
        self.log.append(("finish", self.view.now, job))

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        self.log.append(("schedule", now, None))
        self.free_seen[now] = view.free_procs
        return list(self.script.get(now, []))

    @property
    def passes(self) -> list[float]:
        return [t for kind, t, _ in self.log if kind == "schedule"]


class Greedy(Scripted):
    """Starts waiting jobs in job order while they fit (FCFS without blocking)."""

    name: ClassVar[str] = "greedy"

    def setup(self, view: ClusterView) -> None:
        super().setup(view)
        self.waiting: list[int] = []

    def on_submit(self, job: int) -> None:
        super().on_submit(job)
        self.waiting.append(job)

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        out: list[Decision] = list(super().schedule(now, view))
        free = view.free_procs
        rest = []
        for j in self.waiting:
            if view.procs[j] <= free:
                free -= view.procs[j]
                out.append(Start(j))
            else:
                rest.append(j)
        self.waiting = rest
        return out


def run(jobs: list[Job], total: int, policy: Any, **kw: Any) -> schedlab.SimulationResult:
    return schedlab.simulate(workload(jobs, total), policy=policy, **kw)


# -- invalid decisions -------------------------------------------------------------------


@pytest.mark.parametrize("check", [False, True])
def test_start_twice_is_a_policy_error(check: bool) -> None:
    """Starting a job that is already running raises PolicyError naming the job."""
    policy = Scripted({0.0: [Start(0), Start(0)]})
    with pytest.raises(PolicyError, match=r"Start\(job 0\).*running"):
        run([(0, 5, 5, 1)], 2, policy, check=check)


@pytest.mark.parametrize("check", [False, True])
def test_start_more_processors_than_free_is_a_policy_error(check: bool) -> None:
    """Starting jobs that need more processors than are free raises PolicyError."""
    policy = Scripted({0.0: [Start(0), Start(1)]})
    with pytest.raises(PolicyError, match=r"Start\(job 1\).*needs 2 processors.*only 1"):
        run([(0, 5, 5, 2), (0, 5, 5, 2)], 3, policy, check=check)


@pytest.mark.parametrize("check", [False, True])
@pytest.mark.parametrize("procs", [5, 0, -1])
def test_start_with_explicit_procs_out_of_range_is_a_policy_error(check: bool, procs: int) -> None:
    """A Start carrying its own processor count needs 1..free processors."""
    policy = Scripted({0.0: [Start(0, procs)]})
    with pytest.raises(PolicyError, match=r"Start\(job 0\)"):
        run([(0, 5, 5, 1)], 4, policy, check=check)


@pytest.mark.parametrize("check", [False, True])
@pytest.mark.parametrize("decision", [Start(-1), Start(2), Kill(-1), Suspend(5)])
def test_a_job_number_out_of_range_is_a_policy_error(check: bool, decision: Decision) -> None:
    """A number that names no job is refused (a negative one would index from the end and
    act on the last job)."""
    policy = Scripted({0.0: [decision]})
    name = type(decision).__name__
    with pytest.raises(PolicyError, match=rf"{name}\(job {decision.job}\).*no such job"):
        run([(0, 5, 5, 1), (0, 5, 5, 1)], 2, policy, check=check)


@pytest.mark.parametrize("check", [False, True])
def test_start_before_submission_is_a_policy_error(check: bool) -> None:
    """A job that is not submitted yet cannot start."""
    policy = Scripted({0.0: [Start(1)]})
    with pytest.raises(PolicyError, match=r"Start\(job 1\).*pending"):
        run([(0, 5, 5, 1), (3, 5, 5, 1)], 2, policy, check=check)


def test_suspend_a_waiting_job_is_a_policy_error() -> None:
    """Suspending a job that is not running raises PolicyError naming the job."""
    policy = Scripted({0.0: [Suspend(0)]})
    with pytest.raises(PolicyError, match=r"Suspend\(job 0\).*not running"):
        run([(0, 5, 5, 1)], 2, policy)


def test_suspend_a_waiting_job_is_a_policy_error_under_check() -> None:
    """Same with the invariant checker on: still a PolicyError, not a crash."""
    policy = Scripted({0.0: [Suspend(0)]})
    with pytest.raises(PolicyError, match=r"Suspend\(job 0\)"):
        run([(0, 5, 5, 1)], 2, policy, check=True)


@pytest.mark.parametrize("check", [False, True])
def test_kill_a_finished_job_is_a_policy_error(check: bool) -> None:
    """Killing a job that already ended raises PolicyError naming the job."""
    policy = Scripted({0.0: [Start(0)], 1.0: [Kill(0)]})
    with pytest.raises(PolicyError, match=r"Kill\(job 0\).*already ended"):
        run([(0, 1, 1, 1), (1, 1, 1, 1)], 2, policy, check=check)


@pytest.mark.parametrize("check", [False, True])
def test_tuple_that_is_not_a_decision_is_a_policy_error(check: bool) -> None:
    """A returned value that is not one of the decision types raises PolicyError."""
    policy = Scripted({0.0: [("start", 0)]})
    with pytest.raises(PolicyError, match="not a decision"):
        run([(0, 5, 5, 1)], 2, policy, check=check)


@pytest.mark.parametrize("junk", [object(), None, 3])
def test_object_that_is_not_a_decision_is_a_policy_error(junk: object) -> None:
    """Any non-decision object in the returned list raises PolicyError, not a crash."""
    policy = Scripted({0.0: [junk]})
    with pytest.raises(PolicyError, match="not a decision"):
        run([(0, 5, 5, 1)], 2, policy)


@pytest.mark.parametrize("check", [False, True])
def test_policy_that_never_starts_a_job_is_a_policy_error(check: bool) -> None:
    """When events run out with jobs never finished, PolicyError names the policy."""
    with pytest.raises(PolicyError, match=r"'scripted' left 2 job\(s\) never finished"):
        run([(0, 5, 5, 1), (1, 5, 5, 1)], 2, Scripted(), check=check)


# -- the tie rule -----------------------------------------------------------------------


def test_submission_at_a_completion_sees_the_freed_processors() -> None:
    """A job submitted at the instant another ends sees its processors free in the pass."""
    policy = Greedy()
    result = run([(0, 5, 5, 4), (5, 2, 2, 4)], 4, policy, check=True)
    assert policy.free_seen[5.0] == 4
    assert result.jobs["started_at"].tolist() == [0.0, 5.0]


def test_completions_in_job_order_then_submissions_then_one_pass() -> None:
    """At one instant: on_finish in job order, then on_submit in job order, then schedule."""
    # job 1 starts at 0 and job 0 at 2; both end at 10; jobs 2 and 3 are submitted at 10
    jobs = [(0, 8, 8, 1), (0, 10, 10, 1), (10, 1, 1, 1), (10, 1, 1, 1)]
    policy = Scripted({0.0: [Start(1), WakeAt(2.0)], 2.0: [Start(0)], 10.0: [Start(2), Start(3)]})
    run(jobs, 4, policy, check=True)
    at_ten = [(kind, job) for kind, t, job in policy.log if t == 10.0]
    assert at_ten == [
        ("finish", 0),
        ("finish", 1),
        ("submit", 2),
        ("submit", 3),
        ("schedule", None),
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=15, max_procs=8))
def test_schedule_called_exactly_once_per_instant(w: SmallWorkload) -> None:
    """Exactly one pass per distinct event instant, after all of that instant's hooks."""
    policy = Greedy()
    result = schedlab.simulate(w.workload(), policy=policy, check=True)
    passes = Counter(policy.passes)
    assert max(passes.values()) == 1
    jobs = result.jobs
    instants = set(jobs["submitted_at"]) | set(jobs["finished_at"])
    assert set(passes) == instants
    # every hook of an instant comes before that instant's pass
    last_time = None
    for kind, t, _ in policy.log:
        if kind != "schedule":
            assert t != last_time, "a hook was called after the pass of its instant"
        else:
            last_time = t


# -- WakeAt ----------------------------------------------------------------------------------


def test_wake_at_causes_a_pass_at_that_time_only() -> None:
    """WakeAt(t) adds exactly one pass at t; no pass happens between events otherwise."""
    policy = Scripted({0.0: [WakeAt(4.5)], 4.5: [Start(0)]})
    result = run([(0, 3, 3, 1)], 1, policy, check=True)
    assert policy.passes == [0.0, 4.5, 7.5]
    assert result.jobs["started_at"].tolist() == [4.5]


def test_wake_at_now_or_in_the_past_is_ignored() -> None:
    """WakeAt(t) with t <= now causes no extra pass."""
    policy = Scripted({0.0: [WakeAt(0.0), Start(0)], 3.0: [WakeAt(1.0)]})
    run([(0, 3, 3, 1)], 1, policy, check=True)
    assert policy.passes == [0.0, 3.0]


def test_wake_at_an_event_instant_merges_into_its_pass() -> None:
    """WakeAt at an instant that already has events (or twice the same) gives one pass."""
    policy = Scripted({0.0: [Start(0), WakeAt(3.0), WakeAt(3.0), WakeAt(2.0)], 2.0: [Start(1)]})
    run([(0, 3, 3, 1), (2, 1, 1, 1)], 2, policy, check=True)
    assert policy.passes == [0.0, 2.0, 3.0]


# -- suspend, resume, requeue, kill ----------------------------------------------------


def test_suspend_resume_ends_remaining_time_after_resume() -> None:
    """A job suspended after 3 s of 10 resumes later and ends exactly 7 s after resume."""
    jobs = [(0, 10, 20, 1), (3, 2, 2, 1)]
    policy = Scripted({0.0: [Start(0)], 3.0: [Suspend(0), Start(1)], 5.0: [Start(0)]})
    policy.script[0.0].append(WakeAt(3.0))
    result = run(jobs, 1, policy, check=True)
    j = result.jobs
    assert j["started_at"].tolist() == [0.0, 3.0]
    assert j["finished_at"].tolist() == [12.0, 5.0]
    assert j["preemptions"].tolist() == [1, 0]
    assert j["suspended_time"].tolist() == [2.0, 0.0]
    assert j["run_time"].tolist() == [10.0, 2.0]
    assert result.raw.executed_time.tolist() == [10.0, 2.0]
    assert not j["killed"].any()


def test_suspended_job_counts_several_preemptions() -> None:
    """preemptions and suspended_time add up over several suspensions of one job."""
    script: dict[float, list[Any]] = {
        0.0: [Start(0), WakeAt(2.0)],
        2.0: [Suspend(0), WakeAt(3.0)],
        3.0: [Start(0), WakeAt(4.0)],
        4.0: [Suspend(0), WakeAt(7.0)],
        7.0: [Start(0)],
    }
    result = run([(0, 5, 5, 2)], 2, Scripted(script), check=True)
    j = result.jobs
    # ran [0,2), [3,4), [7,9): 2 + 1 + 2 = 5 s
    assert j["finished_at"].tolist() == [9.0]
    assert j["preemptions"].tolist() == [2]
    assert j["suspended_time"].tolist() == [4.0]
    assert not j["killed"].any()


def test_requeue_restarts_from_scratch() -> None:
    """Suspend(keep_progress=False) loses the work done: the job reruns its whole run time."""
    policy = Scripted(
        {0.0: [Start(0), WakeAt(3.0)], 3.0: [Suspend(0, keep_progress=False), WakeAt(5.0)]}
    )
    policy.script[5.0] = [Start(0)]
    result = run([(0, 10, 20, 1)], 1, policy, check=True)
    j = result.jobs
    assert j["started_at"].tolist() == [0.0]
    assert j["finished_at"].tolist() == [15.0]
    assert j["preemptions"].tolist() == [1]
    assert j["suspended_time"].tolist() == [2.0]
    assert result.raw.executed_time.tolist() == [10.0]
    # the lost first attempt is wasted, not run time: 15 - 0 - 2 suspended - 3 wasted
    assert j["wasted_time"].tolist() == [3.0]
    assert j["run_time"].tolist() == [10.0]
    assert not j["killed"].any()


def test_kill_on_overrun_counts_time_before_suspension() -> None:
    """A resumed job is killed when its total executed time reaches its requested time."""
    # run 10, req 6: runs [0,3), suspended [3,5), resumes with 3 s of budget -> killed at 8
    policy = Scripted({0.0: [Start(0), WakeAt(3.0)], 3.0: [Suspend(0), WakeAt(5.0)]})
    policy.script[5.0] = [Start(0)]
    result = run([(0, 10, 6, 1)], 1, policy, check=True)
    j = result.jobs
    assert j["finished_at"].tolist() == [8.0]
    assert j["killed"].tolist() == [True]
    assert result.raw.executed_time.tolist() == [6.0]
    assert j["suspended_time"].tolist() == [2.0]


def test_kill_on_overrun_after_requeue_restarts_the_budget() -> None:
    """After a requeue the job gets its whole requested time again before it is killed."""
    policy = Scripted(
        {0.0: [Start(0), WakeAt(3.0)], 3.0: [Suspend(0, keep_progress=False), WakeAt(5.0)]}
    )
    policy.script[5.0] = [Start(0)]
    result = run([(0, 10, 6, 1)], 1, policy, check=True)
    assert result.jobs["finished_at"].tolist() == [11.0]
    assert result.jobs["killed"].tolist() == [True]


def test_no_kill_on_overrun_lets_a_resumed_job_finish() -> None:
    """With kill_on_overrun off the resumed job runs its full run time."""
    policy = Scripted({0.0: [Start(0), WakeAt(3.0)], 3.0: [Suspend(0), WakeAt(5.0)]})
    policy.script[5.0] = [Start(0)]
    result = run([(0, 10, 6, 1)], 1, policy, check=True, kill_on_overrun=False)
    assert result.jobs["finished_at"].tolist() == [12.0]
    assert result.jobs["killed"].tolist() == [False]


def test_kill_decision_on_running_job() -> None:
    """Kill of a running job ends it now, marks it killed, frees its processors at once."""
    policy = Scripted({0.0: [Start(0), WakeAt(2.0)], 2.0: [Kill(0), Start(1)]})
    result = run([(0, 10, 10, 2), (1, 3, 3, 2)], 2, policy, check=True)
    j = result.jobs
    assert j["started_at"].tolist() == [0.0, 2.0]
    assert j["finished_at"].tolist() == [2.0, 5.0]
    assert j["killed"].tolist() == [True, False]
    assert result.raw.executed_time.tolist() == [2.0, 3.0]
    # the policy's own Kill does not come back as an on_finish call
    assert ("finish", 2.0, 0) not in policy.log


def test_kill_decision_on_waiting_and_suspended_jobs() -> None:
    """Kill of a waiting job ends it where it stands; of a suspended one, closes its pause."""
    script: dict[float, list[Any]] = {
        0.0: [Start(0), Kill(1), WakeAt(2.0)],
        2.0: [Suspend(0), WakeAt(6.0)],
        6.0: [Kill(0)],
    }
    result = run([(0, 10, 10, 1), (0, 10, 10, 1)], 2, Scripted(script), check=True)
    j = result.jobs
    assert j["killed"].tolist() == [True, True]
    assert j["started_at"].tolist() == [0.0, 0.0]
    assert j["finished_at"].tolist() == [6.0, 0.0]
    assert j["suspended_time"].tolist() == [4.0, 0.0]
    assert result.raw.executed_time.tolist() == [2.0, 0.0]


# -- work conservation under random preemption --------------------------------------


class RandomPreemptive(Scripted):
    """Suspends running jobs at random (seeded), then starts whatever fits, in job order.

    Each job is preempted at most ``limit`` times; while jobs run it asks for a wake-up a
    few integral seconds ahead, so preemptions also fall in the middle of runs.
    """

    name: ClassVar[str] = "random-preemptive"

    def __init__(self, seed: int, requeue: float = 0.0, limit: int = 3) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.requeue = requeue
        self.limit = limit

    def setup(self, view: ClusterView) -> None:
        super().setup(view)
        self.waiting: list[int] = []
        self.running: set[int] = set()
        self.count: Counter[int] = Counter()

    def on_submit(self, job: int) -> None:
        self.waiting.append(job)

    def on_finish(self, job: int) -> None:
        self.running.discard(job)

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        rng = self.rng
        out: list[Decision] = []
        free = view.free_procs
        for j in sorted(self.running):
            if self.count[j] < self.limit and rng.random() < 0.4:
                out.append(Suspend(j, keep_progress=rng.random() >= self.requeue))
                self.count[j] += 1
                self.running.discard(j)
                self.waiting.append(j)
                free += view.procs[j]
        self.waiting.sort()
        rest = []
        for j in self.waiting:
            if view.procs[j] <= free:
                free -= view.procs[j]
                out.append(Start(j))
                self.running.add(j)
            else:
                rest.append(j)
        self.waiting = rest
        if self.running and rng.random() < 0.6:
            out.append(WakeAt(now + rng.randint(1, 4)))
        return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=15, max_procs=8), seed=st.integers(0, 2**16))
def test_work_conserved_under_random_suspensions(w: SmallWorkload, seed: int) -> None:
    """Suspend/resume: every job executes exactly min(run, req); gaps are suspended time."""
    result = schedlab.simulate(w.workload(), policy=RandomPreemptive(seed), check=True)
    j = result.jobs
    expected = np.minimum(w.run, w.req)
    np.testing.assert_array_equal(result.raw.executed_time, expected)
    np.testing.assert_array_equal(j["killed"].to_numpy(), np.array(w.run) > np.array(w.req))
    span = j["finished_at"] - j["started_at"]
    suspended = j.get("suspended_time", 0.0)
    np.testing.assert_array_equal((span - suspended).to_numpy(), expected)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=15, max_procs=8, overruns=False), seed=st.integers(0, 2**16))
def test_work_conserved_with_requeues(w: SmallWorkload, seed: int) -> None:
    """Mixed suspend/requeue, no kills: the last attempt of every job runs its run time."""
    policy = RandomPreemptive(seed, requeue=0.5)
    result = schedlab.simulate(w.workload(), policy=policy, check=True)
    np.testing.assert_array_equal(result.raw.executed_time, w.run)
    assert not result.jobs["killed"].any()
    preempted = result.raw.preemptions
    assert preempted.sum() == sum(policy.count.values())


# -- time series -----------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=20, max_procs=12))
def test_timeseries_matches_per_job_table(policy: str, w: SmallWorkload) -> None:
    """busy_procs, running and queued after each instant equal a recount from the job table."""
    result = schedlab.simulate(w.workload(), policy=policy, timeseries=True, check=True)
    ts = result.timeseries
    assert ts is not None
    jobs = result.jobs
    times = ts["time"].to_numpy()
    assert (np.diff(times) > 0).all()
    assert set(jobs["submitted_at"]) | set(jobs["finished_at"]) <= set(times)
    assert (ts["busy_procs"] <= w.total).all() and (ts["busy_procs"] >= 0).all()
    sub = jobs["submitted_at"].to_numpy()
    start = jobs["started_at"].to_numpy()
    end = jobs["finished_at"].to_numpy()
    procs = jobs["procs"].to_numpy()
    for t, busy, running, queued in ts[["time", "busy_procs", "running", "queued"]].itertuples(
        index=False
    ):
        on = (start <= t) & (t < end)
        assert busy == procs[on].sum(), t
        assert running == on.sum(), t
        assert queued == ((sub <= t) & (start > t)).sum(), t


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=15, max_procs=8), seed=st.integers(0, 2**16))
def test_timeseries_under_preemption_stays_within_the_machine(w: SmallWorkload, seed: int) -> None:
    """With suspensions, busy_procs stays in [0, P] and jobs are never counted twice."""
    result = schedlab.simulate(
        w.workload(), policy=RandomPreemptive(seed), timeseries=True, check=True
    )
    ts = result.timeseries
    assert ts is not None
    assert ts["busy_procs"].between(0, w.total).all()
    assert (ts["running"] + ts["queued"]).between(0, len(w.submit)).all()
    assert ts["queued"].min() >= 0
    assert ts.iloc[-1][["busy_procs", "running", "queued"]].tolist() == [0, 0, 0]


# -- the invariant checker --------------------------------------------------------------


def _checked_run() -> tuple[Simulator, CheckedPolicy, schedlab.engine.RawRun]:
    jobs = [(0, 4, 5, 2), (1, 3, 3, 2), (2, 2, 9, 1)]
    checked = CheckedPolicy(make_policy("fcfs"))
    sim = Simulator(
        submit_at=[j[0] for j in jobs],
        run_time=[j[1] for j in jobs],
        requested_time=[j[2] for j in jobs],
        procs=[j[3] for j in jobs],
        user=None,
        total_procs=3,
        policy=checked,
        observers=[],
    )
    checker = InvariantChecker(checked)
    sim.observers.append(checker)
    raw = sim.run()
    checker.audit(sim, raw)  # the genuine run passes
    return sim, checked, raw


def _corrupt(raw: Any, name: str, index: int, value: Any) -> Any:
    column = getattr(raw, name).copy()
    column[index] = value
    return dataclasses.replace(raw, **{name: column})


def test_audit_rejects_start_before_submit() -> None:
    """InvariantError when a job's recorded start precedes its submission."""
    sim, checked, raw = _checked_run()
    bad = _corrupt(raw, "started_at", 1, sim.submit_at[1] - 0.5)
    with pytest.raises(InvariantError, match="job index 1 started at"):
        InvariantChecker(checked).audit(sim, bad)


def test_audit_rejects_end_before_start() -> None:
    """InvariantError when a job ends before it starts."""
    sim, checked, raw = _checked_run()
    bad = _corrupt(raw, "finished_at", 2, raw.started_at[2] - 1)
    with pytest.raises(InvariantError, match="job index 2 ended before it started"):
        InvariantChecker(checked).audit(sim, bad)


def test_audit_rejects_work_not_conserved() -> None:
    """InvariantError when a job not killed executed other than its run time."""
    sim, checked, raw = _checked_run()
    bad = _corrupt(raw, "executed_time", 0, raw.executed_time[0] - 1)
    with pytest.raises(InvariantError, match="job index 0: work not conserved"):
        InvariantChecker(checked).audit(sim, bad)


def test_audit_rejects_killed_job_running_too_long() -> None:
    """InvariantError when a killed job executed more than its run time."""
    sim, checked, raw = _checked_run()
    bad = _corrupt(_corrupt(raw, "killed", 1, True), "executed_time", 1, sim.run_time[1] + 1)
    with pytest.raises(InvariantError, match="job index 1: ran"):
        InvariantChecker(checked).audit(sim, bad)


def test_audit_rejects_over_committed_machine() -> None:
    """InvariantError when the recorded run segments use more than P processors at once."""
    sim, checked, raw = _checked_run()
    checked.segments.append((0.0, 1.0, 2, 2))  # job 2 "also ran" beside job 0 on [0, 1)
    with pytest.raises(InvariantError, match="3|4 processors in use"):
        InvariantChecker(checked).audit(sim, raw)


def test_live_check_rejects_busy_count_mismatch() -> None:
    """after_step raises when the engine's busy count differs from the running jobs'."""
    sim, checked, _ = _checked_run()
    checked.busy += 1
    with pytest.raises(InvariantError, match="engine counts 0 busy processors"):
        InvariantChecker(checked).after_step(sim.now, sim)


def test_checker_rejects_a_job_ending_twice() -> None:
    """on_finish twice for one job raises InvariantError."""
    sim, checked, _ = _checked_run()
    checked._open[0] = (sim.now, 2)
    checked.busy += 2
    with pytest.raises(InvariantError, match="job index 0 ended twice"):
        checked.on_finish(0)


def test_checked_policy_is_transparent() -> None:
    """check=True changes no result of a run (it only observes)."""
    w = workload([(0, 4, 5, 2), (1, 3, 3, 2), (2, 2, 9, 1), (2, 7, 3, 3)], 3)
    for name in ("fcfs", "easy", "conservative"):
        a = schedlab.simulate(w, policy=name).jobs
        b = schedlab.simulate(w, policy=name, check=True).jobs
        assert a.equals(b), name


def test_progress_callback_reports_ended_jobs_during_a_long_run() -> None:
    """simulate(progress=...) is called now and then with (jobs ended so far, jobs)."""
    calls: list[tuple[int, int]] = []
    workload = schedlab.generate_lublin(jobs=20000, procs=64, seed=5, kind="all")
    schedlab.simulate(workload, "easy", progress=lambda done, total: calls.append((done, total)))
    assert calls, "no progress reported over 20,000 jobs"
    assert all(total == 20000 for _, total in calls)
    dones = [done for done, _ in calls]
    assert dones == sorted(dones) and dones[0] >= 0 and dones[-1] <= 20000
