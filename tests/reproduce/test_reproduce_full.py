"""The whole reproductions of papers 000 and 002 (minutes): `pytest -m reproduce`.

What is asserted is what the issue asks to hold on the full experiments (paper 000 Table 1,
paper 002 Tables 1-2, "same direction, similar magnitude"); docs/reproductions.md lists the
figures of the last run next to the published ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schedlab.experiments.reproduce.dbf import reproduce_dbf
from schedlab.experiments.reproduce.pps import reproduce_pps
from workloads import SHARED_WORKLOADS, trace_path

pytestmark = [pytest.mark.reproduce, pytest.mark.trace]


@pytest.fixture(scope="module")
def dbf_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    trace_path("SDSC-BLUE-2000-4.2-cln.swf.gz")
    out = Path(tmp_path_factory.mktemp("dbf"))
    return reproduce_dbf(SHARED_WORKLOADS, out).rows


@pytest.fixture(scope="module")
def pps_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    trace_path("KTH-SP2-1996-2.swf.gz")
    out = Path(tmp_path_factory.mktemp("pps"))
    return reproduce_pps(SHARED_WORKLOADS, out).rows


def test_dbf_priority_jobs_wait_less_than_under_cbf(dbf_rows: list[dict[str, Any]]) -> None:
    """Table 1: on SDSC-BLUE and HPC2N, priority jobs wait less with DBF, more so in case b."""
    by = {(r["workload"], r["case"]): r for r in dbf_rows}
    for workload in ("SDSC-BLUE", "HPC2N"):
        a, b = by[(workload, "a")], by[(workload, "b")]
        for row in (a, b):
            assert row["dbf_priority_mean_wait_time"] < row["cbf_priority_mean_wait_time"]
            assert row["dbf_mean_wait_time"] < row["cbf_mean_wait_time"]  # Table 2
        assert b["dbf_priority_mean_wait_time"] < a["dbf_priority_mean_wait_time"]
    assert all(r["missed_deadlines"] == 0 for r in dbf_rows)


def test_pps_on_kth_and_lublin(pps_rows: list[dict[str, Any]]) -> None:
    """Tables 1-2: fairer and at equal utilization everywhere; lower bounded slowdown on
    KTH and Lublin up to load 1.0, lower mean response on Lublin up to load 1.25 (above
    that, our PPS loses to EASY: see docs/reproductions.md)."""
    for row in pps_rows:
        assert row["pps_unfairness"] <= row["easy_unfairness"], row
        assert abs(row["pps_utilization"] - row["easy_utilization"]) < 0.01, row
        if row["workload"] in ("KTH", "Lublin") and row["load_factor"] <= 1.0:
            assert row["pps_mean_bounded_slowdown"] < row["easy_mean_bounded_slowdown"], row
        if row["workload"] == "Lublin" and row["load_factor"] <= 1.25:
            assert row["pps_mean_response_time"] < row["easy_mean_response_time"], row
