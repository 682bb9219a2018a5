"""The HTML report and the figures, without a browser: content, offline, deterministic."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schedlab.experiments.config import RunConfig
from schedlab.experiments.runner import run_sweep
from schedlab.experiments.store import ResultStore


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results")
    runs = [
        RunConfig(workload=f"lublin:jobs=300,procs=32,seed={seed}", policy=policy, seed=seed)
        for policy in ("fcfs", "easy", "conservative")
        for seed in (1, 2)
    ] + [RunConfig(workload="lublin:jobs=300,procs=32", policy="nope")]
    with ResultStore(root) as store:
        run_sweep(runs, store, workers=1)
    return root


def test_report_has_every_section_and_every_run(results: Path, tmp_path: Path) -> None:
    """Tables, bar charts, CDFs, time series, a Gantt chart and every run's configuration."""
    from schedlab.report.html import write_report

    page = write_report(results, tmp_path / "r.html").read_text()
    for chart in (
        "bars-mean_wait_time",
        "bars-utilization",
        "cdf-wait_time",
        "cdf-bounded_slowdown",
        "queue-",
        "utilization-",
        "gantt-",
    ):
        assert f'data-chart="{chart}' in page, chart
    assert page.count("<svg") >= page.count("<figure") >= 8
    assert page.count('class="comparison intervals"') == 3  # `schedlab results` tables
    assert "confidence interval" in page
    for run_id in ResultStore(results).done_ids() | ResultStore(results).failed_ids():
        assert run_id in page
    assert "nope" in page  # the failed run and its error are listed
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched: opens offline


def test_report_is_deterministic(results: Path, tmp_path: Path) -> None:
    """Two reports of the same folder are byte-identical."""
    from schedlab.report.html import write_report

    a = write_report(results, tmp_path / "a.html").read_bytes()
    b = write_report(results, tmp_path / "b.html").read_bytes()
    assert a == b


def test_figures_save_as_png_and_svg(results: Path, tmp_path: Path) -> None:
    """The report's figures come as PNG and SVG from the Python API, for papers."""
    from schedlab.report import figures

    store = ResultStore(results)
    run_id = sorted(store.done_ids())[0]
    fig = figures.gantt(store, run_id)
    png = figures.save(fig, tmp_path / "g.png")
    svg = figures.save(figures.metric_bars(store.catalog(), "mean_wait_time"), tmp_path / "b.svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:500]


def test_report_cli_writes_the_page(results: Path, tmp_path: Path) -> None:
    """`schedlab report DIR -o FILE` writes the page; a folder that is not one is an error."""
    from typer.testing import CliRunner

    from schedlab.cli import app

    out = tmp_path / "cli.html"
    result = CliRunner().invoke(app, ["report", str(results), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("<!DOCTYPE html>") or "<html" in out.read_text()[:200]
    bad = CliRunner().invoke(app, ["report", str(tmp_path / "nothing"), "-o", str(out)])
    assert bad.exit_code != 0
