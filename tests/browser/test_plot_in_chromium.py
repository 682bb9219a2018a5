"""`schedlab run ... --plot out.html` in a real headless Chromium: the four figures render,
no script error; the PNG variant is a real image."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from cdp import CHARTS_JS, EXTERNAL_JS, Browser, require_chromium
from typer.testing import CliRunner

from schedlab.cli import app

pytestmark = pytest.mark.browser

SPEC = "lublin:jobs=2000,procs=128,seed=1"
FIGURES = ["utilization", "queue", "wait", "gantt"]


def _run(*args: str) -> None:
    result = CliRunner().invoke(app, ["run", SPEC, "--policy", "easy", *args])
    assert result.exit_code == 0, (result.stderr, result.exception)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plot") / "out.html"
    _run("--plot", str(out))
    return out


def test_plot_page_renders_four_figures_without_script_errors(page: Path) -> None:
    """Chromium loads the page offline; each of the four figures holds a visible, drawn
    SVG; nothing is fetched from the network; no script error."""
    executable = require_chromium()
    with Browser(executable) as browser:
        browser.open(page.as_uri())
        charts = browser.evaluate(CHARTS_JS)
        stated = browser.evaluate("document.body.dataset.figures")
        external = browser.evaluate(EXTERNAL_JS)
        errors = browser.errors()
    assert errors == [], errors
    assert external == 0
    assert [c["name"] for c in charts] == FIGURES and stated == "4"
    for chart in charts:
        assert chart["width"] > 100 and chart["height"] > 100, chart
        assert chart["marks"] > 10, chart


def test_plot_png_is_one_image(tmp_path: Path) -> None:
    """--plot out.png: a PNG (signature, then an IHDR chunk) of the four panels' size."""
    out = tmp_path / "out.png"
    _run("--plot", str(out), "--plot-window", "2d:3d")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1800, 1650)  # 12 x 11 inches at 150 dpi
    assert len(data) > 50_000  # drawn, not blank
