"""The figures of one run: ``schedlab.plot(result)`` and ``schedlab run ... --plot FILE``.

Four figures: utilization and queue length over time, the wait-time CDF and a Gantt chart
of a window. Each is drawn by the function of ``drawing`` that draws it in the sweep report
(``draw_timeseries``, ``draw_cdf``, ``draw_gantt``): one code path per figure.

- The time series is the run's recorded one (``simulate(..., timeseries=True)``), else it
  is rebuilt from the per-job table (``metrics.occupancy``: exact for runs without
  preemption), so every result can be drawn.
- The Gantt window defaults to the busiest ``DEFAULT_SPAN`` of the run (most
  processor-seconds used, the earliest such), not its first days, which are often quiet;
  at most ``max_jobs`` jobs are drawn (the window is cut where the next one starts, and the
  figure says so), so a huge window stays a small file.
- A run on a cluster with GPUs (a ``gpus`` column and ``result.cluster`` with GPUs) gets a
  fifth figure, ``gpus``: the share of GPUs busy beside the share of cores busy (what each
  job held, ``metrics.nodes.occupancy_series``), on the time axis of the others. Every other
  run draws the four figures as before.
- Output by suffix: ``.html`` is one self-contained page (inline SVG, no script, no
  network) with the run's summary and the four figures; ``.png``/``.svg``/``.pdf`` one
  image with the four panels. Same result, same bytes (no date, fixed SVG ids).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any, overload

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import schedlab.report.drawing as drawing
import schedlab.report.style as style
from schedlab.errors import ConfigError
from schedlab.metrics.nodes import occupancy_series
from schedlab.metrics.occupancy import timeseries_from_jobs
from schedlab.outputs import write_atomic
from schedlab.report.html import CSS, _charts, _Figures, _fmt
from schedlab.simulation import SimulationResult

__all__ = [
    "DEFAULT_SPAN",
    "FIGURES",
    "GPU_FIGURE",
    "PLOT_SUFFIXES",
    "busiest_window",
    "check_plot_path",
    "figures_of",
    "panels",
    "parse_window",
    "plot",
    "render_html",
]

PLOT_SUFFIXES = (".html", ".png", ".svg", ".pdf")
FIGURES = ("utilization", "queue", "wait", "gantt")
GPU_FIGURE = "gpus"  # the fifth figure of a run on a cluster with GPUs
DEFAULT_SPAN = drawing.GANTT_DEFAULT_SPAN  # seconds: the length of the default Gantt window
MAX_JOBS = 400
SHADE: dict[str, Any] = {"color": "#e8a33d", "alpha": 0.22, "linewidth": 0, "zorder": 0}

_WINDOW_FORMAT = "START:END, seconds or a number with s, m, h, d or w (e.g. 2d:3d, 36h:40h)"
busiest_window = drawing.busiest_window  # (defined beside the Gantt drawing, which uses it)


# -- arguments ---------------------------------------------------------------------------


def check_plot_path(path: str | Path, option: str = "path") -> Path:
    """``path`` if its suffix names a format this module writes, else a ConfigError that
    lists them (checked before simulating: a typo must not cost a run)."""
    p = Path(path)
    if p.suffix.lower() not in PLOT_SUFFIXES:
        raise ConfigError(option, str(path), [f"FILE{s}" for s in PLOT_SUFFIXES])
    return p


def parse_window(text: str, option: str = "--plot-window") -> tuple[float, float]:
    """``START:END`` in seconds from the trace origin; each bound is a number of seconds or
    a number with a unit (s, m, h, d, w): ``2d:3d`` is (172800, 259200). Each bound is read
    by ``drawing.parse_time``, the parser of every time option."""
    parts = text.split(":")
    if len(parts) != 2:
        raise ConfigError(option, text, _WINDOW_FORMAT)
    try:
        start, end = (drawing.parse_time(part, option) for part in parts)
    except ConfigError:
        raise ConfigError(option, text, _WINDOW_FORMAT) from None
    if end <= start:
        raise ConfigError(option, text, "START:END with END after START")
    return start, end


def _window(window: tuple[float, float] | str | None) -> tuple[float, float] | None:
    if window is None or isinstance(window, str):
        return None if window is None else parse_window(window, option="window")
    try:
        start, end = (float(v) for v in window)
    except (TypeError, ValueError):
        raise ConfigError("window", window, "(start, end) in seconds, or 'START:END'") from None
    if not (math.isfinite(start) and math.isfinite(end) and end > start):
        raise ConfigError("window", window, "finite (start, end) with end > start")
    return start, end


# -- the run -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Occupancy:
    """Cores and GPUs held over time (step functions after each instant) and their totals."""

    times: np.ndarray
    cores: np.ndarray
    gpus: np.ndarray
    total_cores: int
    total_gpus: int


def _occupancy(result: SimulationResult) -> _Occupancy | None:
    """The GPU figure's data, or None when the run has no GPUs to show (no ``gpus`` column,
    no cluster, or a cluster without GPUs)."""
    cluster = getattr(result, "cluster", None)
    if cluster is None or int(cluster.gpus) <= 0 or "gpus" not in result.columns:
        return None
    columns = result.columns
    cores = columns["cores_held"] if "cores_held" in columns else columns["procs"]
    times, cores_busy, gpus_busy = occupancy_series(
        columns["started_at"], columns["finished_at"], cores, columns["gpus"]
    )
    return _Occupancy(times, cores_busy, gpus_busy, int(cluster.cores), int(cluster.gpus))


@dataclass(frozen=True)
class _Run:
    """What the figures draw, computed once."""

    jobs: Mapping[str, Any]
    series: Mapping[str, Any]
    recorded: bool
    procs: int
    name: str
    heading: str
    window: tuple[float, float]
    default_window: bool
    style: dict[str, Any]
    occupancy: _Occupancy | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The figures of this run: `FIGURES`, then `GPU_FIGURE` when it has GPUs."""
        return FIGURES if self.occupancy is None else (*FIGURES, GPU_FIGURE)


def _policy_name(result: SimulationResult) -> str:
    if not result.params:
        return result.policy
    return f"{result.policy} {json.dumps(result.params, sort_keys=True, separators=(',', ':'))}"


def _prepare(
    result: SimulationResult, window: tuple[float, float] | str | None, title: str | None
) -> _Run:
    if not isinstance(result, SimulationResult) or result.kind != "cluster":
        shown = f"a {result.kind} run" if isinstance(result, SimulationResult) else result
        raise ConfigError("result", shown, "a SimulationResult of one cluster (schedlab.simulate)")
    chosen = _window(window)
    recorded = result.timeseries_columns is not None
    series = result.timeseries_columns if recorded else timeseries_from_jobs(result.columns)
    assert series is not None
    if chosen is None:
        busy = drawing.series_of(series, "busy_procs", result.procs)
        assert busy is not None
        chosen = busiest_window(*busy)
    name = _policy_name(result)
    source = Path(str(result.workload.source)).name
    load = f", load {result.load_factor:g}" if result.load_factor != 1.0 else ""
    return _Run(
        jobs=result.jobs,
        series=series,
        recorded=recorded,
        procs=result.procs,
        name=name,
        heading=title or f"{name} on {source} ({result.procs:,} processors{load})",
        window=chosen,
        default_window=window is None,
        style={"color": style.policy_colors([name])[name], "linestyle": "-"},
        occupancy=_occupancy(result),
    )


# -- the four figures --------------------------------------------------------------------


def _shade(ax: Axes, unit: float | None, drawn: drawing.GanttDrawn) -> None:
    """Mark the Gantt window on a time axis."""
    if unit is not None:
        ax.axvspan(drawn.start / unit, drawn.end / unit, label="Gantt window", **SHADE)


def _smoothing(run: _Run) -> float:
    times = np.asarray(run.series["time"], dtype=np.float64)
    span = float(times[-1] - times[0]) if times.size else 0.0
    return drawing.utilization_window(span)


def _draw_utilization(ax: Axes, run: _Run, drawn: drawing.GanttDrawn) -> None:
    window = _smoothing(run)
    series = drawing.series_of(run.series, "utilization", run.procs)
    assert series is not None
    unit = drawing.draw_timeseries(
        ax, [series], [run.name], [run.style], "utilization", window=window
    )
    ax.set_title(f"Utilization ({window / 3600:g} h moving mean)", fontsize=11)
    _shade(ax, unit, drawn)


def _draw_gpus(ax: Axes, run: _Run, drawn: drawing.GanttDrawn) -> None:
    """GPUs busy / all beside cores busy / all, smoothed as the utilization is; the time
    axis starts where the others do (the first submission), idle until the first start."""
    occ = run.occupancy
    assert occ is not None
    window = _smoothing(run)
    start = np.asarray(run.series["time"], dtype=np.float64)[:1]
    lead = bool(start.size) and (occ.times.size == 0 or start[0] < occ.times[0])
    times = np.concatenate((start, occ.times)) if lead else occ.times
    series = []
    for busy, total in ((occ.cores, occ.total_cores), (occ.gpus, occ.total_gpus)):
        values = np.concatenate(([0], busy)) if lead else busy
        step = drawing.series_of({"time": times, "busy_procs": values}, "utilization", total)
        assert step is not None
        series.append(step)
    styles = [{"color": "0.55", "linestyle": "--"}, run.style]
    unit = drawing.draw_timeseries(
        ax, series, ["cores", "GPUs"], styles, "utilization", window=window
    )
    ax.set_ylabel("busy / all (cores, GPUs)")
    ax.set_title(f"GPUs and cores busy ({window / 3600:g} h moving mean)", fontsize=11)
    style.legend_beside(ax)
    _shade(ax, unit, drawn)


def _draw_queue(ax: Axes, run: _Run, drawn: drawing.GanttDrawn) -> None:
    series = drawing.series_of(run.series, "queued", run.procs)
    assert series is not None
    unit = drawing.draw_timeseries(ax, [series], [run.name], [run.style], "queued")
    ax.set_title("Queue length (jobs waiting to start)", fontsize=11)
    _shade(ax, unit, drawn)


def _draw_wait(ax: Axes, run: _Run) -> None:
    waits = drawing.job_values(run.jobs, "wait_time")
    drawing.draw_cdf(ax, [waits], [run.name], [run.style], "wait_time", title="CDF of wait time")


def _draw_gantt(ax: Axes, run: _Run, max_jobs: int) -> drawing.GanttDrawn:
    start, end = run.window
    which = "busiest" if run.default_window else "chosen"
    return drawing.draw_gantt(
        ax,
        run.jobs,
        run.procs,
        start,
        end,
        max_jobs,
        heading=f"Jobs of the {which} window",
    )


_SIZES = {
    "utilization": (6.4, 3.6),
    "queue": (6.4, 3.6),
    "wait": (6.4, 4.0),
    "gantt": (10.0, 4.8),
    GPU_FIGURE: (7.2, 3.6),
}


def _draw_all(axes: Mapping[str, Axes], run: _Run, max_jobs: int) -> drawing.GanttDrawn:
    """The drawings on their axes; the Gantt first, so the others shade its window."""
    if max_jobs < 1:
        raise ConfigError("max_jobs", max_jobs, "an integer >= 1")
    drawn = _draw_gantt(axes["gantt"], run, max_jobs)
    _draw_utilization(axes["utilization"], run, drawn)
    _draw_queue(axes["queue"], run, drawn)
    _draw_wait(axes["wait"], run)
    if run.occupancy is not None:
        _draw_gpus(axes[GPU_FIGURE], run, drawn)
    return drawn


def _figures(
    result: SimulationResult,
    window: tuple[float, float] | str | None,
    max_jobs: int,
    title: str | None,
) -> tuple[dict[str, Figure], _Run, drawing.GanttDrawn]:
    run = _prepare(result, window, title)
    out = {}
    for name in run.names:
        fig = Figure(figsize=_SIZES[name], layout="constrained")
        out[name] = fig
    axes = {name: style.style_axes(fig.add_subplot()) for name, fig in out.items()}
    drawn = _draw_all(axes, run, max_jobs)
    return out, run, drawn


def figures_of(
    result: SimulationResult,
    *,
    window: tuple[float, float] | str | None = None,
    max_jobs: int = MAX_JOBS,
    title: str | None = None,
) -> dict[str, Figure]:
    """The figures of ``result`` apart, by name (``FIGURES``, then ``GPU_FIGURE`` for a run
    with GPUs): for papers, or to restyle one. ``window``, ``max_jobs``, ``title``: as in
    ``plot``."""
    return _figures(result, window, max_jobs, title)[0]


def panels(
    result: SimulationResult,
    *,
    window: tuple[float, float] | str | None = None,
    max_jobs: int = MAX_JOBS,
    title: str | None = None,
) -> Figure:
    """One figure with the four panels: the two time series stacked (one time axis), the
    wait CDF beside them, the Gantt chart below across the width. A run with GPUs has a
    third time series, GPUs and cores busy, under the other two."""
    run = _prepare(result, window, title)
    if run.occupancy is None:
        fig = Figure(figsize=(12.0, 11.0), layout="constrained")
        axes = fig.subplot_mosaic(
            [["utilization", "wait"], ["queue", "wait"], ["gantt", "gantt"]],
            height_ratios=[1.0, 1.0, 1.6],
            width_ratios=[1.5, 1.0],
        )
    else:
        fig = Figure(figsize=(12.0, 14.0), layout="constrained")
        axes = fig.subplot_mosaic(
            [["utilization", "wait"], ["queue", "wait"], [GPU_FIGURE, "wait"], ["gantt", "gantt"]],
            height_ratios=[1.0, 1.0, 1.0, 1.6],
            width_ratios=[1.5, 1.0],
        )
    for ax in axes.values():
        style.style_axes(ax)
    _draw_all(axes, run, max_jobs)
    fig.suptitle(run.heading, fontsize=13)
    return fig


# -- the page ----------------------------------------------------------------------------


def _captions(run: _Run, drawn: drawing.GanttDrawn, max_jobs: int) -> dict[str, str]:
    source = "recorded during the run" if run.recorded else "rebuilt from the per-job table"
    waits = drawing.job_values(run.jobs, "wait_time")
    quantiles = (
        "median {:,.0f} s, 90th percentile {:,.0f} s, ".format(*np.quantile(waits, [0.5, 0.9]))
        if waits.size
        else ""
    )
    shaded = "shaded: the window of the Gantt chart"
    extra = {}
    if run.occupancy is not None:
        extra[GPU_FIGURE] = (
            f"Busy GPUs / all {run.occupancy.total_gpus:,} and busy cores / all "
            f"{run.occupancy.total_cores:,} (dashed), what the running jobs held (an exclusive "
            f"job every core and GPU of its nodes), trailing time-weighted mean over "
            f"{_smoothing(run) / 3600:g} h; {shaded}."
        )
    return {
        "utilization": f"Busy processors / all {run.procs:,}, trailing time-weighted mean over "
        f"{_smoothing(run) / 3600:g} h ({source}); {shaded}.",
        "queue": f"Jobs submitted and not yet started ({source}); long runs are drawn as "
        f"time-weighted means over 2000 bins; {shaded}.",
        "wait": f"Wait time (start - submit) of every job: {quantiles}logarithmic axis, "
        "linear below 1 s so that jobs that did not wait show.",
        "gantt": f"{drawing.gantt_window_text(drawn, run.default_window, max_jobs)}. "
        + drawing.GANTT_EXPLAINED,
        **extra,
    }


def render_html(
    result: SimulationResult,
    *,
    window: tuple[float, float] | str | None = None,
    max_jobs: int = MAX_JOBS,
    title: str | None = None,
) -> str:
    """The page of ``result`` as text: title, the run's numbers, the four figures, each a
    ``<figure class="chart" data-chart="NAME">`` (``<body data-figures="4">``; 5 for a run
    with GPUs)."""
    from schedlab.humanize import metric_label, metric_text
    from schedlab.version import __version__

    figs, run, drawn = _figures(result, window, max_jobs, title)
    captions = _captions(run, drawn, max_jobs)
    page = _Figures()
    charts = [
        page.html(name, figs[name], captions[name], wide=name == "gantt") for name in run.names
    ]
    # wall_time: not the run's (and would change the bytes); procs: the row above
    summary = {k: v for k, v in result.summary().items() if k not in ("wall_time", "procs")}
    rows = [
        ("workload", str(result.workload.source)),
        ("policy", run.name),
        ("processors", _fmt(run.procs)),
        ("load factor", _fmt(result.load_factor)),
        ("kill on overrun", _fmt(result.kill_on_overrun)),
        *((metric_label(k), metric_text(k, v, missing="—")) for k, v in summary.items()),
        ("Gantt window", f"{drawing.trace_time(drawn.start)} to {drawing.trace_time(drawn.end)}"),
    ]
    numbers = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows)
    heading = escape(run.heading)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="schedlab {escape(__version__)}">\n'
        f"<title>{heading}</title>\n<style>{CSS}</style>\n</head>\n"
        f'<body data-figures="{page.count}">\n'
        f"<header><h1>{heading}</h1><p>one run of schedlab</p></header>\n<main>\n"
        f'<section id="summary"><h2>Summary</h2>\n<dl class="counts">{numbers}</dl>\n'
        '<p class="note">Durations as 2h 13m (--json and --jobs-out keep seconds); times '
        "of the Gantt window in seconds from the trace origin.</p></section>\n"
        f'<section id="figures"><h2>Figures</h2>\n{_charts(charts, "")}\n</section>\n'
        "</main>\n</body>\n</html>\n"
    )


# -- the entry point ---------------------------------------------------------------------


@overload
def plot(
    result: SimulationResult,
    path: None = None,
    *,
    window: tuple[float, float] | str | None = None,
    max_jobs: int = MAX_JOBS,
    title: str | None = None,
) -> Figure: ...


@overload
def plot(
    result: SimulationResult,
    path: str | Path,
    *,
    window: tuple[float, float] | str | None = None,
    max_jobs: int = MAX_JOBS,
    title: str | None = None,
) -> Path: ...


def plot(
    result: SimulationResult,
    path: str | Path | None = None,
    *,
    window: tuple[float, float] | str | None = None,
    max_jobs: int = MAX_JOBS,
    title: str | None = None,
) -> Figure | Path:
    """See one run: utilization and queue length over time, the wait-time CDF and a Gantt
    chart of a window.

    Without ``path``: one matplotlib Figure with the four panels (``figures_of`` gives
    them apart). With ``path``: writes it, the suffix picks the format (.html: a page with
    the run's summary and the four figures; .png, .svg, .pdf: the four panels), whole or
    not at all, replacing an existing file; returns the path. ``window``: the Gantt window,
    (start, end) in seconds from the trace origin or a text like ``"2d:3d"`` (default: the
    busiest 2 days); at most ``max_jobs`` jobs are drawn. ``title``: replaces the heading.
    """
    if path is None:
        return panels(result, window=window, max_jobs=max_jobs, title=title)
    target = check_plot_path(path)
    if not target.parent.is_dir():
        raise ConfigError("path", str(path), "a file in an existing folder")
    if target.suffix.lower() == ".html":
        text = render_html(result, window=window, max_jobs=max_jobs, title=title)
        write_atomic(target, text.encode("utf-8"))
    else:
        style.save(panels(result, window=window, max_jobs=max_jobs, title=title), target)
    return target
