"""The fast policies equal the slow, independent reference (tests/reference.py) job for job."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import schedlab
from reference import reference_simulate
from strategies import SmallWorkload, small_workloads

POLICIES = ["fcfs", "easy", "conservative"]


def _compare(w: SmallWorkload, policy: str, kill_on_overrun: bool) -> None:
    req = w.req if kill_on_overrun else [max(r, q) for r, q in zip(w.run, w.req)]
    expected = reference_simulate(
        w.submit, w.run, req, w.procs, w.total, policy, kill_on_overrun=kill_on_overrun
    )
    result = schedlab.simulate(w.workload(), policy, kill_on_overrun=kill_on_overrun, check=True)
    jobs = result.jobs
    np.testing.assert_array_equal(jobs["started_at"].to_numpy(), expected["start"])
    np.testing.assert_array_equal(jobs["finished_at"].to_numpy(), expected["end"])
    np.testing.assert_array_equal(jobs["killed"].to_numpy(), expected["killed"])
    if policy == "conservative":
        np.testing.assert_array_equal(
            jobs["reservation_at"].to_numpy(), expected["reservation_at_submit"]
        )


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads())
def test_fast_equals_reference_with_kills(policy: str, w: SmallWorkload) -> None:
    """Start, end and killed flags equal the reference's, kill_on_overrun on."""
    _compare(w, policy, kill_on_overrun=True)


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=40, max_procs=32))
def test_fast_equals_reference_without_kills(policy: str, w: SmallWorkload) -> None:
    """Same with kill_on_overrun off (estimates raised to run times)."""
    _compare(w, policy, kill_on_overrun=False)


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=150, max_procs=64))
def test_fast_equals_reference_on_long_queues(policy: str, w: SmallWorkload) -> None:
    """Longer workloads, where queues build up and backfilling has choices to make."""
    _compare(w, policy, kill_on_overrun=True)
