"""`schedlab reproduce dbf|pps --quick --json`: the interface, and the papers' findings that
already hold on the reduced experiments (first 20k jobs, fewer load factors).

The whole reproductions, and the findings that need them, are in test_reproduce_full.py
behind the ``reproduce`` marker.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from workloads import SHARED_WORKLOADS, trace_path

DBF_KEYS = {
    "workload",
    "case",
    "cbf_priority_mean_wait_time",
    "dbf_priority_mean_wait_time",
    "cbf_mean_wait_time",
    "dbf_mean_wait_time",
    "cbf_priority_mean_slowdown",
    "dbf_priority_mean_slowdown",
    "missed_deadlines",
}
PPS_KEYS = {
    "workload",
    "load_factor",
    "easy_mean_response_time",
    "pps_mean_response_time",
    "easy_mean_bounded_slowdown",
    "pps_mean_bounded_slowdown",
    "easy_unfairness",
    "pps_unfairness",
    "easy_utilization",
    "pps_utilization",
}

pytestmark = pytest.mark.trace


def _reproduce(paper: str, out: Path) -> dict[str, Any]:
    trace_path("KTH-SP2-1996-2.swf.gz")  # skips when ../shared is absent
    result = CliRunner().invoke(
        app,
        [
            "reproduce",
            paper,
            "--quick",
            "--json",
            "--out",
            str(out),
            "--traces",
            str(SHARED_WORKLOADS),
            "--workers",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture(scope="module")
def dbf(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _reproduce("dbf", tmp_path_factory.mktemp("dbf"))


@pytest.fixture(scope="module")
def pps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _reproduce("pps", tmp_path_factory.mktemp("pps"))


def test_dbf_rows_have_the_documented_keys(dbf: dict[str, Any]) -> None:
    """One row per (reading, workload, case) with the keys users rely on, for the three
    traces: the main reading (plans from run times) first, then the sensitivity reading."""
    rows = dbf["rows"]
    assert [r["reading"] for r in rows] == ["run_time_plans"] * 6 + ["requested_time_plans"] * 6
    for reading in ("run_time_plans", "requested_time_plans"):
        assert {(r["workload"], r["case"]) for r in rows if r["reading"] == reading} == {
            (w, c) for w in ("SDSC-BLUE", "HPC2N", "CEA-Curie") for c in "ab"
        }
    for row in rows:
        assert set(row) >= DBF_KEYS | {"reading"}
        assert row["jobs"] == 20_000


def test_dbf_never_misses_an_accepted_deadline(dbf: dict[str, Any]) -> None:
    """missed_deadlines (accepted non-priority jobs ending late) is 0 everywhere."""
    assert [r["missed_deadlines"] for r in dbf["rows"]] == [0] * 12


def test_dbf_main_reading_helps_priority_jobs(dbf: dict[str, Any]) -> None:
    """Plans from run times: DBF lowers the priority jobs' mean wait below CBF's in both
    cases, case b (72 h) more than case a, on every trace."""
    by = {(r["workload"], r["case"]): r for r in dbf["rows"] if r["reading"] == "run_time_plans"}
    for workload in ("SDSC-BLUE", "HPC2N", "CEA-Curie"):
        a, b = by[(workload, "a")], by[(workload, "b")]
        for row in (a, b):
            assert row["dbf_priority_mean_wait_time"] < row["cbf_priority_mean_wait_time"], row
        assert b["dbf_priority_mean_wait_time"] < a["dbf_priority_mean_wait_time"], workload
        # CBF does not look at deadlines: both cases give it the same schedule
        assert a["cbf_mean_wait_time"] == b["cbf_mean_wait_time"]


def test_dbf_requested_time_plans_case_b_helps(dbf: dict[str, Any]) -> None:
    """The sensitivity reading (plans from the trace's estimates): case b still lowers the
    priority jobs' mean wait below CBF and below case a."""
    rows = [r for r in dbf["rows"] if r["reading"] == "requested_time_plans"]
    by = {(r["workload"], r["case"]): r for r in rows}
    for workload in ("SDSC-BLUE", "HPC2N", "CEA-Curie"):
        a, b = by[(workload, "a")], by[(workload, "b")]
        assert b["dbf_priority_mean_wait_time"] < b["cbf_priority_mean_wait_time"], workload
        assert b["dbf_priority_mean_wait_time"] < a["dbf_priority_mean_wait_time"], workload
        assert a["cbf_mean_wait_time"] == b["cbf_mean_wait_time"]


def test_dbf_writes_tables_and_figure(dbf: dict[str, Any]) -> None:
    out = Path(dbf["out"])
    for name in ("rows.json", "tables.md", "table1.csv", "table2.csv", "dbf_priority_wait.svg"):
        assert (out / name).is_file(), name
    assert "Table 1: priority jobs" in (out / "tables.md").read_text()
    assert (out / "catalog.parquet").is_file()  # a results folder like any sweep's


PPS_VARIANTS = (
    "main",
    "lublin_batch_256",
    "easy_no_kill",
    "easy_no_extra",
    "easy_useless_estimates",
    "easy_near_fcfs",
)


def _main(pps: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in pps["rows"] if r["variant"] == "main"]


def test_pps_rows_have_the_documented_keys(pps: dict[str, Any]) -> None:
    """Main rows for the four workloads, then the Lublin sensitivity set and the EASY
    variants (SDSC-BLUE only); every row says its variant and whether it is comparable."""
    rows = pps["rows"]
    loads = (0.5, 1.0, 1.5)
    assert {(r["workload"], r["load_factor"]) for r in _main(pps)} == {
        (w, f) for w in ("SDSC-BLUE", "KTH", "LLNL-Thunder", "Lublin") for f in loads
    }
    assert [r["variant"] for r in rows] == [
        v for v in PPS_VARIANTS for _ in range(12 if v == "main" else 3)
    ]
    for row in rows:
        assert set(row) >= PPS_KEYS | {"variant", "comparable"}
        assert isinstance(row["comparable"], bool)
        assert row["batches"] == 4  # 20 000 jobs in batches of 5000
        if row["variant"] == "lublin_batch_256":
            assert row["workload"] == "Lublin"
        elif row["variant"] != "main":
            assert row["workload"] == "SDSC-BLUE"


def test_pps_flags_rows_where_nothing_queues(pps: dict[str, Any]) -> None:
    """LLNL-Thunder's log has start times for arrivals: replayed at load <= 1 no job waits
    (bounded slowdown 1, unfairness 0), so those rows are flagged; every other row queues."""
    for row in pps["rows"]:
        no_queue = row["workload"] == "LLNL-Thunder" and row["load_factor"] <= 1.0
        assert row["comparable"] is not no_queue, row
        if no_queue:
            assert row["easy_mean_bounded_slowdown"] == 1.0
            assert row["easy_unfairness"] == 0.0


def test_pps_is_fairer_at_equal_utilization(pps: dict[str, Any]) -> None:
    """Paper 002, Table 2: PPS deviates less from FCFS order; utilization does not change."""
    for row in _main(pps):
        assert row["pps_unfairness"] <= row["easy_unfairness"], row
        if row["easy_unfairness"] > 1:
            assert row["pps_unfairness"] < row["easy_unfairness"], row
        assert abs(row["pps_utilization"] - row["easy_utilization"]) < 0.01, row


def test_pps_beats_easy_on_lublin_at_low_and_medium_load(pps: dict[str, Any]) -> None:
    """Paper 002, Table 1 (Lublin): lower mean response and bounded slowdown with PPS, with
    the published generator's default and with the batch set on 256 processors."""
    for row in pps["rows"]:
        if row["workload"] == "Lublin" and row["load_factor"] <= 1.0:
            assert row["pps_mean_response_time"] < row["easy_mean_response_time"], row
            assert row["pps_mean_bounded_slowdown"] < row["easy_mean_bounded_slowdown"], row


def test_pps_gains_depend_on_easy(pps: dict[str, Any]) -> None:
    """On SDSC-BLUE at load 1.5 PPS loses to the proper EASY but wins by far against the
    near-FCFS one (useless estimates, no extra-processor rule, no kill)."""
    by = {(r["workload"], r["variant"], r["load_factor"]): r for r in pps["rows"]}
    main, near = by[("SDSC-BLUE", "main", 1.5)], by[("SDSC-BLUE", "easy_near_fcfs", 1.5)]
    assert main["pps_mean_response_time"] > main["easy_mean_response_time"]
    assert near["pps_mean_response_time"] < 0.5 * near["easy_mean_response_time"]
    assert near["pps_mean_response_time"] == main["pps_mean_response_time"]  # same PPS runs


def test_a_second_run_reuses_the_results(dbf: dict[str, Any]) -> None:
    """Re-running resumes from the results folder: nothing is simulated again, same rows."""
    runs = Path(dbf["out"]) / "runs"
    before = {p.name: p.stat().st_mtime_ns for p in runs.iterdir()}
    again = _reproduce("dbf", Path(dbf["out"]))
    assert again["rows"] == dbf["rows"]
    assert {p.name: p.stat().st_mtime_ns for p in runs.iterdir()} == before
    assert len(before) == 24  # 2 readings x 3 traces x 2 cases x {conservative, dbf}


def test_unknown_paper_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["reproduce", "papr003", "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert "dbf, dirac, hlw, pps, tdcs" in str(result.exception) + result.output
