"""PPS (SPEC 4, paper 002) equals the slow, independent reference (tests/reference_pps.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import schedlab
from reference_pps import reference_pps
from schedlab.engine import ClusterView, Decision, Simulator, Start, Suspend
from schedlab.engine.events import JobState
from schedlab.schedulers.pps import PpsParams, PriorityPreemptive
from strategies import SmallWorkload, small_workloads

MODES = ["suspend", "requeue"]


def _compare(w: SmallWorkload, preemption: str, kill_on_overrun: bool) -> None:
    req = w.req if kill_on_overrun else [max(r, q) for r, q in zip(w.run, w.req)]
    expected = reference_pps(
        w.submit,
        w.run,
        req,
        w.procs,
        w.total,
        preemption=preemption,
        kill_on_overrun=kill_on_overrun,
    )
    result = schedlab.simulate(
        w.workload(),
        "pps",
        kill_on_overrun=kill_on_overrun,
        check=True,
        preemption=preemption,
    )
    raw = result.raw
    np.testing.assert_array_equal(raw.started_at, expected["start"])
    np.testing.assert_array_equal(raw.finished_at, expected["end"])
    np.testing.assert_array_equal(raw.killed, expected["killed"])
    np.testing.assert_array_equal(raw.preemptions, expected["preemptions"])
    np.testing.assert_array_equal(raw.suspended_time, expected["suspended_time"])
    np.testing.assert_array_equal(raw.wasted_time, expected["wasted_time"])
    np.testing.assert_array_equal(raw.executed_time, expected["executed_time"])


@pytest.mark.parametrize("preemption", MODES)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads())
def test_pps_equals_reference_with_kills(preemption: str, w: SmallWorkload) -> None:
    """Starts, ends, kills, preemptions and times equal the reference's, kill_on_overrun on."""
    _compare(w, preemption, kill_on_overrun=True)


@pytest.mark.parametrize("preemption", MODES)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=40, max_procs=32))
def test_pps_equals_reference_without_kills(preemption: str, w: SmallWorkload) -> None:
    """Same with kill_on_overrun off (estimates raised to run times)."""
    _compare(w, preemption, kill_on_overrun=False)


@pytest.mark.parametrize("preemption", MODES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=150, max_procs=64))
def test_pps_equals_reference_on_long_queues(preemption: str, w: SmallWorkload) -> None:
    """Longer workloads, where queues build up and suspension chains get long."""
    _compare(w, preemption, kill_on_overrun=True)


@pytest.mark.parametrize("preemption", MODES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=30, max_procs=16))
def test_unlimited_processors_nobody_waits_or_is_preempted(
    preemption: str, w: SmallWorkload
) -> None:
    """On a machine as large as all jobs together, every job starts at its submission."""
    total = sum(w.procs)
    big = SmallWorkload(w.submit, w.run, w.req, w.procs, total)
    result = schedlab.simulate(big.workload(), "pps", check=True, preemption=preemption)
    raw = result.raw
    np.testing.assert_array_equal(raw.started_at, w.submit)
    assert not raw.preemptions.any()
    expected_end = np.array(w.submit) + np.minimum(w.run, w.req)
    np.testing.assert_array_equal(raw.finished_at, expected_end)


class _Recording(PriorityPreemptive):
    """PPS that keeps the decisions of every pass."""

    def setup(self, view: ClusterView) -> None:
        super().setup(view)
        self.passes: list[list[Decision]] = []

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        out = super().schedule(now, view)
        self.passes.append(list(out))
        return out


@pytest.mark.parametrize("preemption", MODES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=30, max_procs=8))
def test_suspensions_only_make_room_for_higher_priority(preemption: str, w: SmallWorkload) -> None:
    """A pass suspends only jobs of lower priority than a job it starts, and never starts a
    job it suspends; all its suspensions come before its starts."""
    policy = _Recording(PpsParams(preemption=preemption))
    schedlab.simulate(w.workload(), policy, check=True)
    keep = preemption == "suspend"
    for decisions in policy.passes:
        suspended = [d.job for d in decisions if isinstance(d, Suspend)]
        started = [d.job for d in decisions if isinstance(d, Start)]
        if not suspended:
            continue
        assert all(d.keep_progress is keep for d in decisions if isinstance(d, Suspend))
        assert min(started) < min(suspended)
        assert not set(started) & set(suspended)
        kinds = [type(d) for d in decisions]
        assert kinds == [Suspend] * len(suspended) + [Start] * len(started)


class _GreedyFixpoint:
    """Step observer: after every pass, the running jobs are those that fit in priority order.

    free + preemptible(k) = P - (processors of running jobs of higher priority than k), so a
    pass ends with every waiting job too wide for what the higher-priority running jobs
    leave, i.e. the running set is the greedy fill of the machine by priority among the
    active jobs. A stronger statement than any single schedule, checked at every instant.
    """

    def __init__(self) -> None:
        self.steps = 0

    def after_step(self, now: float, sim: Simulator) -> None:
        left = sim.total_procs
        for j in range(sim.n):
            state = sim.state[j]
            if state == JobState.RUNNING:
                assert sim.procs[j] <= left, f"t={now}: job {j} runs beyond the greedy fill"
                left -= sim.procs[j]
            elif state in (JobState.WAITING, JobState.SUSPENDED):
                assert sim.procs[j] > left, f"t={now}: job {j} waits but fits in {left}"
        self.steps += 1

    def finish(self, sim: Simulator) -> None:
        pass


@pytest.mark.parametrize("preemption", MODES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=40, max_procs=16))
def test_every_pass_ends_in_the_priority_greedy_fill(preemption: str, w: SmallWorkload) -> None:
    """After each instant, a job runs iff it fits beside the running higher-priority jobs."""
    observer = _GreedyFixpoint()
    sim = Simulator(
        submit_at=w.submit,
        run_time=w.run,
        requested_time=w.req,
        procs=w.procs,
        user=None,
        total_procs=w.total,
        policy=PriorityPreemptive(PpsParams(preemption=preemption)),
        observers=[observer],
    )
    sim.run()
    assert observer.steps > 0
