"""Slurm, PBS and CSV logs end to end through the CLI: run, workload info/convert, sweep and
report (issue 13: "a sacct file and a PBS accounting file written from their documentation
replay end to end through run, sweep and report, with skipped records counted by reason").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner, Result

from schedlab.cli import app
from schedlab.experiments.scenarios import load_run_workload
from schedlab.experiments.sweep import load_sweep
from schedlab.workload import load
from schedlab.workload.load import load_workload
from schedlab.workload.swf import read_swf

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
SACCT, PBS, JOBS = LOGS / "sacct.txt", LOGS / "pbs_accounting.txt", LOGS / "jobs.csv"
# Records skipped, by reason (worked out in test_import_slurm.py and test_import_pbs.py).
SACCT_SKIPPED = {
    "job_step": 3,
    "unstarted_array_tasks": 1,
    "not_finished": 3,
    "requeued": 1,
    "nonpositive_run_time": 2,
}
PBS_SKIPPED = {"non_end_record": 17, "array_parent": 1, "nonpositive_run_time": 1}
COLUMNS = "submit=Submitted,start=Started,end=Finished,procs=CPUs,status=Outcome"

runner = CliRunner()


@pytest.fixture(autouse=True)
def fresh_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(load, "_TOLD_PARTITIONS", set())


def invoke(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def reasons(skipped: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in skipped.items() if v}


def test_run_replays_a_sacct_and_a_pbs_log() -> None:
    """sacct: 11 jobs on the inferred 44 processors, 10 records skipped; the notes say how
    the size was found and that 2 partitions are simulated as one machine."""
    result = invoke("run", str(SACCT), "--policy", "easy", "--json")
    summary = json.loads(result.stdout)
    assert (summary["jobs"], summary["skipped"], summary["procs"]) == (11, 10, 44)
    assert summary["skipped_by_reason"] == SACCT_SKIPPED
    assert "skipped: job_step" in invoke("run", str(SACCT), "--policy", "easy").stdout
    assert "machine size 44 = the peak" in result.stderr
    assert "2 partitions (1 cpu: 9 jobs, 2 gpu: 2 jobs)" in result.stderr
    summary = json.loads(invoke("run", f"pbs:{PBS}", "--procs", "16", "--json").stdout)
    assert (summary["jobs"], summary["skipped"], summary["procs"]) == (8, 19, 16)
    assert summary["skipped_by_reason"] == PBS_SKIPPED


def test_info_counts_skipped_records_by_reason_and_shows_partitions() -> None:
    info = json.loads(invoke("workload", "info", str(SACCT), "--json").stdout)
    assert info["skipped_by_reason"] == SACCT_SKIPPED
    assert [(p["partition"], p["name"], p["jobs"]) for p in info["partitions"]] == [
        (1, "cpu", 9),
        (2, "gpu", 2),
    ]
    info = json.loads(invoke("workload", "info", str(PBS), "--json").stdout)
    assert info["skipped_by_reason"] == PBS_SKIPPED
    text = invoke("workload", "info", str(SACCT)).stdout
    assert "skipped: job_step" in text and "2 partitions (SWF field 16)" in text


def test_convert_writes_the_log_as_swf_losslessly(tmp_path: Path) -> None:
    """The SWF reads back with the same fields, machine size and named partitions, and
    replays to the same metrics."""
    out = tmp_path / "sacct.swf"
    invoke("workload", "convert", str(SACCT), str(out))
    original = load_workload(str(SACCT), note_partitions=False)
    back = read_swf(out)
    assert np.array_equal(back.fields, original.fields)
    assert back.max_procs == original.max_procs == 44
    assert "Partition: 2 gpu" in back.header
    a = json.loads(invoke("run", str(SACCT), "--json").stdout)
    b = json.loads(invoke("run", str(out), "--json").stdout)
    for key in ("jobs", "procs", "makespan", "mean_wait_time", "utilization"):
        assert a[key] == b[key]


def test_columns_option_on_run_and_convert(tmp_path: Path) -> None:
    summary = json.loads(invoke("run", str(JOBS), "--columns", COLUMNS, "--json").stdout)
    assert summary["jobs"] == 4
    out = tmp_path / "jobs.swf"
    invoke("workload", "convert", str(JOBS), str(out), "--columns", COLUMNS)
    assert read_swf(out).submit_time.tolist() == [0, 600, 1800, 2400]
    refused = runner.invoke(app, ["run", str(PBS), "--columns", COLUMNS])
    assert refused.exit_code != 0 and "only for a CSV log" in str(refused.exception)


def test_sweep_and_report_replay_the_logs(tmp_path: Path) -> None:
    """A sweep whose workloads are the sacct file (found by its content) and the PBS file
    (by its prefix, 16 processors), relative to the sweep file; then the HTML report."""
    (tmp_path / "logs").mkdir()
    for path in (SACCT, PBS):
        shutil.copy(path, tmp_path / "logs" / path.name)
    sweep = tmp_path / "logs.toml"
    sweep.write_text(
        '[[workloads]]\npath = "logs/sacct.txt"\n'
        '[[workloads]]\npath = "pbs:logs/pbs_accounting.txt"\nprocs = 16\n'
        '[[policies]]\nname = "easy"\n[[policies]]\nname = "fcfs"\n'
    )
    out = tmp_path / "out"
    outcome = json.loads(
        invoke("sweep", str(sweep), "--out", str(out), "--workers", "1", "--json").stdout
    )
    assert outcome["done"] == 4 and outcome["failed"] == 0
    catalog = pd.read_parquet(out / "catalog.parquet")
    got = {
        (r.workload, r.policy): (r.jobs, r.skipped, r.procs)
        for r in catalog.itertuples(index=False)
    }
    assert got == {
        ("sacct.txt", "easy"): (11, 10, 44),
        ("sacct.txt", "fcfs"): (11, 10, 44),
        ("pbs_accounting.txt", "easy"): (8, 19, 16),
        ("pbs_accounting.txt", "fcfs"): (8, 19, 16),
    }
    spec = load_sweep(sweep)
    by_reason = {
        run.workload: reasons(load_run_workload(run, spec.base_dir).skipped) for run in spec.runs
    }
    assert by_reason == {
        "logs/sacct.txt": SACCT_SKIPPED,
        "pbs:logs/pbs_accounting.txt": PBS_SKIPPED,
    }
    runs = json.loads(invoke("results", str(out), "--json").stdout)["runs"]
    stored = {(r["workload"], r["policy"]): r["skipped_by_reason"] for r in runs}
    assert stored[("sacct.txt", "easy")] == SACCT_SKIPPED
    assert stored[("pbs_accounting.txt", "fcfs")] == PBS_SKIPPED
    report = tmp_path / "report.html"
    invoke("report", str(out), "-o", str(report))
    page = report.read_text()
    assert "sacct.txt" in page and "pbs_accounting.txt" in page
    assert "records skipped, by reason" in page
    for reason, count in SACCT_SKIPPED.items():
        assert f"{reason} {count:,}" in page
