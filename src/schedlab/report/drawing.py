"""Drawings on one Axes from per-job tables and time series: the CDF, the time series and
the Gantt chart, shared by the figures of a results folder (``figures``) and those of one
run (``single``): one code path per drawing.

Times are seconds from the trace's origin (SWF), drawn in minutes, hours or days depending
on the span.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import matplotlib
import numpy as np
from matplotlib.patches import Patch

from schedlab.errors import ConfigError
from schedlab.metrics.summary import BSLD_THRESHOLD
from schedlab.report.style import METRIC_LABELS, blank, legend_beside, log_axis

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = [
    "CDF_COLUMNS",
    "GANTT_DEFAULT_SPAN",
    "TIMESERIES_KINDS",
    "GanttDrawn",
    "busiest_of",
    "busiest_window",
    "draw_cdf",
    "draw_gantt",
    "draw_timeseries",
    "gantt_window_text",
    "job_values",
    "parse_time",
    "processor_bands",
    "series_column",
    "series_of",
    "smooth_step",
    "timeseries_label",
    "timeseries_title",
    "trace_time",
    "utilization_window",
]

TIMESERIES_KINDS = ("queued", "running", "busy_procs", "utilization")
CDF_COLUMNS = ("wait_time", "bounded_slowdown", "response_time", "run_time")
GANTT_DEFAULT_SPAN = 2 * 86400.0  # seconds: the length of the default (busiest) Gantt window
TIME_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
TIME_FORMAT = "seconds, or a number with s, m, h, d or w (e.g. 3600, 90m, 3h, 2d)"
_TIME = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([smhdw]?)\s*", re.IGNORECASE)


def parse_time(text: str, option: str) -> float:
    """Seconds of a time option: ``3600``, ``90m``, ``3h``, ``2d``, ``1w`` (a number, then
    an optional unit). The one parser of every time a user types for a figure (``run
    --plot-window``, ``report --gantt-start``), so all accept the same forms; ConfigError
    naming ``option`` otherwise."""
    m = _TIME.fullmatch(text)
    if m is None:
        raise ConfigError(option, text, TIME_FORMAT)
    return float(m[1]) * TIME_UNITS[m[2].lower()]


def trace_time(value: float) -> str:
    """A time from the trace origin, for captions: seconds, and days when that helps."""
    text = f"{value:,.0f} s"
    return f"{text} (day {value / 86400:.2f})" if abs(value) >= 86400 else text


def _time_unit(span: float) -> tuple[float, str]:
    """Seconds per drawing unit and its name, for a time span in seconds."""
    if span <= 3 * 3600:
        return 60.0, "minutes"
    if span <= 3 * 86400:
        return 3600.0, "hours"
    return 86400.0, "days"


# -- distributions -----------------------------------------------------------------------


def job_values(jobs: pd.DataFrame, column: str) -> np.ndarray:
    """One value per started job: a jobs-table column, or ``bounded_slowdown`` =
    max((finished - submitted) / max(run, 10 s), 1) and ``response_time`` = finished -
    submitted (the definitions of ``schedlab.metrics.summary``)."""
    finished = np.asarray(jobs["finished_at"], dtype=np.float64)
    submitted = np.asarray(jobs["submitted_at"], dtype=np.float64)
    if column == "bounded_slowdown":
        run = np.asarray(jobs["run_time"], dtype=np.float64)
        values = np.maximum((finished - submitted) / np.maximum(run, BSLD_THRESHOLD), 1.0)
    elif column == "response_time":
        values = finished - submitted
    elif column in jobs.columns:
        values = np.asarray(jobs[column], dtype=np.float64)
    else:
        raise ConfigError("column", column, list(CDF_COLUMNS))
    return values[np.isfinite(values)]


def draw_cdf(
    ax: Axes,
    samples: Sequence[np.ndarray],
    names: Sequence[str],
    styles: Sequence[Mapping[str, Any]],
    column: str = "wait_time",
    *,
    log: bool = True,
    max_points: int = 1000,
    title: str | None = None,
) -> None:
    """Draw the empirical CDF of each sample (one value per job, see ``job_values``) on
    ``ax``, named ``names[i]`` and drawn with ``styles[i]``: the drawing of ``cdf``, which
    also serves the figures of one run (``schedlab.report.single``)."""
    label = METRIC_LABELS.get(column, column)
    ax.set_title(title or f"CDF of {label}", fontsize=11)
    if not samples:
        blank(ax, "no runs")
        return
    has_zero = False
    for sample, name, style in zip(samples, names, styles):
        values = np.sort(sample)
        if values.size == 0:
            continue
        has_zero |= bool(values[0] <= 0)
        if values.size > max_points:
            probs = np.linspace(0.0, 1.0, max_points)
            xs = np.quantile(values, probs, method="inverted_cdf")
            ys = probs
        else:
            xs = np.concatenate(([values[0]], values))
            ys = np.concatenate(([0.0], np.arange(1, values.size + 1) / values.size))
        ax.step(xs, ys, where="post", label=name, linewidth=1.4, **style)
    if log:
        if has_zero:
            log_axis(ax, "x", "symlog", linthresh=1.0, linscale=0.5)
        else:
            log_axis(ax, "x", "log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(label + (" — log scale" if log else ""))
    ax.set_ylabel("fraction of jobs ≤ x")
    legend_beside(ax)


# -- time series -------------------------------------------------------------------------


def _step_series(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep the last value of each instant: the value that holds after it."""
    keep = np.concatenate((times[1:] != times[:-1], [True]))
    return times[keep], values[keep]


def _integral(times: np.ndarray, values: np.ndarray) -> np.ndarray:
    """F(t_i) = integral of the step function from t_0 to t_i (exact, piecewise linear)."""
    return np.concatenate(([0.0], np.cumsum(values[:-1] * np.diff(times))))


def smooth_step(
    times: np.ndarray,
    values: np.ndarray,
    *,
    window: float | None = None,
    max_points: int | None = 2000,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Prepare a step function (value holds from each time to the next) for drawing.

    - ``window`` (s): the trailing time-weighted moving average (1/w) * integral over
      [t - w, t] (over [t_0, t] at the start), evaluated at ``max_points`` (default 2000)
      evenly spaced instants; drawn as a line.
    - otherwise, when there are more than ``max_points`` changes: the exact time-weighted
      mean over each of ``max_points`` equal bins, drawn as steps (peaks shorter than a bin
      are flattened, areas are kept).
    - otherwise the series itself.

    Returns (times, values, is_step).
    """
    times = np.asarray(times, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if times.size < 2:
        return times, values, True
    area = _integral(times, values)
    t0, t1 = float(times[0]), float(times[-1])
    points = max_points or 2000
    if window is not None:
        if window <= 0:
            raise ConfigError("window", window, "a positive number of seconds")
        grid = np.linspace(t0, t1, points)
        lower = np.maximum(grid - window, t0)
        span = grid - lower
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = (np.interp(grid, times, area) - np.interp(lower, times, area)) / span
        mean[span == 0] = values[0]
        return grid, mean, False
    if max_points is not None and times.size > max_points:
        edges = np.linspace(t0, t1, max_points + 1)
        mean = np.diff(np.interp(edges, times, area)) / np.diff(edges)
        return edges, np.concatenate((mean, [values[-1]])), True
    return times, values, True


def series_column(what: str) -> str:
    """The column of a time-series table that ``what`` is read from."""
    return "busy_procs" if what == "utilization" else what


def timeseries_label(what: str) -> str:
    """The axis label of a time-series quantity."""
    return "utilization (busy / all processors)" if what == "utilization" else METRIC_LABELS[what]


def timeseries_title(what: str, window: float | None = None) -> str:
    """The default title of a time series, naming its smoothing."""
    smoothing = f", {window / 3600:g} h moving mean" if window else ""
    return f"{timeseries_label(what)} over time{smoothing}"


def utilization_window(span: float) -> float:
    """Smoothing window (s) of a utilization plot over ``span`` seconds: 1/40 of it, in
    whole hours, at least 1 h (raw utilization flickers with every start and end)."""
    return max(3600.0, round(span / 40 / 3600) * 3600.0)


def busiest_window(
    times: np.ndarray, busy: np.ndarray, span: float = GANTT_DEFAULT_SPAN
) -> tuple[float, float]:
    """The window [s, s + span] in which the step function ``busy`` (the value holding
    from each of ``times`` to the next) has the largest integral: the highest mean
    utilization. Of several such windows, the earliest, moved on to its first busy instant
    when it opens idle (that loses no use: a short burst is drawn from its start, not after
    a quiet lead-in). The whole run when it is not longer than ``span``.

    The integral over [s, s + span] is piecewise linear in s, with corners where s or
    s + span meets a time: its maximum is at one of those, so they are the candidates.
    """
    times = np.asarray(times, dtype=np.float64)
    busy = np.asarray(busy, dtype=np.float64)
    if times.size == 0:
        return 0.0, span
    t0, t1 = float(times[0]), float(times[-1])
    if t1 - t0 <= span:
        return (t0, t1) if t1 > t0 else (t0, t0 + span)
    area = np.concatenate(([0.0], np.cumsum(busy[:-1] * np.diff(times))))
    starts = np.unique(np.clip(np.concatenate((times, times - span)), t0, t1 - span))
    score = np.interp(starts + span, times, area) - np.interp(starts, times, area)
    best = float(score.max())
    # the earliest of the busiest (rounding must not pick a later one of equal use)
    start = float(starts[np.flatnonzero(score >= best - 1e-9 * max(abs(best), 1.0))[0]])
    if busy[np.searchsorted(times, start, side="right") - 1] <= 0:
        later = np.flatnonzero((times > start) & (busy > 0))
        if later.size:
            start = float(times[later[0]])
    return start, start + span


def busiest_of(
    jobs: Any, series: Any = None, procs: int = 1, span: float = GANTT_DEFAULT_SPAN
) -> tuple[float, float]:
    """The busiest ``span`` of a run (``busiest_window``): from its recorded time series
    (``series`` with ``busy_procs``) when given, else rebuilt from its per-job table (exact
    for runs without preemption)."""
    busy = None if series is None else series_of(series, "busy_procs", procs)
    if busy is None:
        from schedlab.metrics.occupancy import timeseries_from_jobs

        busy = series_of(timeseries_from_jobs(jobs), "busy_procs", procs)
        assert busy is not None
    return busiest_window(*busy, span=span)


def series_of(frame: Any, what: str, procs: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(times, values) of ``what`` from a time-series table (columns ``time``, ``queued``,
    ``running``, ``busy_procs``: a DataFrame or a dict of arrays), the value that holds
    after each instant; ``utilization`` = busy_procs / ``procs``. None when the table lacks
    the quantity."""
    column = series_column(what)
    if column not in frame:
        return None
    times = np.asarray(frame["time"], dtype=np.float64)
    values = np.asarray(frame[column], dtype=np.float64)
    if what == "utilization":
        values = values / max(procs, 1)
    return _step_series(times, values)


def draw_timeseries(
    ax: Axes,
    series: Sequence[tuple[np.ndarray, np.ndarray]],
    names: Sequence[str],
    styles: Sequence[Mapping[str, Any]],
    what: str,
    *,
    window: float | None = None,
    max_points: int | None = 2000,
) -> float | None:
    """Draw step series (from ``series_of``) on ``ax``: the drawing of ``timeseries``, which
    also serves the figures of one run. Returns the seconds per unit of the x axis (to mark
    times on it), or None when every series is empty (the axes then say so)."""
    starts = [s[0][0] for s in series if s[0].size]
    ends = [s[0][-1] for s in series if s[0].size]
    if not starts:
        blank(ax, "empty time series")
        return None
    unit, unit_name = _time_unit(max(ends) - min(starts))
    for (times, values), name, style in zip(series, names, styles):
        xs, ys, is_step = smooth_step(times, values, window=window, max_points=max_points)
        if is_step:
            ax.step(xs / unit, ys, where="post", label=name, linewidth=1.0, **style)
        else:
            ax.plot(xs / unit, ys, label=name, linewidth=1.0, **style)
    if what == "utilization":
        ax.set_ylim(0, 1.05)
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(f"time since the trace origin ({unit_name})")
    ax.set_ylabel(timeseries_label(what))
    return unit


# -- Gantt -------------------------------------------------------------------------------


def _first_fit(free: np.ndarray, size: int) -> int | None:
    """Lowest row of a run of ``size`` consecutive free rows, or None."""
    counts = np.concatenate(([0], np.cumsum(free, dtype=np.int64)))
    found = np.flatnonzero(counts[size:] - counts[:-size] == size)
    return int(found[0]) if found.size else None


def _runs_of(rows: np.ndarray) -> list[tuple[int, int]]:
    """Sorted row numbers -> (first row, count) of each block of consecutive rows."""
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    return [(int(b[0]), int(b.size)) for b in np.split(rows, breaks)]


def processor_bands(
    started_at: np.ndarray, finished_at: np.ndarray, procs: np.ndarray, total: int
) -> tuple[list[list[tuple[int, int]]], int]:
    """Draw each job on rows of processors: greedy first-fit in start order.

    A job gets the lowest block of ``procs`` consecutive rows free at its start; when the
    free rows are fragmented it gets the lowest free rows in several blocks. This is a
    drawing that keeps bars from overlapping, not the allocation the simulated machine made
    (schedlab clusters count free processors, they do not name them). Returns each job's
    (first row, count) blocks, in input order, and how many jobs were split.
    """
    order = np.lexsort((np.arange(len(started_at)), started_at))
    free_at = np.full(max(total, 1), -np.inf)
    bands: list[list[tuple[int, int]]] = [[] for _ in range(len(started_at))]
    split = 0
    for j in order:
        size = int(min(max(procs[j], 1), total))
        start = started_at[j]
        free = free_at <= start
        first = _first_fit(free, size)
        if first is not None:
            rows = np.arange(first, first + size)
        else:
            rows = np.flatnonzero(free)[:size]
            if rows.size < size:  # only with an over-full machine: take the soonest free
                rows = np.sort(np.argsort(free_at, kind="stable")[:size])
            split += 1
        free_at[rows] = finished_at[j]
        bands[j] = _runs_of(rows)
    return bands, split


GANTT_EXPLAINED = (
    "Each bar spans a job's start to its end over as many rows as it has processors; the rows "
    "are a first-fit drawing, not the allocation the simulator made (it counts processors, it "
    "does not name them). Hatched: killed at the requested time."
)


def gantt_window_text(drawn: GanttDrawn, busiest: bool, max_jobs: int) -> str:
    """Which window a Gantt chart shows, for its caption: the jobs, the bounds, and why
    these (the busiest days, or the window asked for; cut at ``max_jobs``)."""
    days = f"{GANTT_DEFAULT_SPAN / 86400:g} days"
    if not busiest:
        why = "the window asked for"
    elif drawn.planned_end - drawn.start < GANTT_DEFAULT_SPAN:  # (busiest_window: all of it)
        why = f"the whole run, shorter than {days}"
    else:
        why = f"the busiest {days} of the run (highest mean utilization)"
    cut = (
        f"; at most {max_jobs} jobs are drawn, so the window was cut where the next one starts"
        if drawn.shortened
        else ""
    )
    return (
        f"{drawn.jobs:,} jobs running from {trace_time(drawn.start)} to "
        f"{trace_time(drawn.end)}: {why}{cut}"
    )


class GanttDrawn(NamedTuple):
    """What ``draw_gantt`` drew: the window (s), the jobs drawn, whether the window was cut
    to ``max_jobs``, how many jobs were split over non-adjacent rows, and the end of the
    window before the cut (s)."""

    start: float
    end: float
    jobs: int
    shortened: bool
    split: int
    planned_end: float = math.nan


def draw_gantt(
    ax: Axes,
    jobs: Any,
    total: int,
    start: float | None = None,
    end: float | None = None,
    max_jobs: int = 400,
    *,
    heading: str,
    empty_title: str | None = None,
) -> GanttDrawn:
    """Draw the jobs of a per-job table (DataFrame or dict of columns) running on a machine
    of ``total`` processors within [start, end] on ``ax``: the drawing of ``gantt`` (which
    documents the window and the rows), which also serves the figures of one run.
    ``heading``: the title's first line; ``empty_title``: the title when no job runs there.
    Without start and end: the busiest ``GANTT_DEFAULT_SPAN`` (``busiest_of``); with one
    of them: ``GANTT_DEFAULT_SPAN`` from the start (or from the first submission).
    """
    if max_jobs < 1:
        raise ConfigError("max_jobs", max_jobs, "an integer >= 1")
    ax.grid(False)
    started = np.asarray(jobs["started_at"], dtype=np.float64)
    finished = np.asarray(jobs["finished_at"], dtype=np.float64)
    keep = np.isfinite(started) & np.isfinite(finished) & (finished > started)
    submitted = np.asarray(jobs["submitted_at"], dtype=np.float64)
    if start is None and end is None:
        start, end = busiest_of(jobs)
    first_submit = float(np.nanmin(submitted)) if submitted.size else 0.0
    lo = first_submit if start is None else float(start)
    hi = lo + GANTT_DEFAULT_SPAN if end is None else float(end)
    if hi <= lo:
        raise ConfigError("gantt window", (start, end), "start < end (seconds)")
    planned = hi
    inside = np.flatnonzero(keep & (started < hi) & (finished > lo))
    inside = inside[np.lexsort((inside, started[inside]))]
    shortened = False
    if inside.size > max_jobs:
        cut = float(started[inside[max_jobs]])
        if cut > lo:
            hi, shortened = cut, True
            inside = inside[started[inside] < hi]
        inside = inside[:max_jobs]
    unit, unit_name = _time_unit(hi - lo)
    ax.set_xlim(lo / unit, hi / unit)
    ax.set_ylim(0, total)
    ax.set_xlabel(f"time since the trace origin ({unit_name})")
    ax.set_ylabel(f"processors (of {total})")
    if inside.size == 0:
        ax.set_title(empty_title or f"{heading}: no job runs in this window", fontsize=10)
        return GanttDrawn(lo, hi, 0, shortened, 0, planned)
    procs = np.asarray(jobs["procs"], dtype=np.int64)[inside]
    killed = np.asarray(jobs["killed"], dtype=bool)[inside] if "killed" in jobs else None
    job_ids = np.asarray(jobs["job_id"], dtype=np.int64)[inside]
    bands, split = processor_bands(started[inside], finished[inside], procs, total)
    cmap = matplotlib.colormaps["tab20"]
    bars: dict[bool, dict[str, list[Any]]] = {
        k: {"x": [], "w": [], "y": [], "h": [], "c": []} for k in (False, True)
    }
    for k, blocks in enumerate(bands):
        group = bars[bool(killed[k]) if killed is not None else False]
        s, f = started[inside[k]] / unit, finished[inside[k]] / unit
        color = cmap((int(job_ids[k]) * 7) % 20)
        for row, count in blocks:
            group["x"].append(s)
            group["w"].append(f - s)
            group["y"].append(row)
            group["h"].append(count)
            group["c"].append(color)
    for is_killed, group in bars.items():
        if not group["x"]:
            continue
        ax.bar(
            group["x"],
            group["h"],
            group["w"],
            bottom=group["y"],
            align="edge",
            color=group["c"],
            edgecolor="0.15" if is_killed else "white",
            linewidth=0.3,
            hatch="////" if is_killed else None,
        )
    notes = [f"{inside.size} jobs"]
    if shortened:
        notes.append(f"window cut to the first {max_jobs}")
    if split:
        notes.append(f"{split} split over non-adjacent rows")
    ax.set_title(
        f"{heading}\nprocessor rows are a first-fit drawing, not the simulated allocation"
        f" ({', '.join(notes)})",
        fontsize=10,
    )
    if killed is not None and killed.any():
        # beside the axes, never over the bars (a busy window fills the whole drawing)
        legend_beside(
            ax,
            handles=[Patch(facecolor="white", edgecolor="0.15", hatch="////", label="killed")],
        )
    return GanttDrawn(lo, hi, int(inside.size), shortened, split, planned)
