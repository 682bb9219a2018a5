"""Theorems every run must satisfy, checked on random workloads (tests/strategies.py).

Each property is a consequence of SPEC sections 1, 2 and 4 that holds for every input, not
a statistical tendency: scaling all times by a power of two scales every wait exactly; with
enough processors nobody waits; FCFS starts in submit order; conservative backfilling never
starts a job after the reservation it got at submission; EASY never starts the queue head
after the shadow time it had when it became head; a load factor is a scaling of submits.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedlab
from schedlab.workload.job import Workload
from strategies import SmallWorkload, small_workloads

POLICIES = ["fcfs", "easy", "conservative"]
FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _workload(w: SmallWorkload, *, scale: float = 1.0, submit_scale: float = 1.0) -> Workload:
    return Workload.from_columns(
        submit_time=np.array(w.submit) * scale * submit_scale,
        run_time=np.array(w.run) * scale,
        procs=np.array(w.procs),
        requested_time=np.array(w.req) * scale,
        max_procs=w.total,
    )


@pytest.mark.parametrize("policy", POLICIES)
@FAST
@given(
    w=small_workloads(),
    exponent=st.integers(-4, 6).filter(lambda e: e != 0),
    kill=st.booleans(),
)
def test_scaling_all_times_scales_waits(
    policy: str, w: SmallWorkload, exponent: int, kill: bool
) -> None:
    """Submit, run and requested times times 2**k give waits, starts and ends times 2**k."""
    factor = 2.0**exponent
    base = schedlab.simulate(_workload(w), policy, kill_on_overrun=kill, check=True).jobs
    scaled = schedlab.simulate(
        _workload(w, scale=factor), policy, kill_on_overrun=kill, check=True
    ).jobs
    for column in ("wait_time", "started_at", "finished_at"):
        np.testing.assert_array_equal(scaled[column].to_numpy(), base[column].to_numpy() * factor)
    np.testing.assert_array_equal(scaled["killed"].to_numpy(), base["killed"].to_numpy())


@pytest.mark.parametrize("policy", POLICIES)
@FAST
@given(w=small_workloads(), kill=st.booleans())
def test_nobody_waits_when_the_machine_holds_every_job(
    policy: str, w: SmallWorkload, kill: bool
) -> None:
    """With P >= the sum of all jobs' processors, every job starts at its submit time."""
    roomy = SmallWorkload(w.submit, w.run, w.req, w.procs, sum(w.procs))
    jobs = schedlab.simulate(roomy.workload(), policy, kill_on_overrun=kill, check=True).jobs
    np.testing.assert_array_equal(jobs["started_at"].to_numpy(), jobs["submitted_at"].to_numpy())
    assert (jobs["wait_time"] == 0).all()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=40))
def test_fcfs_starts_jobs_in_submit_order(w: SmallWorkload) -> None:
    """FCFS start times are non-decreasing in submit (trace) order."""
    jobs = schedlab.simulate(w.workload(), "fcfs", check=True).jobs
    assert (np.diff(jobs["started_at"].to_numpy()) >= 0).all()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=40), kill=st.booleans())
def test_conservative_never_starts_after_its_reservation(w: SmallWorkload, kill: bool) -> None:
    """A CBF job starts at or before the reservation it was given at submission."""
    jobs = schedlab.simulate(w.workload(), "conservative", kill_on_overrun=kill, check=True).jobs
    reservation = jobs["reservation_at"].to_numpy()
    assert (reservation >= jobs["submitted_at"].to_numpy()).all()
    assert (jobs["started_at"].to_numpy() <= reservation).all()


def _shadow_bounds(jobs, total: int) -> list[tuple[int, float, float]]:
    """(job, instant it became head, shadow time then) for each job that had to wait as head.

    Job j is the queue head from h = max(submit_j, latest start of an earlier job) on. The
    shadow time is the earliest s >= h at which the processors not held by jobs running at h
    (whose expected ends are start + requested time) suffice for j. Counting jobs backfilled
    at h as running only delays s, so the bound is still one EASY must meet.
    """
    sub = jobs["submitted_at"].to_numpy()
    start = jobs["started_at"].to_numpy()
    end = jobs["finished_at"].to_numpy()
    expected_end = start + jobs["requested_time"].to_numpy()
    procs = jobs["procs"].to_numpy()
    out = []
    latest = -np.inf
    for j in range(len(sub)):
        h = max(sub[j], latest)
        latest = max(latest, start[j])
        if start[j] == h:
            continue
        running = (start <= h) & (h < end)
        candidates = sorted({h, *expected_end[running]})
        for s in candidates:
            held = procs[running & (expected_end > s)].sum()
            if total - held >= procs[j]:
                out.append((j, h, s))
                break
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=40), kill=st.booleans())
def test_easy_never_delays_the_head_beyond_its_shadow_time(w: SmallWorkload, kill: bool) -> None:
    """An EASY head starts no later than the shadow time computed when it became head."""
    jobs = schedlab.simulate(w.workload(), "easy", kill_on_overrun=kill, check=True).jobs
    start = jobs["started_at"].to_numpy()
    for j, h, shadow in _shadow_bounds(jobs, w.total):
        assert start[j] <= shadow, (
            f"job index {j}: head at {h}, shadow {shadow}, started {start[j]}"
        )


@pytest.mark.parametrize("policy", POLICIES)
@FAST
@given(w=small_workloads(), factor=st.sampled_from([0.3, 0.5, 0.8, 1.25, 1.7, 2.0, 3.0]))
def test_load_factor_is_scaling_submit_times(policy: str, w: SmallWorkload, factor: float) -> None:
    """simulate(load_factor=f) equals the run whose submit times are multiplied by 1/f."""
    by_option = schedlab.simulate(w.workload(), policy, load_factor=factor, check=True).jobs
    by_hand = schedlab.simulate(_workload(w, submit_scale=1.0 / factor), policy, check=True).jobs
    for column in ("submitted_at", "started_at", "finished_at", "killed"):
        np.testing.assert_array_equal(by_option[column].to_numpy(), by_hand[column].to_numpy())


@pytest.mark.parametrize("policy", POLICIES)
@FAST
@given(w=small_workloads())
def test_runs_are_deterministic(policy: str, w: SmallWorkload) -> None:
    """The same inputs give the same per-job results, bit for bit (SPEC 1)."""
    a = schedlab.simulate(w.workload(), policy).jobs
    b = schedlab.simulate(w.workload(), policy).jobs
    assert a.equals(b)


@pytest.mark.parametrize("policy", POLICIES)
@FAST
@given(w=small_workloads())
def test_every_job_runs_min_of_run_and_requested_time(policy: str, w: SmallWorkload) -> None:
    """Without preemption a job occupies exactly min(run, req) and is killed iff run > req."""
    jobs = schedlab.simulate(w.workload(), policy, check=True).jobs
    occupied = (jobs["finished_at"] - jobs["started_at"]).to_numpy()
    np.testing.assert_array_equal(occupied, np.minimum(w.run, w.req))
    np.testing.assert_array_equal(jobs["killed"].to_numpy(), np.array(w.run) > np.array(w.req))
    off = schedlab.simulate(w.workload(), policy, kill_on_overrun=False, check=True).jobs
    np.testing.assert_array_equal((off["finished_at"] - off["started_at"]).to_numpy(), w.run)
    assert not off["killed"].any()
