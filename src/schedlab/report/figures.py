"""Figures of a results folder, for papers and for the HTML report.

``metric_bars`` compares the policies over the catalog; ``cdf``, ``timeseries`` and ``gantt``
draw runs of the folder (with the drawings of ``drawing``, which also serve the figures of
one run). Each returns a ``matplotlib.figure.Figure`` made directly (see ``style``);
``save`` writes it as PNG, SVG or PDF, the same results giving the same bytes, and
``policy_colors`` gives the colours to pass to every figure of a document so that a policy
keeps its colour.

A run is named by the fields that differ among the runs drawn together (policy, workload,
load factor, seed).

DESIGN.md section 1: this package is the only one that imports plotting libraries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.errors import ConfigError
from schedlab.report.drawing import (
    CDF_COLUMNS,
    TIMESERIES_KINDS,
    GanttDrawn,
    busiest_of,
    draw_cdf,
    draw_gantt,
    draw_timeseries,
    job_values,
    series_column,
    series_of,
    timeseries_title,
)
from schedlab.report.style import (
    METRIC_LABELS,
    blank,
    legend_beside,
    log_axis,
    new_figure,
    policy_colors,
    policy_names,
    save,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from schedlab.experiments.store import ResultStore

__all__ = ["cdf", "gantt", "metric_bars", "policy_colors", "save", "timeseries"]

_LINESTYLES = ("-", "--", ":", "-.")


# -- naming ------------------------------------------------------------------------------


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


def _empty(fig: Figure, ax: Axes, message: str) -> Figure:
    """``fig`` saying ``message`` in place of a drawing."""
    blank(ax, message)
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
    fig, ax = new_figure(width, 4.0)
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
        log_axis(ax, "y", "log")
    ax.set_xticks(range(len(groups)), [_group_label(by, g) for g in groups])
    ax.set_ylabel(METRIC_LABELS.get(metric, metric))
    ax.grid(False, axis="x")
    legend_beside(ax, title="policy")
    return fig


# -- runs of the folder ------------------------------------------------------------------


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
    fig, ax = new_figure()
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
    fig, ax = new_figure(6.4, 3.6)
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
        return _empty(fig, ax, f"no run records {series_column(what)}")
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

    The window [start, end] (s, trace origin) defaults to the busiest 2 days of the run
    (highest mean utilization, from its recorded time series; as ``schedlab run --plot``);
    it is shortened so that at most ``max_jobs`` jobs are drawn (those that start first).
    Rows come from ``processor_bands``: a first-fit drawing, not the real allocation (the
    title says so). Killed jobs are hatched.
    """
    return gantt_drawn(store, run_id, start, end, max_jobs, title=title)[0]


def gantt_drawn(
    store: ResultStore,
    run_id: str,
    start: float | None = None,
    end: float | None = None,
    max_jobs: int = 400,
    *,
    title: str | None = None,
) -> tuple[Figure, GanttDrawn]:
    """``gantt`` and what it drew (the window, the jobs, whether it was cut), for a
    caption that says which window it shows."""
    if max_jobs < 1:
        raise ConfigError("max_jobs", max_jobs, "an integer >= 1")
    info = _run_info(store, run_id)
    jobs = store.jobs(run_id)
    if start is None and end is None:
        start, end = busiest_of(jobs, store.timeseries(run_id), info["procs"])
    fig, ax = new_figure(10.0, 4.8)
    drawn = draw_gantt(
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
    return fig, drawn
