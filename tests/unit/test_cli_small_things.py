"""What a user trips on (issue 23, items 4 and 7): a moldable-job policy given rigid jobs says
so, as dbf without deadlines does; ``run --json`` records what ran; ``convert --first``
dates the log's new end."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from test_cli import invoke, invoke_json, run_main

from schedlab.notes import set_quiet
from workloads import trace_path

RIGID = "lublin:jobs=60,procs=16,seed=3"


@pytest.fixture(autouse=True)
def notes_on() -> None:
    set_quiet(False)


@pytest.mark.parametrize("policy", ["cpa", "fs", "fs0.5x", "rand"])
def test_a_moldable_policy_on_rigid_jobs_says_so(
    policy: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(monkeypatch, capsys, "run", RIGID, "--policy", policy)
    assert code == 0, err
    assert f"{policy} schedules moldable jobs and no job here is moldable" in err
    assert "--moldable pi=X" in err


def test_moldable_jobs_or_a_rigid_policy_say_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (
        ("run", RIGID, "--policy", "cpa", "--moldable", "pi=0.9"),
        ("run", "hlw:n=2,nodes=8,seed=1", "--policy", "fs"),
        ("run", RIGID, "--policy", "easy"),
    ):
        code, out, err = run_main(monkeypatch, capsys, *args)
        assert code == 0, err
        assert "schedules moldable jobs" not in err


def test_run_json_records_the_policy_its_parameters_and_the_workload() -> None:
    data = invoke_json("run", RIGID, "--policy", "multifactor", "--param", "weight_age=2", "--json")
    assert data["policy"] == "multifactor" and data["workload"] == RIGID
    assert data["params"]["weight_age"] == 2  # given, beside the defaults it ran with
    assert len(data["params"]) > 1


def end_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("; EndTime:"))


def test_convert_writes_the_end_date_of_the_jobs_it_keeps(tmp_path: Path) -> None:
    kth = trace_path("KTH-SP2-1996-2.swf.gz")
    archive = end_line(gzip.decompress(kth.read_bytes()).decode())
    whole, first = tmp_path / "whole.swf", tmp_path / "first.swf"
    invoke("workload", "convert", str(kth), str(whole))
    invoke("workload", "convert", str(kth), "--first", "5000", str(first))
    # computed from the jobs, the archive's own end date comes back to the second
    assert end_line(whole.read_text()) == archive == "; EndTime:   Fri Aug 29 10:55:01 CEST 1997"
    # the last of the first 5,000 jobs ends on 16 December 1996, not in August 1997
    assert end_line(first.read_text()) == "; EndTime:   Mon Dec 16 04:54:06 CET 1996"


def test_validate_mmc_tables_state_their_mean_service_times(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    # --quick with 300-job replications: fast, too short to pass at load 0.9 (exit 1 says so)
    code, out, err = run_main(monkeypatch, capsys, "validate", "mmc", "--quick", "--jobs", "300")
    assert code in (0, 1) and "Traceback" not in err, err
    assert "mean service time 1 s" in out  # the c x loads table (service 1 s)
    assert "M/M/4, mean service time 4 s" in out  # the paper's protocol (service 4 s)


SACCT_GPU = (
    "JobID|Submit|Start|End|Elapsed|AllocCPUS|NNodes|ReqTRES|State\n"
    "1|2024-03-01T00:00:00|2024-03-01T00:00:10|2024-03-01T01:00:00|01:00:00|64|2|"
    "cpu=64,gres/gpu=8,mem=512G,node=2|COMPLETED\n"
    "2|2024-03-01T00:05:00|2024-03-01T00:05:00|2024-03-01T00:35:00|00:30:00|8|1|"
    "cpu=8,mem=16G,node=1|COMPLETED\n"
)


def test_workload_info_says_what_the_jobs_ask_of_the_nodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24, first step: a site checks that its sacct log was read as it meant."""
    log = tmp_path / "sacct.txt"
    log.write_text(SACCT_GPU)
    data = invoke_json("workload", "info", str(log), "--json")
    assert data["jobs_asking_gpus"] == 1 and data["largest_gpu_request"] == 8
    assert data["largest_node_request"] == 2 and data["jobs_giving_nodes"] == 2
    assert data["largest_memory_per_node_mib"] == 256 * 1024  # 512G over 2 nodes
    assert data["exclusive_jobs"] is None  # sacct does not record --exclusive
    monkeypatch.setenv("COLUMNS", "100")
    code, out, err = run_main(monkeypatch, capsys, "workload", "info", str(log))
    assert code == 0, err
    assert "jobs asking for GPUs" in out and "256 GiB" in out
    # an SWF trace has processors only: nothing is said of nodes or GPUs
    swf = invoke_json("workload", "info", RIGID, "--json")
    assert not any("gpu" in key for key in swf)
