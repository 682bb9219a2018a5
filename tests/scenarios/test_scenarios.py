"""Hand-computed scenarios: every ``NAME.swf`` here runs against ``NAME.expected.csv``.

Each SWF file carries, in its ``;`` header, the reasoning by which its expected start and end
times were worked out by hand from SPEC.md sections 1, 2 and 4 (not by running code). The
expected CSV has the columns ``policy,job_id,started_at,finished_at,killed``; every policy it
lists is run with the invariant checker on and compared exactly, job for job.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import schedlab

HERE = Path(__file__).parent
SCENARIOS = sorted(HERE.glob("*.swf"))
REQUIRED_POLICIES = {"fcfs", "easy", "conservative"}


def _expected(swf: Path) -> pd.DataFrame:
    return pd.read_csv(swf.with_name(swf.stem + ".expected.csv"))


def _job_lines(swf: Path) -> int:
    lines = swf.read_text().splitlines()
    return sum(1 for line in lines if line.strip() and not line.lstrip().startswith(";"))


def _cases() -> list[tuple[Path, str]]:
    cases = []
    for swf in SCENARIOS:
        for policy in sorted(set(_expected(swf)["policy"])):
            cases.append((swf, policy))
    return cases


def test_every_scenario_is_complete() -> None:
    """Each scenario has an expected CSV covering fcfs, easy and conservative."""
    assert len(SCENARIOS) >= 6
    for swf in SCENARIOS:
        expected = _expected(swf)
        assert list(expected.columns) == [
            "policy",
            "job_id",
            "started_at",
            "finished_at",
            "killed",
        ], swf.name
        assert set(expected["policy"]) >= REQUIRED_POLICIES, swf.name
        assert any("MaxProcs:" in line for line in swf.read_text().splitlines()), swf.name


@pytest.mark.parametrize(("swf", "policy"), _cases(), ids=[f"{s.stem}-{p}" for s, p in _cases()])
def test_scenario(swf: Path, policy: str) -> None:
    """The policy's start/end/killed per job equal the hand-computed values exactly."""
    expected = _expected(swf)
    expected = expected[expected["policy"] == policy].sort_values("job_id")
    result = schedlab.simulate(swf, policy=policy, check=True)
    jobs = result.jobs.sort_values("job_id")
    assert jobs["job_id"].tolist() == expected["job_id"].tolist()
    assert jobs["started_at"].tolist() == expected["started_at"].astype(float).tolist()
    assert jobs["finished_at"].tolist() == expected["finished_at"].astype(float).tolist()
    assert jobs["killed"].astype(bool).tolist() == expected["killed"].astype(bool).tolist()
    # jobs of the file that are not in the table were skipped, and counted as such
    assert result.workload.total_skipped == _job_lines(swf) - len(expected)
