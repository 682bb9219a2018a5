"""Figures of a results folder, for papers and for the HTML report.

Every function returns a ``matplotlib.figure.Figure`` built directly (never through
pyplot): no global figure registry, no GUI backend, nothing to close, and figures can be
made from several threads. ``save`` writes PNG, SVG or PDF, chosen by the extension, with
no date in the metadata and a fixed SVG hash salt, so the same results give the same bytes.

Conventions: times are seconds from the trace's origin (SWF), drawn in minutes, hours or
days depending on the span; colours follow the policy (``policy_colors``), so one policy
keeps one colour across the figures of a report. A run is named by the fields that differ
among the runs drawn together (policy, workload, load factor, seed).

DESIGN.md section 1: this package is the only one that imports plotting libraries.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from schedlab.errors import ConfigError
from schedlab.metrics.summary import BSLD_THRESHOLD
from schedlab.outputs import atomic_output

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

    from schedlab.experiments.store import ResultStore

__all__ = [
    "METRIC_LABELS",
    "GanttDrawn",
    "cdf",
    "draw_cdf",
    "draw_gantt",
    "draw_timeseries",
    "gantt",
    "metric_bars",
    "policy_colors",
    "policy_names",
    "save",
    "series_of",
    "style_axes",
    "timeseries",
    "timeseries_title",
    "to_svg",
    "utilization_window",
]

SVG_HASH_SALT = "schedlab"  # fixed salt: clip-path ids (and so SVG bytes) are reproducible
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
TIMESERIES_KINDS = ("queued", "running", "busy_procs", "utilization")
CDF_COLUMNS = ("wait_time", "bounded_slowdown", "response_time", "run_time")
GANTT_DEFAULT_SPAN = 2 * 86400.0  # seconds: the default Gantt window after the first submit

METRIC_LABELS: dict[str, str] = {
    "mean_wait_time": "mean wait time (s)",
    "max_wait_time": "max wait time (s)",
    "mean_response_time": "mean response time (s)",
    "mean_slowdown": "mean slowdown",
    "mean_bounded_slowdown": "mean bounded slowdown (τ = 10 s)",
    "utilization": "utilization",
    "unfairness": "unfairness",
    "makespan": "makespan (s)",
    "killed": "killed jobs",
    "jobs": "jobs",
    "wait_time": "wait time (s)",
    "bounded_slowdown": "bounded slowdown (τ = 10 s)",
    "response_time": "response time (s)",
    "run_time": "run time (s)",
    "queued": "queued jobs",
    "running": "running jobs",
    "busy_procs": "busy processors",
    "normalized_cmax": "normalized Cmax (Cmax / lower bound)",
    "filling": "filling (allocated area / Cmax x N)",
}

_LINESTYLES = ("-", "--", ":", "-.")


# -- naming and colours ------------------------------------------------------------------


def policy_names(frame: pd.DataFrame) -> pd.Series:
    """The name of each row's policy variant: ``policy_label`` when the catalog has one,
    else the policy, followed by its parameters when it has any."""
    import pandas as pd

    if "policy_label" in frame.columns:
        labels = frame["policy_label"]
        fallback = frame["policy"].astype(str)
        return labels.where(labels.notna() & (labels.astype(str) != ""), fallback).astype(str)
    params = (
        frame["params"].fillna("{}").astype(str)
        if "params" in frame.columns
        else pd.Series("{}", index=frame.index)
    )
    policy = frame["policy"].astype(str)
    return policy.where(params == "{}", policy + " " + params)


def policy_colors(policies: Iterable[str]) -> dict[str, str]:
    """A colour per policy name (tab10, in sorted order): pass the same mapping to every
    figure of a document so that a policy keeps its colour."""
    cmap = matplotlib.colormaps["tab10"]
    names = sorted(set(policies))
    return {name: matplotlib.colors.to_hex(cmap(i % 10)) for i, name in enumerate(names)}


def _run_policy(config: Mapping[str, Any]) -> str:
    label = config.get("policy_label")
    if label:
        return str(label)
    params = config.get("params") or {}
    if params:
        import json

        return f"{config['policy']} {json.dumps(params, sort_keys=True, separators=(',', ':'))}"
    return str(config["policy"])


def _run_info(store: ResultStore, run_id: str) -> dict[str, Any]:
    if not store.is_done(run_id):
        raise ConfigError("run_id", run_id, "a finished run of this results folder")
    config = store.config(run_id)
    return {
        "run_id": run_id,
        "policy": _run_policy(config),
        "workload": str(config.get("label") or config.get("workload")),
        "load_factor": float(config.get("load_factor", 1.0)),
        "seed": config.get("seed"),
        "procs": int(store.summary(run_id)["procs"]),
    }


def _labels(infos: Sequence[Mapping[str, Any]]) -> list[str]:
    """Name runs by the fields that differ among them (the policy when nothing does)."""
    fields = [
        f for f in ("policy", "workload", "load_factor", "seed") if len({i[f] for i in infos}) > 1
    ] or ["policy"]
    fmt: dict[str, Callable[[Any], str]] = {
        "policy": str,
        "workload": str,
        "load_factor": lambda v: f"load {v:g}",
        "seed": lambda v: f"seed {v}",
    }
    return [" · ".join(fmt[f](info[f]) for f in fields) for info in infos]


def _styles(
    infos: Sequence[Mapping[str, Any]], colors: Mapping[str, str] | None
) -> list[dict[str, Any]]:
    """Colour by policy; runs sharing a policy get different line styles."""
    colors = dict(colors or {})
    missing = policy_colors(i["policy"] for i in infos if i["policy"] not in colors)
    seen: dict[str, int] = {}
    styles = []
    for info in infos:
        policy = info["policy"]
        n = seen.get(policy, 0)
        seen[policy] = n + 1
        styles.append(
            {
                "color": colors.get(policy, missing.get(policy)),
                "linestyle": _LINESTYLES[n % len(_LINESTYLES)],
            }
        )
    return styles


def _time_unit(span: float) -> tuple[float, str]:
    """Seconds per drawing unit and its name, for a time span in seconds."""
    if span <= 3 * 3600:
        return 60.0, "minutes"
    if span <= 3 * 86400:
        return 3600.0, "hours"
    return 86400.0, "days"


def _compact(value: float, _pos: Any = None) -> str:
    """Tick label for logarithmic axes: 0, 1, 10, 100, 1k, 10k, 1M (plain text, no
    mathtext: readable, and several times faster to draw than 10^k)."""
    if value == 0:
        return "0"
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


def _log_axis(ax: Axes, which: str, scale: str, **kwargs: Any) -> None:
    """Set a log or symlog scale with compact plain-text labels at the decades."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    if which == "x":
        ax.set_xscale(scale, **kwargs)
        axis: Any = ax.xaxis
    else:
        ax.set_yscale(scale, **kwargs)
        axis = ax.yaxis
    axis.set_major_formatter(FuncFormatter(_compact))
    axis.set_minor_formatter(NullFormatter())


def style_axes(ax: Axes) -> Axes:
    """The look of every drawing: light grid behind the marks, no top or right spine."""
    ax.grid(True, color="0.88", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def _new_figure(width: float = 6.4, height: float = 4.0) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, style_axes(fig.add_subplot())


def _blank(ax: Axes, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def _empty(fig: Figure, ax: Axes, message: str) -> Figure:
    _blank(ax, message)
    return fig


# -- bars ------------------------------------------------------------------------------


def _group_label(columns: Sequence[str], values: Sequence[Any]) -> str:
    parts = []
    for column, value in zip(columns, values):
        if column == "load_factor":
            parts.append(f"load {float(value):g}")
        elif column == "seed":
            parts.append(f"seed {value}")
        else:
            parts.append(str(value))
    return "\n".join(parts)


def metric_bars(
    catalog: pd.DataFrame,
    metric: str,
    by: Sequence[str] = ("workload", "load_factor"),
    *,
    log: bool | None = None,
    colors: Mapping[str, str] | None = None,
    title: str | None = None,
) -> Figure:
    """Grouped bars of ``metric`` (a catalog column): one group per value of ``by``, one
    bar per policy, the mean over the group's finished runs (seeds); a thin whisker spans
    the minimum to the maximum when there is more than one run.

    ``log``: logarithmic value axis; None chooses it when the positive means span more than
    a factor of 50 (slowdowns of FCFS and backfilling often do).
    """
    done = catalog[catalog["status"] == "done"] if "status" in catalog.columns else catalog
    if metric not in catalog.columns:
        numeric = [c for c in catalog.columns if str(catalog[c].dtype).startswith(("float", "int"))]
        raise ConfigError("metric", metric, sorted(numeric))
    by = list(by)
    for column in by:
        if column not in catalog.columns:
            raise ConfigError("by", column, sorted(map(str, catalog.columns)))
    width = 6.4
    fig, ax = _new_figure(width, 4.0)
    ax.set_title(title or METRIC_LABELS.get(metric, metric), fontsize=11)
    frame = done.assign(_policy=policy_names(done), _value=done[metric].astype(float))
    frame = frame[np.isfinite(frame["_value"])]
    if frame.empty:
        return _empty(fig, ax, "no finished runs")
    keys = by + ["_policy"]
    stats = frame.groupby(keys, sort=True)["_value"].agg(["mean", "min", "max", "count"])
    groups = sorted({tuple(k[:-1]) for k in stats.index}) if by else [()]
    policies = sorted(set(frame["_policy"]))
    palette = dict(colors or {})
    palette.update(policy_colors(p for p in policies if p not in palette))
    fig.set_figwidth(min(16.0, max(width, 1.6 + 0.35 * len(groups) * (len(policies) + 1))))
    bar_width = 0.8 / len(policies)
    for i, policy in enumerate(policies):
        xs, means, low, high = [], [], [], []
        for g, group in enumerate(groups):
            key = (*group, policy) if by else policy
            if key not in stats.index:
                continue
            row = stats.loc[key]
            xs.append(g + (i - (len(policies) - 1) / 2) * bar_width)
            means.append(float(row["mean"]))
            several = int(row["count"]) > 1
            low.append(float(row["mean"] - row["min"]) if several else 0.0)
            high.append(float(row["max"] - row["mean"]) if several else 0.0)
        ax.bar(
            xs,
            means,
            bar_width * 0.92,
            color=palette[policy],
            label=policy,
            yerr=[low, high] if any(low) or any(high) else None,
            error_kw={"elinewidth": 0.8, "capsize": 0, "ecolor": "0.25"},
        )
    positive = stats["mean"][stats["mean"] > 0]
    if log is None:
        log = len(positive) > 1 and float(positive.max()) > 50 * float(positive.min())
    if log and len(positive):
        _log_axis(ax, "y", "log")
    ax.set_xticks(range(len(groups)), [_group_label(by, g) for g in groups])
    ax.set_ylabel(METRIC_LABELS.get(metric, metric))
    ax.grid(False, axis="x")
    ax.legend(title="policy", fontsize=8, title_fontsize=8, frameon=False, loc="best")
    return fig


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


def cdf(
    store: ResultStore,
    run_ids: Sequence[str],
    column: str = "wait_time",
    *,
    log: bool = True,
    max_points: int = 1000,
    colors: Mapping[str, str] | None = None,
    title: str | None = None,
) -> Figure:
    """Empirical CDF of a per-job quantity, one line per run.

    ``column``: ``wait_time``, ``bounded_slowdown`` (computed per job, see ``job_values``),
    ``response_time`` or any numeric column of the jobs table. ``log``: logarithmic x axis;
    when some values are 0 (wait times) it is symmetric-log, linear below 1, so that jobs
    that did not wait stay on the drawing. A run with more than ``max_points`` jobs is drawn
    through that many evenly spaced quantiles (the drawing, not the data, is thinned).
    """
    if column not in CDF_COLUMNS and not column.endswith(("_time", "_at")):
        raise ConfigError("column", column, list(CDF_COLUMNS))
    infos = [_run_info(store, r) for r in run_ids]
    fig, ax = _new_figure()
    samples = [job_values(store.jobs(info["run_id"]), column) for info in infos]
    draw_cdf(
        ax,
        samples,
        _labels(infos),
        _styles(infos, colors),
        column,
        log=log,
        max_points=max_points,
        title=title,
    )
    return fig


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
        _blank(ax, "no runs")
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
            _log_axis(ax, "x", "symlog", linthresh=1.0, linscale=0.5)
        else:
            _log_axis(ax, "x", "log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(label + (" — log scale" if log else ""))
    ax.set_ylabel("fraction of jobs ≤ x")
    ax.legend(fontsize=8, frameon=False, loc="lower right")


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


def timeseries(
    store: ResultStore,
    run_ids: Sequence[str],
    what: str = "queued",
    *,
    window: float | None = None,
    max_points: int | None = 2000,
    colors: Mapping[str, str] | None = None,
    title: str | None = None,
) -> Figure:
    """A quantity over time, one line per run, from the runs' recorded time series.

    ``what``: ``queued`` (jobs waiting), ``running`` (jobs), ``busy_procs`` or
    ``utilization`` = busy processors / the run's processors. The series is a step function;
    ``window`` (s) smooths it with a trailing time-weighted moving average, and long series
    are drawn as bin means (see ``smooth_step``, which documents both). A run whose series
    lacks the quantity is left out (the figure says so when none has it).
    """
    if what not in TIMESERIES_KINDS:
        raise ConfigError("what", what, list(TIMESERIES_KINDS))
    infos = [_run_info(store, r) for r in run_ids]
    fig, ax = _new_figure(6.4, 3.6)
    ax.set_title(title or timeseries_title(what, window), fontsize=11)
    if not infos:
        return _empty(fig, ax, "no runs")
    series = []
    recorded = []
    for info in infos:
        one = series_of(store.timeseries(info["run_id"]), what, info["procs"])
        if one is None:  # e.g. a kind of run that does not record it
            continue
        series.append(one)
        recorded.append(info)
    if not recorded:
        return _empty(fig, ax, f"no run records {_series_column(what)}")
    infos = recorded
    drawn = draw_timeseries(
        ax,
        series,
        _labels(infos),
        _styles(infos, colors),
        what,
        window=window,
        max_points=max_points,
    )
    if drawn is None:
        return fig
    # below the axes: a time series has no empty corner to hold it
    fig.legend(loc="outside lower center", ncols=min(len(infos), 4), fontsize=8, frameon=False)
    return fig


def _series_column(what: str) -> str:
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


def series_of(frame: Any, what: str, procs: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(times, values) of ``what`` from a time-series table (columns ``time``, ``queued``,
    ``running``, ``busy_procs``: a DataFrame or a dict of arrays), the value that holds
    after each instant; ``utilization`` = busy_procs / ``procs``. None when the table lacks
    the quantity."""
    column = _series_column(what)
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
        _blank(ax, "empty time series")
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


def gantt(
    store: ResultStore,
    run_id: str,
    start: float | None = None,
    end: float | None = None,
    max_jobs: int = 400,
    *,
    title: str | None = None,
) -> Figure:
    """Jobs of one run as bars from start to finish, stacked on processor rows.

    The window [start, end] (s, trace origin) defaults to the 2 days after the first
    submission; it is shortened so that at most ``max_jobs`` jobs are drawn (those that
    start first). Rows come from ``processor_bands``: a first-fit drawing, not the real
    allocation (the title says so). Killed jobs are hatched.
    """
    if max_jobs < 1:
        raise ConfigError("max_jobs", max_jobs, "an integer >= 1")
    info = _run_info(store, run_id)
    jobs = store.jobs(run_id)
    fig, ax = _new_figure(10.0, 4.8)
    draw_gantt(
        ax,
        jobs,
        info["procs"],
        start,
        end,
        max_jobs,
        heading=title
        or f"Run {run_id}: {info['policy']} on {info['workload']}, load {info['load_factor']:g}",
        empty_title=title or f"Run {run_id}: no job runs in this window",
    )
    return fig


class GanttDrawn(NamedTuple):
    """What ``draw_gantt`` drew: the window (s), the jobs drawn, whether the window was cut
    to ``max_jobs`` and how many jobs were split over non-adjacent rows."""

    start: float
    end: float
    jobs: int
    shortened: bool
    split: int


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
    """
    if max_jobs < 1:
        raise ConfigError("max_jobs", max_jobs, "an integer >= 1")
    ax.grid(False)
    started = np.asarray(jobs["started_at"], dtype=np.float64)
    finished = np.asarray(jobs["finished_at"], dtype=np.float64)
    keep = np.isfinite(started) & np.isfinite(finished) & (finished > started)
    submitted = np.asarray(jobs["submitted_at"], dtype=np.float64)
    first_submit = float(np.nanmin(submitted)) if submitted.size else 0.0
    lo = first_submit if start is None else float(start)
    hi = lo + GANTT_DEFAULT_SPAN if end is None else float(end)
    if hi <= lo:
        raise ConfigError("gantt window", (start, end), "start < end (seconds)")
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
        return GanttDrawn(lo, hi, 0, shortened, 0)
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
        ax.legend(
            handles=[Patch(facecolor="white", edgecolor="0.15", hatch="////", label="killed")],
            fontsize=8,
            frameon=False,
            loc="upper left",
            bbox_to_anchor=(0.0, 1.0),
        )
    return GanttDrawn(lo, hi, int(inside.size), shortened, split)


# -- output ------------------------------------------------------------------------------


def _metadata(fmt: str) -> dict[str, Any]:
    if fmt == "svg":
        return {"Date": None}
    if fmt == "pdf":
        return {"CreationDate": None, "ModDate": None}
    return {}


def save(fig: Figure, path: str | Path, *, dpi: float = 150) -> Path:
    """Write ``fig`` as PNG, SVG or PDF, chosen by the extension; returns the path.

    Reproducible: no date in the metadata, a fixed SVG hash salt. PNG at ``dpi``.
    """
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ConfigError("figure path", str(path), sorted(FORMATS))
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASH_SALT}), atomic_output(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi, metadata=_metadata(fmt))
    return path


_XML_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.S)


def to_svg(fig: Figure, *, id_prefix: str = "", text_as_paths: bool = False) -> str:
    """The figure as an ``<svg>`` element to place inside an HTML page.

    No XML prologue or doctype; text as ``<text>`` (small, selectable) unless
    ``text_as_paths``; every id (and every reference to one) gets ``id_prefix``, so that
    several figures in one page never share an id.
    """
    buffer = io.StringIO()
    rc: Any = {
        "svg.hashsalt": SVG_HASH_SALT,
        "svg.fonttype": "path" if text_as_paths else "none",
    }
    with matplotlib.rc_context(rc):
        fig.savefig(buffer, format="svg", metadata=_metadata("svg"))
    text = _XML_PROLOGUE.sub("", buffer.getvalue(), count=1)
    if id_prefix:
        text = re.sub(r'\bid="', f'id="{id_prefix}', text)
        text = text.replace("url(#", f"url(#{id_prefix}")
        text = re.sub(r'href="#', f'href="#{id_prefix}', text)
    return text.strip()
