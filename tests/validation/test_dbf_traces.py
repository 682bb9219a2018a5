"""DBF on real PWA traces (paper 000's SDSC-BLUE and HPC2N), one job in three non-priority:
the fast policy equals the slow reference (tests/reference_dbf.py) job for job, and no
accepted non-priority job ends after its deadline."""

from __future__ import annotations

import math

import numpy as np
import pytest

import schedlab
from reference import check_schedule
from reference_dbf import reference_dbf
from schedlab.workload.deadlines import mark_non_priority
from schedlab.workload.transforms import first_jobs
from workloads import trace_path

pytestmark = pytest.mark.trace

TRACES = ["SDSC-BLUE-2000-4.2-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz"]
RULES = ["a", "b"]  # slack max(24 h, 2 x run) / max(72 h, 2 x run)


def _marked(name: str, jobs: int, rule: str):
    workload = first_jobs(schedlab.read_swf(trace_path(name)), jobs)
    return mark_non_priority(workload, every=3, deadline=rule)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", TRACES)
def test_dbf_matches_reference_on_trace(name: str, rule: str) -> None:
    """Starts, ends, kills, definitive reservations and classes equal the reference's on
    the first 2000 jobs."""
    workload = _marked(name, 2000, rule)
    got = schedlab.simulate(workload, "dbf", check=True).jobs
    submit = workload.submit_time.tolist()
    run = workload.run_time.tolist()
    req = workload.requested_time.tolist()
    procs = workload.procs.tolist()
    slack = workload.attributes["deadline_time"].tolist()
    deadline_at = [None if math.isnan(s) else t + s for t, s in zip(submit, slack)]
    expected = reference_dbf(submit, run, req, procs, workload.max_procs, deadline_at)
    check_schedule(
        submit,
        run,
        req,
        procs,
        workload.max_procs,
        expected["start"],
        expected["end"],
        expected["killed"],
    )
    mismatch = np.flatnonzero(got["started_at"].to_numpy() != np.array(expected["start"]))
    assert mismatch.size == 0, (
        f"dbf ({rule}) on {name}: {mismatch.size} start times differ, first at job index "
        f"{mismatch[0]}: fast {got['started_at'].iat[mismatch[0]]} vs reference "
        f"{expected['start'][mismatch[0]]}"
    )
    np.testing.assert_array_equal(got["finished_at"].to_numpy(), expected["end"])
    np.testing.assert_array_equal(got["killed"].to_numpy(), expected["killed"])
    assert got["dbf_class"].tolist() == expected["job_class"]
    np.testing.assert_array_equal(
        got["reservation_at"].to_numpy(), np.array(expected["definitive_at"], dtype=float)
    )
    assert (got["dbf_class"] != "priority").sum() == len(workload) // 3


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", TRACES)
def test_no_accepted_non_priority_job_misses_its_deadline(name: str, rule: str) -> None:
    """On the first 30000 jobs: every non-priority job accepted at submission (started as
    such or migrated) ends by its deadline, and no job with a definitive reservation
    starts after it."""
    workload = _marked(name, 30000, rule)
    jobs = schedlab.simulate(workload, "dbf", check=True).jobs
    cls = jobs["dbf_class"].to_numpy()
    accepted = (cls == "non_priority") | (cls == "migrated")
    assert accepted.sum() > 0.9 * (len(workload) // 3)
    late = accepted & (jobs["finished_at"].to_numpy() > jobs["deadline"].to_numpy())
    assert not late.any(), f"{late.sum()} accepted jobs end after their deadline"
    reservation = jobs["reservation_at"].to_numpy()
    definitive = ~np.isnan(reservation)
    assert (jobs["started_at"].to_numpy()[definitive] <= reservation[definitive]).all()
