"""Figures of `schedlab reproduce tdcs` (Baranov and Tikhomirov, 2017), drawn from the
reproduction's ``figure_data`` (`report.reproduce.draw_figures`)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.report.style import legend_below, legend_beside, save

HIGH = "high_priority_mean_processing_time"
_TDCS_COMPONENTS = (
    ("global_queue_time", "global queue", "#9467bd"),
    ("transfer_time", "transfer", "#ff7f0e"),
    ("local_queue_time", "local queue", "#d62728"),
    ("run_time", "run", "#1f77b4"),
)


def tdcs_components_figure(
    means: dict[str, dict[str, float]], path: Path, width: float = 7.0
) -> Path:
    """Baranov and Tikhomirov (Computational Technologies 2017): the high-priority jobs'
    mean processing time per configuration, as stacked components (global queue, transfer,
    local queue, run; means over the seeds). Also the post-hoc ablations (issue 25), from
    the fewest of the dispatcher's ingredients to all of them."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 3.4), layout="constrained")
    ax = fig.subplots()
    names = list(means)
    x = np.arange(len(names))
    bottom = np.zeros(len(names))
    for key, label, color in _TDCS_COMPONENTS:
        values = np.array([means[n][key] for n in names], dtype=np.float64)
        ax.bar(x, values, bottom=bottom, color=color, label=label)
        bottom += values
    ax.set_xticks(x, [textwrap.fill(n.replace("_", " "), 12) for n in names], fontsize=8)
    ax.set_ylabel("high-priority mean processing time (s)")
    legend_beside(ax)
    return save(fig, path)


def tdcs_horizon_figure(curve: Sequence[Sequence[Any]], path: Path) -> Path:
    """Baranov and Tikhomirov (Computational Technologies 2017): tdcs against its horizon H
    (unlimited drawn at the right): the high-priority mean processing time and the
    low-priority mean wait (means over the seeds)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 3.2), layout="constrained")
    ax = fig.subplots()
    labels = ["unlimited" if h is None else str(h) for h, _, _ in curve]
    x = np.arange(len(curve))
    ax.plot(x, [c[1] for c in curve], "o-", color="#1f77b4", label="high: processing time")
    ax.plot(x, [c[2] for c in curve], "s--", color="#d62728", label="low: wait")
    ax.set_xticks(x, labels)
    ax.set_xlabel("horizon H (global jobs per cluster)")
    ax.set_ylabel("seconds")
    legend_beside(ax)
    return save(fig, path)


def tdcs_repeated_preemption_figure(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Post-hoc (issue 25): tdcs against its horizon H, what the paper wants H for. Left:
    the global jobs preempted twice or more and the most preemptions of one job; right:
    what it costs, the high-priority processing time and the low and background waits
    (means over the seeds; unlimited drawn at the right; log scales, linear below 1 on the
    left)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.0, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    labels = ["unlimited" if r["horizon"] is None else str(r["horizon"]) for r in rows]
    x = np.arange(len(rows))
    for ax, series in (
        (left, (("global_repeatedly_preempted_jobs", "global jobs preempted 2+", "o-",
                 "#d62728"),
                ("repeatedly_preempted_jobs", "all jobs preempted 2+", "s--", "#9467bd"),
                ("max_preemptions_of_a_job", "most preemptions of one job", "^:",
                 "#2ca02c"))),
        (right, ((HIGH, "high: processing time (s)", "o-", "#1f77b4"),
                 ("low_priority_mean_wait_time", "low: wait (s)", "s--", "#ff7f0e"),
                 ("background_mean_wait_time", "background: wait (s)", "^:", "#7f7f7f"))),
    ):  # fmt: skip
        for key, label, style, color in series:
            ax.plot(x, [r[key] for r in rows], style, color=color, label=label)
        ax.set_xticks(x, labels)
        ax.set_xlabel("horizon H")
    # one legend for both panels, under them: never over a curve
    handles = [h for ax in (left, right) for h in ax.get_legend_handles_labels()[0]]
    legend_below(fig, handles, [str(h.get_label()) for h in handles], ncols=3, fontsize=7)
    left.set_yscale("symlog", linthresh=1.0)  # 0 (no job preempted twice) stays on it
    left.set_ylim(bottom=0.0)
    right.set_yscale("log")
    left.set_ylabel("jobs per run / preemptions")
    right.set_ylabel("seconds")
    return save(fig, path)


def tdcs_figures(data: dict[str, Any], out: Path) -> list[Path]:
    paths = [
        tdcs_components_figure(data["means"], out / "tdcs_components.svg"),
        tdcs_horizon_figure(data["horizon"], out / "tdcs_horizon.svg"),
    ]
    if "ablations" in data:
        paths.append(tdcs_components_figure(data["ablations"], out / "tdcs_ablations.svg", 8.0))
    if "repeated" in data:
        paths.append(tdcs_repeated_preemption_figure(data["repeated"], out / "tdcs_repeated.svg"))
    return paths
