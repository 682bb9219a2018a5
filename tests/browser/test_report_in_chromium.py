"""The HTML report in a real headless Chromium: every chart rendered, no script error."""

from __future__ import annotations

from pathlib import Path

import pytest
from cdp import CHARTS_JS, EXTERNAL_JS, Browser, require_chromium

from schedlab.experiments.config import RunConfig
from schedlab.experiments.runner import run_sweep
from schedlab.experiments.store import ResultStore

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results")
    runs = [
        RunConfig(
            workload=f"lublin:jobs=400,procs=32,kind=all,seed={seed}",
            policy=policy,
            seed=seed,
            load_factor=load,
        )
        for policy in ("fcfs", "easy", "conservative")
        for seed in (1, 2)
        for load in (0.8, 1.2)
    ]
    with ResultStore(root) as store:
        run_sweep(runs, store, workers=1)
    from schedlab.report.html import write_report

    return write_report(root, root / "report.html")


def test_report_renders_every_chart_without_script_errors(report: Path) -> None:
    """Chromium loads the page offline; each chart figure holds a visible SVG; no errors."""
    executable = require_chromium()
    with Browser(executable) as browser:
        browser.open(report.as_uri())
        charts = browser.evaluate(CHARTS_JS)
        external = browser.evaluate(EXTERNAL_JS)
        errors = browser.errors()
    assert errors == [], errors
    assert external == 0
    names = [c["name"] for c in charts]
    assert len(charts) >= 8, names
    for kind in ("bars-", "cdf", "gantt"):
        assert any(kind in n for n in names), (kind, names)
    for chart in charts:
        assert chart["width"] > 100 and chart["height"] > 100, chart
        assert chart["marks"] > 10, chart
    assert report.read_text().count("<figure") == len(charts)
