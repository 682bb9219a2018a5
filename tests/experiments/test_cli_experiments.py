"""`schedlab sweep`, `schedlab results` through the CLI, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.metrics import SUMMARY_KEYS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


def test_dry_run_lists_the_runs_without_running_them(tmp_path: Path) -> None:
    """--dry-run --json lists the 18 runs of the quick example and writes nothing."""
    listing = json.loads(
        _invoke(
            "sweep",
            str(EXAMPLES / "quick-sweep.toml"),
            "--dry-run",
            "--json",
            "--out",
            str(tmp_path / "out"),
        )
    )
    assert len(listing["runs"]) == 18
    assert len({r["run_id"] for r in listing["runs"]}) == 18
    assert listing["out"] == str(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_sweep_then_results_json_has_the_documented_shape(tmp_path: Path) -> None:
    """results --json prints {"runs": [...]} with the config keys and the summary keys."""
    out = tmp_path / "out"
    report = json.loads(
        _invoke(
            "sweep",
            str(EXAMPLES / "quick-sweep.toml"),
            "--out",
            str(out),
            "--json",
            "--workers",
            "1",
        )
    )
    assert report["done"] == 18 and report["failed"] == 0
    runs = json.loads(_invoke("results", str(out), "--json"))["runs"]
    assert len(runs) == 18
    for run in runs:
        assert {"run_id", "status", "workload", "policy", "load_factor", "seed"} <= set(run)
        assert set(run).issuperset(SUMMARY_KEYS)
        assert run["status"] == "done" and run["jobs"] == 500
    again = json.loads(
        _invoke("sweep", str(EXAMPLES / "quick-sweep.toml"), "--out", str(out), "--json")
    )
    assert again["skipped"] == 18 and again["done"] == 0


def test_results_exports_csv_markdown_latex(tmp_path: Path) -> None:
    """results writes the comparison tables as CSV, Markdown and LaTeX."""
    out = tmp_path / "out"
    _invoke("sweep", str(EXAMPLES / "quick-sweep.toml"), "--out", str(out), "--workers", "1")
    csv, md, tex = tmp_path / "t.csv", tmp_path / "t.md", tmp_path / "t.tex"
    text = _invoke(
        "results", str(out), "--csv", str(csv), "--markdown", str(md), "--latex", str(tex)
    )
    assert "mean wait" in text and "conservative" in text  # labels, not keys (issue 23)
    import pandas as pd

    frame = pd.read_csv(csv)
    assert {"workload", "load_factor", "policy", "metric", "mean", "half_width"} <= set(
        frame.columns
    )
    assert set(frame["policy"]) == {"fcfs", "easy", "conservative"}
    assert md.read_text().count("| lublin") >= 2
    assert "\\begin{tabular}" in tex.read_text() and "\\end{tabular}" in tex.read_text()


def test_failed_runs_make_the_sweep_exit_1_and_are_listed(tmp_path: Path) -> None:
    """A run that fails (a malformed trace) is reported, the other is done, exit code 1."""
    trace = tmp_path / "broken.swf"
    trace.write_text("; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1\n")  # 17 fields
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        '[[workloads]]\nmodel = "lublin:jobs=200,procs=16"\n'
        f'[[workloads]]\npath = "{trace}"\n[[policies]]\nname = "easy"\n'
    )
    result = CliRunner().invoke(
        app, ["sweep", str(sweep), "--out", str(tmp_path / "o"), "--json", "--workers", "1"]
    )
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["done"] == 1 and report["failed"] == 1
    assert "broken.swf:2" in report["failures"][0]["error"]
    runs = json.loads(_invoke("results", str(tmp_path / "o"), "--json"))["runs"]
    assert sorted(r["status"] for r in runs) == ["done", "failed"]


def test_results_on_a_folder_that_is_not_one_is_a_clear_error(tmp_path: Path) -> None:
    """results on an empty folder fails with a message naming it."""
    result = CliRunner().invoke(app, ["results", str(tmp_path)])
    assert result.exit_code != 0
    assert "results folder" in str(result.exception)
