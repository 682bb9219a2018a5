"""The ``schedlab`` command as a user drives it (DESIGN.md sections 4 and 5).

Successful commands go through ``typer.testing.CliRunner`` on ``schedlab.cli.app``. The error
contract (one line on stderr, exit code 2, no traceback) belongs to the ``main()`` wrapper,
so error tests call ``main()`` in-process with a patched ``sys.argv``; one test runs the
installed ``schedlab`` script in a subprocess to pin the same contract end to end.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner, Result

from schedlab import cli
from schedlab.cli import app
from schedlab.metrics import SUMMARY_KEYS
from schedlab.workload.job import N_FIELDS, F
from schedlab.workload.swf import read_swf
from workloads import trace_path

SPEC = "lublin:jobs=300,procs=64,seed=2"
POLICIES = ("fcfs", "easy", "conservative")
DESIGN_COLUMNS = (
    "job_id",
    "submitted_at",
    "started_at",
    "finished_at",
    "wait_time",
    "run_time",
    "requested_time",
    "procs",
    "user",
    "killed",
)

runner = CliRunner()


# -- helpers -----------------------------------------------------------------------------------


def invoke(*args: str) -> Result:
    """Run ``schedlab ARGS`` through CliRunner; fail with its output unless it exits 0."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (
        f"schedlab {' '.join(args)} exited {result.exit_code}\n"
        f"stdout: {result.stdout}\nstderr: {result.stderr}\nexception: {result.exception!r}"
    )
    return result


def invoke_json(*args: str) -> dict:
    """Run a ``--json`` command and parse its stdout, which must be one JSON object."""
    out = invoke(*args).stdout
    assert len(out.strip().splitlines()) == 1, out
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def run_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    """Call the console-script entry point ``main()`` in-process: (exit code, out, err)."""
    monkeypatch.setattr(sys, "argv", ["schedlab", *args])
    code = 0
    try:
        cli.main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code: int, out: str | None, err: str, *fragments: str) -> str:
    """Exit 2, nothing on stdout, one ``schedlab: error:`` line holding every fragment.

    Pass ``out=None`` when the command may legitimately have printed results before failing.
    """
    assert code == 2, f"exit code {code}, stderr: {err}"
    assert "Traceback" not in err
    if out is not None:
        assert out == "", f"unexpected stdout: {out}"
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{err}"
    line = lines[0]
    assert line.startswith("schedlab: error: "), line
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    return line


def swf_line(
    job_id: int,
    submit: float,
    run: float,
    procs: int,
    requested: float,
    *,
    status: int = 1,
    user: int = 1,
) -> str:
    """One 18-field SWF job line; the fields not given are -1 (unknown)."""
    row = [-1.0] * N_FIELDS
    row[F["job_id"]] = job_id
    row[F["submit_time"]] = submit
    row[F["run_time"]] = run
    row[F["allocated_procs"]] = procs
    row[F["requested_procs"]] = procs
    row[F["requested_time"]] = requested
    row[F["status"]] = status
    row[F["user_id"]] = user
    return " ".join(f"{v:g}" for v in row)


def write_swf_text(path: Path, lines: Sequence[str], max_procs: int = 4) -> Path:
    path.write_text(f"; MaxProcs: {max_procs}\n" + "".join(line + "\n" for line in lines))
    return path


# -- schedlab run ------------------------------------------------------------------------------


def test_run_json_prints_one_object_with_the_design_summary_keys() -> None:
    """`run SPEC --policy easy --json` prints exactly the DESIGN.md 4 summary keys, sane values."""
    data = invoke_json("run", SPEC, "--policy", "easy", "--json")
    recorded = {"policy", "params", "workload"}  # what ran, as grid run --json records it
    assert set(data) - {"total_wall_time", "skipped_by_reason", *recorded} == set(SUMMARY_KEYS)
    assert data["policy"] == "easy" and data["workload"] == SPEC
    assert data["params"] == {"backfill_order": "fcfs", "extra_procs": True}  # the defaults
    assert data["skipped_by_reason"] == {}  # a model workload skips nothing
    assert set(SUMMARY_KEYS) == {
        "jobs",
        "skipped",
        "procs",
        "makespan",
        "utilization",
        "mean_wait_time",
        "max_wait_time",
        "mean_response_time",
        "mean_slowdown",
        "mean_bounded_slowdown",
        "median_wait_time",
        "p90_wait_time",
        "p99_wait_time",
        "median_bounded_slowdown",
        "p90_bounded_slowdown",
        "p99_bounded_slowdown",
        "unfairness",
        "killed",
        "wall_time",
    }
    assert data["median_wait_time"] <= data["p90_wait_time"] <= data["p99_wait_time"]
    assert data["p99_wait_time"] <= data["max_wait_time"]
    assert 1 <= data["median_bounded_slowdown"] <= data["p99_bounded_slowdown"]
    assert data["jobs"] == 300
    assert data["procs"] == 64
    assert data["skipped"] == 0
    assert 0 < data["utilization"] <= 1
    assert data["makespan"] > 0
    assert 0 <= data["mean_wait_time"] <= data["max_wait_time"]
    assert data["mean_response_time"] >= data["mean_wait_time"]
    assert data["mean_slowdown"] >= 1
    assert 1 <= data["mean_bounded_slowdown"] <= data["mean_slowdown"]
    assert data["unfairness"] >= 0
    assert data["killed"] == 0  # the Lublin model has no estimates: nobody overruns
    assert data["wall_time"] >= 0


def test_run_human_output_is_a_table_of_the_metrics() -> None:
    """Without --json, `run` prints a table naming the policy, workload and the metrics."""
    out = invoke("run", SPEC, "--policy", "fcfs").stdout
    assert f"fcfs on {SPEC}" in out
    for label in ("mean wait", "p90 wait", "mean bounded slowdown", "utilization", "unfairness"):
        assert label in out
    assert re.search(r"\bjobs\b\W+300\b", out)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_run_jobs_out_writes_the_per_job_table(tmp_path: Path, suffix: str) -> None:
    """`--jobs-out` writes one row per job with the DESIGN.md 4 columns, as CSV or Parquet."""
    target = tmp_path / f"jobs{suffix}"
    data = invoke_json("run", SPEC, "--policy", "easy", "--jobs-out", str(target), "--json")
    frame = pd.read_csv(target) if suffix == ".csv" else pd.read_parquet(target)
    assert set(DESIGN_COLUMNS) <= set(frame.columns)
    assert len(frame) == data["jobs"] == 300
    assert frame["job_id"].tolist() == list(range(1, 301))
    np.testing.assert_allclose(frame["wait_time"], frame["started_at"] - frame["submitted_at"])
    np.testing.assert_allclose(frame["run_time"], frame["finished_at"] - frame["started_at"])
    assert (frame["wait_time"] >= 0).all()
    assert frame["killed"].dtype == bool
    assert frame["wait_time"].mean() == pytest.approx(data["mean_wait_time"])


def test_run_jobs_out_with_another_extension_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--jobs-out x.txt` is refused with one line naming the option and the allowed forms."""
    target = tmp_path / "x.txt"
    code, out, err = run_main(monkeypatch, capsys, "run", SPEC, "--jobs-out", str(target))
    assert_one_line_error(code, out, err, "--jobs-out", "x.txt", ".csv", ".parquet")
    assert not target.exists()


def test_run_jobs_out_into_a_missing_directory_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--jobs-out` into a directory that does not exist exits 2 with one line naming it."""
    target = tmp_path / "no-such-dir" / "jobs.csv"
    code, _, err = run_main(monkeypatch, capsys, "run", SPEC, "--jobs-out", str(target), "--json")
    assert_one_line_error(code, None, err, "no-such-dir")


def test_run_check_gives_the_same_summary_as_without() -> None:
    """`--check` runs the invariant checker and changes none of the results."""
    plain = invoke_json("run", SPEC, "--policy", "conservative", "--json")
    checked = invoke_json("run", SPEC, "--policy", "conservative", "--check", "--json")
    timing = {"wall_time", "total_wall_time"}
    assert {k: v for k, v in checked.items() if k not in timing} == {
        k: v for k, v in plain.items() if k not in timing
    }


def test_run_load_factor_divides_submit_times(tmp_path: Path) -> None:
    """`--load-factor 2` halves every submit time (SPEC 2: submit x 1/F)."""
    base, scaled = tmp_path / "base.csv", tmp_path / "scaled.csv"
    invoke("run", SPEC, "--policy", "fcfs", "--jobs-out", str(base), "--json")
    invoke(
        "run", SPEC, "--policy", "fcfs", "--load-factor", "2", "--jobs-out", str(scaled), "--json"
    )
    before, after = pd.read_csv(base), pd.read_csv(scaled)
    np.testing.assert_array_equal(after["submitted_at"], before["submitted_at"] * 0.5)
    np.testing.assert_array_equal(after["run_time"], before["run_time"])


def test_run_load_factor_zero_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--load-factor 0` is refused with one line naming load_factor."""
    code, out, err = run_main(monkeypatch, capsys, "run", SPEC, "--load-factor", "0")
    assert_one_line_error(code, out, err, "load_factor", "> 0")


def test_run_kill_on_overrun_is_on_by_default_and_can_be_turned_off(tmp_path: Path) -> None:
    """A job over its requested time is killed then by default, and runs out with the flag off."""
    # One 1-proc job: runs 100 s, requested 50 s.
    trace = write_swf_text(tmp_path / "over.swf", [swf_line(1, 0, 100, 1, 50)])
    killed_csv, kept_csv = tmp_path / "killed.csv", tmp_path / "kept.csv"
    on = invoke_json("run", str(trace), "--policy", "fcfs", "--jobs-out", str(killed_csv), "--json")
    off = invoke_json(
        "run",
        str(trace),
        "--policy",
        "fcfs",
        "--no-kill-on-overrun",
        "--jobs-out",
        str(kept_csv),
        "--json",
    )
    assert on["killed"] == 1
    assert off["killed"] == 0
    killed, kept = pd.read_csv(killed_csv).iloc[0], pd.read_csv(kept_csv).iloc[0]
    assert (killed["finished_at"], killed["run_time"], bool(killed["killed"])) == (50, 50, True)
    # With the kill off the estimate is raised to the run time (SPEC 1).
    assert (kept["finished_at"], kept["run_time"], kept["requested_time"]) == (100, 100, 100)
    assert not bool(kept["killed"])


def test_run_param_backfill_order_sjf_reaches_easy(tmp_path: Path) -> None:
    """`--param backfill_order=sjf` makes EASY try the shortest job first when it backfills."""
    # P = 4. J1 (2 procs, 100 s) and J2 (2 procs, 10 s) start at 0. J3 (4 procs) arrives at 1
    # and blocks: shadow time 100, extra processors 4 - 4 = 0. J4 (2 procs, 80 s) at 2 and
    # J5 (2 procs, 20 s) at 3 wait for J2 to end at 10, freeing 2 processors:
    #   fcfs order: J4 starts at 10 (ends 90 <= 100); J5 would end after 100 -> after J3, at 200.
    #   sjf order:  J5 starts at 10 (ends 30); J4 would then end at 110 > 100 -> at 200.
    trace = write_swf_text(
        tmp_path / "sjf.swf",
        [
            swf_line(1, 0, 100, 2, 100),
            swf_line(2, 0, 10, 2, 10),
            swf_line(3, 1, 100, 4, 100),
            swf_line(4, 2, 80, 2, 80),
            swf_line(5, 3, 20, 2, 20),
        ],
    )
    starts = {}
    for order in ("fcfs", "sjf"):
        target = tmp_path / f"{order}.csv"
        invoke(
            "run",
            str(trace),
            "--policy",
            "easy",
            "--param",
            f"backfill_order={order}",
            "--jobs-out",
            str(target),
            "--json",
        )
        starts[order] = pd.read_csv(target).set_index("job_id")["started_at"].to_dict()
    assert starts["fcfs"] == {1: 0, 2: 0, 3: 100, 4: 10, 5: 200}
    assert starts["sjf"] == {1: 0, 2: 0, 3: 100, 4: 200, 5: 10}


def test_run_unknown_param_is_an_error_naming_the_allowed_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--param foo=1` for EASY is refused with one line naming foo and backfill_order."""
    code, out, err = run_main(monkeypatch, capsys, "run", SPEC, "--param", "foo=1")
    assert_one_line_error(code, out, err, "'foo'", "backfill_order")


def test_run_unknown_policy_lists_the_known_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unknown policy exits 2 with one line naming it and listing fcfs, easy, conservative."""
    code, out, err = run_main(monkeypatch, capsys, "run", SPEC, "--policy", "nope")
    assert_one_line_error(code, out, err, "'nope'", "policy", *POLICIES)


def test_run_missing_file_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A workload path that does not exist exits 2 with one line naming it, no traceback."""
    missing = tmp_path / "absent.swf"
    code, out, err = run_main(monkeypatch, capsys, "run", str(missing), "--policy", "fcfs")
    assert_one_line_error(code, out, err, str(missing), "no such file")


GOOD = "1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1"


@pytest.mark.parametrize(
    ("lines", "line_no", "fragments"),
    [
        pytest.param(
            ["; MaxProcs: 4", GOOD, "2 5 -1 10 1 -1"],
            3,
            ["field 7", "expected 18 fields, found 6"],
            id="too-few-fields",
        ),
        pytest.param(
            [GOOD + " 7"], 1, ["field 19", "expected 18 fields, found 19"], id="too-many-fields"
        ),
        pytest.param(
            [GOOD, GOOD.replace("0 -1 10", "5 -1 ten", 1)],
            2,
            ["field 4 (run_time)", "expected a number", "'ten'"],
            id="non-numeric",
        ),
    ],
)
def test_run_malformed_swf_names_file_line_and_field(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    line_no: int,
    fragments: list[str],
) -> None:
    """A malformed SWF line exits 2 with one line naming the file, line number and field."""
    path = tmp_path / "bad.swf"
    path.write_text("".join(line + "\n" for line in lines))
    code, out, err = run_main(monkeypatch, capsys, "run", str(path), "--policy", "fcfs")
    assert_one_line_error(code, out, err, f"{path}:{line_no}: ", *fragments)


def test_run_by_unknown_column_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`run --by nope` exits 2 with one line naming the column, no traceback."""
    code, _, err = run_main(monkeypatch, capsys, "run", SPEC, "--by", "nope")
    assert_one_line_error(code, None, err, "nope")


def test_run_by_user_prints_a_per_class_table() -> None:
    """`run --by user` adds a table titled 'per user' after the summary."""
    out = invoke("run", SPEC, "--policy", "easy", "--by", "user").stdout
    assert "per user" in out


def test_run_dbf_with_non_priority_jobs_by_priority(tmp_path: Path) -> None:
    """`--non-priority every=3,deadline=b --by priority` marks one job in three and shows the
    two classes; the per-job table has priority, deadline and DBF's class."""
    jobs = tmp_path / "jobs.csv"
    args = ["run", SPEC, "--policy", "dbf", "--non-priority", "every=3,deadline=b"]
    out = invoke(*args, "--by", "priority", "--jobs-out", str(jobs)).stdout
    assert "per priority" in out
    table = pd.read_csv(jobs)
    assert (~table["priority"]).tolist() == [i % 3 == 2 for i in range(len(table))]
    assert set(table["dbf_class"]) <= {"priority", "non_priority", "promoted", "migrated"}
    accepted = table["dbf_class"].isin(["non_priority", "migrated"])
    assert (table["finished_at"][accepted] <= table["deadline"][accepted]).all()
    by = invoke_json(*args, "--by", "priority", "--json")["by_priority"]
    assert sorted(row["jobs"] for row in by) == [100, 200]


def test_run_deadlines_from_a_table(tmp_path: Path) -> None:
    """`--deadlines FILE.csv` makes exactly the listed jobs non-priority."""
    table = tmp_path / "d.csv"
    table.write_text("job_id,deadline\n2,1e9\n5,1e9\n")
    jobs = tmp_path / "jobs.csv"
    invoke("run", SPEC, "--policy", "dbf", "--deadlines", str(table), "--jobs-out", str(jobs))
    frame = pd.read_csv(jobs)
    assert frame.loc[~frame["priority"], "job_id"].tolist() == [2, 5]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--non-priority", "every=3,deadline=c"], "deadline"),
        (["--non-priority", "every3"], "--non-priority"),
        (["--estimates", "seed=1,max_fraction=7"], "max_fraction"),
        (["--by", "priority"], "priority"),
    ],
)
def test_run_job_attribute_options_errors(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    fragment: str,
) -> None:
    """Bad --non-priority/--estimates values, or --by priority without them: one line."""
    code, _, err = run_main(monkeypatch, capsys, "run", SPEC, "--policy", "dbf", *args)
    assert_one_line_error(code, None, err, fragment)


def test_workload_convert_estimates_fills_field_9(tmp_path: Path) -> None:
    """`convert --estimates seed=1` writes Tsafrir-model estimates, each >= its run time."""
    out = tmp_path / "est.swf"
    invoke("workload", "convert", SPEC, str(out), "--estimates", "seed=1")
    fields = read_swf(out).fields
    requested, run = fields[:, F["requested_time"]], fields[:, F["run_time"]]
    assert (requested > 0).all() and (requested >= run).all()
    assert len(np.unique(requested)) < 30  # a few modal values


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["run"], id="missing-argument"),
        pytest.param(["frobnicate"], id="unknown-command"),
        pytest.param(["run", SPEC, "--load-factor", "abc"], id="bad-option-value"),
    ],
)
def test_usage_errors_exit_2_without_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    """A command-line usage error exits 2 with a usage message, never a traceback."""
    code, out, err = run_main(monkeypatch, capsys, *args)
    assert code == 2
    assert "Traceback" not in err
    assert "Error" in err or "error" in err


def _installed_script() -> str:
    """The `schedlab` console script of this interpreter (beside it, else on PATH)."""
    beside = Path(sys.executable).with_name("schedlab")
    if beside.exists():
        return str(beside)
    found = shutil.which("schedlab")
    if found is None:
        pytest.skip("the schedlab console script is not installed (pip install -e .)")
    return found


def test_installed_script_turns_errors_into_one_line_and_exit_2() -> None:
    """The installed `schedlab` script prints one error line on stderr and exits 2."""
    proc = subprocess.run(
        [_installed_script(), "run", "lublin:jobs=10,procs=8,seed=1", "--policy", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("schedlab: error: ")
    for name in POLICIES:
        assert name in lines[0]


# -- schedlab workload -------------------------------------------------------------------------


def test_workload_info_json_describes_a_model_workload() -> None:
    """`workload info SPEC --json` prints one object with jobs, procs and skip counts."""
    info = invoke_json("workload", "info", "lublin:jobs=200,procs=64,seed=3", "--json")
    assert info["jobs"] == 200
    assert info["procs"] == 64
    assert info["skipped"] == 0
    assert info["skipped_by_reason"] == {}
    assert info["offered_load"] > 0
    assert info["first_submit"] <= info["last_submit"]


def test_workload_info_human_shows_jobs_and_skip_reasons(tmp_path: Path) -> None:
    """`workload info FILE` prints a table with the job count and each skip reason."""
    # Job 2 has run time 0: skipped as nonpositive_run_time.
    trace = write_swf_text(
        tmp_path / "t.swf", [swf_line(1, 0, 10, 1, 20), swf_line(2, 5, 0, 1, 20)]
    )
    out = invoke("workload", "info", str(trace)).stdout
    assert re.search(r"\bjobs\b\W+1\b", out)
    assert re.search(r"skipped: nonpositive_run_time\W+1\b", out)


def test_workload_generate_then_info_reports_the_jobs(tmp_path: Path) -> None:
    """`workload generate lublin:jobs=200,... -o f.swf` writes a file `info` reads as 200 jobs."""
    target = tmp_path / "f.swf"
    result = invoke("workload", "generate", "lublin:jobs=200,procs=64,seed=3", "-o", str(target))
    assert "wrote 200 jobs" in result.stderr
    info = invoke_json("workload", "info", str(target), "--json")
    assert info["jobs"] == 200
    assert info["procs"] == 64
    assert re.search(r"\bjobs\b\W+200\b", invoke("workload", "info", str(target)).stdout)


def test_workload_generate_refuses_a_non_model_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`workload generate foo` exits 2 with one line naming the known models."""
    target = tmp_path / "f.swf"
    code, out, err = run_main(monkeypatch, capsys, "workload", "generate", "foo", "-o", str(target))
    assert_one_line_error(code, out, err, "'foo'", "lublin")
    assert not target.exists()


def test_workload_convert_first_keeps_the_first_jobs(tmp_path: Path) -> None:
    """`workload convert SPEC out --first 50` writes the first 50 jobs, unchanged."""
    source, target = tmp_path / "src.swf", tmp_path / "first.swf"
    invoke("workload", "generate", "lublin:jobs=200,procs=64,seed=3", "-o", str(source))
    invoke("workload", "convert", str(source), str(target), "--first", "50")
    assert invoke_json("workload", "info", str(target), "--json")["jobs"] == 50
    np.testing.assert_array_equal(read_swf(target).fields, read_swf(source).fields[:50])


def test_workload_convert_load_factor_scales_submits(tmp_path: Path) -> None:
    """`workload convert --load-factor 2` halves submit times (rounded down to whole seconds,
    as SWF has integers) and doubles the offered load."""
    source, target = tmp_path / "src.swf", tmp_path / "scaled.swf"
    invoke("workload", "generate", "lublin:jobs=200,procs=64,seed=3", "-o", str(source))
    invoke("workload", "convert", str(source), str(target), "--load-factor", "2")
    before, after = read_swf(source), read_swf(target)
    np.testing.assert_array_equal(after.submit_time, np.floor(before.submit_time * 0.5))
    np.testing.assert_array_equal(after.run_time, before.run_time)
    assert after.offered_load() == pytest.approx(2 * before.offered_load(), rel=1e-3)


def test_workload_convert_drop_status_removes_those_jobs(tmp_path: Path) -> None:
    """`workload convert --drop-status 0,5` drops failed and cancelled jobs, keeps the rest."""
    source = write_swf_text(
        tmp_path / "src.swf",
        [
            swf_line(1, 0, 10, 1, 20, status=1),
            swf_line(2, 1, 10, 1, 20, status=0),
            swf_line(3, 2, 10, 1, 20, status=5),
            swf_line(4, 3, 10, 1, 20, status=1),
        ],
    )
    target = tmp_path / "clean.swf"
    invoke("workload", "convert", str(source), str(target), "--drop-status", "0,5")
    assert read_swf(target).job_id.tolist() == [1, 4]


def test_workload_convert_bad_drop_status_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--drop-status a` exits 2 with one line naming the option."""
    code, out, err = run_main(
        monkeypatch,
        capsys,
        "workload",
        "convert",
        "lublin:jobs=20,procs=8,seed=1",
        str(tmp_path / "o.swf"),
        "--drop-status",
        "a",
    )
    assert_one_line_error(code, out, err, "--drop-status", "'a'")


# -- demo, policies ----------------------------------------------------------------------------


def test_demo_compares_the_three_policies() -> None:
    """`demo --jobs 500` prints one table with a column for fcfs, easy and conservative."""
    out = invoke("demo", "--jobs", "500").stdout
    assert "500 Lublin-Feitelson jobs" in out
    header = next(line for line in out.splitlines() if "metric" in line)
    for name in POLICIES:
        assert name in header
    assert "mean wait" in out


def test_demo_json_has_a_summary_per_policy() -> None:
    """`demo --jobs 500 --json` gives each policy's summary on the same 500 jobs."""
    data = invoke_json("demo", "--jobs", "500", "--json")
    assert set(data["policies"]) == set(POLICIES)
    for summary in data["policies"].values():
        assert set(summary) == set(SUMMARY_KEYS)
        assert summary["jobs"] == 500
        assert 0 < summary["utilization"] <= 1
    assert data["policies"]["fcfs"]["unfairness"] == 0  # FCFS starts jobs in submit order


def test_policies_lists_the_registered_names() -> None:
    """`policies` lists fcfs, easy and conservative with EASY's backfill_order parameter."""
    out = invoke("policies").stdout
    for name in POLICIES:
        assert re.search(rf"^\W*{name}\b", out, flags=re.MULTILINE), name
    assert "backfill_order" in out


# -- real trace --------------------------------------------------------------------------------


@pytest.mark.trace
def test_run_and_info_on_the_kth_trace(tmp_path: Path) -> None:
    """On KTH-SP2-1996-2 `run` and `workload info` agree on 28,481 jobs, 8 skipped, 100 procs."""
    trace = str(trace_path("KTH-SP2-1996-2.swf.gz"))
    info = invoke_json("workload", "info", trace, "--json")
    assert (info["jobs"], info["skipped"], info["procs"]) == (28481, 8, 100)
    assert info["skipped_by_reason"] == {"nonpositive_run_time": 8}
    assert info["computer"] == "IBM SP2"
    cut = tmp_path / "kth1000.swf"
    invoke("workload", "convert", trace, str(cut), "--first", "1000")
    data = invoke_json("run", str(cut), "--policy", "easy", "--check", "--json")
    assert (data["jobs"], data["procs"]) == (1000, 100)
    assert 0 < data["utilization"] <= 1
    full = invoke_json("run", trace, "--policy", "easy", "--json")
    assert (full["jobs"], full["skipped"], full["procs"]) == (28481, 8, 100)
    assert full["killed"] > 0  # KTH has user estimates, some of them too short


def test_run_timeseries_out_writes_queue_and_busy_over_time(tmp_path: Path) -> None:
    """`--timeseries-out` writes time, queued, running and busy_procs, busy never above P."""
    import pandas as pd

    target = tmp_path / "ts.csv"
    invoke("run", SPEC, "--policy", "easy", "--timeseries-out", str(target), "--json")
    frame = pd.read_csv(target)
    assert list(frame.columns) == ["time", "queued", "running", "busy_procs"]
    assert frame["time"].is_monotonic_increasing
    assert frame["busy_procs"].max() <= 64 and frame["busy_procs"].max() > 0
    assert frame["queued"].iloc[-1] == 0 and frame["running"].iloc[-1] == 0
