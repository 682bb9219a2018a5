"""The HTML report in a real headless Chromium: every chart rendered, no script error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cdp import Browser, chromium_path

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
    executable = chromium_path()
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing on CI: .ci/run should have installed it")
        pytest.skip("chromium not installed (apt-get install chromium)")
    pytest.importorskip("websocket", reason="websocket-client is in the test extras")
    with Browser(executable) as browser:
        browser.open(report.as_uri())
        charts = browser.evaluate(
            """(() => Array.from(document.querySelectorAll('figure.chart')).map(f => {
                 const svg = f.querySelector('svg');
                 const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
                 return {name: f.dataset.chart, width: box.width, height: box.height,
                         marks: svg ? svg.querySelectorAll('path, rect, use').length : 0};
               }))()"""
        )
        external = browser.evaluate(
            """Array.from(document.querySelectorAll('[src],[href]'))
                 .map(e => e.getAttribute('src') || e.getAttribute('href'))
                 .filter(u => /^(https?:)?\\/\\//.test(u)).length"""
        )
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
