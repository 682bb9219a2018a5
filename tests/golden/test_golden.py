"""Golden schedules: each policy on the first 300 jobs of KTH-SP2-1996-2 (DESIGN.md 6).

The committed CSVs in ``data/`` hold job_id, started_at, finished_at and killed for every
job. Any change to a schedule shows up here as a diff; if the change is intended, refresh
with ``python3 -m pytest tests/golden --refresh-golden`` (see conftest.py) and review it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import schedlab
from schedlab.workload.job import Workload
from schedlab.workload.transforms import first_jobs
from workloads import trace_path

pytestmark = pytest.mark.trace

TRACE = "KTH-SP2-1996-2.swf.gz"
JOBS = 300
COLUMNS = ["job_id", "started_at", "finished_at", "killed"]
DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def kth300() -> Workload:
    """The first 300 jobs of KTH-SP2-1996-2 (skips when ../shared/workloads is absent)."""
    return first_jobs(schedlab.read_swf(trace_path(TRACE)), JOBS)


def _first_differences(got: pd.DataFrame, expected: pd.DataFrame, limit: int = 5) -> str:
    """How many jobs differ, and the first ones side by side."""
    differ = np.zeros(len(got), dtype=bool)
    for column in COLUMNS:
        differ |= got[column].to_numpy() != expected[column].to_numpy()
    if not differ.any():
        return ""
    both = got[differ].join(expected[differ], rsuffix="_golden")
    shown = both.head(limit).to_string(index=False)
    return f"{int(differ.sum())} of {len(got)} jobs differ; first ones:\n{shown}"


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_schedule_matches_the_golden_file(
    kth300: Workload, policy: str, refresh_golden: bool
) -> None:
    """The per-job start, end and killed flag of POLICY on KTH[:300] equal the golden CSV."""
    got = schedlab.simulate(kth300, policy, check=True).jobs[COLUMNS].reset_index(drop=True)
    path = DATA / f"{policy}_kth300.csv"
    if refresh_golden:
        DATA.mkdir(exist_ok=True)
        got.to_csv(path, index=False)
        pytest.fail(f"golden file {path} rewritten (--refresh-golden); rerun without the flag")
    assert path.exists(), f"{path} is missing: create it with --refresh-golden"
    expected = pd.read_csv(path, dtype={"job_id": "int64", "killed": "bool"})
    assert list(expected.columns) == COLUMNS
    assert len(got) == len(expected), f"{len(got)} jobs simulated, {len(expected)} in {path}"
    differences = _first_differences(got, expected)
    assert not differences, differences


def test_the_golden_slice_tells_the_policies_apart() -> None:
    """The three golden schedules differ pairwise, so the slice can catch a policy mix-up."""
    frames = {p: pd.read_csv(DATA / f"{p}_kth300.csv") for p in ("fcfs", "easy", "conservative")}
    assert not frames["fcfs"].equals(frames["easy"])
    assert not frames["easy"].equals(frames["conservative"])
    assert not frames["fcfs"].equals(frames["conservative"])
