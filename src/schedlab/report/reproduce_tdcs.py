"""Figures of `schedlab reproduce tdcs` (Baranov and Tikhomirov, 2017), drawn from the
reproduction's ``figure_data`` (`report.reproduce.draw_figures`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.report.style import legend_beside, save

_TDCS_COMPONENTS = (
    ("global_queue_time", "global queue", "#9467bd"),
    ("transfer_time", "transfer", "#ff7f0e"),
    ("local_queue_time", "local queue", "#d62728"),
    ("run_time", "run", "#1f77b4"),
)


def tdcs_components_figure(means: dict[str, dict[str, float]], path: Path) -> Path:
    """Baranov and Tikhomirov (Computational Technologies 2017): the high-priority jobs'
    mean processing time per configuration, as stacked components (global queue, transfer,
    local queue, run; means over the seeds)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 3.4), layout="constrained")
    ax = fig.subplots()
    names = list(means)
    x = np.arange(len(names))
    bottom = np.zeros(len(names))
    for key, label, color in _TDCS_COMPONENTS:
        values = np.array([means[n][key] for n in names], dtype=np.float64)
        ax.bar(x, values, bottom=bottom, color=color, label=label)
        bottom += values
    ax.set_xticks(x, [n.replace("_", " ") for n in names], fontsize=8)
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


def tdcs_figures(data: dict[str, Any], out: Path) -> list[Path]:
    return [
        tdcs_components_figure(data["means"], out / "tdcs_components.svg"),
        tdcs_horizon_figure(data["horizon"], out / "tdcs_horizon.svg"),
    ]
