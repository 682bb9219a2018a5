"""On slices of real PWA traces, the fast policies equal the slow reference job for job."""

from __future__ import annotations

import numpy as np
import pytest

import schedlab
from reference import check_schedule, reference_simulate
from schedlab.workload.transforms import first_jobs
from workloads import trace_path

pytestmark = pytest.mark.trace

TRACES = [
    "KTH-SP2-1996-2.swf.gz",
    "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "HPC2N-2002-2.1-cln.swf.gz",
    "LLNL-Thunder-2007-1.1-cln.swf.gz",
    "CEA-Curie-2011-2.1-cln.swf.gz",
]


def _run_both(name: str, policy: str, jobs: int | None) -> None:
    workload = schedlab.read_swf(trace_path(name))
    if jobs is not None:
        workload = first_jobs(workload, jobs)
    result = schedlab.simulate(workload, policy, check=True)
    submit = workload.submit_time.tolist()
    run = workload.run_time.tolist()
    req = workload.requested_time.tolist()
    procs = workload.procs.tolist()
    expected = reference_simulate(submit, run, req, procs, workload.max_procs, policy)
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
    got = result.jobs
    mismatch = np.flatnonzero(got["started_at"].to_numpy() != np.array(expected["start"]))
    assert mismatch.size == 0, (
        f"{policy} on {name}: {mismatch.size} start times differ, first at job index "
        f"{mismatch[0]}: fast {got['started_at'].iat[mismatch[0]]} vs reference "
        f"{expected['start'][mismatch[0]]}"
    )
    np.testing.assert_array_equal(got["finished_at"].to_numpy(), expected["end"])
    if policy == "conservative":
        np.testing.assert_array_equal(
            got["reservation_at"].to_numpy(), expected["reservation_at_submit"]
        )
        assert (got["started_at"] <= got["reservation_at"]).all()


@pytest.mark.parametrize("name", TRACES[:4])
@pytest.mark.parametrize("policy", ["fcfs", "easy"])
def test_queue_policies_match_reference_on_whole_trace(name: str, policy: str) -> None:
    """FCFS and EASY start times equal the reference's on every job of a whole trace."""
    _run_both(name, policy, None)


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
def test_queue_policies_match_reference_on_curie(policy: str) -> None:
    """Same on the first 20,000 jobs of CEA-Curie (93,312 processors)."""
    _run_both(TRACES[4], policy, 20000)


@pytest.mark.parametrize("name", TRACES)
def test_conservative_matches_reference_on_trace(name: str) -> None:
    """Conservative backfilling equals the reference (and its reservations) on 4000 jobs."""
    _run_both(name, "conservative", 4000)
