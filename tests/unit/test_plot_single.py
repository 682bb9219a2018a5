"""The figures of one run (`schedlab.plot`, `schedlab run --plot`): what each figure draws,
where the default Gantt window lies, the time series rebuilt from the per-job table, the
output files and the errors (tests/browser/test_plot_in_chromium.py opens the page)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_cli import run_main, swf_line, write_swf_text

import schedlab
from schedlab.errors import ConfigError
from schedlab.metrics.occupancy import timeseries_from_jobs

single = pytest.importorskip("schedlab.report.single")

SPEC = "lublin:jobs=300,procs=32,seed=2"
DAY = 86400.0


@pytest.fixture(scope="module")
def result() -> schedlab.SimulationResult:
    return schedlab.simulate(SPEC, "easy", timeseries=True)


def _step_at(times: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The step function (value holds from each time to the next) at the instants ``at``."""
    return values[np.searchsorted(times, at, side="right") - 1]


def _only_line(ax: Any) -> Any:
    """The one data line of ``ax`` (matplotlib's own start with _)."""
    lines = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert len(lines) == 1, [line.get_label() for line in lines]
    return lines[0]


# -- the figures -----------------------------------------------------------------------------


def test_four_figures_with_their_axes_and_the_run_data(result: schedlab.SimulationResult) -> None:
    """Queue: the recorded steps, x in days. CDF: every job's wait, sorted, ending at 1.
    Utilization: a moving mean within [0, 1] (y axis 0..1.05). Gantt: the jobs that run in
    its window, counted by hand."""
    figs = single.figures_of(result)
    assert list(figs) == ["utilization", "queue", "wait", "gantt"]
    axes = {name: fig.axes[0] for name, fig in figs.items()}

    queue = axes["queue"]
    assert queue.get_ylabel() == "queued jobs"
    assert "days" in queue.get_xlabel()
    line = _only_line(queue)
    ts = result.timeseries
    times, first = np.unique(ts["time"].to_numpy()[::-1], return_index=True)
    queued = ts["queued"].to_numpy()[::-1][first]  # the last value of each instant
    assert np.asarray(line.get_xdata()) * DAY == pytest.approx(times, rel=1e-12)
    assert np.array_equal(np.asarray(line.get_ydata()), queued)

    wait = axes["wait"]
    assert wait.get_xlabel().startswith("wait time (s)")
    assert wait.get_ylabel() == "fraction of jobs ≤ x"
    xs, ys = (np.asarray(v) for v in _only_line(wait).get_data())
    waits = np.sort(result.jobs["wait_time"].to_numpy())
    assert np.array_equal(xs[1:], waits) and ys[0] == 0 and ys[-1] == 1
    assert wait.get_xscale() == "symlog"  # some jobs did not wait

    util = axes["utilization"]
    assert util.get_ylabel() == "utilization (busy / all processors)"
    assert util.get_ylim() == (0, 1.05)
    ys = np.asarray(_only_line(util).get_ydata())
    assert ys.min() >= 0 and ys.max() <= 1 and ys.max() > 0.3

    gantt = axes["gantt"]
    lo, hi = (v * 3600 for v in gantt.get_xlim())  # a 2-day window is drawn in hours
    jobs = result.jobs
    running = (jobs["started_at"] < hi) & (jobs["finished_at"] > lo)
    running &= jobs["finished_at"] > jobs["started_at"]
    assert f"({int(running.sum())} jobs" in gantt.get_title()
    assert gantt.get_ylim() == (0, 32)


def test_the_panels_are_one_figure_with_the_same_four_drawings(
    result: schedlab.SimulationResult,
) -> None:
    """``plot(result)`` gives one Figure with four axes; the shaded Gantt window on the two
    time axes is the Gantt chart's own x range."""
    fig = schedlab.plot(result)
    assert len(fig.axes) == 4
    by_title = {ax.get_title().split(" ")[0]: ax for ax in fig.axes}
    assert sorted(by_title) == ["CDF", "Jobs", "Queue", "Utilization"]
    lo, hi = by_title["Jobs"].get_xlim()
    for ax in (by_title["Utilization"], by_title["Queue"]):
        (span,) = ax.patches  # the shaded window
        x0, x1 = span.get_x(), span.get_x() + span.get_width()
        assert (x0 * DAY, x1 * DAY) == pytest.approx((lo * 3600, hi * 3600))


def test_busiest_window_by_hand() -> None:
    """busy = 1 on [0, 10), 0, 5 on [20, 30), 0 to 40: the 10 s window with the most use is
    [20, 30]. The 15 s windows from 15 to 20 all use 50; the earliest, [15, 30], opens idle,
    so it moves on to where the use starts: [20, 35]. busy = 4 on [0, 20), 0, 4 on
    [30, 50): the 20 s windows [0, 20] and [30, 50] tie at 80 and the earliest wins.
    busy = 1 on [10, 40), 5 on [40, 45): the best 20 s window is [25, 45] (use 40), a
    corner where the window's end meets a time (25 = 45 - 20). A run not longer than the
    span is the whole run.
    """
    times = np.array([0.0, 10.0, 20.0, 30.0, 40.0])
    busy = np.array([1.0, 0.0, 5.0, 0.0, 0.0])
    assert single.busiest_window(times, busy, 10.0) == (20.0, 30.0)
    assert single.busiest_window(times, busy, 15.0) == (20.0, 35.0)
    assert single.busiest_window(times, busy, 40.0) == (0.0, 40.0)
    tie = np.array([0.0, 20.0, 30.0, 50.0])
    assert single.busiest_window(tie, np.array([4.0, 0.0, 4.0, 0.0]), 20.0) == (0.0, 20.0)
    corner = np.array([0.0, 10.0, 40.0, 45.0, 100.0])
    use = np.array([0.0, 1.0, 5.0, 0.0, 0.0])
    assert single.busiest_window(corner, use, 20.0) == (25.0, 45.0)


def test_default_window_lies_where_the_activity_is(tmp_path: Path) -> None:
    """One 60 s job at t=0, then nothing until day 10, then 40 jobs of 4 of the 8 processors
    for an hour each, one every 30 minutes: the report's default window (the 2 days after
    the first submission) would show the lone job; this one starts where the burst starts
    and holds all of it."""
    lines = [swf_line(1, 0, 60, 1, 60)]
    for k in range(40):
        lines.append(swf_line(k + 2, 10 * DAY + 1800 * k, 3600, 4, 3600))
    trace = write_swf_text(tmp_path / "late.swf", lines, max_procs=8)
    result = schedlab.simulate(str(trace), "easy")
    assert result.timeseries is None  # the figures rebuild it
    gantt = single.figures_of(result)["gantt"].axes[0]
    lo, hi = (v * 3600 for v in gantt.get_xlim())
    assert (lo, hi) == pytest.approx((10 * DAY, 12 * DAY))
    assert "(40 jobs" in gantt.get_title()
    # a window asked for is drawn as asked (hours), the quiet start has the one job
    asked = single.figures_of(result, window="0:1h")["gantt"].axes[0]
    assert tuple(v * 60 for v in asked.get_xlim()) == (0, 3600)  # an hour: drawn in minutes
    assert "(1 jobs" in asked.get_title()


def test_gantt_draws_at_most_max_jobs_and_says_so(result: schedlab.SimulationResult) -> None:
    title = single.figures_of(result, max_jobs=10)["gantt"].axes[0].get_title()
    assert "(10 jobs" in title and "window cut to the first 10" in title


# -- the time series, rebuilt ------------------------------------------------------------------


def test_rebuilt_series_by_hand() -> None:
    """Jobs (submit, start, end, procs): A (0, 0, 10, 2), B (0, 5, 20, 3), C (5, 5, 5, 1):
    at 0 A runs and B waits; at 5 B starts and C runs for no time; A ends at 10, B at 20."""
    jobs = {
        "submitted_at": np.array([0.0, 0.0, 5.0]),
        "started_at": np.array([0.0, 5.0, 5.0]),
        "finished_at": np.array([10.0, 20.0, 5.0]),
        "procs": np.array([2, 3, 1]),
    }
    series = timeseries_from_jobs(jobs)
    assert series["time"].tolist() == [0, 5, 10, 20]
    assert series["queued"].tolist() == [1, 0, 0, 0]
    assert series["running"].tolist() == [1, 2, 1, 0]
    assert series["busy_procs"].tolist() == [2, 5, 3, 0]


@pytest.mark.parametrize("policy", ["easy", "conservative", "fcfs"])
def test_rebuilt_series_equals_the_recorded_one(policy: str) -> None:
    """As step functions, at every instant of either series (for runs without preemption)."""
    recorded = schedlab.simulate(SPEC, policy, timeseries=True)
    rebuilt = timeseries_from_jobs(recorded.columns)
    rec = recorded.timeseries_columns
    assert rec is not None
    at = np.union1d(rec["time"], rebuilt["time"])
    for column in ("queued", "running", "busy_procs"):
        a = _step_at(rec["time"], rec[column], at)
        b = _step_at(rebuilt["time"], rebuilt[column], at)
        assert np.array_equal(a, b), column
    # and the figures of a run without a recorded series draw the same utilization
    plain = schedlab.simulate(SPEC, policy)
    assert plain.timeseries is None
    ys = [
        np.asarray(_only_line(single.figures_of(r)["utilization"].axes[0]).get_ydata())
        for r in (recorded, plain)
    ]
    assert np.allclose(ys[0], ys[1], rtol=0, atol=1e-12)


# -- arguments and files -----------------------------------------------------------------------


def test_parse_window_reads_units_and_rejects_the_rest() -> None:
    assert single.parse_window("2d:3d") == (2 * DAY, 3 * DAY)
    assert single.parse_window("36h:40h") == (36 * 3600, 40 * 3600)
    assert single.parse_window("90m:7200") == (5400, 7200)
    assert single.parse_window("0.5d:1w") == (DAY / 2, 7 * DAY)
    for bad in ("2d", "1:2:3", "x:y", "3d:2d", "2d:2d", "-1:5"):
        with pytest.raises(ConfigError, match="--plot-window"):
            single.parse_window(bad)
    with pytest.raises(ConfigError, match="window"):
        single.figures_of(schedlab.simulate("lublin:jobs=20,procs=8,seed=1"), window=(5, 1))


def test_plot_writes_each_format(result: schedlab.SimulationResult, tmp_path: Path) -> None:
    """PNG, SVG and PDF by suffix; HTML: four figures, one inline SVG each, the summary,
    no script and no external reference; the same result gives the same bytes."""
    png = schedlab.plot(result, tmp_path / "run.png")
    assert png == tmp_path / "run.png" and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = schedlab.plot(result, tmp_path / "run.svg")
    assert ET.parse(svg).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert schedlab.plot(result, tmp_path / "run.pdf").read_bytes()[:5] == b"%PDF-"
    page = schedlab.plot(result, tmp_path / "run.html").read_text(encoding="utf-8")
    charts = re.findall(r'<figure class="chart[^"]*" data-chart="([^"]+)"><svg', page)
    assert charts == ["utilization", "queue", "wait", "gantt"]
    assert 'data-figures="4"' in page and page.count("<svg") == 4
    assert "<script" not in page and not re.search(r'(src|href)="(https?:)?//', page)
    # the summary in units (issue 23): a label without "(s)", a duration as 2h 13m
    assert "<dt>mean wait</dt>" in page and "recorded during the run" in page
    again = schedlab.plot(result, tmp_path / "again.html")
    assert again.read_text(encoding="utf-8") == page


def test_bad_suffix_or_input_is_a_config_error(
    result: schedlab.SimulationResult, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=r"FILE\.html, FILE\.png, FILE\.svg, FILE\.pdf"):
        schedlab.plot(result, tmp_path / "run.jpg")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ConfigError, match="existing folder"):
        schedlab.plot(result, tmp_path / "missing" / "run.png")
    with pytest.raises(ConfigError, match="SimulationResult"):
        schedlab.plot(result.jobs)  # type: ignore[call-overload]


# -- the command -------------------------------------------------------------------------------


def test_cli_checks_the_plot_path_before_reading_the_workload(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A bad suffix is reported, not the missing trace: it is checked first."""
    code, out, err = run_main(
        monkeypatch, capsys, "run", str(tmp_path / "none.swf"), "--plot", "run.gif"
    )
    assert code == 2 and "--plot" in err and "FILE.html" in err and "none.swf" not in err


def test_cli_plot_refuses_to_overwrite_without_force(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "run.html"
    target.write_text("keep me")
    code, _out, err = run_main(monkeypatch, capsys, "run", SPEC, "--plot", str(target))
    assert code == 2 and "already exists" in err and "--force" in err
    assert target.read_text() == "keep me"
    code, _out, err = run_main(
        monkeypatch, capsys, "run", SPEC, "--plot", str(target), "--plot-window", "1d:2d", "--force"
    )
    assert code == 0, err
    page = target.read_text(encoding="utf-8")
    assert page.count("<figure") == 4 and "86,400 s (day 1.00) to" in page


def test_cli_plot_window_needs_plot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run_main(monkeypatch, capsys, "run", SPEC, "--plot-window", "1d:2d")
    assert code == 2 and "--plot-window" in err and "--plot FILE" in err
