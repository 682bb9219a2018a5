"""multifactor on random small workloads: never breaks an invariant, and with age alone it is
the independent reference's EASY, job for job."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedlab
from reference import reference_simulate
from schedlab.workload.job import Workload
from strategies import SmallWorkload, small_workloads

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

params_st = st.fixed_dictionaries(
    {
        "weight_age": st.sampled_from([0.0, 1.0, 1000.0]),
        "weight_fairshare": st.sampled_from([0.0, 1.0, 10000.0]),
        "weight_job_size": st.sampled_from([0.0, 1.0, 1000.0]),
        "max_age": st.sampled_from([1.0, 30.0, 1e6]),
        "decay_half_life": st.sampled_from([0.0, 5.0, 100.0]),
        "favor_small": st.booleans(),
        "calc_period": st.sampled_from([1.0, 3.0, 10.0]),
    }
)


def _with_users(w: SmallWorkload, users: list[int]) -> Workload:
    return Workload.from_columns(
        submit_time=np.array(w.submit),
        run_time=np.array(w.run),
        procs=np.array(w.procs),
        requested_time=np.array(w.req),
        user_id=np.array(users[: len(w.submit)]),
        max_procs=w.total,
    )


@SETTINGS
@given(
    w=small_workloads(max_jobs=40),
    users=st.lists(st.integers(0, 3), min_size=40, max_size=40),
    params=params_st,
    kill=st.booleans(),
)
def test_invariants_hold(
    w: SmallWorkload, users: list[int], params: dict[str, object], kill: bool
) -> None:
    """The checker (processors, starts after submission, one end per job, work) passes."""
    result = schedlab.simulate(
        _with_users(w, users), "multifactor", check=True, kill_on_overrun=kill, **params
    )
    assert len(result.jobs) == len(w.submit)


@SETTINGS
@given(
    w=small_workloads(max_jobs=40),
    users=st.lists(st.integers(0, 3), min_size=40, max_size=40),
    calc_period=st.sampled_from([1.0, 3.0, 10.0]),
)
def test_age_alone_is_the_reference_easy(
    w: SmallWorkload, users: list[int], calc_period: float
) -> None:
    """Priority by age only is arrival order (ties and capped ages fall back on it)."""
    expected = reference_simulate(w.submit, w.run, w.req, w.procs, w.total, "easy")
    jobs = schedlab.simulate(
        _with_users(w, users),
        "multifactor",
        check=True,
        weight_age=1.0,
        weight_fairshare=0.0,
        weight_job_size=0.0,
        max_age=20.0,
        calc_period=calc_period,
    ).jobs
    np.testing.assert_array_equal(jobs["started_at"].to_numpy(), expected["start"])
