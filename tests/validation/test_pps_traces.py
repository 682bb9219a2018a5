"""On a slice of a real PWA trace, PPS equals the slow reference (tests/reference_pps.py)."""

from __future__ import annotations

import numpy as np
import pytest

import schedlab
from reference_pps import reference_pps
from schedlab.workload.transforms import first_jobs
from workloads import trace_path

pytestmark = pytest.mark.trace

TRACE = "KTH-SP2-1996-2.1-cln.swf.gz"  # one of the paper 002 traces (100 processors)
JOBS = 3000


@pytest.mark.parametrize("preemption", ["suspend", "requeue"])
def test_pps_matches_reference_on_kth(preemption: str) -> None:
    """Starts, ends, kills and preemptions equal the reference's on 3000 jobs of KTH."""
    workload = first_jobs(schedlab.read_swf(trace_path(TRACE)), JOBS)
    result = schedlab.simulate(workload, "pps", check=True, preemption=preemption)
    expected = reference_pps(
        workload.submit_time.tolist(),
        workload.run_time.tolist(),
        workload.requested_time.tolist(),
        workload.procs.tolist(),
        workload.max_procs,
        preemption=preemption,
    )
    raw = result.raw
    assert raw.preemptions.sum() > 0, "the slice should exercise preemption"
    mismatch = np.flatnonzero(raw.started_at != np.array(expected["start"]))
    assert mismatch.size == 0, (
        f"{mismatch.size} start times differ, first at job index {mismatch[0]}: fast "
        f"{raw.started_at[mismatch[0]]} vs reference {expected['start'][mismatch[0]]}"
    )
    np.testing.assert_array_equal(raw.finished_at, expected["end"])
    np.testing.assert_array_equal(raw.killed, expected["killed"])
    np.testing.assert_array_equal(raw.preemptions, expected["preemptions"])
    np.testing.assert_array_equal(raw.suspended_time, expected["suspended_time"])
    np.testing.assert_array_equal(raw.wasted_time, expected["wasted_time"])
