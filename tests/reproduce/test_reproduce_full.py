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
from schedlab.experiments.reproduce.published import DBF_TABLES, PPS_TABLES
from schedlab.report.reproduce import draw_figures
from workloads import SHARED_WORKLOADS, trace_path

pytestmark = [pytest.mark.reproduce, pytest.mark.trace]


@pytest.fixture(scope="module")
def dbf_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    trace_path("SDSC-BLUE-2000-4.2-cln.swf.gz")
    out = Path(tmp_path_factory.mktemp("dbf"))
    result = reproduce_dbf(SHARED_WORKLOADS, out)
    draw_figures("dbf", result, out)  # as `schedlab reproduce dbf` does
    return result.rows


@pytest.fixture(scope="module")
def pps_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    trace_path("KTH-SP2-1996-2.swf.gz")
    out = Path(tmp_path_factory.mktemp("pps"))
    result = reproduce_pps(SHARED_WORKLOADS, out)
    draw_figures("pps", result, out)  # as `schedlab reproduce pps` does
    return result.rows


def _dbf_change(row: dict[str, Any], key: str) -> float:
    """DBF's change against CBF in percent, as paper 000's tables give it."""
    return (row[f"dbf_{key}"] - row[f"cbf_{key}"]) / row[f"cbf_{key}"] * 100.0


def test_dbf_main_reading_matches_table_1(dbf_rows: list[dict[str, Any]]) -> None:
    """Plans from run times (the main reading): the priority jobs' mean-wait change is the
    paper's within 8 points on SDSC-BLUE and HPC2N, in both cases (measured: -27.1 / -48.2
    against -21.6 / -46.2, and -20.3 / -31.9 against -20.7 / -32.0)."""
    main = {(r["workload"], r["case"]): r for r in dbf_rows if r["reading"] == "run_time_plans"}
    for workload in ("SDSC-BLUE", "HPC2N"):
        published = DBF_TABLES[workload]["priority"]["wait_h"]
        for case, paper in (("a", published[1]), ("b", published[2])):
            ours = _dbf_change(main[(workload, case)], "priority_mean_wait_time")
            assert abs(ours - paper) <= 8.0, (workload, case, ours, paper)


def test_dbf_directions_everywhere(dbf_rows: list[dict[str, Any]]) -> None:
    """Tables 1-2, the paper's directions: with plans from run times DBF lowers the priority
    jobs' mean wait and slowdown and all jobs' mean wait on every trace in both cases, case b
    more than case a; all jobs' slowdown too on SDSC-BLUE and HPC2N (on CEA-Curie, case a,
    it rises by about 2 %: docs/reproductions.md). With plans from the requested times (the
    sensitivity reading) the priority jobs still wait less, case b more so. No accepted
    non-priority job misses its deadline in either reading."""
    assert len(dbf_rows) == 12
    for reading in ("run_time_plans", "requested_time_plans"):
        by = {(r["workload"], r["case"]): r for r in dbf_rows if r["reading"] == reading}
        for workload in ("SDSC-BLUE", "HPC2N", "CEA-Curie"):
            a, b = by[(workload, "a")], by[(workload, "b")]
            for row in (a, b):
                assert _dbf_change(row, "priority_mean_wait_time") < 0, row
                if reading == "run_time_plans":
                    assert _dbf_change(row, "priority_mean_slowdown") < 0, row
                    assert _dbf_change(row, "mean_wait_time") < 0, row
                    if workload != "CEA-Curie" or row["case"] == "b":
                        assert _dbf_change(row, "mean_slowdown") < 0, row
            assert b["dbf_priority_mean_wait_time"] < a["dbf_priority_mean_wait_time"]
    assert all(r["missed_deadlines"] == 0 for r in dbf_rows)


def test_pps_on_kth_and_lublin(pps_rows: list[dict[str, Any]]) -> None:
    """Tables 1-2 (main rows): fairer and at equal utilization everywhere; lower bounded
    slowdown on KTH and Lublin up to load 1.0, lower mean response on Lublin up to load
    1.25 (above that, our PPS loses to EASY: see docs/reproductions.md)."""
    main = [r for r in pps_rows if r["variant"] == "main"]
    assert len(main) == 20
    for row in main:
        assert row["pps_unfairness"] <= row["easy_unfairness"], row
        assert abs(row["pps_utilization"] - row["easy_utilization"]) < 0.02, row
        if row["workload"] in ("KTH", "Lublin") and row["load_factor"] <= 1.0:
            assert row["pps_mean_bounded_slowdown"] < row["easy_mean_bounded_slowdown"], row
        if row["workload"] == "Lublin" and row["load_factor"] <= 1.25:
            assert row["pps_mean_response_time"] < row["easy_mean_response_time"], row


def test_pps_lublin_as_published_matches_the_papers_easy(pps_rows: list[dict[str, Any]]) -> None:
    """The published generator's default (batch + interactive, 128 nodes): EASY's mean
    response within a factor 2 of the paper's at loads 0.5-1, PPS's gain at least 10 % at
    load <= 0.75; the batch set on 256 processors (sensitivity) is 3-5x too slow."""
    for row in pps_rows:
        if row["workload"] != "Lublin" or row["load_factor"] > 1.0:
            continue
        paper = PPS_TABLES["Lublin"][row["load_factor"]][0]
        ratio = row["easy_mean_response_time"] / paper
        if row["variant"] == "main":
            assert 0.5 <= ratio <= 2.0, row
            if row["load_factor"] <= 0.75:
                assert row["pps_mean_response_time"] < 0.9 * row["easy_mean_response_time"]
        else:
            assert row["variant"] == "lublin_batch_256"
            assert ratio > 2.0, row


def test_pps_flags_thunder_below_load_1_25(pps_rows: list[dict[str, Any]]) -> None:
    """LLNL-Thunder replays start times as arrivals: at load <= 1 nothing queues (bounded
    slowdown 1, unfairness 0) and the rows are flagged; all other main rows queue."""
    for row in pps_rows:
        if row["variant"] != "main":
            continue
        no_queue = row["workload"] == "LLNL-Thunder" and row["load_factor"] <= 1.0
        assert row["comparable"] is not no_queue, row
        if no_queue:
            assert row["easy_mean_bounded_slowdown"] == 1.0
            assert row["easy_unfairness"] == 0.0


def test_pps_gains_depend_on_easy(pps_rows: list[dict[str, Any]]) -> None:
    """SDSC-BLUE: against the proper EASY PPS's mean response is higher from load 1 up;
    against the near-FCFS EASY (useless estimates, no extra-processor rule, no kill) PPS
    wins at every load, by more than 60 % at load 1.5 (the paper's CM5: -84 %); useless
    estimates alone put PPS ahead on bounded slowdown at every load."""
    by = {(r["variant"], r["load_factor"]): r for r in pps_rows if r["workload"] == "SDSC-BLUE"}
    for f in (1.0, 1.25, 1.5):
        main = by[("main", f)]
        assert main["pps_mean_response_time"] > main["easy_mean_response_time"], main
    for f in (0.5, 0.75, 1.0, 1.25, 1.5):
        near = by[("easy_near_fcfs", f)]
        assert near["pps_mean_response_time"] < near["easy_mean_response_time"], near
        useless = by[("easy_useless_estimates", f)]
        assert useless["pps_mean_bounded_slowdown"] < useless["easy_mean_bounded_slowdown"]
    near = by[("easy_near_fcfs", 1.5)]
    assert near["pps_mean_response_time"] < 0.4 * near["easy_mean_response_time"], near
