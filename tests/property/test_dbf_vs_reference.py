"""DBF (SPEC 4, paper 000) equals the slow, independent reference (tests/reference_dbf.py),
and the properties the paper promises hold on random small workloads."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedlab
from reference_dbf import reference_dbf
from strategies import SmallWorkload, small_workloads

NAN = math.nan
HUGE = 1e9  # seconds: a deadline no schedule of a small workload can miss

SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


@st.composite
def dbf_workloads(
    draw: st.DrawFn, max_jobs: int = 25, max_procs: int = 16, overruns: bool = True
) -> tuple[SmallWorkload, list[float]]:
    """A small workload and each job's ``deadline_time`` (seconds from submission, NaN for
    a priority job). Non-priority jobs get a tight slack (a few seconds beyond the
    requested time), a loose one, or an impossible one (below the requested time)."""
    w = draw(small_workloads(max_jobs=max_jobs, max_procs=max_procs, overruns=overruns))
    slack = []
    for req in w.req:
        kind = draw(st.sampled_from(["priority", "priority", "tight", "loose", "impossible"]))
        if kind == "priority":
            slack.append(math.nan)
        elif kind == "tight":
            slack.append(req + draw(st.integers(0, 12)))
        elif kind == "loose":
            slack.append(req + draw(st.integers(13, 120)))
        else:
            slack.append(draw(st.floats(0.0, req, exclude_max=True)))
    return w, slack


def _workload(w: SmallWorkload, slack: list[float] | None, req: list[float]):
    base = SmallWorkload(w.submit, w.run, req, w.procs, w.total).workload()
    if slack is None:
        return base
    return base.with_attribute("deadline_time", np.array(slack, dtype=float))


def _run(w: SmallWorkload, slack: list[float] | None, kill_on_overrun: bool) -> pd.DataFrame:
    req = w.req if kill_on_overrun else [max(r, q) for r, q in zip(w.run, w.req)]
    result = schedlab.simulate(
        _workload(w, slack, req), "dbf", kill_on_overrun=kill_on_overrun, check=True
    )
    return result.jobs


def _compare(w: SmallWorkload, slack: list[float], kill_on_overrun: bool) -> pd.DataFrame:
    req = w.req if kill_on_overrun else [max(r, q) for r, q in zip(w.run, w.req)]
    deadline_at = [None if math.isnan(s) else t + s for t, s in zip(w.submit, slack)]
    expected = reference_dbf(
        w.submit, w.run, req, w.procs, w.total, deadline_at, kill_on_overrun=kill_on_overrun
    )
    jobs = _run(w, slack, kill_on_overrun)
    np.testing.assert_array_equal(jobs["started_at"].to_numpy(), expected["start"])
    np.testing.assert_array_equal(jobs["finished_at"].to_numpy(), expected["end"])
    np.testing.assert_array_equal(jobs["killed"].to_numpy(), expected["killed"])
    assert jobs["dbf_class"].tolist() == expected["job_class"]
    np.testing.assert_array_equal(
        jobs["reservation_at"].to_numpy(), np.array(expected["definitive_at"], dtype=float)
    )
    return jobs


# --------------------------------------------------------------------------------------------
# Fast equals reference
# --------------------------------------------------------------------------------------------


@settings(max_examples=500, **SETTINGS)
@given(case=dbf_workloads())
def test_fast_equals_reference_with_kills(case) -> None:
    """Start, end, killed, definitive reservation and class equal the reference's."""
    w, slack = case
    _compare(w, slack, kill_on_overrun=True)


@settings(max_examples=250, **SETTINGS)
@given(case=dbf_workloads(max_jobs=40, max_procs=32))
def test_fast_equals_reference_without_kills(case) -> None:
    """Same with kill_on_overrun off (requested times raised to the run times)."""
    w, slack = case
    _compare(w, slack, kill_on_overrun=False)


@settings(max_examples=40, **SETTINGS)
@given(case=dbf_workloads(max_jobs=120, max_procs=32))
def test_fast_equals_reference_on_long_queues(case) -> None:
    """Longer workloads: deep queues, many provisional reservations to move."""
    w, slack = case
    _compare(w, slack, kill_on_overrun=True)


# --------------------------------------------------------------------------------------------
# Properties of the fast policy
# --------------------------------------------------------------------------------------------


@settings(max_examples=200, **SETTINGS)
@given(case=dbf_workloads(max_jobs=40, max_procs=32), kill=st.booleans())
def test_accepted_non_priority_jobs_meet_their_deadline(case, kill: bool) -> None:
    """(a) Every job accepted as non-priority (still so at its start, or migrated) ends by
    its deadline; the classes follow the attribute; a job that can never fit inside its
    deadline (submission + requested time > deadline) is promoted."""
    w, slack = case
    jobs = _run(w, slack, kill)
    req = jobs["requested_time"].to_numpy()
    cls = jobs["dbf_class"].to_numpy()
    has_deadline = ~np.isnan(np.array(slack))
    np.testing.assert_array_equal(jobs["priority"].to_numpy(), ~has_deadline)
    assert set(cls[~has_deadline]) <= {"priority"}
    assert set(cls[has_deadline]) <= {"non_priority", "migrated", "promoted"}
    deadline = jobs["deadline"].to_numpy()
    np.testing.assert_array_equal(
        deadline[has_deadline], (jobs["submitted_at"].to_numpy() + np.array(slack))[has_deadline]
    )
    accepted = (cls == "non_priority") | (cls == "migrated")
    assert (jobs["finished_at"].to_numpy()[accepted] <= deadline[accepted]).all()
    assert (jobs["started_at"].to_numpy()[accepted] + req[accepted] <= deadline[accepted]).all()
    # Even starting at its submission the job would end after its deadline (compared as
    # absolute times, as the policy does: submit + slack may round up to submit + req).
    impossible = has_deadline & (deadline < jobs["submitted_at"].to_numpy() + req)
    assert (cls[impossible] == "promoted").all()


@settings(max_examples=200, **SETTINGS)
@given(case=dbf_workloads(max_jobs=40, max_procs=32), kill=st.booleans())
def test_no_job_starts_after_its_definitive_reservation(case, kill: bool) -> None:
    """(b) A definitive reservation is a promise: the job starts at it or earlier. Jobs that
    started while non-priority have none (NaN), every other job has one."""
    w, slack = case
    jobs = _run(w, slack, kill)
    reservation = jobs["reservation_at"].to_numpy()
    cls = jobs["dbf_class"].to_numpy()
    np.testing.assert_array_equal(np.isnan(reservation), cls == "non_priority")
    definitive = ~np.isnan(reservation)
    started = jobs["started_at"].to_numpy()
    assert (started[definitive] <= reservation[definitive]).all()
    assert (reservation[definitive] >= jobs["submitted_at"].to_numpy()[definitive]).all()


@settings(max_examples=150, **SETTINGS)
@given(w=small_workloads(max_jobs=40, max_procs=32), kill=st.booleans(), attr=st.booleans())
def test_without_deadlines_dbf_is_conservative_backfilling(
    w: SmallWorkload, kill: bool, attr: bool
) -> None:
    """(c) With no non-priority job (no attribute, or all NaN) DBF is CBF exactly: same
    starts, ends, kills, and the reservation given at submission."""
    slack = [math.nan] * len(w.submit) if attr else None
    jobs = _run(w, slack, kill)
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    cbf = schedlab.simulate(
        _workload(w, None, req), "conservative", kill_on_overrun=kill, check=True
    ).jobs
    for column in ("started_at", "finished_at", "killed", "reservation_at"):
        np.testing.assert_array_equal(jobs[column].to_numpy(), cbf[column].to_numpy())
    assert (jobs["dbf_class"] == "priority").all()


@settings(max_examples=150, **SETTINGS)
@given(
    w=small_workloads(max_jobs=40, max_procs=32),
    mask=st.lists(st.booleans(), min_size=40, max_size=40),
    kill=st.booleans(),
)
def test_with_huge_deadlines_nothing_is_migrated(
    w: SmallWorkload, mask: list[bool], kill: bool
) -> None:
    """(d) With every deadline out of reach (huge), no job is ever migrated or promoted: the
    non-priority jobs keep provisional reservations until they start. If moreover every
    job is non-priority, no priority job ever arrives, Algorithm 1 never runs, and DBF is
    CBF (each job placed at arrival after every reservation, compressed alike)."""
    n = len(w.submit)
    slack = [HUGE if m else math.nan for m in mask[:n]]
    jobs = _run(w, slack, kill)
    cls = jobs["dbf_class"].to_numpy()
    np.testing.assert_array_equal(cls == "non_priority", np.array(mask[:n]))
    assert set(cls) <= {"priority", "non_priority"}

    all_non_priority = _run(w, [HUGE] * n, kill)
    assert (all_non_priority["dbf_class"] == "non_priority").all()
    assert all_non_priority["reservation_at"].isna().all()
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    cbf = schedlab.simulate(
        _workload(w, None, req), "conservative", kill_on_overrun=kill, check=True
    ).jobs
    for column in ("started_at", "finished_at", "killed"):
        np.testing.assert_array_equal(all_non_priority[column].to_numpy(), cbf[column].to_numpy())


# --------------------------------------------------------------------------------------------
# Rare paths of Algorithm 1, pinned (found by searching small instances with the reference)
# --------------------------------------------------------------------------------------------

RARE = {
    # L_TMP placed alone misses a deadline, the earlier non-priority jobs join, and L_TMP
    # placed again still misses one (first-fit anomaly after compressions): L_TMP keeps the
    # provisional reservations it had (strict deadlines).
    "fallback-1": (
        [3, 6, 6, 6, 7, 10],
        [1, 1, 3, 4, 1, 2],
        [2, 4, 6, 4, 2, 3],
        [2, 2, 2, 2, 2, 1],
        2,
        [5, NAN, 15, 8, 10, 4],
    ),
    "fallback-2": (
        [2, 3, 3, 4, 4, 7],
        [2, 5, 1, 3, 2, 3],
        [5, 5, 1, 3, 5, 4],
        [2, 2, 1, 1, 2, 2],
        2,
        [NAN, 12, 1, 4, 8, 6],
    ),
    # steps 4-6 succeed: a priority job arrives, L_TMP alone misses, J0 joins, all met.
    "earlier-jobs-join": (
        [2, 2, 2, 4, 5],
        [2, 3, 3, 1, 4],
        [2, 3, 3, 1, 4],
        [1, 2, 2, 1, 1],
        2,
        [7, 9, 4, 3, NAN],
    ),
}


@pytest.mark.parametrize("kill_on_overrun", [True, False])
@pytest.mark.parametrize("case", sorted(RARE))
def test_rare_algorithm_1_paths_match_reference(case: str, kill_on_overrun: bool) -> None:
    submit, run, req, procs, total, slack = RARE[case]
    w = SmallWorkload(
        [float(x) for x in submit],
        [float(x) for x in run],
        [float(x) for x in req],
        procs,
        total,
    )
    jobs = _compare(w, [float(s) for s in slack], kill_on_overrun=kill_on_overrun)
    assert (jobs["dbf_class"] == "migrated").any()
