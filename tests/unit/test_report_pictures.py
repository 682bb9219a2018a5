"""Pictures that show the work (issue 23, item 6): no legend over a bar or a line, log-axis
labels that do not pile up, the report's Gantt chart on the busiest window (and its caption
saying so), one parser for every time option, grid tables that name the jobs they cover,
and headings that can wrap. tests/browser/test_report_layout_in_chromium.py checks the
same pages at 1280 px in Chromium."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_cli import run_main, swf_line, write_swf_text
from typer.testing import CliRunner

import schedlab
from schedlab.cli import app
from schedlab.errors import ConfigError
from schedlab.experiments.runner import run_sweep
from schedlab.experiments.store import ResultStore
from schedlab.experiments.sweep import parse_sweep

figures = pytest.importorskip("schedlab.report.figures")
drawing = pytest.importorskip("schedlab.report.drawing")
single = pytest.importorskip("schedlab.report.single")
reproduce = pytest.importorskip("schedlab.report.reproduce")
reproduce_hlw = pytest.importorskip("schedlab.report.reproduce_hlw")
reproduce_tdcs = pytest.importorskip("schedlab.report.reproduce_tdcs")
html = pytest.importorskip("schedlab.report.html")

DAY = 86400.0


# -- what a drawn figure shows -----------------------------------------------------------


def _renderer(fig: Any) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _overlap(a: Any, b: Any, at_least: float = 1.0) -> bool:
    """Two display boxes share more than ``at_least`` pixels in each direction."""
    return min(a.x1, b.x1) - max(a.x0, b.x0) > at_least and (
        min(a.y1, b.y1) - max(a.y0, b.y0) > at_least
    )


def legends(fig: Any) -> list[Any]:
    return [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]


def covered(fig: Any) -> list[str]:
    """What a legend covers: bars (rectangles of an axes, its background aside) and the
    points of data lines, each named by its axes' title."""
    from matplotlib.patches import Rectangle

    renderer = _renderer(fig)
    found = []
    for legend in legends(fig):
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            for patch in ax.patches:
                bar = isinstance(patch, Rectangle) and patch.get_visible()
                if bar and _overlap(box, patch.get_window_extent(renderer)):
                    found.append(f"bar of {ax.get_title()!r}")
            for line in ax.get_lines():
                data = np.column_stack([np.asarray(v, dtype=float) for v in line.get_data()])
                xy = line.get_transform().transform(data)
                inside = (
                    (xy[:, 0] > box.x0)
                    & (xy[:, 0] < box.x1)
                    & (xy[:, 1] > box.y0)
                    & (xy[:, 1] < box.y1)
                )
                if inside.any():
                    found.append(f"line {line.get_label()!r} of {ax.get_title()!r}")
    return found


def piled_labels(fig: Any) -> list[tuple[str, str]]:
    """Pairs of tick labels of one axis that overlap."""
    renderer = _renderer(fig)
    found = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = [t for t in axis.get_ticklabels(which="both") if t.get_visible()]
            labels = [t for t in labels if t.get_text()]
            boxes = [t.get_window_extent(renderer) for t in labels]
            for i in range(len(boxes)):
                for j in range(i + 1, len(boxes)):
                    if _overlap(boxes[i], boxes[j], 0.5):
                        found.append((labels[i].get_text(), labels[j].get_text()))
    return found


# -- runs ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory: pytest.TempPathFactory) -> schedlab.SimulationResult:
    """A busy 16-processor machine where every third job overruns its request (killed)."""
    lines = []
    for k in range(120):
        run = 1800.0 + 600 * (k % 5)
        requested = run / 2 if k % 3 == 0 else run
        lines.append(swf_line(k + 1, 300.0 * k, run, 1 + (k * 7) % 8, requested))
    trace = write_swf_text(tmp_path_factory.mktemp("killed") / "k.swf", lines, max_procs=16)
    result = schedlab.simulate(str(trace), "easy", timeseries=True)
    assert result.summary()["killed"] > 10
    return result


QUICK = {
    "workloads": [
        {"model": "lublin:jobs=300,procs=32", "label": "lublin-32"},
        {"model": "lublin:jobs=300,procs=64", "label": "lublin-64"},
    ],
    "policies": [{"name": "fcfs"}, {"name": "easy"}, {"name": "conservative"}],
    "grid": {"seed": [1, 2, 3]},
}
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
    "meta_schedulers": [{"name": "push", "refresh": [0, 120]}, {"name": "static"}],
    "grid": {"seed": [1, 2, 3]},
}


def _results(root: Path, data: dict[str, Any]) -> Path:
    sweep = parse_sweep(data, root, "test")
    with ResultStore(root) as store:
        run_sweep(sweep.runs, store, policy_labels=sweep.policy_labels, workers=1)
    return root


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _results(tmp_path_factory.mktemp("quick"), QUICK)


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _results(tmp_path_factory.mktemp("grid"), GRID)


# -- legends -------------------------------------------------------------------------------


def test_the_killed_legend_of_run_plot_covers_no_bar(killed_run: Any) -> None:
    """`run --plot` (the four panels, PNG/SVG/PDF) and its Gantt figure alone: the hatched
    "killed" legend is drawn, beside the chart, not over it."""
    for fig in (single.panels(killed_run), single.figures_of(killed_run)["gantt"]):
        gantt = [ax for ax in fig.axes if ax.get_legend() is not None]
        assert [t.get_text() for t in gantt[-1].get_legend().get_texts()] == ["killed"]
        assert covered(fig) == []


def test_report_legends_cover_no_bar_and_no_line(quick: Path, grid: Path) -> None:
    """Bar charts (long policy names on the grid), CDFs and the Gantt chart of a results
    folder."""
    for root in (quick, grid):
        store = ResultStore(root)
        catalog = store.catalog()
        ids = sorted(store.done_ids())[:6]
        drawn = [
            figures.metric_bars(catalog, "mean_wait_time"),
            figures.metric_bars(catalog, "utilization"),
            figures.cdf(store, ids, "wait_time"),
            figures.cdf(store, ids, "bounded_slowdown"),
            figures.timeseries(store, ids, "queued"),
            figures.gantt(store, ids[0]),
        ]
        for fig in drawn:
            assert covered(fig) == [], (root.name, fig.axes[0].get_title())


def _capture(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the reproduction drawers save, kept instead of written."""
    saved: list[Any] = []

    def keep(fig: Any, path: Path) -> Path:
        saved.append(fig)
        return Path(path)

    for module in (reproduce, reproduce_hlw, reproduce_tdcs):
        monkeypatch.setattr(module, "save", keep)
    return saved


def test_reproduction_legends_cover_no_bar_and_no_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The DBF figure (bars around zero, the issue's case), PPS, M/M/c and TDCS figures on
    made-up rows: every legend sits beside or under the drawings."""
    from schedlab.experiments.reproduce.published import DBF_TABLES, PPS_TABLES

    saved = _capture(monkeypatch)
    dbf_name = next(iter(DBF_TABLES))
    dbf_rows = [
        {
            "workload": w,
            "case": case,
            "published_as": dbf_name,
            "dbf_priority_mean_wait_time": dbf,
            "cbf_priority_mean_wait_time": 1000.0,
        }
        for w in ("KTH", "CTC", "SDSC")
        for case, dbf in (("a", 700.0), ("b", 400.0))
    ]
    reproduce.dbf_figure(dbf_rows, tmp_path / "dbf.svg")
    pps_name = next(iter(PPS_TABLES))
    pps_rows = [
        {
            "workload": w,
            "published_as": pps_name,
            "load_factor": load,
            "easy_mean_response_time": 1e4 * load**6,
            "pps_mean_response_time": 8e3 * load**6,
        }
        for w in ("KTH", "Lublin")
        for load in sorted(PPS_TABLES[pps_name])
    ]
    reproduce.pps_figure(pps_rows, tmp_path / "pps.svg")
    means = {
        name: {
            "global_queue_time": 10.0,
            "transfer_time": 60.0,
            "local_queue_time": 400.0,
            "run_time": 2600.0 + 300 * i,
        }  # fmt: skip
        for i, name in enumerate(("tdcs", "tdcs_no_preemption", "round_robin", "random"))
    }
    reproduce_tdcs.tdcs_components_figure(means, tmp_path / "c.svg")
    curve = [(h, 3000.0 + 20000 / (h or 64), 9000.0 + 90000 / (h or 64)) for h in (1, 4, None)]
    reproduce_tdcs.tdcs_horizon_figure(curve, tmp_path / "h.svg")
    mmc = [
        {
            "servers": c,
            "load": x,
            "simulated_mean_response_time": 1 / (1 - x),
            "ci_high": 1.05 / (1 - x),
        }  # fmt: skip
        for c in (1, 4)
        for x in (0.3, 0.6, 0.9)
    ]
    paper = [
        {"load": x, "simulated_mean_response_time": 4 / (1 - x), "ci_high": 4.4 / (1 - x)}
        for x in (0.3, 0.6, 0.9)
    ]
    reproduce.mmc_figure(mmc, paper, tmp_path / "m.svg", expectation=paper)
    assert len(saved) == 5
    for fig in saved:
        assert legends(fig), fig.axes[0].get_title()
        assert covered(fig) == [], fig.axes[0].get_title()


def test_hlw_log_axes_label_decades_and_steps_without_piling_up(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Normalized Cmax from 1.0 to 15 (RefN at n/N = 1/8 next to the FS family near 1):
    a log axis labelled at 1, 2, 5, 10, none over another (labelling the minor ticks, as
    before, wrote 9 over 10 and 90 over 100)."""
    from schedlab.experiments.reproduce import hlw

    saved = _capture(monkeypatch)
    rng = np.random.default_rng(1)
    values = {
        s.name: {
            p: list(1.0 + rng.random(10) * (14.0 if p == "refn" else 0.4)) for p in hlw.DISPLAY
        }  # fmt: skip
        for s in hlw.SCENARIOS
    }
    reproduce_hlw.hlw_figure(values, tmp_path / "hlw.svg")
    (fig,) = saved
    assert piled_labels(fig) == []
    _renderer(fig)
    shown = [t.get_text() for t in fig.axes[0].yaxis.get_ticklabels() if t.get_visible()]
    assert {"2", "5", "10"} <= {s for s in shown if s}


# -- the Gantt window ------------------------------------------------------------------------


def _gantt_caption(page: str) -> str:
    m = re.search(r'data-chart="gantt-[^"]*">.*?<figcaption>(.*?)</figcaption>', page, re.S)
    assert m is not None
    return m[1]


def test_report_gantt_shows_the_busiest_window_and_says_so(quick: Path, tmp_path: Path) -> None:
    """Default: the run's busiest 2 days (from its recorded series), as `run --plot`; the
    caption names the window and why."""
    out = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["report", str(quick), "-o", str(out)])
    assert result.exit_code == 0, result.output
    caption = _gantt_caption(out.read_text())
    run_id = re.search(r"Jobs of run (\w+)", caption)
    assert run_id is not None
    store = ResultStore(quick)
    busy = drawing.series_of(store.timeseries(run_id[1]), "busy_procs", 1)
    start, _end = drawing.busiest_window(*busy)
    assert f"from {drawing.trace_time(start)}" in caption
    assert "the busiest 2 days of the run" in caption
    jobs = re.search(r": ([\d,]+) jobs running", caption)
    assert jobs is not None and int(jobs[1].replace(",", "")) >= 20


def test_report_gantt_options_take_units_like_plot_window(
    quick: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """`--gantt-start 2d --gantt-end 3d` (refused as "not a valid float" before): the same
    parser as `run --plot-window`; the caption says the window was asked for."""
    out = tmp_path / "w.html"
    args = ["report", str(quick), "-o", str(out), "--gantt-start", "2d", "--gantt-end", "3d"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    caption = _gantt_caption(out.read_text())
    assert "from 172,800 s (day 2.00) to 259,200 s (day 3.00): the window asked for" in caption
    for bad in (["--gantt-start", "2x", "--gantt-end", "3d"], ["--gantt-start", "3d"],
                ["--gantt-start", "3d", "--gantt-end", "36h"]):  # fmt: skip
        code, _, err = run_main(
            monkeypatch, capsys, "report", str(quick), "-o", str(out), "--force", *bad
        )
        assert code == 2 and "--gantt-" in err, (bad, err)


def test_one_parser_for_time_options() -> None:
    assert [drawing.parse_time(t, "--x") for t in ("2d", "3h", "90m", "3600", "1.5w", "45s")] == [
        2 * DAY, 3 * 3600, 5400, 3600, 1.5 * 7 * DAY, 45
    ]  # fmt: skip
    for bad in ("", "2x", "-1", "2 days", "d"):
        with pytest.raises(ConfigError, match="--x"):
            drawing.parse_time(bad, "--x")
    assert single.parse_window("90m:3h") == (5400, 3 * 3600)


def test_a_run_shorter_than_the_window_is_drawn_whole(grid: Path) -> None:
    """A grid run of a few hours: the caption says the whole run, not "the busiest 2 days"."""
    store = ResultStore(grid)
    _fig, drawn = figures.gantt_drawn(store, sorted(store.done_ids())[0], max_jobs=10_000)
    text = drawing.gantt_window_text(drawn, True, 10_000)
    assert "the whole run, shorter than 2 days" in text and not drawn.shortened
    assert math.isclose(drawn.planned_end, drawn.end)


# -- the tables of the page -----------------------------------------------------------------


def test_grid_tables_name_the_jobs_they_cover(grid: Path) -> None:
    """The comparison table's per-job columns cover every job (meta and local); the
    interval tables below cover the meta-jobs: each heading says which."""
    page = html.render_report(ResultStore(grid))
    tables = page[page.index('<section id="tables">') : page.index('<section id="bars">')]
    assert re.search(r"<th[^>]*>all jobs: mean wait\b", tables)
    assert re.search(r"<h3>meta-jobs: mean global wait\b", tables)
    assert "all jobs (meta-jobs and local jobs): mean wait time (s) by policy" in page
    assert "global_mean_wait_time" not in tables


def test_long_policy_names_can_wrap_in_headings(grid: Path) -> None:
    page = html.render_report(ResultStore(grid))
    assert '<th class="num">push(<wbr>refresh=<wbr>120.0)</th>' in page
    assert "white-space: normal" in page  # (the configuration table's long cells wrap)
