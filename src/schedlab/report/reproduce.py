"""Figures of the paper reproductions: ours next to the published values.

A reproduction (`schedlab.experiments.reproduce`) only computes; `draw_figures` draws its
figures from the data it carries (``Reproduction.figure_data``). Built like every figure
(`report.style`: a Figure made directly, saved with `style.save`, so the same rows give the
same bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.errors import ConfigError
from schedlab.experiments.reproduce.common import Reproduction, change
from schedlab.experiments.reproduce.published import DBF_TABLES, PPS_TABLES
from schedlab.report.reproduce_dirac import dirac_figures
from schedlab.report.reproduce_hlw import hlw_figures
from schedlab.report.reproduce_tdcs import tdcs_figures
from schedlab.report.style import legend_below, log_axis, new_figure, save


def draw_figures(paper: str, reproduction: Reproduction, out: Path) -> list[Path]:
    """Draw reproduction ``paper``'s figures into ``out`` from its ``figure_data``, append
    their paths to ``reproduction.files`` (after its tables) and return them."""
    draw = _DRAWERS.get(paper)
    if draw is None:
        raise ConfigError("paper", paper, sorted(_DRAWERS))
    paths = draw(reproduction.figure_data, out)
    reproduction.files.extend(paths)
    return paths


def dbf_figure(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Change of the priority jobs' mean wait, DBF vs CBF, per workload and case: ours and
    Table 1 of N'Takpé and Suter (ComPAS 2016), as grouped bars."""
    fig, ax = new_figure(7.0, 3.8)
    labels, ours, paper = [], [], []
    for row in rows:
        labels.append(f"{row['workload']}\n({row['case']})")
        ours.append(change(row["dbf_priority_mean_wait_time"], row["cbf_priority_mean_wait_time"]))
        published = DBF_TABLES[row["published_as"]]["priority"]["wait_h"]
        paper.append(published[1] if row["case"] == "a" else published[2])
    x = np.arange(len(labels))
    ax.bar(x - 0.2, ours, 0.4, label="schedlab", color="#1f77b4")
    ax.bar(x + 0.2, paper, 0.4, label="N'Takpé and Suter (ComPAS 2016), Table 1", color="#bbbbbb")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("priority jobs' mean wait,\nDBF vs CBF (%)")
    legend_below(fig, ncols=2)  # under the bars, never over them
    return save(fig, path)


def pps_figure(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Mean response time against load, EASY and PPS, one panel per workload: ours (lines)
    and Table 1 of Zhang and Pan (PPS) (the workload it stands for, dashed)."""
    from matplotlib.figure import Figure

    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    fig = Figure(figsize=(3.2 * max(len(workloads), 1), 3.2), layout="constrained")
    axes = fig.subplots(1, max(len(workloads), 1), squeeze=False)[0]
    for ax, name in zip(axes, workloads):
        mine = sorted((r for r in rows if r["workload"] == name), key=lambda r: r["load_factor"])
        loads = [r["load_factor"] for r in mine]
        paper_name = mine[0]["published_as"]
        published = PPS_TABLES[paper_name]
        paper_loads = sorted(published)
        for column, (policy, marker, color) in enumerate(
            (("EASY", "o", "#d62728"), ("PPS", "s", "#2ca02c"))
        ):
            key = f"{policy.lower()}_mean_response_time"
            ax.plot(loads, [r[key] for r in mine], f"{marker}-", color=color, label=policy)
            ax.plot(
                paper_loads,
                [published[f][column] for f in paper_loads],
                f"{marker}--",
                color=color,
                alpha=0.45,
                label=f"{policy}, published for the workload in the title",
            )
        ax.set_title(f"{name} (for {paper_name})", fontsize=9)
        ax.set_xlabel("load factor")
        log_axis(ax, "y", "log", steps=(1.0, 2.0, 5.0))
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("mean response time (s)")
    if workloads:  # one legend for the panels, which share their entries
        legend_below(fig, *axes[0].get_legend_handles_labels(), ncols=2)
    return save(fig, path)


def mmc_figure(
    rows: Sequence[dict[str, Any]],
    paper_rows: Sequence[dict[str, Any]],
    path: Path,
    *,
    expectation: Sequence[dict[str, Any]] = (),
) -> Path:
    """M/M/c validation: simulated mean response (99 % intervals) on Erlang C's curve, one
    panel per server count, and a last panel with the protocol of Caron et al. (16 x 1000 jobs
    from empty, c = 4, service 4 s), whose bias near saturation is visible."""
    from matplotlib.figure import Figure

    from schedlab.metrics.queueing import mmc_mean_response_time

    servers = sorted({int(r["servers"]) for r in rows})
    panels = len(servers) + (1 if paper_rows else 0)
    fig = Figure(figsize=(3.3 * max(panels, 1), 3.2), layout="constrained")
    axes = fig.subplots(1, max(panels, 1), squeeze=False)[0]
    grid = np.linspace(0.01, 0.97, 200)
    for ax, c in zip(axes, servers):
        mine = sorted((r for r in rows if r["servers"] == c), key=lambda r: r["load"])
        ax.plot(grid, [mmc_mean_response_time(c, x) for x in grid], color="0.3", lw=1)
        loads = np.array([r["load"] for r in mine])
        means = np.array([r["simulated_mean_response_time"] for r in mine])
        err = np.array([r["ci_high"] - r["simulated_mean_response_time"] for r in mine])
        ax.errorbar(loads, means, yerr=err, fmt="o", ms=3, color="#1f77b4", capsize=2)
        ax.set_title(f"M/M/{c}, service 1 s", fontsize=9)
        ax.set_xlabel("load ρ")
        ax.set_ylabel("mean response time (s)")
    if paper_rows:
        ax = axes[-1]
        ax.plot(grid, [mmc_mean_response_time(4, x, 4.0) for x in grid], color="0.3", lw=1,
                label="Erlang C")  # fmt: skip
        loads = np.array([r["load"] for r in paper_rows])
        means = np.array([r["simulated_mean_response_time"] for r in paper_rows])
        err = np.array([r["ci_high"] - r["simulated_mean_response_time"] for r in paper_rows])
        ax.errorbar(loads, means, yerr=err, fmt="s", ms=3, color="#d62728", capsize=2,
                    label="16 x 1000 jobs from empty")  # fmt: skip
        if expectation:
            ax.plot([r["load"] for r in expectation],
                    [r["simulated_mean_response_time"] for r in expectation], "--",
                    color="#d62728", lw=1, label="its expectation (400 runs)")  # fmt: skip
        ax.set_title("Caron et al. (LIP RR-2005-13): M/M/4 protocol", fontsize=9)
        ax.set_xlabel("load ρ")
        legend_below(fig, *ax.get_legend_handles_labels(), ncols=3)
    return save(fig, path)


# paper -> (figure data, folder) -> the figures drawn, in the order they are listed
_DRAWERS: dict[str, Callable[[dict[str, Any], Path], list[Path]]] = {
    "dbf": lambda data, out: [dbf_figure(data["main_rows"], out / "dbf_priority_wait.svg")],
    "pps": lambda data, out: [pps_figure(data["main_rows"], out / "pps_response_time.svg")],
    "hlw": hlw_figures,
    "dirac": dirac_figures,
    "tdcs": tdcs_figures,
}
