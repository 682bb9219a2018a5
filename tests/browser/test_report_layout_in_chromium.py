"""Every kind of report at 1280 px in a real headless Chromium (issue 23, item 6): a
screenshot of each, no table, header, caption or figure wider than its container (no
clipped configuration table, no headings running into each other), no legend over a bar
and no tick labels piled up in any figure.

The pages: the sweep report on the shipped quick sweep, the report of a small grid sweep,
the report of a reproduction's results folder (tdcs --quick) with the reproduction's own
figures, and the page of `schedlab run --plot` on a run with killed jobs. The width is
pinned through the DevTools protocol (Emulation.setDeviceMetricsOverride), the figures are
found by the group ids matplotlib's SVG backend writes (legend_N, axes_N, patch_N,
xtick_N/ytick_N holding text_N), so the checks hold across Chromium versions.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cdp import Browser, require_chromium
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.examples_files import example_text
from schedlab.experiments.runner import run_sweep
from schedlab.experiments.store import ResultStore
from schedlab.experiments.sweep import Sweep, load_sweep, parse_sweep

pytestmark = pytest.mark.browser

WIDTH = 1280

# Elements whose content is wider than their box: a clipped table (its .scroll wrapper
# scrolls), a heading running into the next one, a caption or figure out of its section
OVERFLOW_JS = """(() => {
  const out = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) {
    out.push({what: 'page', scroll: root.scrollWidth, client: root.clientWidth});
  }
  const watched = '.scroll, section, header, nav, figure, figcaption, svg, dl, dt, dd, ' +
    'th, td, h1, h2, h3, p';
  document.querySelectorAll(watched).forEach(e => {
    const box = e.getBoundingClientRect();
    const parent = e.parentElement ? e.parentElement.getBoundingClientRect() : box;
    if (e.scrollWidth > e.clientWidth + 1 || box.right > parent.right + 1) {
      out.push({what: e.tagName.toLowerCase() + '.' + e.getAttribute('class'),
                text: e.textContent.trim().slice(0, 60),
                scroll: e.scrollWidth, client: e.clientWidth});
    }
  });
  return out;
})()"""

# In every SVG figure: a legend over a bar (a patch of an axes, its background aside),
# tick labels of one axis over or touching each other (less than 2 px apart: glyphs drawn
# as paths have tight boxes, and the labels of the old log axes touched without crossing)
FIGURES_JS = """(() => {
  const area = (a, b) =>
    Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
    Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const out = [];
  let legends = 0, bars = 0, labels = 0;
  document.querySelectorAll('svg').forEach((svg, k) => {
    const name = (svg.closest('figure') && svg.closest('figure').dataset.chart) || 'svg ' + k;
    const boxes = [];
    svg.querySelectorAll('g[id*="axes_"]').forEach(ax => {
      const patches = Array.from(ax.children).filter(c => /patch_\\d+$/.test(c.id))
        .map(c => c.getBoundingClientRect());
      if (!patches.length) return;
      const background = patches.reduce((m, r) => r.width * r.height > m.width * m.height ? r : m);
      patches.filter(r => r !== background && r.width * r.height > 0).forEach(r => boxes.push(r));
    });
    bars += boxes.length;
    svg.querySelectorAll('g[id*="legend_"]').forEach(g => {
      legends += 1;
      const legend = g.getBoundingClientRect();
      if (boxes.some(b => area(legend, b) > 2)) out.push({name, what: 'legend over a bar'});
    });
    svg.querySelectorAll('g[id*="matplotlib.axis_"]').forEach(axis => {
      const texts = Array.from(axis.querySelectorAll('g[id*="tick_"] g[id*="text_"]'))
        .map(t => t.getBoundingClientRect()).filter(r => r.width > 0)
        .map(r => ({left: r.left - 1, right: r.right + 1, top: r.top - 1, bottom: r.bottom + 1}));
      labels += texts.length;
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          if (area(texts[i], texts[j]) > 0) out.push({name, what: 'tick labels pile up'});
        }
      }
    });
  });
  return {problems: out, legends, bars, labels};
})()"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = require_chromium()
    with Browser(executable) as opened:  # closed, whatever the tests did
        opened.send(
            "Emulation.setDeviceMetricsOverride",
            width=WIDTH,
            height=1000,
            deviceScaleFactor=1,
            mobile=False,
        )
        yield opened


def _look(browser: Browser, page: Path, shot: Path) -> dict[str, Any]:
    """Open ``page`` at 1280 px, save a screenshot of all of it, return what the checks
    found."""
    browser.open(page.as_uri())
    assert browser.evaluate("window.innerWidth") == WIDTH
    height = browser.evaluate("document.documentElement.scrollHeight")
    data = browser.send(
        "Page.captureScreenshot",
        format="png",
        captureBeyondViewport=True,
        clip={"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1},
    )["data"]
    shot.write_bytes(base64.b64decode(data))
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">I", png[16:20])[0] == WIDTH
    return {
        "overflow": browser.evaluate(OVERFLOW_JS),
        "figures": browser.evaluate(FIGURES_JS),
        "errors": browser.errors(),
    }


def _assert_shows_the_work(seen: dict[str, Any], figures: int) -> None:
    assert seen["errors"] == [], seen["errors"]
    assert seen["overflow"] == [], seen["overflow"]
    found = seen["figures"]
    assert found["problems"] == [], found["problems"]
    assert found["bars"] > 0 and found["labels"] > 4 * figures, found


def _sweep(root: Path, sweep: Sweep) -> Path:
    with ResultStore(root) as store:
        run_sweep(sweep.runs, store, policy_labels=sweep.policy_labels, workers=1)
    return root


def _report(results: Path, out: Path) -> Path:
    result = CliRunner().invoke(app, ["report", str(results), "-o", str(out)])
    assert result.exit_code == 0, (result.output, result.exception)
    return out


def test_sweep_report_of_the_quick_sweep(browser: Browser, tmp_path: Path) -> None:
    """The shipped quick sweep (`schedlab example quick-sweep`); its Gantt chart shows the
    busiest window, with the jobs that ran there."""
    example = tmp_path / "quick-sweep.toml"
    example.write_text(example_text("quick-sweep"))
    page = _report(_sweep(tmp_path / "quick", load_sweep(example)), tmp_path / "quick.html")
    seen = _look(browser, page, tmp_path / "quick.png")
    _assert_shows_the_work(seen, 8)
    gantt = browser.evaluate(
        "document.querySelector('figure[data-chart^=\"gantt\"] figcaption').textContent"
    )
    assert "the busiest 2 days of the run" in gantt
    assert int(gantt.split(": ")[1].split(" jobs")[0].replace(",", "")) >= 20


GRID = {
    "workloads": [
        {
            "platform": "builtin:dirac",
            "generator": {"meta_jobs": 150, "local_jobs": 0},
            "label": "dedicated",
        },
        {
            "platform": "builtin:dirac",
            "generator": {"meta_jobs": 150, "local_jobs": 150},
            "label": "shared",
        },
    ],
    "meta_schedulers": [
        {"name": "push", "refresh": [0, 30, 120]},
        {"name": "static"},
        {"name": "pilot_filling"},
    ],
    "grid": {"seed": [1, 2, 3]},
}


def test_grid_report(browser: Browser, tmp_path: Path) -> None:
    """Long policy names (push(refresh=120.0)) in narrow headings, long parameters in the
    configuration table, the population of each table named."""
    sweep = parse_sweep(GRID, tmp_path, "grid sweep")
    page = _report(_sweep(tmp_path / "grid", sweep), tmp_path / "grid.html")
    seen = _look(browser, page, tmp_path / "grid.png")
    _assert_shows_the_work(seen, 8)
    headings = browser.evaluate(
        "Array.from(document.querySelectorAll('#tables th, #tables h3')).map(e => e.textContent)"
    )
    assert any(h.startswith("all jobs: mean wait") for h in headings), headings
    assert any(h.startswith("meta-jobs: mean global wait") for h in headings), headings


def test_report_and_figures_of_a_reproduction(browser: Browser, tmp_path: Path) -> None:
    """`schedlab reproduce tdcs --quick` (the cheapest): the report of its results folder,
    and each of the figures it draws, opened alone."""
    out = tmp_path / "reproduce-tdcs"
    args = ["-q", "reproduce", "tdcs", "--quick", "--json", "--out", str(out), "--workers", "2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (result.output, result.exception)
    page = _report(out, tmp_path / "tdcs.html")
    _assert_shows_the_work(_look(browser, page, tmp_path / "tdcs.png"), 8)
    drawn = sorted(out.glob("*.svg"))
    assert [p.name for p in drawn] == [
        "tdcs_ablations.svg",  # (issue 25's post-hoc ablations and repeated preemptions)
        "tdcs_components.svg",
        "tdcs_horizon.svg",
        "tdcs_repeated.svg",
    ]
    for figure in drawn:
        seen = _look(browser, figure, tmp_path / f"{figure.stem}.png")
        found = seen["figures"]
        assert found["problems"] == [] and found["legends"] == 1, (figure.name, found)


def test_paper_figures_drawn_from_made_up_rows(browser: Browser, tmp_path: Path) -> None:
    """The figures of the reproductions that need traces or minutes (dbf, hlw), drawn from
    made-up rows like theirs: the DBF legend off the bars around zero, the HLW log axes
    (1 to 15) without piled-up labels."""
    import numpy as np

    from schedlab.experiments.reproduce import hlw
    from schedlab.experiments.reproduce.published import DBF_TABLES
    from schedlab.report import reproduce, reproduce_hlw

    published = next(iter(DBF_TABLES))
    rows = [
        {"workload": w, "case": case, "published_as": published,
         "dbf_priority_mean_wait_time": dbf, "cbf_priority_mean_wait_time": 1000.0}
        for w in ("KTH", "CTC", "SDSC")
        for case, dbf in (("a", 700.0), ("b", 400.0))
    ]  # fmt: skip
    rng = np.random.default_rng(1)
    values = {
        s.name: {
            p: list(1.0 + rng.random(10) * (14.0 if p == "refn" else 0.4)) for p in hlw.DISPLAY
        }  # fmt: skip
        for s in hlw.SCENARIOS
    }
    for figure, legends in (
        (reproduce.dbf_figure(rows, tmp_path / "dbf.svg"), 1),
        (reproduce_hlw.hlw_figure(values, tmp_path / "hlw.svg"), 0),
    ):
        found = _look(browser, figure, tmp_path / f"{figure.stem}.png")["figures"]
        assert found["problems"] == [] and found["legends"] == legends, (figure.name, found)


def test_run_plot_page_with_killed_jobs(browser: Browser, tmp_path: Path) -> None:
    """`schedlab run --plot out.html` on a run where jobs are killed at their requested
    time: the "killed" legend of the Gantt chart is beside it, not over its bars."""
    trace = tmp_path / "killed.swf"
    lines = [
        f"{k + 1} {300 * k} -1 {1800 + 600 * (k % 5)} {1 + (k * 7) % 8} -1 -1 "
        f"{1 + (k * 7) % 8} {(1800 + 600 * (k % 5)) // (2 if k % 3 == 0 else 1)} "
        "-1 1 1 -1 -1 -1 -1 -1 -1"
        for k in range(120)
    ]
    trace.write_text("; MaxProcs: 16\n" + "\n".join(lines) + "\n")
    page = tmp_path / "run.html"
    result = CliRunner().invoke(app, ["run", str(trace), "--plot", str(page)])
    assert result.exit_code == 0, (result.output, result.exception)
    seen = _look(browser, page, tmp_path / "run.png")
    _assert_shows_the_work(seen, 4)
    assert seen["figures"]["legends"] >= 1
