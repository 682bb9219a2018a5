"""The command-line conventions users expect (issue 13, point 4): -h, python -m schedlab,
shell completion, ``-o -`` for stdout, --quiet, human durations in tables, percentiles,
a warm-up cut, per-job metric columns and the shipped examples."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from schedlab import simulate
from schedlab.cli import _quiet_first, app
from schedlab.humanize import human_duration
from schedlab.metrics.summary import summarize, warmup_jobs
from schedlab.workload.job import Workload
from schedlab.workload.swf import read_swf

SPEC = "lublin:jobs=300,procs=32,seed=1"
runner = CliRunner()


def ok(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stdout, result.stderr


def schedlab(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it: ``python -m schedlab ARGS`` in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "schedlab", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


# -- -h, python -m, completion ----------------------------------------------------------


@pytest.mark.parametrize("args", [["-h"], ["run", "-h"], ["workload", "convert", "-h"]])
def test_dash_h_is_help(args: list[str]) -> None:
    stdout, _ = ok(*args)
    assert "Usage:" in stdout and "--help" in stdout


def test_python_dash_m_runs_the_same_command() -> None:
    version = schedlab("--version")
    assert version.returncode == 0 and version.stdout.startswith("schedlab ")
    bad = schedlab("run", "nope.swf")
    assert bad.returncode == 2
    assert bad.stderr.startswith("schedlab: error: ") and "nope.swf" in bad.stderr


def test_shell_completion_script_and_completions() -> None:
    # (typer's switch for tests: ``--show-completion`` then takes the shell named, instead
    # of detecting the parent process's, which fails where pytest runs under no shell)
    named = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    script = schedlab("--show-completion", "bash", env=named)
    assert script.returncode == 0 and "complete" in script.stdout
    env = {
        **os.environ,
        "_SCHEDLAB_COMPLETE": "complete_bash",
        "COMP_WORDS": "schedlab wor",
        "COMP_CWORD": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", "from schedlab.cli import main; main()"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.stdout.split() == ["workload"]


# -- -o - (standard output) -------------------------------------------------------------


def test_generate_to_stdout_is_the_swf(tmp_path: Path) -> None:
    stdout, stderr = ok("workload", "generate", "lublin:jobs=20,procs=16,seed=3", "-o", "-")
    (tmp_path / "a.swf").write_text(stdout)
    wl = read_swf(tmp_path / "a.swf")
    assert len(wl) == 20 and wl.max_procs == 16
    assert "standard output" in stderr


def test_convert_to_stdout_equals_convert_to_a_file(tmp_path: Path) -> None:
    source = tmp_path / "in.swf"
    ok("workload", "generate", "lublin:jobs=50,procs=16,seed=4", "-o", str(source))
    stdout, _ = ok("workload", "convert", str(source), "-", "--first", "10")
    ok("workload", "convert", str(source), str(tmp_path / "out.swf"), "--first", "10")
    assert stdout == (tmp_path / "out.swf").read_text()


def test_run_jobs_out_to_stdout_moves_the_table_to_stderr() -> None:
    stdout, stderr = ok("run", SPEC, "--jobs-out", "-")
    frame = pd.read_csv(io.StringIO(stdout))
    assert len(frame) == 300
    assert "mean wait" in stderr  # the summary table, out of the CSV's way


def test_run_jobs_out_to_stdout_with_json_is_refused() -> None:
    result = runner.invoke(app, ["run", SPEC, "--jobs-out", "-", "--json"])
    assert result.exit_code != 0
    assert "already carries --json" in str(result.exception)


# -- --quiet -----------------------------------------------------------------------------


def test_quiet_silences_notes_but_not_results() -> None:
    loud = schedlab("run", SPEC, "--policy", "dbf", "--json")
    assert "schedlab: note: dbf" in loud.stderr
    for args in (["-q", "run", SPEC], ["run", SPEC, "--quiet"]):
        quiet = schedlab(*args, "--policy", "dbf", "--json")
        assert quiet.returncode == 0 and quiet.stderr == ""
        assert json.loads(quiet.stdout)["jobs"] == 300


def test_quiet_is_moved_before_the_command_but_not_after_a_double_dash() -> None:
    assert _quiet_first(["run", "x", "-q"]) == ["--quiet", "run", "x"]
    assert _quiet_first(["run", "x"]) == ["run", "x"]
    assert _quiet_first(["run", "--", "-q"]) == ["run", "--", "-q"]


# -- durations, percentiles, warm-up, per-job columns -----------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (0.4, "0.4s"),
        (42, "42s"),
        (60, "1m"),
        (125, "2m 5s"),
        (7980, "2h 13m"),
        (86400, "1d"),
        (90061, "1d 1h"),
        (-7980, "-2h 13m"),
        (float("nan"), "-"),
    ],
)
def test_human_duration(seconds: float, text: str) -> None:
    assert human_duration(seconds) == text


def test_tables_show_human_durations_and_json_seconds() -> None:
    stdout, _ = ok("run", SPEC)
    data = json.loads(ok("run", SPEC, "--json")[0])
    assert human_duration(data["mean_wait_time"]) in stdout
    assert human_duration(data["makespan"]) in stdout
    assert isinstance(data["mean_wait_time"], float)


def _jobs(submit: list[float], run: list[float], wait: list[float]) -> dict[str, np.ndarray]:
    s, r, w = (np.asarray(x, dtype=float) for x in (submit, run, wait))
    return {
        "submitted_at": s,
        "started_at": s + w,
        "finished_at": s + w + r,
        "wait_time": w,
        "run_time": r,
        "procs": np.ones(len(s)),
        "killed": np.zeros(len(s), dtype=bool),
    }


def test_percentiles_by_hand() -> None:
    # waits 0, 10, 20, ..., 90: median 45, p90 = 81 (linear: 0.9 x 9 = 8.1 -> 80 + 0.1 x 10)
    jobs = _jobs(submit=[0.0] * 10, run=[100.0] * 10, wait=[10.0 * i for i in range(10)])
    got = summarize(jobs, procs=10)
    assert got["median_wait_time"] == pytest.approx(45.0)
    assert got["p90_wait_time"] == pytest.approx(81.0)
    assert got["p99_wait_time"] == pytest.approx(89.1)
    # bounded slowdown = (wait + 100) / 100: 1.0 ... 1.9
    assert got["median_bounded_slowdown"] == pytest.approx(1.45)
    assert got["p99_bounded_slowdown"] == pytest.approx(1.891)


def test_warmup_cut_counts() -> None:
    assert warmup_jobs(0, 10) == 0
    assert warmup_jobs("3", 10) == 3
    assert warmup_jobs("25%", 10) == 2  # rounded down
    for bad in ("-1", "x", "100%", "1.5"):
        with pytest.raises(Exception, match="warm-up"):
            warmup_jobs(bad, 10)
    with pytest.raises(Exception, match="fewer than the 10 jobs"):
        warmup_jobs(10, 10)


def test_warmup_leaves_the_first_jobs_out_of_the_metrics(lublin_small: Workload) -> None:
    result = simulate(lublin_small, "easy")
    cut = result.summary(warmup="10%")
    rest = {name: col[30:] for name, col in result.columns.items()}
    assert cut == {**summarize(rest, procs=32), "wall_time": cut["wall_time"]}
    assert cut["jobs"] == 270
    assert result.summary(warmup=30) == cut


def test_warmup_on_the_command_line() -> None:
    full = json.loads(ok("run", SPEC, "--json")[0])
    cut = json.loads(ok("run", SPEC, "--json", "--warmup", "10%")[0])
    same = json.loads(ok("run", SPEC, "--json", "--skip-first", "30")[0])
    assert full["jobs"] == 300 and cut["jobs"] == 270 and cut["warmup_jobs"] == 30
    assert cut["mean_wait_time"] == same["mean_wait_time"]
    result = runner.invoke(app, ["run", SPEC, "--warmup", "5", "--skip-first", "5"])
    assert result.exit_code != 0


def test_jobs_out_has_per_job_response_and_slowdowns(tmp_path: Path) -> None:
    ok("run", SPEC, "--jobs-out", str(tmp_path / "jobs.csv"))
    jobs = pd.read_csv(tmp_path / "jobs.csv")
    response = jobs["finished_at"] - jobs["submitted_at"]
    assert np.allclose(jobs["response_time"], response)
    ran = jobs["run_time"] > 0
    assert np.allclose(jobs.loc[ran, "slowdown"], response[ran] / jobs.loc[ran, "run_time"])
    bsld = np.maximum(response / np.maximum(jobs["run_time"], 10.0), 1.0)
    assert np.allclose(jobs["bounded_slowdown"], bsld)
    assert jobs["bounded_slowdown"].mean() == pytest.approx(
        json.loads(ok("run", SPEC, "--json")[0])["mean_bounded_slowdown"]
    )


# -- the shipped examples ---------------------------------------------------------------


def test_examples_are_listed_and_printed_from_the_installed_package(tmp_path: Path) -> None:
    listing, _ = ok("example")
    for name in ("sweep", "quick-sweep", "platform-dirac", "grid-sweep"):
        assert name in listing
    text = schedlab("example", "quick-sweep").stdout
    (tmp_path / "quick.toml").write_text(text)
    dry = schedlab("sweep", str(tmp_path / "quick.toml"), "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert len(json.loads(dry.stdout)["runs"]) == 18  # 3 seeds since issue 23


def test_example_written_with_output_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "p.toml"
    ok("example", "platform-dirac", "-o", str(target))
    assert target.read_text() == schedlab("example", "platform-dirac").stdout
    again = runner.invoke(app, ["example", "platform-dirac", "-o", str(target)])
    assert again.exit_code != 0


@pytest.fixture
def lublin_small() -> Workload:
    from schedlab.workload.load import load_workload

    return load_workload(SPEC)
