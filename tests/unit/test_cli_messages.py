"""Output a user would read as a wrong result, said plainly (issue 8, items 4 and 5)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from test_cli import assert_one_line_error, invoke, invoke_json, run_main, swf_line, write_swf_text

from schedlab.experiments.analysis import comparison_table, over_seeds
from schedlab.experiments.config import RunConfig
from schedlab.experiments.runner import run_sweep
from schedlab.experiments.store import ResultStore

SPEC = "lublin:jobs=400,procs=32,seed=5"


def test_dbf_without_non_priority_jobs_says_it_is_conservative_backfilling(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(monkeypatch, capsys, "run", SPEC, "--policy", "dbf", "--json")
    assert code == 0
    assert "no job has a deadline" in err and "conservative backfilling" in err
    cbf = invoke_json("run", SPEC, "--policy", "conservative", "--json")
    dbf = json.loads(out)
    for key in ("mean_wait_time", "utilization", "mean_bounded_slowdown"):
        assert dbf[key] == cbf[key]
    assert "non_priority_jobs" not in dbf


def test_summary_shows_the_deadline_counts_with_non_priority_jobs() -> None:
    """dbf: non-priority, promoted, missed (0: DBF's guarantee) and late counts; a policy
    that knows nothing of deadlines still gets the non-priority and late counts."""
    args = ("run", SPEC, "--non-priority", "every=3,deadline=3600", "--json")
    dbf = invoke_json(*args, "--policy", "dbf")
    assert dbf["non_priority_jobs"] == len(range(2, 400, 3))
    assert dbf["missed_deadlines"] == 0
    assert 0 <= dbf["promoted"] <= dbf["non_priority_jobs"]
    assert dbf["promoted"] <= dbf["late_jobs"] + dbf["non_priority_jobs"]
    cbf = invoke_json(*args, "--policy", "conservative")
    assert cbf["non_priority_jobs"] == dbf["non_priority_jobs"]
    assert "promoted" not in cbf and "missed_deadlines" not in cbf
    assert cbf["late_jobs"] >= 0
    table = invoke(*args[:-1], "--policy", "dbf").stdout
    assert "promoted to priority at submission" in table


def test_late_and_missed_counts_match_the_per_job_table(tmp_path: Path) -> None:
    jobs_csv = tmp_path / "jobs.csv"
    summary = invoke_json(
        "run", SPEC, "--policy", "dbf", "--non-priority", "every=2,deadline=1800",
        "--jobs-out", str(jobs_csv), "--json",
    )  # fmt: skip
    import pandas as pd

    jobs = pd.read_csv(jobs_csv)
    marked = jobs["deadline"].notna()
    late = marked & (jobs["finished_at"] > jobs["deadline"])
    accepted = jobs["dbf_class"].isin(["non_priority", "migrated"])
    assert summary["non_priority_jobs"] == int(marked.sum())
    assert summary["late_jobs"] == int(late.sum())
    assert summary["missed_deadlines"] == int((late & accepted).sum()) == 0
    assert summary["promoted"] == int((jobs["dbf_class"] == "promoted").sum())


@pytest.fixture(scope="module")
def two_seeds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("two-seeds")
    runs = [
        RunConfig(workload=f"lublin:jobs=300,procs=32,seed={s}", policy="easy", seed=s)
        for s in (1, 2)
    ]
    with ResultStore(root) as store:
        run_sweep(runs, store, workers=1)
    return root


def test_two_seeds_give_no_interval_and_the_caption_says_why(two_seeds: Path) -> None:
    """n = 2 seeds: the mean with (n=2), no ±, and a caption explaining the rule."""
    table = comparison_table(ResultStore(two_seeds), metrics=["utilization"])
    row = table.data.iloc[0]
    assert row["method"] == "seeds" and row["n"] == 2 and math.isnan(row["half_width"])
    cell = table.to_frame("utilization").iloc[0, 0]
    assert "±" not in cell and cell.endswith("(n=2)")
    assert "n < 3" in table.note("utilization")
    assert "(n=2)" in table.to_markdown()
    assert "($n=2$)" in table.to_latex()


def test_three_values_give_an_interval_shown_with_its_n() -> None:
    assert math.isnan(over_seeds([1.0, 2.0]).half_width)
    est = over_seeds([1.0, 2.0, 4.0])
    assert est.n == 3 and est.half_width > 0
    from schedlab.experiments.analysis import format_estimate

    assert format_estimate(est.mean, est.half_width, n=3).endswith("(n=3)")
    assert "±" in format_estimate(est.mean, est.half_width, n=3)


def test_param_booleans_are_only_true_or_false(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--param compress=no (or off, maybe) is an error, never a truthy string."""
    for word in ("no", "off", "maybe", "0"):
        code, out, err = run_main(
            monkeypatch, capsys, "run", SPEC, "--policy", "conservative", "--param",
            f"compress={word}",
        )  # fmt: skip
        assert_one_line_error(code, out, err, "compress", "true or false")
    # with estimates jobs end early, so compression matters
    args = ("run", SPEC, "--policy", "conservative", "--estimates", "seed=1", "--json")
    off = invoke_json(*args, "--param", "compress=false")
    on = invoke_json(*args)
    assert off["mean_wait_time"] != on["mean_wait_time"]


def test_errors_keep_their_line_number_and_escape_control_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`bad.swf:100:` is printed as is (rich would read `:100:` as an emoji code), and a
    control character of the bad token is shown escaped, never sent to the terminal."""
    lines = [swf_line(i + 1, i, 10, 1, 20) for i in range(98)]
    lines.append(swf_line(99, 99, 10, 1, 20).replace(" 20 ", " \x1b[31m20 ", 1))
    path = write_swf_text(tmp_path / "bad.swf", lines)
    code, out, err = run_main(monkeypatch, capsys, "run", str(path))
    line = assert_one_line_error(code, out, err, "bad.swf:100:")
    assert "\x1b" not in line and "\\x1b" in line


def test_a_workload_without_runnable_jobs_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """All jobs skipped: exit 2 (no run reporting a bounded slowdown of 0), with --by too."""
    path = write_swf_text(
        tmp_path / "skipped.swf", [swf_line(1, 0, 0, 1, 20), swf_line(2, 1, 5, 9, 20)]
    )
    for extra in ((), ("--by", "user"), ("--json",)):
        code, out, err = run_main(monkeypatch, capsys, "run", str(path), *extra)
        assert_one_line_error(code, out, err, "no job to simulate", "nonpositive_run_time")
    empty = tmp_path / "empty.swf"
    empty.write_text("; MaxProcs: 4\n")
    code, out, err = run_main(monkeypatch, capsys, "run", str(empty))
    assert_one_line_error(code, out, err, "empty.swf", "no job")


def test_a_sweep_run_emptied_by_its_transforms_fails_instead_of_being_done(tmp_path: Path) -> None:
    trace = write_swf_text(tmp_path / "t.swf", [swf_line(i + 1, i, 10, 1, 20) for i in range(5)])
    run = RunConfig(
        workload=str(trace),
        policy="easy",
        transforms=(("time_window", {"start": 1e6, "end": 2e6}),),
    )
    with ResultStore(tmp_path / "out") as store:
        progress = run_sweep([run], store, workers=1)
    assert progress.done == 0 and progress.failed == 1
    assert "no job to simulate" in (progress.failures[0].error or "")
